"""lmms-eval hooks of the ``grade`` task: thin adapters around records, judging and scoring.

Per-sample statuses (besides ``ok``):
* ``missing_image``: the model returned no image (or a path that does not exist): R = C = L = 0,
  no judge call;
* ``bad_image``: the returned image cannot be read: R = C = L = 0, no judge call;
* ``generation_failed``: the request failed on the model side (an lmms-eval wrapper's failure
  marker, an empty output): R = C = L = 0, no judge call;
* ``judge_error``: a judge call failed after its retries, or no judge is configured: that
  dimension is pending (``None``, counted as 0, kept in the denominator);
* ``missing_verdict``: the setting ``verdicts`` names verdict files, the sample has no (complete)
  verdict there and no judge is configured: pending like ``judge_error``;
* ``missing_data``: the input or reference image of the dataset cannot be read: pending;
* ``error``: an unexpected exception (``never_raises``).

The verdict files, the judge prompts and the judge model are task settings (settings.py: keys of
the YAML ``metadata``), given to the scorer by the task class as ``settings=``.
"""

from __future__ import annotations

import logging
import sys
from functools import lru_cache
from pathlib import Path

from lmms_plugins.utils import aggregation
from lmms_plugins.utils import status as st
from lmms_plugins.utils.settings import given_or_default

from .settings import SETTINGS

log = logging.getLogger("lmms_plugins.grade")

METRICS = ("grade_strict", "grade_lenient", "grade_reasoning", "grade_consistency", "grade_readability",
           "generation_failure_rate", "grade_breakdown")
MISSING_VERDICT = "missing_verdict"


# ------------------------------------------------------------------------------- data and prompt
def process_docs(dataset):
    """Replace the placeholder rows by the GRADE records (local copy, else the hub snapshot).

    Runs while lmms-eval builds the task, before the model gets any request; the judge is
    checked when the task's requests are built (:func:`preflight`, called by the task class).
    """
    import datasets

    from lmms_plugins.tasks.grade.records import dataset_root, load_records

    docs = load_records(dataset_root())  # data problems name what is missing
    log.info("grade: %d samples", len(docs))
    return datasets.Dataset.from_list(docs)


def preflight(settings=None) -> None:
    """The judge (or a verdict file) must be usable and the prompts must parse; else PreflightError."""
    from lmms_plugins.tasks.grade.judging import PROMPT_NAMES, load_prompt
    from lmms_plugins.tasks.grade.verdicts import VerdictFileError, verdicts_for
    from lmms_plugins.utils import preflight as pf
    from lmms_plugins.utils.judge_settings import judge_overrides

    settings = given_or_default(SETTINGS, settings)  # a misspelt setting stops the run here
    if pf.skipped():
        return
    judge = judge_overrides(settings)
    if settings["verdicts"]:
        try:
            verdicts_for(settings["verdicts"])  # read once now (cached): a wrong path stops the run here
        except VerdictFileError as exc:
            raise pf.PreflightError(f"grade: {exc}") from None
        pf.check_configured_judge("grade", **judge)  # the judge then only fills what the file lacks
        return
    pf.require_judge("grade", "or verdict files in metadata.verdicts", **judge)
    for name in PROMPT_NAMES:
        try:
            prompt = load_prompt(name, settings["prompts"])
        except (OSError, ValueError) as exc:
            raise pf.PreflightError(f"grade: judge prompt {name}: {exc}") from None
        if prompt.origin.endswith(".jinja"):
            pf.check_jinja(prompt.source, prompt.origin)


def doc_to_visual(doc):
    from lmms_plugins.utils.images import load_rgb

    return [load_rgb(doc["image_path"], keep_source=True)]  # an editor may send the file itself


@lru_cache(maxsize=1)
def _template():
    from lmms_plugins.utils.templates import compile_template

    path = Path(__file__).with_name("prompt.jinja")
    return compile_template(path.read_text(encoding="utf-8"), origin=str(path))


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return _template().render(text=doc["text"], pre_prompt=kw.get("pre_prompt", ""), post_prompt=kw.get("post_prompt", ""))


# ------------------------------------------------------------------------------- scoring one sample
def _record(doc, state: str, reason: str, *, R, C, L, **extra) -> dict:
    from lmms_plugins.tasks.grade.scoring import SampleScore

    score = SampleScore(
        task_id=doc["task_id"], domain=doc["domain"], sub_task=doc.get("sub_task", ""),
        consistency_type=doc["consistency"], R=R, C=C, L=L, status=state, reason=reason,
    )
    fields = dict(
        task_id=score.task_id, domain=score.domain, sub_task=score.sub_task, consistency_type=score.consistency_type,
        R=R, C=C, L=L, strict=score.strict, **extra,
    )
    values = {
        "grade_strict": 100.0 if score.strict else 0.0,
        "grade_reasoning": None if R is None else 100.0 * R,
        "grade_consistency": None if (C is None) else 50.0 * C,
        "grade_readability": None if L is None else 50.0 * L,
        "grade_lenient": None,
        "grade_breakdown": 100.0 if score.strict else 0.0,
        "generation_failure_rate": 1.0 if state == st.GENERATION_FAILED else 0.0,
    }
    if R is not None and L is not None and (C is not None or not score.c_applicable):
        # the official per-sample relaxed score (0.8/0.2 when consistency does not apply);
        # informative only: the reported lenient score is computed from the means
        values["grade_lenient"] = (0.6 * 100 * R + 0.3 * 50 * C + 0.1 * 50 * L) if score.c_applicable else (0.8 * 100 * R + 0.2 * 50 * L)
    out = {m: st.sample(values[m], state, reason, doc["task_id"], **fields) for m in METRICS}
    if not score.c_applicable:  # no consistency to judge: not pending (utils/run_summary, lmms-plugins check)
        out["grade_consistency"]["applicable"] = False
    # for the report, once per sample (not on every metric): the rubric with its weights, beside the
    # judge's answers, and which image is which
    out["grade_breakdown"].update(rubric=_rubric(doc), images={"input": doc.get("image_path"), "reference": doc.get("gt")})
    return out


def _rubric(doc) -> list:
    from lmms_plugins.tasks.grade.records import GradeDataError, parse_questions

    try:
        return [{"id": q.id, "question": q.question, "weight": q.score} for q in parse_questions(doc["questions"], doc["task_id"])]
    except (GradeDataError, KeyError):
        return []


def _zero(doc, state: str, reason: str) -> dict:
    c = None if doc["consistency"] == "none" else 0
    return _record(doc, state, reason, R=0.0, C=c, L=0, judge_calls=0, source="none")


@st.never_raises(metrics=METRICS)
def process_results(doc, results, settings=None):
    """Score one sample; never raises (an unexpected failure is status ``error``, dimensions pending)."""
    try:
        return _process_results(doc, results, given_or_default(SETTINGS, settings))
    except Exception as exc:  # noqa: BLE001 - recorded, counted and shown, never lost
        log.exception("grade: scoring %s failed", doc.get("task_id"))
        return _record(doc, st.ERROR, f"{type(exc).__name__}: {exc}", R=None, C=None, L=None, judge_calls=0, source="none")


def _unreadable_edit(path) -> str:
    """The decoder's reason why the edited image cannot be used ('' when it decodes)."""
    from lmms_plugins.tasks.grade.judging import MAX_SIDE
    from lmms_plugins.utils.images import ImageError, load_rgb

    try:
        load_rgb(path, max_side=MAX_SIDE)  # as small as the judge would get it
    except (ImageError, OSError) as exc:
        return f"edited image: {exc}"
    return ""


def _process_results(doc, results, settings):
    from lmms_plugins.tasks.grade.records import parse_questions
    from lmms_plugins.tasks.grade.rubric import match_answers
    from lmms_plugins.tasks.grade.verdicts import verdicts_for
    from lmms_plugins.utils.model_output import parse_model_output

    task_id = doc["task_id"]
    questions = parse_questions(doc["questions"], task_id)
    c_applies = doc["consistency"] != "none"
    dims = ("R", "C", "L") if c_applies else ("R", "L")

    verdicts = verdicts_for(settings["verdicts"])
    verdict = verdicts.get(task_id) if verdicts is not None else None
    R = C = L = None
    answers: list = []
    matched_by = ""
    source = []
    if verdict is not None:
        if verdict.R is not None:
            R = verdict.R
        elif verdict.answers is not None:
            rv = match_answers(questions, list(verdict.answers))
            R, answers, matched_by = rv.score, [a.__dict__ for a in rv.answers], rv.matched_by
        C = verdict.C if c_applies else None
        L = verdict.L
        source.append("verdicts")
    have = {"R": R is not None, "C": C is not None, "L": L is not None}
    need = [d for d in dims if not have[d]]
    if not need:  # everything came from the verdict file: the image is not needed
        return _record(doc, verdict.status, verdict.reason, R=R, C=C, L=L, answers=answers, matched_by=matched_by,
                       judge_calls=0, source="+".join(source))

    from lmms_plugins.utils.generation_failure import detect

    failure = detect(results[0] if results else None)
    if failure is not None:  # the request failed: no edit to judge, and not the model's answer
        return _zero(doc, st.GENERATION_FAILED, failure.reason)
    out = parse_model_output(results[0] if results else None)
    if not out.has_image:
        why = "; ".join(out.problems) or "the model returned no image"
        return _zero(doc, st.MISSING_IMAGE, why)

    from lmms_plugins.tasks.grade.judging import PROMPT_NAMES, BadDatasetImage, BadEditedImage, judge_sample, load_prompt
    from lmms_plugins.utils.judge_client import JudgeError, shared_client
    from lmms_plugins.utils.judge_settings import judge_overrides

    def pending(state: str, reason: str) -> dict:
        return _record(doc, state, reason, R=R, C=C, L=L, answers=answers, matched_by=matched_by,
                       judge_calls=0, source="+".join(source) or "none")

    try:
        client = shared_client(**judge_overrides(settings))
    except JudgeError as exc:
        unreadable = _unreadable_edit(out.image)  # without a judge the image is still checked
        if unreadable:
            return _zero(doc, st.BAD_IMAGE, unreadable)
        state = MISSING_VERDICT if verdicts is not None else st.JUDGE_ERROR
        return pending(state, f"no verdict for {', '.join(need)}: {exc}" if verdicts is not None else str(exc))
    try:
        judged = judge_sample(
            client, instruction=doc["text"], questions=questions, consistency_type=doc["consistency"],
            original=doc["image_path"], edited=out.image, reference=doc["gt"], need=need,
            prompts={n: load_prompt(n, settings["prompts"]) for n in PROMPT_NAMES},
        )
    except BadEditedImage as exc:
        return _zero(doc, st.BAD_IMAGE, str(exc))
    except BadDatasetImage as exc:
        return pending(st.MISSING_DATA, f"dataset image unusable: {exc}")
    source.append("judge")
    if "R" in need:
        R = judged.R.value
        if judged.R.detail is not None:
            answers = [a.__dict__ for a in judged.R.detail.answers]
            matched_by = judged.R.detail.matched_by
    if "C" in need and judged.C is not None:
        C = judged.C.value
    if "L" in need:
        L = judged.L.value
    errors = [e for e in judged.errors if not e.endswith("not asked")]
    state = st.JUDGE_ERROR if errors else st.OK
    cached = all(d.cached for d in (judged.R, judged.C, judged.L) if d is not None and d.error == "" and d.value is not None)
    return _record(doc, state, "; ".join(errors), R=R, C=C, L=L, answers=answers, matched_by=matched_by,
                   judge_calls=judged.calls, cached=cached, source="+".join(source))


# ------------------------------------------------------------------------------- aggregation
def sample_scores(items: list, name: str | None = None):
    from lmms_plugins.tasks.grade.scoring import SampleScore

    if name:  # status counts logged once per run (by the breakdown), not once per metric
        st.report(name, items)
    seen: dict[str, SampleScore] = {}
    for i, it in enumerate(items):
        if not isinstance(it, dict) or "consistency_type" not in it:
            # a never_raises fallback record: no dimensions, a scored 0 with status error
            it = dict(it or {}, consistency_type="overall", R=0.0, C=0, L=0, domain="(unknown)", sub_task="")
        sid = str(it["id"]) if it.get("id") is not None else f"(unidentified {i})"
        if sid in seen:  # never double-count a sample (e.g. padded distributed runs)
            continue
        seen[sid] = SampleScore(
            task_id=sid, domain=it.get("domain") or "(unknown)", sub_task=it.get("sub_task") or "",
            consistency_type=it["consistency_type"], R=it.get("R"), C=it.get("C"), L=it.get("L"),
            status=it.get("status", st.OK), reason=it.get("reason", ""),
        )
    return list(seen.values())


def _overall(items, name):
    from lmms_plugins.tasks.grade.scoring import score_group

    return score_group(sample_scores(items), n_resamples=0)


def _se(name: str):
    def se(items):
        from lmms_plugins.tasks.grade.scoring import standard_error

        return standard_error(sample_scores(items), name)

    return se


#: the judged dimensions each score needs (C only where the sample's consistency type applies)
_NEEDS = {"strict": "RCL", "lenient": "RCL", "reasoning": "R", "consistency": "C", "readability": "L"}


def _stands_on(name: str, items: list) -> int:
    """Samples that were generated and have every dimension ``grade_<name>`` needs decided.

    A failed generation counts 0 in every score (the paper averages over all N samples), but a
    score none of whose samples was generated and judged is not a number: NaN, not 0."""
    n = 0
    for s in sample_scores(items):
        if s.status == st.GENERATION_FAILED:
            continue
        dims = {"R": s.R, "C": s.C if s.c_applicable else 0, "L": s.L}
        if name == "consistency" and not s.c_applicable:
            continue
        n += all(dims[d] is not None for d in _NEEDS[name])
    return n


def _dimension(name: str):
    """The aggregation of ``grade_<name>``: that score of the whole run, with its standard error;
    NaN when no generated sample has the judged dimensions it needs."""

    def compute(items):
        value = getattr(_overall(items, f"grade_{name}"), name)
        return value if _stands_on(name, items) else float("nan")

    def se(items):
        return _se(name)(items) if _stands_on(name, items) else None

    return aggregation.named(f"aggregate_{name}", compute, se=se,
                             doc=f"grade_{name} of the run (scoring.score_group), with its standard error.")


# one aggregation per metric of grade.yaml, named aggregate_<metric> (utils/aggregation.py)
aggregate_strict = _dimension("strict")
aggregate_lenient = _dimension("lenient")
aggregate_reasoning = _dimension("reasoning")
aggregate_consistency = _dimension("consistency")
aggregate_readability = _dimension("readability")
aggregate_generation_failure_rate = aggregation.failure_rate("aggregate_generation_failure_rate")


def aggregate_breakdown(items):
    """Run facts for the table (samples, status counts). lmms-eval prints every aggregated value in its
    table, so the per-domain and per-sub-task scores go to the log, one short line each, not into this row
    (``scoring.breakdown`` gives them all, with intervals, from the samples file's records)."""
    from lmms_plugins.tasks.grade.scoring import breakdown_lines, score_group
    from lmms_plugins.utils.generation_failure import warn_once

    warn_once(items, "grade")  # once per task: this metric is aggregated once
    samples = sample_scores(items, "grade_breakdown")
    for line in breakdown_lines(samples):  # printed: lmms-eval's log level hides INFO
        print(f"[lmms_plugins] {st.task_label('grade')}: {line}", file=sys.stderr)
    overall = score_group(samples, n_resamples=0)
    return {"n": overall.n, "n_consistency": overall.n_consistency, "status_counts": dict(overall.status_counts)}

