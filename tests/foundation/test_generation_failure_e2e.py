"""The real lmms-eval CLI with lmms-eval's own ``openai`` wrapper, when the model side fails.

1. A dead server (a port with nothing listening) and 2. a server that rejects every request like a
vLLM with an 8k context (HTTP 400, vLLM's "maximum context length" body; CwI asks 8192 new tokens,
DoD 16384), on cwi_alignment and dod_no_hint: every sample is ``generation_failed`` with the
wrapper's error as its reason, scored 0, counted next to the rates, and the run ends with one
warning per task (issue #12.4). GRADE asks 4096 tokens, which the same server accepts: its text
reply without an image is the model's answer (``missing_image``), not a failure, and costs no
judge call.
3. grade with no judge configured stops at load, before the model gets any request (#12.5).
"""

from __future__ import annotations

import math
import os
import socket
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "dod", TESTS / "grade"):
    sys.path.insert(0, str(folder))

import dod_fixtures  # noqa: E402
import grade_fixtures  # noqa: E402
from conftest import lmms_eval_executable, lmms_eval_process  # noqa: E402
from judge_server import FakeJudgeServer, Reply, message_text  # noqa: E402

from lmms_plugins.demo import OFFLINE_ENV  # noqa: E402

pytestmark = pytest.mark.e2e
CONTEXT = 8192


def small_context_vllm(request: dict):
    """vLLM served with --max-model-len 8192: prompt + max_tokens over the context is a 400."""
    asked = request.get("max_tokens") or request.get("max_completion_tokens") or 16
    prompt = len(message_text(request)) // 4 + 1
    if asked + prompt > CONTEXT:
        return Reply(400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400, "message": (
            f"This model's maximum context length is {CONTEXT} tokens. However, you requested {asked + prompt} tokens "
            f"({prompt} in the messages, {asked} in the completion). Please reduce the length of the messages or completion.")})
    return "<answer>0,0</answer>"


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from lmms_plugins.tasks.cwi.generate import main as make_cwi

    tmp = tmp_path_factory.mktemp("data")
    assert make_cwi(["--tasks", "alignment", "--n", "2", "--seed", "9", "--out", str(tmp / "cwi")]) == 0
    dod = dod_fixtures.make_dataset(tmp / "dod", pairs_per_category=1, maze_pairs=0)
    grade = grade_fixtures.make_dataset(tmp / "GRADE")
    return {"LMMS_PLUGINS_CWI_ROOT": str(tmp / "cwi"), "LMMS_PLUGINS_DOD_ROOT": str(dod),
            "LMMS_PLUGINS_GRADE_ROOT": str(grade), "LMMS_PLUGINS_DATA_ROOT": "",
            "OPENAI_API_KEY": "none"}


def model_args(url: str) -> str:
    # lmms-eval's own retries kept low: the test is about what a failure becomes, not about waiting
    return f"model=served-model,base_url={url},api_key=none,max_retries=1,retry_backoff_s=0,num_concurrent=16,timeout=5"


def check_failed_run(res: dict, tasks: dict, error_fragment: str) -> None:
    cwi = res["results"]["cwi_alignment"]
    # nothing was generated: no accuracy to print (NaN, "nan" in the table), only the failure rate
    assert math.isnan(cwi["accuracy,none"]) and math.isnan(cwi["extraction_failure_rate,none"])
    assert cwi["generation_failure_rate,none"] == 1.0
    dod = res["results"]["dod_no_hint"]
    n_dod = tasks["dod_no_hint"]
    assert dod["sample_statuses,none"] == {"generation_failed": n_dod}  # never "ok": no decline, no edit
    assert dod["generation_failure_rate,none"] == 1.0
    from lmms_plugins.tasks.dod.breakdown import summaries

    summary = summaries(Path(res["_path"]).parent)["dod_no_hint"]  # per status: from the samples file
    for metric in ("E", "D_strict", "D_lenient", "D_f"):
        assert math.isnan(dod[f"{metric},none"]), metric  # D_f 0.0 would read as the best value, from nothing
        assert dod[f"{metric}_stderr,none"] == "N/A", metric
        assert dod["dod_breakdown,none"][metric] == [0, n_dod // 2, n_dod // 2], metric  # success, pending, total
        assert summary[metric]["statuses"] == {"generation_failed": n_dod // 2}, metric
    # the printed table: "NaN" where no number stands, the failure rate beside it, no dict rows
    table = [line for line in res["_stdout"].splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.split("|")] for line in table]
    d_f = next(c for c in cells if "D_f" in c)
    assert d_f[d_f.index("D_f") + 2] == "NaN" and d_f[d_f.index("D_f") + 4] == "N/A", d_f  # value, stderr
    assert any("generation_failure_rate" in line for line in table)
    assert not [line for line in table if "{" in line], "a dict-valued row was printed"
    # the last lines of the run: after the table, one per task, naming what failed
    last = res["_stdout"].rstrip().splitlines()
    end = max(i for i, line in enumerate(last) if line.startswith("|"))
    after = "\n".join(last[end + 1:])
    assert "[lmms_plugins] WARNING:" in after, res["_stdout"][-2000:]
    for task, n in tasks.items():
        assert f"{task}: {n} generation failed of {n} samples" in after, (task, after)
    # and `lmms-plugins check` says so with its exit status
    from lmms_plugins import check

    run = Path(res["_path"]).parent
    assert check.main([str(run)]) == 1
    # NaN in the results JSON (json writes it as NaN): compare and report read it without a traceback
    from lmms_plugins import compare, report

    assert compare.main([str(run), "--out", str(run / "compare"), "--no-chart"]) == 0
    assert report.main([str(run), "--out", str(run / "report.html")]) == 0
    md = (run / "compare" / "compare.md").read_text()
    assert "dod_no_hint · false refusal" in md and "no value (NaN" in md  # said, not left out
    assert (run / "report.html").stat().st_size > 0
    for task, n in tasks.items():
        samples = res["_samples"][task]
        assert len(samples) == n
        for sample in samples:
            # DoD logs a sample's reason once, on dod_run (one record per sample, issue 16)
            record = sample["accuracy"] if task.startswith("cwi") else sample["dod_run"] if task.startswith("dod") else sample["grade_breakdown"]
            assert record["status"] == "generation_failed", (task, record)
            assert record["reason"].startswith("[LMMS_EVAL_REQUEST_FAILED after 1 retries]") and error_fragment in record["reason"]
        warnings = [line for line in res["_stderr"].splitlines() if f"WARNING: {task}: " in line and "generations failed" in line]
        assert len(warnings) == 1, (task, warnings)
        assert f"{n} of {n} generations failed" in warnings[0] and error_fragment in warnings[0]


def test_dead_server_gives_generation_failed_not_answers(tmp_path, run_lmms_eval, data):
    res = run_lmms_eval("cwi_alignment,dod_no_hint", "openai", model_args(dead_url()), out_dir=tmp_path / "run", env=data)
    check_failed_run(res, {"cwi_alignment": 2, "dod_no_hint": 12}, "Connection error")


def test_small_context_server_gives_generation_failed_but_an_answer_stays_an_answer(tmp_path, run_lmms_eval, data):
    with FakeJudgeServer(small_context_vllm, model="served-model") as model, FakeJudgeServer(lambda r: "{}") as judge:
        env = {**data, "LMMS_PLUGINS_JUDGE_BASE_URL": judge.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
               "LMMS_PLUGINS_JUDGE_CACHE": "off"}
        res = run_lmms_eval("cwi_alignment,dod_no_hint,grade", "openai", model_args(model.base_url), out_dir=tmp_path / "run", env=env)
        n_grade = len(grade_fixtures.CASES)
        assert model.calls == 2 + 12 + n_grade  # every request reached the server and was rejected
        assert judge.calls == 0 and judge.get_paths == ["/v1/models"]  # preflight reached it; no verdict asked
    check_failed_run(res, {"cwi_alignment": 2, "dod_no_hint": 12}, "maximum context length is 8192 tokens")
    grade = res["results"]["grade"]
    assert grade["grade_strict,none"] == 0.0 and grade["grade_breakdown,none"]["status_counts"] == {"missing_image": n_grade}
    assert grade["generation_failure_rate,none"] == 0.0  # a text answer without an image is an answer
    assert not [line for line in res["_stderr"].splitlines() if "WARNING: grade: " in line]
    last = res["_stdout"].rstrip().splitlines()
    end_lines = last[max(i for i, line in enumerate(last) if line.startswith("|")) + 1:]
    assert not [line for line in end_lines if "grade:" in line], end_lines  # scored answers: not among the end-of-run lines


def test_grade_without_a_judge_stops_before_the_first_request(tmp_path, data):
    out = tmp_path / "run"
    out.mkdir()
    with FakeJudgeServer(lambda r: "should never be asked", model="served-model") as model:
        env = {**os.environ, **OFFLINE_ENV, **data, "HF_HOME": str(out / ".hf_home"),
               "LMMS_PLUGINS_JUDGE_BASE_URL": "", "LMMS_PLUGINS_JUDGE_MODEL": ""}
        cmd = [lmms_eval_executable(), "--model", "openai", "--model_args", model_args(model.base_url),
               "--tasks", "grade", "--output_path", str(out), "--batch_size", "1"]
        proc = lmms_eval_process(cmd, env=env, cwd=out, timeout=600)
        assert model.calls == 0 and model.get_paths == []
    log = proc.stdout + proc.stderr
    assert "grade needs an LLM judge (or verdict files in metadata.verdicts)" in log
    assert "set LMMS_PLUGINS_JUDGE_BASE_URL and LMMS_PLUGINS_JUDGE_MODEL" in log
    assert not list(out.rglob("*_results.json"))
