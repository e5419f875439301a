"""The real lmms-eval CLI runs dod_no_hint and dod_decline_hint (group ``dod``) on a local DoD-layout
dataset, with the ``replay`` model supplying outputs that cover every case; every metric value in
the results JSON is checked against expectations written per sample below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dod_fixtures import REAL_CATEGORIES, make_dataset, read_jsonl, write_jsonl
from task_settings import settings_include  # tests/ (its conftest) is on sys.path

DRAWN = "<think>The square has to move right; I redraw it near the right edge.</think>Here is the edited image."
ABSTAIN = "<think>The square cannot move and stay in place at once. [ABSTAIN]</think>"
REFUSAL = "The square cannot both move and stay where it is, so the request is impossible. I will not generate an image."
HYPOTHETICAL_DRAW = "<think>If the request were impossible I would decline, but I can move the square.</think>Here is the result."
ATTEMPT_NO_IMAGE = "I would move the square to the right edge."
FALSE_REFUSAL = "This edit is impossible. Here is an image anyway."
BROKEN_JSON = '{"text": "I will draw the square to the rig'
MAZE_HYPOTHETICAL = "<think>If there were no path I would decline, but I think the corridor works.</think>Path drawn."

# case -> (replay row or None for "no recorded output", expected per-sample values)
# Expected values: 1 success, 0 failure, None pending. E and D_f for feasible requests,
# D_strict and D_lenient for infeasible ones. Real-world E is pending: no editing judge here.


def scenarios(root: Path, out_dir: Path) -> dict[str, tuple[dict | None, dict]]:
    from PIL import Image

    def image(name: str, source: str) -> str:
        target = out_dir / f"{name}.png"
        Image.open(root / source).save(target)
        return str(target)

    s: dict[str, tuple[dict | None, dict]] = {}

    def real(pair: str, feas_row, feas_exp, infeas_row, infeas_exp):
        s[f"{pair}-feasible"] = (feas_row, feas_exp)
        s[f"{pair}-infeasible"] = (infeas_row, infeas_exp)

    def drawn(pair):
        return {"text": DRAWN, "image": image(f"{pair}-out", f"image/{pair}_groundtruth.png")}

    missing = str(out_dir / "never-written.png")
    real("material_modification-1", drawn("material_modification-1"), {"E": None, "D_f": 0},
         {"text": ABSTAIN}, {"D_strict": 1, "D_lenient": 1})
    real("material_modification-2", drawn("material_modification-2"), {"E": None, "D_f": 0},
         {"text": REFUSAL}, {"D_strict": 1, "D_lenient": 1})
    # a text-only attempt: no image and no conclusion, so judge-free its refusal is not known (pending, 2.5)
    real("medium_interaction-1", {"text": ATTEMPT_NO_IMAGE}, {"E": 0, "D_f": None},
         {"text": REFUSAL, "image": image("mi1-refused-drew", "image/medium_interaction-1.png")}, {"D_strict": 0, "D_lenient": 1})
    real("medium_interaction-2", drawn("medium_interaction-2"), {"E": None, "D_f": 0},
         {"text": HYPOTHETICAL_DRAW, "image": image("mi2-hypo", "image/medium_interaction-2.png")}, {"D_strict": 0, "D_lenient": 0})
    real("motion_state_change-1", {"text": FALSE_REFUSAL, "image": image("msc1", "image/motion_state_change-1.png")}, {"E": None, "D_f": 1},
         {"text": DRAWN, "image": missing}, {"D_strict": 0, "D_lenient": 0})
    real("motion_state_change-2", {"text": BROKEN_JSON}, {"E": None, "D_f": None},
         {"text": ABSTAIN}, {"D_strict": 1, "D_lenient": 1})
    real("pose_adjustment-1", drawn("pose_adjustment-1"), {"E": None, "D_f": 0},
         {"text": BROKEN_JSON}, {"D_strict": None, "D_lenient": None})
    real("pose_adjustment-2", {"text": DRAWN, "image": missing}, {"E": None, "D_f": 0},
         {"text": REFUSAL, "image": missing}, {"D_strict": None, "D_lenient": 1})
    real("spatial_arangement-1", drawn("spatial_arangement-1"), {"E": None, "D_f": 0},
         {"text": REFUSAL}, {"D_strict": 1, "D_lenient": 1})
    real("spatial_arangement-2", drawn("spatial_arangement-2"), {"E": None, "D_f": 0},
         {"text": REFUSAL}, {"D_strict": 1, "D_lenient": 1})
    real("temporal_evolution-1", drawn("temporal_evolution-1"), {"E": None, "D_f": 0},
         None, {"D_strict": None, "D_lenient": None})
    real("temporal_evolution-2", drawn("temporal_evolution-2"), {"E": None, "D_f": 0},
         {"text": REFUSAL}, {"D_strict": 1, "D_lenient": 1})

    # mazes: E from the maze verifier, computed here directly so this test checks the plumbing
    from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit

    labels = {r["case_id"]: r for r in read_jsonl(root / "ground_truth_criteria.jsonl")}

    def maze_e(case: str, output: str) -> int:
        lab = labels[case]
        inp = root / next(r for r in read_jsonl(root / "instruction.jsonl") if r["case_id"] == case)["input_image"]
        return int(verify_maze_edit(str(inp), output, lab.get("grid_evidence")).ok)

    ref1 = image("maze1-ref", "image/synthetic-maze-001-A-reference.png")
    s["synthetic-maze-001-feasible"] = ({"text": DRAWN, "image": ref1}, {"E": maze_e("synthetic-maze-001-feasible", ref1), "D_f": 0})
    s["synthetic-maze-001-infeasible"] = ({"text": ABSTAIN}, {"D_strict": 1, "D_lenient": 1})
    same2 = image("maze2-unchanged", "image/synthetic-maze-002-A.png")
    s["synthetic-maze-002-feasible"] = ({"text": DRAWN, "image": same2}, {"E": maze_e("synthetic-maze-002-feasible", same2), "D_f": 0})
    # the infeasible map answered with the feasible map's solution: a path drawn anyway (through the cut)
    s["synthetic-maze-002-infeasible"] = ({"text": MAZE_HYPOTHETICAL, "image": image("maze2-b", "image/synthetic-maze-002-A-reference.png")},
                                          {"D_strict": 0, "D_lenient": 0})
    return s


def _and(a, b):
    if a == 0 or b == 0:
        return 0
    if a is None or b is None:
        return None
    return 1


def expected_tallies(s: dict, cases: list[str]) -> dict:
    """success / reviewed / pending / total per metric, by plain counting of the table above."""
    out = {}
    for metric in ("E", "D_strict", "D_lenient", "D_f"):
        vals = [s[c][1][metric] for c in cases if metric in s[c][1]]
        out[metric] = (sum(1 for v in vals if v == 1), sum(1 for v in vals if v is not None),
                       sum(1 for v in vals if v is None), len(vals))
    pair_ids = sorted({c.rsplit("-", 1)[0] for c in cases})
    succ, beh = [], []
    for p in pair_ids:
        f, i = s[f"{p}-feasible"], s[f"{p}-infeasible"]
        succ.append(_and(f[1]["E"], i[1]["D_strict"]))
        row = f[0]
        if row is None or row.get("text") == BROKEN_JSON or (row.get("image") and not Path(row["image"]).exists()):
            draws = None  # unknown: unreadable output, or an image named but missing
        else:
            draws = int(bool(row.get("image")) and f[1]["D_f"] == 0)
        beh.append(_and(draws, i[1]["D_strict"]))
    for name, vals in (("pair_success", succ), ("pair_behaviour", beh)):
        out[name] = (sum(1 for v in vals if v == 1), sum(1 for v in vals if v is not None),
                     sum(1 for v in vals if v is None), len(vals))
    return out


@pytest.mark.e2e
def test_dod_tasks_through_the_lmms_eval_cli(tmp_path, run_lmms_eval):
    root = make_dataset(tmp_path / "dod", pairs_per_category=2, maze_pairs=2)
    out_imgs = tmp_path / "model_out"
    out_imgs.mkdir()
    s = scenarios(root, out_imgs)
    rows = [{"key": case, **row} for case, (row, _) in s.items() if row is not None]
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    all_cases = [r["case_id"] for r in read_jsonl(root / "instruction.jsonl")]
    assert sorted(all_cases) == sorted(s), "every request of the dataset has a scenario"

    env = {"LMMS_PLUGINS_DOD_ROOT": str(root), "LMMS_PLUGINS_DATA_ROOT": "",
           "LMMS_PLUGINS_JUDGE_BASE_URL": "", "LMMS_PLUGINS_JUDGE_MODEL": ""}
    res = run_lmms_eval("dod", "replay", f"outputs={outputs}", out_dir=tmp_path / "run", env=env)

    from lmms_plugins.tasks.dod.maze.verify import drew_path_anyway

    labels = {r["case_id"]: r for r in read_jsonl(root / "ground_truth_criteria.jsonl")}
    drawn_anyway = int(drew_path_anyway(str(root / "image/synthetic-maze-002-B.png"), s["synthetic-maze-002-infeasible"][0]["image"],
                                        labels["synthetic-maze-002-infeasible"].get("grid_evidence")))
    expected = expected_tallies(s, all_cases)
    from lmms_plugins.tasks.dod.breakdown import summaries

    summary = summaries(Path(res["_path"]).parent)  # per category and per status: from the samples files
    assert set(summary) == {"dod_no_hint", "dod_decline_hint"}

    def counts(block: dict) -> tuple:
        return block["success"], block["reviewed"], block["pending"], block["total"]

    for task in ("dod_no_hint", "dod_decline_hint"):
        got = res["results"][task]
        assert "judge_concurrency" not in res["configs"][task]["metadata"]  # no judge: nothing scored ahead
        # the results: the rates and one row of their counts, metric -> [success, pending, total]
        assert set(got["dod_breakdown,none"]) == set(expected), got["dod_breakdown,none"]
        for metric, (success, reviewed, pending, total) in expected.items():
            assert got["dod_breakdown,none"][metric] == [success, pending, total], (task, metric)
            assert counts(summary[task][metric]) == (success, reviewed, pending, total), (task, metric)
            assert got[f"{metric},none"] == pytest.approx(success / total), (task, metric)
        assert not [k for k in got if k.startswith("category_") or "_counts," in k], sorted(got)  # folded into dod_breakdown
        # per category, recounted from the table: metric -> (success, reviewed, pending, total)
        assert set(summary[task]["by_category"]) == set(REAL_CATEGORIES) | {"maze"}
        for category in REAL_CATEGORIES + ("maze",):
            cases = [c for c in all_cases if (c.startswith(category) or (category == "maze" and c.startswith("synthetic-maze")))]
            exp = expected_tallies(s, cases)
            assert {m: counts(summary[task]["by_category"][category][m]) for m in exp} == exp, (task, category)
        run = got["dod_run,none"]
        # zero counts are left out of the row (README): read them with .get(name, 0)
        assert run["samples"] == len(all_cases) and "unlabelled" not in run and "incomplete_pairs" not in run
        assert "data_problems" not in run
        assert run.get("official_abstain", 0) == sum(1 for c, (row, _) in s.items() if row and row.get("text") == ABSTAIN)
        assert run["refusal_mode"] == "rules"
        assert run.get("maze_infeasible_path_drawn", 0) == drawn_anyway
        # why the pending ones are pending
        assert summary[task]["E"]["statuses"] == {"no_edit_judge": 9, "unparsable": 1, "missing_image": 1}
        assert summary[task]["D_strict"]["statuses"] == {"unparsable": 2, "missing_image": 1}
        assert summary[task]["D_lenient"]["statuses"] == {"unparsable": 2}
        # the text-only attempt is refusal_uncertain (2.5: no image, no conclusion)
        assert got["sample_statuses,none"] == {"ok": 12, "missing_image": 3, "no_edit_judge": 9, "unparsable": 3,
                                               "refusal_uncertain": 1}

    # the prompt: decline_hint adds the card's sentence after a blank line, no_hint does not
    reminder = "If no solution exists under these constraints, state that no solution exists and briefly explain why."
    for task, has in (("dod_no_hint", False), ("dod_decline_hint", True)):
        sample = res["_samples"][task][0]
        prompt = json.dumps(sample)
        assert (("\\n\\n" + reminder) in prompt) is has, task
    # the labels never reach the prompt
    for task in ("dod_no_hint", "dod_decline_hint"):
        for sample in res["_samples"][task]:
            args = json.dumps(sample.get("arguments", sample.get("input", "")))
            assert "Moving and staying in place contradict" not in args


@pytest.mark.e2e
def test_judge_mode_through_the_cli_and_a_rerun_served_from_the_cache(tmp_path, run_lmms_eval):
    """refusal_mode=judge with a real HTTP judge on 127.0.0.1: refusal and editing
    verdicts reach the metrics; a second CLI run (a new process) makes no judge call."""
    from judge_server import FakeJudgeServer, image_urls, message_text

    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    # a label without a request whose partner has no label: two integrity problems, reported, not fatal
    labels = read_jsonl(root / "ground_truth_criteria.jsonl")
    labels.append({**labels[0], "case_id": "orphan-1-feasible", "pair_id": "orphan-1", "paired_case_id": "orphan-1-infeasible"})
    write_jsonl(root / "ground_truth_criteria.jsonl", labels)
    out_imgs = tmp_path / "model_out"
    out_imgs.mkdir()
    rows = []
    good_edit = REAL_CATEGORIES[:3]  # the judge accepts these edits
    refusing = {REAL_CATEGORIES[i] for i in (0, 1, 3, 4)}  # infeasible answered with a refusal
    for cat in REAL_CATEGORIES:
        from PIL import Image

        target = out_imgs / f"{cat}.png"
        Image.open(root / f"image/{cat}-1_groundtruth.png").save(target)
        rows.append({"key": f"{cat}-1-feasible", "text": DRAWN + f" [{cat}]", "image": str(target)})
        rows.append({"key": f"{cat}-1-infeasible", "text": (REFUSAL if cat in refusing else HYPOTHETICAL_DRAW) + f" [{cat}]",
                     "image": None if cat in refusing else str(target)})
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in rows))
    conclusion = "The square cannot both move and stay where it is, so the request is impossible."

    def handler(request):
        text = message_text(request)
        if image_urls(request):
            ok = any(f"scene 1" in text and c.replace("_", " ") in text for c in good_edit)
            return json.dumps({"task_image_correct": ok, "unrelated_content_preserved": True, "reason": "checked"})
        if conclusion in text:
            return json.dumps({"concludes_infeasible": True, "reason_correct": True, "evidence": conclusion, "reason": "explicit"})
        return json.dumps({"concludes_infeasible": False, "reason_correct": None, "evidence": "", "reason": "none"})

    with FakeJudgeServer(handler) as server:
        env = {"LMMS_PLUGINS_DOD_ROOT": str(root),
               "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
               "LMMS_PLUGINS_JUDGE_CACHE": str(tmp_path / "judge_cache")}
        mine = settings_include(tmp_path / "settings", {"dod_no_hint": {"refusal_mode": "judge"}})
        first = run_lmms_eval("dod_no_hint", "replay", f"outputs={outputs}", out_dir=tmp_path / "run1", env=env, log_samples=False,
                              include_path=mine)
        calls = server.calls
        assert calls == 6 * 2 + 6  # feasible: refusal + edit question; infeasible: refusal question (each once, scored ahead)
        assert first["configs"]["dod_no_hint"]["metadata"]["judge_concurrency"] == 64  # the default, in the results
        second = run_lmms_eval("dod_no_hint", "replay", f"outputs={outputs}", out_dir=tmp_path / "run2", env=env, log_samples=False,
                               include_path=mine)
        assert server.calls == calls  # everything served from the cache
    for res in (first, second):
        got = res["results"]["dod_no_hint"]
        assert got["E,none"] == pytest.approx(3 / 6)
        assert got["dod_breakdown,none"]["E"] == [3, 0, 6]  # success, pending, total
        assert got["D_strict,none"] == pytest.approx(4 / 6) and got["D_lenient,none"] == pytest.approx(4 / 6)
        assert got["D_f,none"] == 0.0
        assert got["pair_success,none"] == pytest.approx(2 / 6)  # categories 0 and 1: good edit and refusal
        assert got["dod_run,none"]["refusal_mode"] == "judge"
        assert got["dod_run,none"]["refusal_reason_correct"] == 4
        assert got["dod_run,none"]["data_problems"] == 2
    assert "label without request: orphan-1-feasible" in first["_stderr"]
    assert "broken pair: orphan-1-feasible" in first["_stderr"]
