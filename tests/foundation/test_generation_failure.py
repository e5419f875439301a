"""Issue #12.4: a failed generation is never scored as the model's answer, in any benchmark.

The detector on the failure answers of lmms-eval 0.7.3's wrappers, then each benchmark's
``process_results`` on them (status ``generation_failed``, value 0, no judge call), and the one
end-of-run warning. The real-CLI runs are in tests/foundation/test_generation_failure_e2e.py.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dod"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grade"))

from lmms_plugins.utils import generation_failure as gf  # noqa: E402
from lmms_plugins.utils.status import GENERATION_FAILED  # noqa: E402

# What lmms-eval 0.7.3's wrappers return when a request fails (models/simple/openai.py,
# chat/openai.py, chat/async_openai.py, gemini.py, generation_api.py, diffusers_wm_base.py, ...)
VLLM_400 = ("Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 8192 tokens. "
            "However, you requested 16384 output tokens and your prompt contains at least 1 input tokens\"}")
FAILURES = [
    f"[LMMS_EVAL_REQUEST_FAILED after 5 retries] {VLLM_400}",
    "[LMMS_EVAL_REQUEST_FAILED after 1 retries] Connection error.",
    "[GENERATION_FAILED] CUDA out of memory",
    "  [ERROR] Empty prompt",
    json.dumps({"text": "[GENERATION_FAILED] timeout", "images": []}),
    {"text": "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 503", "images": []},
]
EMPTY = ["", "   \n", None, json.dumps({"text": "", "images": []}), b""]
ANSWERS = [
    "<answer>3,-2</answer>",
    "I cannot draw this: no path exists.",
    "[SAFETY_BLOCKED:HARM_CATEGORY_DANGEROUS=HIGH]",  # the provider declined: an answer, not a failure
    "The server said [GENERATION_FAILED] earlier, but here is my answer: 4",  # marker not at the start
    json.dumps({"text": "", "images": ["/no/such/file.png"]}),  # an image named: missing_image, not this
    json.dumps({"text": "", "images": [], "error": "no recorded output for key x"}),  # replay: its own status
    '{"text": "I will draw the square to the rig',  # broken JSON: unparsable, the benchmark's call
    "{not json at all",
]


# Every marker lmms-eval 0.7.3 writes for a request it could not complete, by the source line that
# writes it (models/...; the test reads the installed source, so a moved or reworded marker fails here)
SOURCE_MARKERS = [
    ("models/simple/openai.py", 377, "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Error code: 500"),
    ("models/chat/openai.py", 146, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection error."),
    ("models/chat/async_openai.py", 375, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] timed out"),
    ("models/simple/gemini.py", 483, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] 429 quota"),
    ("models/chat/gemini.py", 225, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] 503"),
    ("models/chat/openai.py", 243, "[LMMS_EVAL_BUDGET_EXCEEDED]"),
    ("models/chat/async_openai.py", 354, "[LMMS_EVAL_BUDGET_EXCEEDED]"),
    ("models/chat/gemini.py", 288, "[LMMS_EVAL_BUDGET_EXCEEDED]"),
    ("models/simple/generation_api.py", 693, "[GENERATION_FAILED] HTTP 502"),
    ("models/simple/generation_api.py", 785, "[GENERATION_FAILED] job failed"),
    ("models/simple/diffusers_wm_base.py", 378, "[GENERATION_FAILED] CUDA out of memory"),
    ("models/simple/cosmos_wm.py", 1353, "[GENERATION_FAILED] timeout"),
    ("models/simple/cosmos_wm.py", 1454, "[GENERATION_FAILED] RuntimeError"),
    ("models/simple/magi1_wm.py", 575, "[GENERATION_FAILED] MAGI-1 produced no output"),
    ("models/simple/magi1_wm.py", 579, "[GENERATION_FAILED] ValueError"),
    ("models/simple/magi1_wm.py", 625, "[GENERATION_FAILED] MAGI-1 produced no output"),
    ("models/simple/magi1_wm.py", 629, "[GENERATION_FAILED] OSError"),
    ("models/simple/wan2_1_t2i.py", 164, "[GENERATION_FAILED] OOM"),
    ("models/simple/generation_api.py", 712, "[ERROR] conditioning video not found (doc key 'video'): None"),
    ("models/simple/generation_api.py", 828, "[ERROR] doc lookup failed"),
    ("models/simple/generation_api.py", 831, "[ERROR] Empty prompt"),
    ("models/simple/generation_api.py", 857, "[ERROR] Unknown"),
    ("models/simple/diffusers_wm_base.py", 387, "[ERROR] Empty prompt"),
    ("models/simple/diffusers_wm_base.py", 398, "[ERROR] Unknown"),
    ("models/simple/cosmos_wm.py", 1463, "[ERROR] Unknown"),
    ("models/simple/magi1_wm.py", 712, "[ERROR] No conditioning input"),
    ("models/simple/magi1_wm.py", 737, "[ERROR] Failed to save conditioning frames"),
    ("models/simple/magi1_wm.py", 740, "[ERROR] Fallback conditioning failed: boom"),
    ("models/simple/magi1_wm.py", 750, "[ERROR] Unknown"),
    ("models/simple/wan2_1_t2i.py", 141, "[ERROR] Empty prompt: doc_id=3"),
    ("models/chat/openai.py", 237, ""),  # a payload it could not build: an empty answer
]


@pytest.mark.parametrize("path, line, raw", SOURCE_MARKERS, ids=[f"{p}:{n}" for p, n, _ in SOURCE_MARKERS])
def test_every_marker_lmms_eval_writes_is_generation_failed(path, line, raw):
    import lmms_eval

    source = (Path(lmms_eval.__file__).parent / path).read_text(encoding="utf-8").splitlines()[line - 1]
    marker = raw.split("]")[0] + "]" if raw else 'text=""'
    head = marker.split(" after ")[0]  # "[LMMS_EVAL_REQUEST_FAILED after {n} retries]" is an f-string there
    assert head in source, (path, line, source)
    for form in (raw, json.dumps({"text": raw, "images": []})):
        failure = gf.detect(form)
        assert failure is not None and failure.kind == ("marker" if raw else "empty"), form
    # the budget marker alone, and any of them in the image-model form, never reads as an answer
    assert gf.detect(raw + "\n") is not None


@pytest.mark.parametrize("raw, kind", [(f, "marker") for f in FAILURES] + [(e, "empty") for e in EMPTY])
def test_known_failure_answers_are_detected(raw, kind):
    failure = gf.detect(raw)
    assert failure is not None and failure.kind == kind
    assert 0 < len(failure.reason) <= 300


@pytest.mark.parametrize("raw", ANSWERS)
def test_answers_and_other_problems_are_not_failures(raw):
    assert gf.detect(raw) is None


def test_reason_keeps_the_error_text():
    failure = gf.detect(FAILURES[0])
    assert failure.reason.startswith("[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 400")
    assert "maximum context length" in failure.reason


def test_warning_is_printed_once_per_task_with_count_and_first_error(capsys):
    items = [{"status": "ok", "reason": ""},
             {"status": GENERATION_FAILED, "reason": "[GENERATION_FAILED] first"},
             {"status": GENERATION_FAILED, "reason": "[GENERATION_FAILED] second"}]
    line = gf.warn_once(items, "unit-test-task")
    assert line is not None and "2 of 3 generations failed" in line and "first error: [GENERATION_FAILED] first" in line
    assert gf.warn_once(items, "unit-test-task") is None  # the same task aggregated again: silent
    assert gf.warn_once([{"status": "ok"}], "unit-test-task-2") is None  # nothing failed: silent
    err = capsys.readouterr().err
    assert err.count("generations failed") == 1


# ----------------------------------------------------------------------------- CwI


def test_cwi_failure_is_generation_failed_not_unparsable():
    from lmms_plugins.tasks.cwi import hooks

    rule = {"kind": "fields", "fields": [{"name": "dx", "tol": 2}, {"name": "dy", "tol": 2}]}
    doc = {"id": "a1", "answer": "3,-2", "difficulty": "hard"}
    for raw in (FAILURES[0], "", None):
        out = hooks.process_results(doc, [raw], rule=rule)
        assert list(out)[-1] == "extraction_failure_rate"
        assert {out[m]["status"] for m in out} == {GENERATION_FAILED}
        assert out["accuracy"]["value"] == 0.0 and out["accuracy_hard"]["tier"] == "hard"
        assert out["generation_failure_rate"]["value"] == 1.0
        assert out["extraction_failure_rate"]["value"] == 0.0  # not an extraction failure
    ok = hooks.process_results(doc, ["<answer>3,-2</answer>"], rule=rule)
    assert ok["accuracy"]["value"] == 1.0 and ok["generation_failure_rate"]["value"] == 0.0
    items = [out["generation_failure_rate"], ok["generation_failure_rate"]]
    assert hooks.aggregate_generation_failure_rate(items) == 0.5
    # nothing generated: no accuracy nor extraction rate to print, only the failure rate
    failed = [hooks.process_results(doc, ["[LMMS_EVAL_BUDGET_EXCEEDED]"], rule=rule) for _ in range(3)]
    for metric in ("accuracy", "accuracy_hard", "extraction_failure_rate"):
        assert math.isnan(getattr(hooks, f"aggregate_{metric}")([o[metric] for o in failed])), metric
    assert hooks.aggregate_generation_failure_rate([o["generation_failure_rate"] for o in failed]) == 1.0
    assert hooks.aggregate_accuracy([o["accuracy"] for o in failed + [ok]]) == 0.25  # failures count 0 (the card)


def test_cwi_code_loop_counts_stand_on_generated_items_only():
    from lmms_plugins.tasks.cwi import code_hooks

    rule = {"kind": "fields", "fields": [{"name": "dx", "tol": 2}, {"name": "dy", "tol": 2}]}
    doc = {"id": "a1", "answer": "3,-2", "difficulty": "easy"}
    failed = [code_hooks.process_results(doc, ["[LMMS_EVAL_BUDGET_EXCEEDED]"], rule=rule) for _ in range(2)]
    for metric in ("rounds_used", "executions", "execution_errors", "timeouts", "answered_without_code"):
        assert {o[metric]["status"] for o in failed} == {GENERATION_FAILED}
        assert math.isnan(getattr(code_hooks, f"aggregate_{metric}")([o[metric] for o in failed])), metric
    answered = code_hooks.process_results(doc, ["<answer>3,-2</answer>"], rule=rule)
    assert code_hooks.aggregate_execution_errors([o["execution_errors"] for o in failed + [answered]]) == 0.0


# ----------------------------------------------------------------------------- DoD


@pytest.fixture
def dod_docs(tmp_path, monkeypatch):
    from dod_fixtures import make_dataset, read_jsonl

    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL", raising=False)
    return {r["case_id"]: {**r, "dod_root": str(root)} for r in read_jsonl(root / "instruction.jsonl")}


def test_dod_failure_is_neither_a_decline_nor_an_edit(dod_docs):
    from lmms_plugins.tasks.dod import hooks

    infeasible = next(d for c, d in dod_docs.items() if c.endswith("-infeasible"))
    feasible = next(d for c, d in dod_docs.items() if c.endswith("-feasible"))
    for doc in (infeasible, feasible):
        for raw in ("", json.dumps({"text": "", "images": []}), FAILURES[0]):
            out = hooks.process_results(doc, [raw])
            record = out["dod_run"]["record"]  # the full record is kept on dod_run only
            assert record["status"] == GENERATION_FAILED and record["refused"] is None and record["has_image"] is None
            assert "maximum context length" in record["reason"] or raw != FAILURES[0]
            for metric in ("E", "D_strict", "D_lenient", "D_f"):
                if out[metric]["applicable"]:  # pending: 0 in the rate, counted under its status
                    assert out[metric]["value"] is None and out[metric]["status"] == GENERATION_FAILED
    items = [hooks.process_results(d, [FAILURES[1]])["D_strict"] for d in dod_docs.values()]
    success, pending, total = hooks.aggregate_breakdown(items)["D_strict"]
    assert success == 0 and pending == total > 0  # the infeasible requests, all pending
    from lmms_plugins.tasks.dod.metrics import summarize

    assert summarize(hooks.sample_records(items))["D_strict"]["statuses"] == {GENERATION_FAILED: total}
    assert math.isnan(hooks.aggregate_D_strict(items))  # no request reviewed: not known, not 0


def test_dod_with_every_generation_failed_prints_no_rate(dod_docs):
    """12 of 12 failed: D_f (lower is better) must not read 0.0 ± 0, nor E / D 0 as measurements."""
    from lmms_plugins.tasks.dod import hooks

    outs = [hooks.process_results(d, ["[LMMS_EVAL_BUDGET_EXCEEDED]"]) for d in dod_docs.values()]
    assert len(outs) == 12
    for metric in ("E", "D_strict", "D_lenient", "D_f", "pair_success", "pair_behaviour"):
        items = [o[metric] for o in outs]
        agg = getattr(hooks, f"aggregate_{metric}")
        assert math.isnan(agg(items)), metric
        from lmms_plugins.utils.stderr import ATTR

        assert getattr(agg, ATTR)(items) is None, metric  # no standard error either: N/A in the table
    assert hooks.aggregate_generation_failure_rate([o["generation_failure_rate"] for o in outs]) == 1.0
    # half failed, half declined: the official rate, pending in the denominator, and the share beside it
    half = [hooks.process_results(d, ["[GENERATION_FAILED] x" if i % 4 < 2 else "There is no valid solution: "
                                           "the requested object is not in the image, so this edit is impossible."])
            for i, d in enumerate(dod_docs.values())]
    assert hooks.aggregate_generation_failure_rate([o["generation_failure_rate"] for o in half]) == 0.5
    success, pending, total = hooks.aggregate_breakdown([o["D_lenient"] for o in half])["D_lenient"]
    assert pending > 0 and hooks.aggregate_D_lenient([o["D_lenient"] for o in half]) == success / total


# ----------------------------------------------------------------------------- ABACUS


def test_abacus_failure_scores_zero_under_its_own_status():
    from PIL import Image

    from lmms_plugins.tasks.abacus import hooks

    doc = {"image": Image.new("RGB", (64, 48)), "count": 2, "category": "sports ball", "abacus_operation": "add", "image_id": 7}
    out = hooks.process_results(doc, [FAILURES[0]])
    assert {v["status"] for v in out.values()} == {GENERATION_FAILED}
    assert out["abacus_score"]["value"] == 0.0 and out["abacus_exact_count"]["value"] == 0.0
    assert "maximum context length" in out["abacus_leaderboard"]["reason"]
    board = hooks.aggregate_leaderboard([out["abacus_leaderboard"]])
    assert board["status_counts"] == {GENERATION_FAILED: 1}
    assert board["n"] == 0 and board["coverage"] == 0.0 and math.isnan(board["score"])
    assert out["abacus_coverage"]["value"] == 0.0 and out["generation_failure_rate"]["value"] == 1.0


def test_non_image_bytes_from_an_images_api_are_generation_failed_not_bad_image():
    """openai_image_edit answers bytes that are no image with lmms-eval's failure marker
    (tests/models/test_openai_image_edit_inputs.py): every image benchmark records generation_failed."""
    from PIL import Image

    from lmms_plugins.models.openai_image_edit import FAILURE_PREFIX
    from lmms_plugins.tasks.abacus import hooks

    raw = f"{FAILURE_PREFIX} after 0 retries] the Images API sent 39 bytes that are not a PNG, JPEG, WebP or GIF image"
    doc = {"image": Image.new("RGB", (64, 48)), "count": 1, "category": "dog", "abacus_operation": "add", "image_id": 3}
    out = hooks.process_results(doc, [raw])
    assert {v["status"] for v in out.values()} == {GENERATION_FAILED}


def _abacus_item(metric_values, state="ok"):
    from lmms_plugins.utils.status import sample

    cf, sc, oc = metric_values
    return {"cf": sample(cf, state), "sc": sample(sc, state), "oc": sample(oc, state),
            "lb": sample(None if state == GENERATION_FAILED else cf * sc * oc, state, cf=cf, sc=sc, oc=oc,
                         edit_score=cf * sc * oc, exact=1.0),
            "cov": sample(0.0 if state == GENERATION_FAILED else 1.0, state),
            "gfr": sample(1.0 if state == GENERATION_FAILED else 0.0, state)}


def test_abacus_score_stands_on_the_edits_that_came_back():
    """9 of 18 edits failed: the Score of the 9 edits (0.9975) with coverage 0.5 beside it, not 0.1247."""
    from lmms_plugins.tasks.abacus import hooks
    from lmms_plugins.tasks.abacus.aggregate import pool

    good = [_abacus_item((1.0, 0.9975, 1.0)) for _ in range(9)]
    failed = [_abacus_item((0.0, 0.0, 0.0), GENERATION_FAILED) for _ in range(9)]
    both = good + failed
    col = lambda items, k: [i[k] for i in items]  # noqa: E731
    assert hooks.aggregate_score(col(both, "lb")) == pytest.approx(0.9975)
    assert hooks.aggregate_score(col(both, "lb")) == pytest.approx(hooks.aggregate_score(col(good, "lb")))
    assert hooks.aggregate_scene_consistency(col(both, "sc")) == pytest.approx(0.9975)
    assert hooks.aggregate_coverage(col(both, "cov")) == 0.5
    assert hooks.aggregate_generation_failure_rate(col(both, "gfr")) == 0.5
    board = hooks.aggregate_leaderboard(col(both, "lb"))
    assert (board["n"], board["coverage"], board["score"]) == (9, 0.5, pytest.approx(0.9975))
    assert board["status_counts"] == {"ok": 9, GENERATION_FAILED: 9}
    # nothing came back: every mean is NaN, the coverage 0
    assert math.isnan(hooks.aggregate_score(col(failed, "lb"))) and math.isnan(hooks.aggregate_count_fidelity(col(failed, "cf")))
    assert hooks.aggregate_coverage(col(failed, "cov")) == 0.0
    # a group pools by the edits scored; its coverage counts every sample
    pooled = pool([board, hooks.aggregate_leaderboard(col(good, "lb"))])
    assert pooled["n"] == 18 and pooled["coverage"] == pytest.approx(18 / 27) and pooled["score"] == pytest.approx(0.9975)


# ----------------------------------------------------------------------------- GRADE


def test_grade_failure_costs_no_judge_call(tmp_path, monkeypatch):
    from grade_fixtures import make_dataset
    from judge_server import FakeJudgeServer

    from lmms_plugins.tasks.grade import hooks
    from lmms_plugins.tasks.grade.records import load_records
    from lmms_plugins.utils.judge_client import reset_shared_clients

    docs = load_records(make_dataset(tmp_path / "GRADE"))
    reset_shared_clients()
    with FakeJudgeServer(lambda req: "{}") as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
        items = []
        for raw in (FAILURES[0], "", json.dumps({"text": "", "images": []})):
            out = hooks.process_results(docs[0], [raw])
            rec = out["grade_breakdown"]
            assert rec["status"] == GENERATION_FAILED and (rec["R"], rec["L"]) == (0.0, 0)
            assert out["grade_strict"]["value"] == 0.0
            items.append(rec)
        assert server.calls == 0
    reset_shared_clients()
    assert hooks.aggregate_breakdown(items)["status_counts"] == {GENERATION_FAILED: 1}  # one sample id, counted once
    every = [hooks.process_results(d, [FAILURES[1]]) for d in docs]
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        assert math.isnan(getattr(hooks, f"aggregate_{name}")([o[f"grade_{name}"] for o in every])), name
    assert hooks.aggregate_generation_failure_rate([o["generation_failure_rate"] for o in every]) == 1.0
    # one answer without an image among failures: a number again (0: the model's answer counts)
    mixed = every[1:] + [hooks.process_results(docs[0], ["I cannot draw that."])]
    assert hooks.aggregate_strict([o["grade_strict"] for o in mixed]) == 0.0


def test_grade_answer_without_an_image_is_scored_not_pending_whatever_its_consistency_type(tmp_path, monkeypatch):
    """A text-only answer is the model's (missing_image, 0): the end-of-run lines and `lmms-plugins
    check` must not count it as pending because consistency does not apply to its sample."""
    from grade_fixtures import make_dataset

    from lmms_plugins.tasks.grade import hooks
    from lmms_plugins.tasks.grade.records import load_records
    from lmms_plugins.utils import run_summary

    docs = load_records(make_dataset(tmp_path / "GRADE"))
    kinds = {d["consistency"] for d in docs}
    assert "none" in kinds and kinds - {"none"}, kinds  # both kinds of sample in the fixture
    answers = [hooks.process_results(d, ["I cannot draw that."]) for d in docs]
    assert {o["grade_strict"]["status"] for o in answers} == {"missing_image"}
    counts = run_summary.count("grade", answers)
    assert counts.clean and counts.pending == 0, counts.line()
    # a consistency that applies and has no verdict is still pending
    pending = dict(answers[0], grade_consistency=dict(answers[0]["grade_consistency"], value=None, status="judge_error"))
    assert run_summary.count("grade", [pending]).pending == 1
    failed = run_summary.count("grade", [hooks.process_results(d, [FAILURES[1]]) for d in docs])
    assert failed.failed == len(docs) and failed.pending == 0


# bracketed upper-case strings in lmms-eval 0.7.3's model wrappers that are not failure answers:
# prompt tags ([INST], [QUESTION], [GEN_PROMPT], [FORMAT OUTPUT]) and a commented-out audio note
NOT_FAILURES = {"[INST]", "[QUESTION]", "[GEN_PROMPT]", "[FORMAT", "[AUDIO_RESPONSE_NOT_SUPPORTED]"}


def test_the_marker_list_is_every_bracketed_marker_in_lmms_evals_wrappers():
    """Found in the source, not guessed: every string literal of lmms_eval/models that starts with a
    bracketed upper-case word is either a failure marker listed above (by file and line, and
    detected) or a known prompt tag; a marker added upstream fails here until it is decided."""
    import re

    import lmms_eval

    root = Path(lmms_eval.__file__).parent
    listed = {(p, n) for p, n, raw in SOURCE_MARKERS if raw}
    found, unknown = set(), []
    for path in sorted((root / "models").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in re.finditer(r"[\"'](\[[A-Z][A-Z_]{3,}[\] ])", line):
                marker = match.group(1).rstrip()
                where = (path.relative_to(root).as_posix(), number)
                if marker in NOT_FAILURES:
                    continue
                if any(marker == m.rstrip("]").rstrip() or marker == m for m in gf.MARKERS):
                    found.add(where)
                else:
                    unknown.append((where, marker))
    assert not unknown, f"bracketed markers not decided on: {unknown}"
    assert found == listed, {"in the source, not listed": sorted(found - listed), "listed, not in the source": sorted(listed - found)}
