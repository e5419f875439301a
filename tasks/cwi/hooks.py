"""lmms-eval hooks for the CwI tasks (thin adapters around ``rules.score``).

:func:`process_results` scores with the task's rule, which the task class (task.py, named by
``class:`` in ``_default_template_yaml``) binds to it: the card task's rule in
``task_rules.RULES`` (``metadata.cwi_task``), or the ``metadata.cwi_rule`` of a task written in YAML
alone. lmms-eval 0.7.3 calls ``process_results(doc, results)`` without the task config, which is
why the class binds it. A ``rule=`` keyword gives it directly (tests, scripts).
"""

from __future__ import annotations

import functools
import os
from typing import Any, Mapping

from lmms_plugins.utils import aggregation, generation_failure, status
from lmms_plugins.utils.stderr import mean_se, values_of
from lmms_plugins.utils.model_output import parse_model_output

from .answer_parse import find_span
from .rules import BAD_GOLD, UNPARSABLE, Rule, RuleError, grid_of, rule_from_config, score

TIERS = ("easy", "medium", "hard", "expert")
# Every doc returns every metric, ending with one that always has a value: lmms-eval 0.7.3 takes
# a task's sample count from the *last* metric it aggregates, so a tier-only list there would
# shrink the task's size (and its weight in the groups).
METRICS = tuple(f"accuracy_{t}" for t in TIERS) + ("accuracy", "generation_failure_rate", "extraction_failure_rate")
_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_TEMPLATE = "prompt.jinja"


# ---------------------------------------------------------------------------- prompt and visuals


def _template(source: str):
    from lmms_plugins.utils.templates import compile_template  # sandboxed: a YAML template runs no code

    return compile_template(source, origin="cwi prompt template")


@functools.lru_cache(maxsize=32)
def _template_file(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def doc_to_text(doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None) -> str:
    """Render the prompt template around the dataset's ``prompt``.

    ``lmms_eval_specific_kwargs`` may set ``prompt_template`` (inline Jinja) or
    ``prompt_template_file`` (a path, relative paths are taken in this folder).
    """
    kw = lmms_eval_specific_kwargs or {}
    source = kw.get("prompt_template")
    if not source:
        path = kw.get("prompt_template_file") or _DEFAULT_TEMPLATE
        if not os.path.isabs(path):
            path = os.path.join(_HERE, path)
        source = _template_file(path)
    values = {k: v for k, v in doc.items() if isinstance(v, (str, int, float)) or v is None}
    values.setdefault("prompt", "")
    return _template(source).render(**values).strip()


def doc_to_visual(doc: Mapping) -> list:
    """``image`` and, for two-image tasks, ``image_2``, as RGB PIL images."""
    out = []
    for key in ("image", "image_2"):
        im = doc.get(key)
        if im is None:
            continue
        if getattr(im, "mode", "RGB") != "RGB":
            im = im.convert("RGB")
        out.append(im)
    return out


def doc_to_target(doc: Mapping) -> str:
    return str(doc.get("answer", ""))


# ---------------------------------------------------------------------------- scoring

_rule_cache: dict[int, tuple[Any, Rule]] = {}
NO_RULE = ("no rule reached the scorer: the task's YAML must name `class: !function "
           "lmms_plugins.tasks.cwi.task.CwiTask` (or include tasks/cwi/_default_template_yaml) and "
           "carry metadata.cwi_rule or metadata.cwi_task")


def _resolve_rule(raw: Any) -> Rule:
    if isinstance(raw, Rule):
        return raw
    hit = _rule_cache.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    rule = rule_from_config(raw)
    if len(_rule_cache) > 256:  # a run has a few tasks; keep the cache small anyway
        _rule_cache.clear()
    _rule_cache[id(raw)] = (raw, rule)
    return rule


def process_docs(dataset):
    """The dataset as it is. Named by CwI YAMLs written before the task class, which now checks the
    rule and the prompt template while lmms-eval builds the task (task.py)."""
    return dataset


def _tier(doc: Mapping) -> str | None:
    t = str(doc.get("difficulty", "")).strip().lower()
    return t if t in TIERS else None


@status.never_raises(metrics=METRICS)
def process_results(doc: Mapping, results: list, rule: Any = None, **_: Any) -> dict:
    """Score one document: accuracy, accuracy_<tier>, extraction_failure_rate, with ``rule`` (bound
    by the task class; a task whose YAML names no ``class:`` gets none, and every sample says so)."""
    sid = doc.get("id")
    if rule is None:
        return {m: status.sample(0.0, status.ERROR, NO_RULE, sid) for m in METRICS}
    try:
        parsed_rule = _resolve_rule(rule)
    except RuleError as exc:
        return {m: status.sample(0.0, status.ERROR, f"bad cwi_rule: {exc}", sid) for m in METRICS}
    raw = results[0] if results else None
    failure = generation_failure.detect(raw)
    if failure is not None:  # the request failed: not an answer, so not "unparsable" either
        gen = status.sample(0.0, status.GENERATION_FAILED, failure.reason, sid,
                            predicted=None, gold=_jsonable(doc.get("answer")), tier=_tier(doc))
        out = {f"accuracy_{t}": gen for t in TIERS}
        out["accuracy"] = gen
        out["generation_failure_rate"] = status.sample(1.0, status.GENERATION_FAILED, failure.reason, sid)
        out["extraction_failure_rate"] = status.sample(0.0, status.GENERATION_FAILED, failure.reason, sid)
        return out
    prediction = _text_of(raw)
    # flat cell indices vs (row, col) cells need the grid's size, which only the item knows
    context = grid_of(doc) if parsed_rule.kind == "set" and parsed_rule.item_size == 2 else None
    s = score(parsed_rule, prediction, doc.get("answer"), context)
    extra = {"predicted": _jsonable(s.predicted), "gold": _jsonable(s.gold), "tier": _tier(doc)}
    acc = status.sample(s.value, s.status, s.reason, sid, **extra)
    failed = s.status == UNPARSABLE
    # the tier metrics get the same sample; each tier's aggregation keeps its own tier's items
    out = {f"accuracy_{t}": acc for t in TIERS}
    out["accuracy"] = acc
    out["generation_failure_rate"] = status.sample(0.0, s.status, "", sid)
    out["extraction_failure_rate"] = status.sample(
        1.0 if failed else 0.0, s.status, s.reason if s.status != status.OK else "", sid
    )
    if s.status == BAD_GOLD:
        status.log.warning("cwi item %s: %s", sid, s.reason)
    return out


def _text_of(raw: Any) -> str:
    """The model's text: wrappers that can also return images answer json {"text", "images"};
    anything else (plain text, JSON the model wrote itself) is scored as it is."""
    text = parse_model_output(raw).text
    if find_span(text) is not None:
        return text
    if isinstance(raw, str):
        return raw
    return "" if raw is None else text


def _jsonable(v: Any) -> Any:
    if isinstance(v, frozenset):
        return sorted(_jsonable(x) for x in v)
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------------------- aggregations


def _accuracy(items: list) -> float:
    generation_failure.warn_once(items, "cwi")  # once per task: this metric is aggregated once
    return status.mean(items, "cwi accuracy")


def _of_tier(tier: str):
    return lambda item: isinstance(item, dict) and item.get("tier") == tier


# one aggregation per metric of the YAML, named aggregate_<metric> (utils/aggregation.py)
aggregate_accuracy = aggregation.named(
    "aggregate_accuracy", _accuracy, se=lambda items: None if status.nothing_generated(items) else mean_se(values_of(items)),
    doc="cwi accuracy: mean over the items (a failed generation counts 0; NaN when none was generated), with its standard error.")
# accuracy over the items of one tier (NaN when the split has none)
aggregate_accuracy_easy = aggregation.mean("aggregate_accuracy_easy", "cwi accuracy_easy", keep=_of_tier("easy"))
aggregate_accuracy_medium = aggregation.mean("aggregate_accuracy_medium", "cwi accuracy_medium", keep=_of_tier("medium"))
aggregate_accuracy_hard = aggregation.mean("aggregate_accuracy_hard", "cwi accuracy_hard", keep=_of_tier("hard"))
aggregate_accuracy_expert = aggregation.mean("aggregate_accuracy_expert", "cwi accuracy_expert", keep=_of_tier("expert"))
aggregate_extraction_failure_rate = aggregation.mean("aggregate_extraction_failure_rate", "cwi extraction_failure_rate")
aggregate_failure_rate = aggregate_extraction_failure_rate  # its name before CwI 2.0, for task YAMLs users wrote then
aggregate_generation_failure_rate = aggregation.failure_rate(
    "aggregate_generation_failure_rate",
    doc="Share of items whose generation failed (scored 0 in every accuracy, not unparsable).")
