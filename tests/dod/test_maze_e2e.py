"""maze_solver through the real lmms-eval CLI on a generated maze set: it draws every feasible
maze correctly (E = 100 %, checked by the program verifier inside the task), declines every
infeasible one (D = 100 %) and never refuses a feasible one (false refusal 0 %)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.maze.generate import main as make_mazes

PAIRS = 6


@pytest.mark.e2e
def test_maze_solver_scores_perfectly_through_the_cli(tmp_path: Path, run_lmms_eval):
    root = tmp_path / "dod"
    assert make_mazes(["--pairs", str(PAIRS), "--sizes", "7,9,11", "--seed", "3", "--out", str(root)]) == 0
    images = tmp_path / "solver_images"
    env = {"LMMS_PLUGINS_DOD_ROOT": str(root), "LMMS_PLUGINS_DATA_ROOT": "",
           "LMMS_PLUGINS_JUDGE_BASE_URL": "", "LMMS_PLUGINS_JUDGE_MODEL": ""}
    res = run_lmms_eval("dod_no_hint", "maze_solver", f"output_dir={images}", out_dir=tmp_path / "run", env=env)

    got = res["results"]["dod_no_hint"]
    assert got["E,none"] == pytest.approx(1.0)
    assert got["D_strict,none"] == pytest.approx(1.0)
    assert got["D_lenient,none"] == pytest.approx(1.0)
    assert got["D_f,none"] == pytest.approx(0.0)
    assert got["pair_success,none"] == pytest.approx(1.0)
    run = got["dod_run,none"]
    assert run["samples"] == 2 * PAIRS and run["official_abstain"] == PAIRS
    assert run.get("maze_infeasible_path_drawn", 0) == 0  # a zero count is left out of the row
    from lmms_plugins.tasks.dod.breakdown import summaries

    # the counts: one short row in the results, per category from the samples file
    maze = summaries(Path(res["_path"]).parent)["dod_no_hint"]["by_category"]["maze"]
    for metric in ("E", "D_strict", "D_lenient", "D_f"):
        expected_success = 0 if metric == "D_f" else PAIRS
        assert got["dod_breakdown,none"][metric] == [expected_success, 0, PAIRS], (metric, got["dod_breakdown,none"])
        counts = [maze[metric][k] for k in ("success", "reviewed", "pending", "total")]
        assert counts == [expected_success, PAIRS, 0, PAIRS], (metric, maze[metric])
    assert got["sample_statuses,none"] == {"ok": 2 * PAIRS}

    # the solver really drew: one PNG per feasible request, none for the infeasible ones
    drawn = sorted(images.rglob("*.png"))
    assert len(drawn) == PAIRS
    samples = res["_samples"]["dod_no_hint"]
    texts = [json.dumps(s) for s in samples]
    assert sum("[ABSTAIN]" in t for t in texts) == PAIRS
