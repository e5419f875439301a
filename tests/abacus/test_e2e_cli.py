"""The real lmms-eval CLI on a local synthetic ABACUS dataset in the official (hub) layout."""

import sys
from pathlib import Path

import pytest

from lmms_plugins.tasks.abacus import synthetic as syn
from lmms_plugins.utils.jsonl import read_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from task_settings import settings_include  # noqa: E402

pytestmark = pytest.mark.e2e


def _truth(root: Path) -> dict:
    return {(t["task"], t["doc_id"]): t for t in read_jsonl(root / "truth.jsonl")}


def test_replay_of_touched_edits_shows_the_expected_factors(tmp_path, run_lmms_eval):
    data = tmp_path / "data"
    assert syn.main(["--out", str(data), "--n", "2", "--seed", "11", "--edits", "touch"]) == 0
    # one sample without its image: recorded, not fatal
    (data / "edits/abacus_remove_easy/00001.png").unlink()
    env = {"LMMS_PLUGINS_ABACUS_ROOT": str(data)}
    tasks = "abacus_add_easy,abacus_remove_easy,abacus_change_hard"
    mine = settings_include(tmp_path / "settings", {t: {"detector": "synthetic_test"} for t in tasks.split(",")})
    res = run_lmms_eval(tasks, "replay", f"outputs={data / 'replay.jsonl'}", out_dir=tmp_path / "run", env=env, include_path=mine)
    truth = _truth(data)
    for task in tasks.split(","):
        got = res["results"][task]
        want = [truth[(task, i)] for i in range(2)]
        ok = [w for w in want if not (task == "abacus_remove_easy" and w["doc_id"] == 1)]
        n = len(want)
        # missing image scores 0 on every factor (README), so it enters the means as 0
        assert got["abacus_count_fidelity,none"] == pytest.approx(sum(w["cf"] for w in ok) / n)
        assert got["abacus_conservation,none"] == pytest.approx(sum(w["oc"] for w in ok) / n)
        assert got["abacus_scene_consistency,none"] == pytest.approx(len(ok) / n, abs=1e-3)
        lb = got["abacus_leaderboard,none"]
        assert lb["score"] == pytest.approx(lb["cf"] * lb["sc"] * lb["oc"])
        assert got["abacus_score,none"] == pytest.approx(lb["score"])
        assert lb["status_counts"] == ({"missing_image": 1, "ok": 1} if task == "abacus_remove_easy" else {"ok": 2})
        for sample in res["_samples"][task]:
            item = sample["abacus_leaderboard"]
            if item["status"] == "ok":
                assert item["verdicts"][next(iter(item["verdicts"]))]["transformed"] == 1
    # the leaderboard from the logged samples: per task, per operation and overall, with intervals
    from lmms_plugins.tasks.abacus.leaderboard import read_samples, table

    rows = dict(table(read_samples(tmp_path / "run")))
    overall = rows["abacus (overall)"]
    assert overall["n"] == 6 and overall["status_counts"] == {"missing_image": 1, "ok": 5}
    assert overall["score"] == pytest.approx(overall["cf"] * overall["sc"] * overall["oc"])
    assert rows["abacus_add_easy"]["oc"] == pytest.approx(res["results"]["abacus_add_easy"]["abacus_conservation,none"])
    assert set(overall["ci95"]) == {"cf", "sc", "oc", "score", "edit_score", "exact_count"}


def test_synthetic_editor_model_with_camera_drift(tmp_path, run_lmms_eval):
    data = tmp_path / "data"
    assert syn.main(["--out", str(data), "--n", "1", "--seed", "4"]) == 0
    env = {"LMMS_PLUGINS_ABACUS_ROOT": str(data)}
    mine = settings_include(tmp_path / "settings", {"abacus": {"detector": "synthetic_test"}})
    res = run_lmms_eval("abacus", "abacus_synthetic_editor", f"fault=shift,output_dir={tmp_path / 'edits'}", out_dir=tmp_path / "run",
                        env=env, include_path=mine)
    leaves = [f"abacus_{op}_{t}" for op in ("add", "remove", "change") for t in ("easy", "medium", "hard")]
    for task in leaves:
        got = res["results"][task]
        # a camera drift of (3, 2) px: not removal + addition, so CF and OC stay 1; SC drops
        assert got["abacus_count_fidelity,none"] == 1.0, task
        assert got["abacus_conservation,none"] == 1.0, task
        assert got["abacus_scene_consistency,none"] < 0.9, task
    group = res["results"]["abacus"]["abacus_leaderboard,none"]
    assert group["n"] == 9 and group["cf"] == 1.0 and group["oc"] == 1.0
    assert group["score"] == pytest.approx(group["sc"])
