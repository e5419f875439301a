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
from task_settings import settings_include  # noqa: E402

from lmms_plugins.utils.jsonl import read_jsonl  # noqa: E402

pytestmark = pytest.mark.e2e


def metric(results: dict, name: str):
    return results["results"]["grade"][f"{name},none"]


def check_scores(results: dict, samples: list[dict]) -> None:
    from lmms_plugins.tasks.grade.hooks import sample_scores
    from lmms_plugins.tasks.grade.scoring import breakdown

    exp = expected_scores()
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        assert metric(results, f"grade_{name}") == pytest.approx(exp[name]), name
    # the table row is short; the details come from the samples' records (as the breakdown CLI does)
    assert metric(results, "grade_breakdown") == {"n": 6, "n_consistency": 5, "status_counts": {"missing_image": 1, "ok": 5}}
    b = breakdown(sample_scores([line["grade_breakdown"] for line in samples]))
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


def _torchrun() -> str | None:
    exe = Path(sys.executable).with_name("torchrun")
    return str(exe) if exe.exists() else shutil.which("torchrun")


def test_two_processes_single_process_rerun_and_offline_rescoring(run_lmms_eval, grade_run, tmp_path):
    """Three real CLI runs on one dataset (three runs, not four, to keep the suite short):

    1. two processes through lmms-eval's own multi-process path (torchrun: documents split by
       rank, results gathered on rank 0), fresh judge cache: the hand-computed scores, each judge
       request asked once across both ranks, an intact cache;
    2. one process, same cache: no judge call at all, the same results as the two-process run;
    3. one process, no judge configured, the setting ``verdicts`` = run 2's samples log:
       the same results again (offline re-scoring from pre-computed verdicts).

    Not `accelerate launch --num_processes 2 --cpu`: accelerate 1.15 runs that as ONE process
    (its --cpu launcher is the single-process one), so it proves nothing about two writers.
    (`accelerate launch --multi_gpu --num_processes 2` does start two CPU ranks, like torchrun.)
    """
    server, env, model_args, cache = grade_run
    torchrun = _torchrun()
    assert torchrun is not None, "torchrun (from torch, a dependency of lmms-eval) is not installed"
    out = tmp_path / "multi"
    out.mkdir()
    entry = Path(sys.executable).with_name("lmms-eval")  # the real console script, run by each rank
    cmd = [torchrun, "--standalone", "--nproc_per_node", "2", str(entry), "--model", "replay", "--model_args", model_args,
           "--tasks", "grade", "--batch_size", "1", "--output_path", str(out), "--log_samples"]
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(out / ".hf_home"),
                "OMP_NUM_THREADS": "1", **env}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=out, timeout=900)
    found = sorted(out.rglob("*_results.json"))
    assert found, f"no results (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    multi = json.loads(found[-1].read_text())
    log = proc.stdout + proc.stderr
    assert "Building contexts for grade on rank 1" in log  # lmms-eval really ran two ranks ...
    assert "Postprocessed 3 docs for grade" in log  # ... and rank 0 scored half of the 6 documents
    logged = read_jsonl(next(found[-1].parent.glob("*_samples_grade.jsonl")))
    assert sorted(line["grade_strict"]["task_id"] for line in logged) == sorted(c.task_id for c in CASES)
    check_scores(multi, logged)
    assert server.calls == expected_calls()  # each request once across both ranks
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == expected_calls() and not list(cache.rglob("*.tmp"))
    for entry in entries:
        assert json.loads(entry.read_text())["key"] == entry.stem

    single = run_lmms_eval("grade", "replay", model_args, out_dir=tmp_path / "single", env=env)
    assert server.calls == expected_calls()  # served from the cache the two ranks wrote
    for name in ("strict", "lenient", "reasoning", "consistency", "readability", "breakdown"):
        assert metric(single, f"grade_{name}") == multi["results"]["grade"][f"grade_{name},none"], name
    assert len(single["_samples"]["grade"]) == len(CASES)

    sample_file = next(Path(single["_path"]).parent.glob("*_samples_grade.jsonl"))
    offline_env = {**env, "LMMS_PLUGINS_JUDGE_BASE_URL": "", "LMMS_PLUGINS_JUDGE_MODEL": ""}
    verdicts = settings_include(tmp_path / "settings", {"grade": {"verdicts": str(sample_file)}})
    offline = run_lmms_eval("grade", "replay", model_args, out_dir=tmp_path / "offline", env=offline_env, include_path=verdicts)
    assert server.calls == expected_calls()
    for name in ("strict", "lenient", "reasoning", "consistency", "readability", "breakdown"):
        assert metric(offline, f"grade_{name}") == metric(single, f"grade_{name}"), name
