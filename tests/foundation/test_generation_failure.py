"""Issue #12.4: a failed generation is never scored as the model's answer, in any benchmark.

The detector on the failure answers of lmms-eval 0.7.3's wrappers, then each benchmark's
``process_results`` on them (status ``generation_failed``, value 0, no judge call), and the one
end-of-run warning. The real-CLI runs are in tests/foundation/test_generation_failure_e2e.py.
"""

from __future__ import annotations

import json
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


# ----------------------------------------------------------------------------- DoD


@pytest.fixture
def dod_docs(tmp_path, monkeypatch):
    from dod_fixtures import make_dataset, read_jsonl

    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    monkeypatch.setenv("LMMS_PLUGINS_DOD_REFUSAL", "rules")
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

    assert summarize(hooks._records(items))["D_strict"]["statuses"] == {GENERATION_FAILED: total}
    assert hooks.aggregate_D_strict(items) == 0.0


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
        monkeypatch.delenv("LMMS_PLUGINS_GRADE_VERDICTS", raising=False)
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
