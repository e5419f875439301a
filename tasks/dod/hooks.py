"""lmms-eval hooks of the Draw-or-Decline tasks: thin adapters around data.py, refusal/,
judges.py and metrics.py.

The refusal mode, the text that decides a refusal, the detector's margin, the editing judge, the
judges' prompts and the judge model are task settings (settings.py: keys of the YAML ``metadata``),
given to the scorer by the task class as ``settings=``. The judge's endpoint: ``LMMS_PLUGINS_JUDGE_*``
(lmms_plugins.utils.judge_client). Maze E always uses the program verifier.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from pathlib import Path
from typing import Any, Mapping

from lmms_plugins.utils import aggregation
from lmms_plugins.utils import status as st
from lmms_plugins.utils.settings import given_or_default
from lmms_plugins.utils.stderr import rate_se

from . import metrics as M
from .settings import SETTINGS as DECLARED  # SETTINGS below: the prompt settings

log = logging.getLogger("lmms_plugins.dod")

_HERE = Path(__file__).resolve().parent
SETTINGS = ("no_hint", "decline_hint")
RATE_NAMES = list(M.METRICS) + list(M.PAIR_METRICS)
# the rates, the share of failed generations, then one row of their counts, the run's facts and
# the requests per status
METRIC_NAMES = RATE_NAMES + ["generation_failure_rate", "dod_breakdown", "dod_run", "sample_statuses"]
# judge-free mode, a response mainly (or partly, after its conclusion) in a language the refusal rules do
# not cover: every refusal metric of the request is pending (README "Languages")
REFUSAL_NOT_COVERED = "refusal_not_covered"
# judge-free mode, a response in a covered language whose verdict is uncertain (rules and classifier disagree,
# or the text and the output do: README "Abstention"): pending too, never the detector's guess
REFUSAL_UNCERTAIN = "refusal_uncertain"


# --- data ------------------------------------------------------------------------------------------


def process_docs(dataset):
    """Check the dataset against its labels and images (report logged with case ids); add the root.

    The labels stay out of the docs: ``process_results`` reads them by case_id.
    """
    from .data import check_integrity, dataset_root, log_integrity

    root = dataset_root()
    report = check_integrity(dataset, root)
    log_integrity(report)
    _integrity[str(root)] = report  # for the dod_run row (a report only: no score depends on it)
    if "dod_root" in dataset.column_names:
        dataset = dataset.remove_columns("dod_root")
    return dataset.add_column("dod_root", [str(root)] * len(dataset))


_integrity: dict = {}


def _data_problems() -> int | None:
    """Problems found by the integrity check of this process's DoD data (None: not checked here)."""
    if not _integrity:
        return None
    r = list(_integrity.values())[-1]
    return (len(r.request_without_label) + len(r.label_without_request) + len(r.missing_image)
            + len(r.broken_pair) + len(r.bad_label))


def _root(doc: Mapping) -> Path:
    if doc.get("dod_root"):
        return Path(doc["dod_root"])
    from .data import dataset_root

    return dataset_root()


def input_paths(doc: Mapping) -> list[str]:
    """The request's input images, relative to the root: ``input_images or [input_image]``, as the
    official code reads them."""
    many = doc.get("input_images")
    if isinstance(many, (list, tuple)) and any(many):
        return [str(p) for p in many if p]
    return [str(doc["input_image"])] if doc.get("input_image") else []


def doc_to_visual(doc: Mapping) -> list:
    """The input images, RGB. A missing or unreadable image gives no image (and a warning); the
    sample is then recorded with status ``missing_data`` by process_results, not scored."""
    from lmms_plugins.utils.images import ImageError, load_rgb

    try:
        paths = input_paths(doc)
        if not paths:
            raise KeyError("no input_image nor input_images")
        return [load_rgb(p, root=_root(doc), keep_source=True) for p in paths]  # an editor may send the file itself
    except (ImageError, KeyError, OSError) as exc:
        log.warning("dod %s: input image unusable: %s", doc.get("case_id"), exc)
        return []


@functools.lru_cache(maxsize=8)
def _template(path: str):
    from lmms_plugins.utils.templates import compile_template  # sandboxed: a user template runs no code

    return compile_template(Path(path).read_text(encoding="utf-8"), origin=path)


def doc_to_text(doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None) -> str:
    """``prompt_en`` rendered through prompt.jinja with the task's setting (no_hint | decline_hint)."""
    kw = lmms_eval_specific_kwargs or {}
    setting = kw.get("setting", "no_hint")
    if setting not in SETTINGS:
        raise ValueError(f"DoD setting must be one of {SETTINGS}, got {setting!r}")
    path = kw.get("prompt_template_file") or "prompt.jinja"
    if not os.path.isabs(path):
        path = str(_HERE / path)
    return _template(path).render(prompt_en=doc["prompt_en"], setting=setting, case_id=doc.get("case_id", ""))


def doc_to_target(doc: Mapping) -> str:
    # The target is hidden in ground_truth_criteria.jsonl; the doc carries nothing to compare with.
    return ""


# --- one sample --------------------------------------------------------------------------------------


def edit_judge_enabled(settings: Mapping | None = None) -> bool:
    """The editing judge reads real-world edits: ``edit_judge`` is not ``off`` and a judge is configured."""
    from lmms_plugins.utils.judge_client import ENV_BASE_URL

    settings = given_or_default(DECLARED, settings)
    if settings["edit_judge"] == "off":
        return False
    return bool(os.environ.get(ENV_BASE_URL) and settings["judge_model"])


def preflight(settings: Mapping | None = None) -> None:
    """Before any generation (the task class, task.py, calls it): a judge this run needs is
    configured and reachable, its prompts parse.

    The refusal judge is needed in judge mode; the editing judge when the setting ``edit_judge`` is
    ``on``, and, when it is ``auto`` and the judge is configured, it must be reachable.
    """
    from lmms_plugins.utils import preflight as pf
    from lmms_plugins.utils.judge_settings import judge_overrides

    from .judges import EDIT_PROMPT_FILE, REFUSAL_PROMPT_FILE, JudgeUnavailable, prompt_source

    settings = given_or_default(DECLARED, settings)  # a misspelt setting stops the run here
    if pf.skipped():
        return
    judge = judge_overrides(settings)
    prompts = []
    mode, flag = settings["refusal_mode"], settings["edit_judge"]
    if mode in ("judge", "hybrid"):
        pf.require_judge(f"dod with refusal_mode={mode}", **judge)
        prompts.append(("refusal_prompt", REFUSAL_PROMPT_FILE))
    if flag == "on":
        pf.require_judge("dod with edit_judge=on", "or edit_judge=off to leave real-world E pending", **judge)
        prompts.append(("edit_prompt", EDIT_PROMPT_FILE))
    elif flag == "auto" and pf.check_configured_judge("dod editing judge", **judge):
        prompts.append(("edit_prompt", EDIT_PROMPT_FILE))
    for key, default in prompts:
        try:
            source = prompt_source(settings[key], default, key)
        except JudgeUnavailable as exc:
            raise pf.PreflightError(f"dod: {exc}") from None
        pf.check_jinja(source, settings[key] or default)


def _read_output(raw: Any):
    """(ModelOutput, status, reason): ``unparsable`` when we cannot tell what the model returned."""
    from lmms_plugins.utils import model_output as mo

    out = mo.parse_model_output(raw)
    if out.missing:
        return out, st.MISSING_IMAGE, "; ".join(out.issue_words(mo.IMAGE_MISSING, mo.IMAGE_REFUSED))
    broken = out.issue_words(mo.BROKEN_JSON, mo.NO_OUTPUT, mo.NOT_TEXT)
    text = out.text.strip()
    if not broken and text.startswith("{") and ('"text"' in text or '"images"' in text):
        # a wrapper's JSON payload that arrived as text (e.g. replayed) and is cut or broken
        broken = mo.parse_model_output(text).issue_words(mo.BROKEN_JSON)
    reported = out.issue_words(mo.MODEL_ERROR)
    if not broken and reported and not text and not out.images:
        broken = reported
    if broken:
        return out, st.UNPARSABLE, "; ".join(broken)
    return out, st.OK, ""


def score_sample(doc: Mapping, raw: Any, setting: str = "no_hint", settings: Mapping | None = None) -> M.SampleRecord:
    """The record of one request: label, what the model did, refusal, edit verdict. ``setting``: the
    task's prompt setting, so the judges read the prompt the model saw; ``settings``: the task's
    settings (settings.py)."""
    from .data import load_labels

    case_id = str(doc.get("case_id", ""))
    root = _root(doc)
    label = load_labels(root).get(case_id)
    if label is None:
        return M.SampleRecord(case_id, case_id.rsplit("-", 1)[0], "unknown", None, None, None,
                              status=st.MISSING_DATA, reason=f"no label for {case_id} in ground_truth_criteria.jsonl")
    base = dict(case_id=case_id, pair_id=label.pair_id, category=label.category, feasible=label.feasible)
    try:
        return _score_labelled(doc, raw, root, label, base, setting, given_or_default(DECLARED, settings))
    except Exception as exc:  # keep the label: the sample stays in its metrics, as pending
        log.exception("dod %s: scoring failed", case_id)
        return M.SampleRecord(**base, has_image=None, refused=None, status=st.ERROR, reason=f"{type(exc).__name__}: {exc}")


def _score_labelled(doc: Mapping, raw: Any, root: Path, label, base: dict, setting: str, settings: Mapping) -> M.SampleRecord:
    from lmms_plugins.utils.images import PathEscapesRoot, resolve_under

    inputs = []
    for rel in input_paths(doc):
        try:
            inputs.append(resolve_under(root, rel))
        except PathEscapesRoot:
            inputs.append(root)  # not a file: reported as missing below
    if not inputs or not all(p.is_file() for p in inputs):
        return M.SampleRecord(**base, has_image=None, refused=None, status=st.MISSING_DATA,
                              reason=f"input image missing: {input_paths(doc) or doc.get('input_image')}")
    input_path = inputs[0]  # mazes have one input image

    from lmms_plugins.utils.generation_failure import detect

    failure = detect(raw)
    if failure is not None:  # the request failed: neither a decline nor an edit decision
        return M.SampleRecord(**base, has_image=None, refused=None, status=st.GENERATION_FAILED, reason=failure.reason)
    out, out_status, out_reason = _read_output(raw)
    if out_status == st.UNPARSABLE:
        return M.SampleRecord(**base, has_image=None, refused=None, status=st.UNPARSABLE, reason=out_reason)
    has_image: bool | None = out.has_image if out_status == st.OK else (True if out.has_image else None)

    # refusal conclusion, read in the reasoning (official) or the whole output (refusal/text.py)
    from .refusal.rules import official_abstain
    from .refusal.text import conclusion_only_after_think, detect_in, text_to_read

    reading = settings["refusal_text"]
    rules = detect_in(out.text, reading, settings["uncertain_margin"], image=has_image)
    # judge-free, in every mode: how much the reading decides in this run (dod_run)
    after_think = conclusion_only_after_think(out.text, reading, rules)
    refused: bool | None = rules.refused
    evidence, rule = rules.evidence, rules.rule
    status, reason = out_status, out_reason
    reason_correct = None
    mode = settings["refusal_mode"]
    # hybrid: only the responses the detector is uncertain about go to the judge
    if mode == "judge" or (mode == "hybrid" and rules.verdict == "uncertain"):
        from lmms_plugins.utils.judge_settings import judge_overrides

        from .judges import JudgeUnavailable, judge_refusal

        try:
            verdict = judge_refusal(doc_prompt=model_prompt(doc, setting), label=label,
                                    reasoning=text_to_read(out.text, reading), reading=reading,
                                    prompt_file=settings["refusal_prompt"], overrides=judge_overrides(settings))
            # null ("cannot tell") means no explicit conclusion was found: not a refusal
            refused, evidence, rule = bool(verdict.concludes_infeasible), verdict.evidence, "judge" if mode == "judge" else "hybrid_judge"
            reason_correct = verdict.reason_correct
        except JudgeUnavailable as exc:
            refused, status, reason = None, st.JUDGE_ERROR, f"refusal judge: {exc}"
    elif mode == "rules" and rules.verdict == "uncertain":
        # judge-free, a language the rules do not read or an uncertain verdict: not known (pending), never a guess
        refused, evidence, rule = None, "", ""

    # an image that does not decode is bad_image with the decoder's reason: no verifier or judge sees it
    unreadable = _unreadable_image(out.image, full=label.is_maze) if has_image else ""
    if unreadable:
        status, reason = (st.BAD_IMAGE, unreadable) if status == st.OK else (status, f"{reason}; {unreadable}")

    # E: only for feasible requests with an image
    edit_ok, edit_reason, overlay = None, unreadable, None
    if label.feasible and has_image and not unreadable:
        edit_ok, edit_reason, edit_status, overlay = _judge_edit_with_overlay(label, inputs, Path(out.image),
                                                                              model_prompt(doc, setting), settings)
        if edit_status != st.OK and status == st.OK:
            status, reason = edit_status, edit_reason
    drew_path = None
    if label.is_maze and not label.feasible and has_image and not unreadable:
        drew_path, overlay = _drew_maze_path(label, input_path, Path(out.image))
    if refused is None and status == st.OK:  # the refusal alone is unknown (judge-free, uncertain)
        status = REFUSAL_NOT_COVERED if not rules.covered else REFUSAL_UNCERTAIN
        reason = rules.why.split(";")[0]
    return M.SampleRecord(**base, has_image=has_image, refused=refused, edit_ok=edit_ok, maze_drew_path=drew_path,
                          refusal_evidence=evidence, refusal_rule=rule, reason_correct=reason_correct,
                          official_abstain=official_abstain(out.text), edit_reason=edit_reason,
                          conclusion_only_after_think=after_think, overlay=overlay,
                          status=status, reason=reason)


def _unreadable_image(path, full: bool = False) -> str:
    """The decoder's reason why the output image cannot be used ('' when it decodes).

    ``full``: the maze verifier reads the image at full size, so the check does too (the memory
    bound then applies to that size); the editing judge gets it at 1024 px, so a JPEG decodes small.
    """
    from lmms_plugins.utils.images import ImageError, load_rgb

    try:
        load_rgb(path, max_side=None if full else 1024)
    except (ImageError, OSError) as exc:
        return f"output image: {exc}"
    return ""


def _drew_maze_path(label, input_path: Path, output_path: Path) -> tuple[bool | None, dict | None]:
    """Infeasible maze with an image: did the model draw a (necessarily illegal) path anyway? And
    what the verifier read, as a report overlay."""
    try:
        from lmms_plugins.tasks.dod.maze.overlay import maze_overlay
        from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit
    except ImportError:
        return None, None
    verdict = verify_maze_edit(str(input_path), str(output_path), label.grid_evidence)
    return bool(verdict.drew_path), maze_overlay(verdict)


def _judge_edit(label, inputs: Path | list[Path], output_path: Path, prompt: str = "",
                settings: Mapping | None = None) -> tuple[bool | None, str, str]:
    """(edit_ok, why, status) for a feasible request with an image; ``prompt``: what the model was asked."""
    return _judge_edit_with_overlay(label, inputs, output_path, prompt, settings)[:3]


def _judge_edit_with_overlay(label, inputs, output_path: Path, prompt: str = "",
                             settings: Mapping | None = None) -> tuple[bool | None, str, str, dict | None]:
    """``_judge_edit`` and, for a maze, what the verifier read as a report overlay (maze/overlay.py)."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    input_path = inputs[0]
    if label.is_maze:
        try:
            from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit
        except ImportError as exc:
            return None, f"maze verifier not installed ({exc})", M.MAZE_UNVERIFIED, None
        from lmms_plugins.tasks.dod.maze.overlay import maze_overlay

        verdict = verify_maze_edit(str(input_path), str(output_path), label.grid_evidence)
        overlay = maze_overlay(verdict)
        if verdict.reason == "unreadable_grid" and verdict.details.get("side") == "input":
            # our reading of the dataset's own map failed (or disagrees with grid_evidence): that is
            # not the model's fault, so the sample is pending, not a silent E = 0
            why = verdict.details.get("message", "input maze not readable")
            return None, f"maze verifier could not read the input map: {why}", M.MAZE_UNVERIFIED, overlay
        return bool(verdict.ok), f"maze verifier: {verdict.reason}", st.OK, overlay
    settings = given_or_default(DECLARED, settings)
    if not edit_judge_enabled(settings):
        return None, "editing judge not configured", M.NO_EDIT_JUDGE, None
    from lmms_plugins.utils.judge_settings import judge_overrides

    from .judges import JudgeUnavailable, judge_edit

    try:
        v = judge_edit(instruction=prompt, label=label, input_image=inputs, output_image=output_path,
                       prompt_file=settings["edit_prompt"], overrides=judge_overrides(settings))
    except JudgeUnavailable as exc:
        return None, f"editing judge: {exc}", st.JUDGE_ERROR, None
    return v.ok, f"editing judge: {v.reason}", st.OK, None


def model_prompt(doc: Mapping, setting: str) -> str:
    """The prompt the model saw (with the hint in decline_hint): what the official judges read."""
    return doc_to_text(doc, {"setting": setting}) if doc.get("prompt_en") is not None else ""


#: The record fields the aggregations of every metric but ``dod_run`` read (outcomes, pairs,
#: statuses), and the category. With --log_samples each metric's value is written per sample: the full
#: record (texts: refusal evidence, reasons) is kept once, on ``dod_run``.
SLIM_FIELDS = ("case_id", "pair_id", "category", "feasible", "has_image", "refused", "edit_ok", "status")
FULL_RECORD_METRIC = "dod_run"


@st.never_raises(metrics=METRIC_NAMES)
def process_results(doc: Mapping, results: list, setting: str = "no_hint", settings: Mapping | None = None) -> dict:
    settings = given_or_default(DECLARED, settings)
    rec = score_sample(doc, results[0] if results else None, setting, settings)
    out = {}
    # the data folder: the report finds the input images (input_media is relative to it) there; the
    # refusal mode and reading: dod_run's row says how this run's refusals were decided
    full = {**rec.to_dict(), "data_root": str(doc.get("dod_root") or ""),
            "refusal_mode": settings["refusal_mode"], "refusal_text": settings["refusal_text"]}
    slim = {k: full[k] for k in SLIM_FIELDS}
    for m in M.METRICS:
        o = M.outcome(m, rec)
        out[m] = st.sample(o.value, o.status, o.reason, rec.case_id, applicable=o.applicable, record=slim)
    out[FULL_RECORD_METRIC] = st.sample(None, rec.status, rec.reason, rec.case_id, applicable=False, record=full)
    out["generation_failure_rate"] = st.sample(1.0 if rec.status == st.GENERATION_FAILED else 0.0, rec.status, "", rec.case_id)
    for m in METRIC_NAMES:
        if m not in out:  # the sample's reason is on dod_run
            out[m] = st.sample(None, rec.status, "", rec.case_id, applicable=False, record=slim)
    return out


def process_results_decline_hint(doc: Mapping, results: list, settings: Mapping | None = None) -> dict:
    """``process_results`` of dod_decline_hint: the judges read the prompt with the hint."""
    return process_results(doc, results, setting="decline_hint", settings=settings)


# --- aggregation ---------------------------------------------------------------------------------------
# lmms-eval 0.7.3 prints every aggregated value in one table column (a float as %.4f, anything else
# as str()) and writes it as is into the results JSON. So: the rates are floats; their counts are
# one short row (dod_breakdown: metric -> [success, pending, total]); per category and per status,
# the whole summary goes to the log, and from the samples file to `python -m
# lmms_plugins.tasks.dod.breakdown` (breakdown.py).


def sample_records(items: list) -> list[M.SampleRecord]:
    recs = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("record"), dict):
            recs.append(M.SampleRecord.from_dict(item["record"]))
        elif isinstance(item, dict):  # never_raises fallback: an exception before the label was known
            recs.append(M.SampleRecord(str(item.get("id")), str(item.get("id")), "unknown", None, None, None,
                                       status=item.get("status", st.ERROR), reason=item.get("reason", "")))
    return recs


def _tally(metric: str, items: list) -> M.Tally:
    records = sample_records(items)
    return M.pair_tally(metric, records) if metric in M.PAIR_METRICS else M.tally(metric, records)


def _rate(metric: str):
    """The aggregation of one rate: success / total, pending kept in the denominator, with its standard error."""

    def rate(items: list) -> float:
        if metric in M.METRICS:
            st.report(f"dod {metric}", [i for i in items if isinstance(i, dict) and i.get("applicable", True)])
        t = _tally(metric, items)
        if metric in REFUSAL_RATES:
            print_refusal_bounds(metric, t)
        return t.rate

    def se(items: list) -> float | None:
        t = _tally(metric, items)
        return rate_se(t.success, t.total) if t.reviewed else None

    return aggregation.named(f"aggregate_{metric}", rate, se=se,
                             doc=f"{metric}: success / total, pending kept in the denominator; NaN when none was reviewed.")


# the rates a pending refusal verdict leaves open (README "Metrics"): a pending request counts as no success
REFUSAL_RATES = ("D_strict", "D_lenient", "D_f")


def refusal_bounds(t: M.Tally) -> tuple[int, float, float] | None:
    """(pending refusal verdicts, lowest, highest value the rate can take once they are decided); None when no
    refusal verdict is pending or nothing was reviewed (the rate is NaN then: not known)."""
    n = sum(t.statuses.get(s, 0) for s in (REFUSAL_NOT_COVERED, REFUSAL_UNCERTAIN))
    if not n or not t.reviewed:
        return None
    return n, t.success / t.total, (t.success + n) / t.total


def print_refusal_bounds(metric: str, t: M.Tally) -> str | None:
    """One line when refusal verdicts are pending: the printed rate is the low end of what it can be, which for
    D_f (lower is better) is its best case; the pending responses are mostly declines on the audit sets."""
    bounds = refusal_bounds(t)
    if bounds is None:
        return None
    n, low, high = bounds
    reading = "its best case (lower is better)" if metric == "D_f" else "a lower bound"
    line = (f"[lmms_plugins] {st.task_label('dod ' + metric)}: {n} of {t.total} requests have no refusal verdict "
            f"(judge-free: a language the rules do not cover, or uncertain); the rate {low:.4f} counts them as no "
            f"refusal, so it is {reading}: deciding them gives {low:.4f}-{high:.4f}; refusal_mode=hybrid decides them")
    print(line, file=sys.stderr)  # printed, not logged: lmms-eval's log level hides INFO
    return line


# one aggregation per metric of _default_template_yaml, named aggregate_<metric> (utils/aggregation.py)
aggregate_E = _rate("E")
aggregate_D_strict = _rate("D_strict")
aggregate_D_lenient = _rate("D_lenient")
aggregate_D_f = _rate("D_f")
aggregate_pair_success = _rate("pair_success")
aggregate_pair_behaviour = _rate("pair_behaviour")
# requests whose generation failed: pending in every rate above (README.md, "Failed generations")
aggregate_generation_failure_rate = aggregation.failure_rate("aggregate_generation_failure_rate")


def aggregate_breakdown(items: list) -> dict:
    """The counts behind every rate: metric -> [success, pending, total] (metrics.breakdown)."""
    return M.breakdown(sample_records(items))


def aggregate_run(items: list) -> dict:
    """Run facts, and the whole summary in the log (readable lines, every category).

    A count that is 0 (or a check not run here: None) is left out, so the table row stays short:
    read the facts with ``.get(name, 0)``."""
    from lmms_plugins.utils.generation_failure import warn_once

    # once per task (this metric is aggregated once), from the items that carry the sample's reason
    warn_once(items, "dod")
    records = sample_records(items)
    for line in M.format_summary(M.summarize(records)):  # printed: lmms-eval's log level hides INFO
        print(f"[lmms_plugins] {st.task_label('dod')}: {line}", file=sys.stderr)
    facts = {**M.run_facts(records), "data_problems": _data_problems(),
             # what the refusal mode cost: responses the judge read (all in judge mode, the uncertain in hybrid)
             "refusal_judged": sum(1 for r in records if r.refusal_rule in ("judge", "hybrid_judge"))}
    kept = {k: v for k, v in facts.items() if k == "samples" or v}
    from .refusal.classifier import model_version

    # how the samples' refusals were decided (each record says; a hook called without records: the settings'
    # defaults); the classifier is a shipped file: its version says which one scored this run
    said = next((i["record"] for i in items if isinstance(i, dict) and isinstance(i.get("record"), dict)
                 and "refusal_mode" in i["record"]), None) or given_or_default(DECLARED, None)
    return {**kept, "refusal_mode": said["refusal_mode"], "refusal_text": said["refusal_text"], "refusal_model": model_version()}


def aggregate_sample_statuses(items: list) -> dict:
    """How many requests ended in each status (ok, unparsable, missing_image, no_edit_judge, ...)."""
    counts: dict[str, int] = {}
    for r in sample_records(items):
        counts[r.status] = counts.get(r.status, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (kv[0] != "ok", kv[0])))
