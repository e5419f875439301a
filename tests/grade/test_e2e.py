"""The real lmms-eval CLI runs `grade` with the replay model and a judge server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grade_fixtures import CASES, canned_judge, expected_scores, make_dataset, make_outputs  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402

pytestmark = pytest.mark.e2e


def metric(results: dict, name: str):
    return results["results"]["grade"][f"{name},none"]


def check_scores(results: dict) -> None:
    exp = expected_scores()
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        assert metric(results, f"grade_{name}") == pytest.approx(exp[name]), name
    b = metric(results, "grade_breakdown")
    assert b["status_counts"] == {"missing_image": 1, "ok": 5}
    assert b["overall"]["lenient"] == pytest.approx(exp["lenient"])
    # per domain: board -> sports, engineering -> physics (with physics_mech)
    physics = [c for c in CASES if c.task_id.split("_")[0] in ("physics", "engineering")]
    assert set(b["by_domain"]) == {"physics", "sports", "chemistry", "math", "eco"}
    assert b["by_domain"]["physics"]["n"] == 2
    assert b["by_domain"]["physics"]["n_consistency"] == 1
    exp_physics = expected_scores(physics)
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        assert b["by_domain"]["physics"][name] == pytest.approx(exp_physics[name]), name
    assert b["by_domain"]["math"]["strict"] == 0.0 and b["by_domain"]["math"]["status_counts"] == {"missing_image": 1}
    assert set(b["by_sub_task"]) == {c.sub_task for c in CASES}
    lo, hi = b["overall"]["ci95"]["lenient"]
    assert lo <= exp["lenient"] <= hi


@pytest.fixture
def grade_run(tmp_path):
    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    cache = tmp_path / "judge-cache"
    with FakeJudgeServer(canned_judge) as server:
        env = {
            "LMMS_PLUGINS_GRADE_ROOT": str(root),
            "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url,
            "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
            "LMMS_PLUGINS_JUDGE_API_KEY": "dummy",
            "LMMS_PLUGINS_JUDGE_CACHE": str(cache),
        }
        yield server, env, f"outputs={outputs}", cache
        assert not server.handler_errors, server.handler_errors[0]


def expected_calls() -> int:
    with_image = [c for c in CASES if c.colour]
    return 2 * len(with_image) + sum(1 for c in with_image if c.consistency != "none")


def test_cli_scores_and_offline_rescoring_from_the_samples_log(run_lmms_eval, grade_run, tmp_path):
    server, env, model_args, cache = grade_run
    first = run_lmms_eval("grade", "replay", model_args, out_dir=tmp_path / "out1", env=env)
    check_scores(first)
    assert server.calls == expected_calls()
    assert len(first["_samples"]["grade"]) == len(CASES)
    # the samples log of that run re-scores it offline: verdicts file, no judge configured
    sample_file = next(Path(first["_path"]).parent.glob("*_samples_grade.jsonl"))
    offline_env = {**env, "LMMS_PLUGINS_GRADE_VERDICTS": str(sample_file), "LMMS_PLUGINS_JUDGE_BASE_URL": "",
                   "LMMS_PLUGINS_JUDGE_MODEL": ""}
    again = run_lmms_eval("grade", "replay", model_args, out_dir=tmp_path / "out2", env=offline_env)
    check_scores(again)
    assert server.calls == expected_calls()
    for name in ("strict", "lenient", "reasoning", "consistency", "readability", "breakdown"):
        assert metric(again, f"grade_{name}") == metric(first, f"grade_{name}"), name


def _accelerate() -> str | None:
    exe = Path(sys.executable).with_name("accelerate")
    return str(exe) if exe.exists() else shutil.which("accelerate")


def test_two_processes_then_a_rerun_from_their_cache(run_lmms_eval, grade_run, tmp_path):
    """accelerate launch --num_processes 2 --cpu: hand-computed scores, each judge request asked once,
    an intact cache; then a single-process re-run served wholly from that cache, same results."""
    server, env, model_args, cache = grade_run
    accelerate = _accelerate()
    if accelerate is None:
        pytest.skip("accelerate is not installed")
    out = tmp_path / "multi"
    out.mkdir()
    cmd = [accelerate, "launch", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
           "--dynamo_backend", "no", "--cpu", "-m", "lmms_eval", "--model", "replay", "--model_args", model_args,
           "--tasks", "grade", "--batch_size", "1", "--output_path", str(out), "--log_samples"]
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(out / ".hf_home"), **env}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=out, timeout=900)
    found = sorted(out.rglob("*_results.json"))
    assert found, f"no results (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    multi = json.loads(found[-1].read_text())
    assert "world=2" in proc.stdout + proc.stderr  # lmms-eval really ran two ranks
    logged = next(found[-1].parent.glob("*_samples_grade.jsonl")).read_text().splitlines()
    assert sorted(json.loads(l)["doc"]["task_id"] for l in logged) == sorted(c.task_id for c in CASES)
    check_scores(multi)
    assert server.calls == expected_calls()  # each request once across both ranks
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == expected_calls() and not list(cache.rglob("*.tmp"))
    for entry in entries:
        assert json.loads(entry.read_text())["key"] == entry.stem
    single = run_lmms_eval("grade", "replay", model_args, out_dir=tmp_path / "single", env=env)
    assert server.calls == expected_calls()  # served from the cache the two ranks wrote
    for name in ("strict", "lenient", "reasoning", "consistency", "readability", "breakdown"):
        assert metric(single, f"grade_{name}") == multi["results"]["grade"][f"grade_{name},none"], name
