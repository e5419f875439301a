"""One real lmms-eval CLI run over the four benchmarks (DoD mazes, GRADE, ABACUS, CwI) with the
replay model: the printed results table stays short, leaves out DoD categories without samples,
gives a standard error for every rate and mean, and fits 120 columns (numbers only: the breakdown rows
stay in the results JSON); every summary line names its task; DoD's samples file holds each sample's
full record once."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grade"))
from grade_fixtures import canned_judge, make_dataset, make_outputs  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402
from task_settings import settings_include  # noqa: E402

from lmms_plugins.utils.jsonl import read_jsonl  # noqa: E402

pytestmark = pytest.mark.e2e

# lmms-eval's table prints this package's metrics as numbers only: the breakdown rows (dod_breakdown,
# dod_run, sample_statuses, abacus_leaderboard, grade_breakdown) stay in the results JSON and leave
# the printed table (lmms_plugins/harness/end_of_run.py), so a line fits a 120-column terminal
MAX_VALUE = 10  # "0.1234", "nan", "N/A"
MAX_LINE = 120  # characters of one line of the table
NON_NUMBER_ROWS = {"dod_no_hint": ("dod_breakdown", "dod_run", "sample_statuses"), "grade": ("grade_breakdown",),
                   "abacus_add_easy": ("abacus_leaderboard",)}
PAIRS = 3
CWI_TASK = "color_count"
RATES = {
    "dod_no_hint": ("E", "D_strict", "D_lenient", "D_f", "pair_success", "pair_behaviour", "generation_failure_rate"),
    "grade": ("grade_strict", "grade_lenient", "grade_reasoning", "grade_consistency", "grade_readability",
              "generation_failure_rate"),
    "abacus_add_easy": ("abacus_score", "abacus_count_fidelity", "abacus_scene_consistency", "abacus_conservation",
                        "abacus_edit_score", "abacus_exact_count", "abacus_coverage", "generation_failure_rate"),
    f"cwi_{CWI_TASK}": ("accuracy", "extraction_failure_rate", "generation_failure_rate"),
}


def _replay_lines(tmp_path: Path) -> list[dict]:
    from lmms_plugins.tasks.abacus import synthetic as syn
    from lmms_plugins.tasks.cwi.generate import main as make_cwi
    from lmms_plugins.tasks.dod.maze.generate import main as make_mazes

    lines = []
    # DoD, mazes only: the feasible ones return the maze unchanged (no path: E = 0); the infeasible ones declined
    # but one. The answers that do not decline deliver an image: with no image and no conclusion the refusal is
    # not known judge-free (pending, DoD 2.5), and this run has every sample scored.
    assert make_mazes(["--pairs", str(PAIRS), "--sizes", "7,9", "--seed", "5", "--out", str(tmp_path / "dod")]) == 0
    docs = {r["case_id"]: r for r in read_jsonl(tmp_path / "dod" / "instruction.jsonl")}
    infeasible = sorted(c for c in docs if c.endswith("-infeasible"))
    for c, doc in docs.items():
        unchanged = {"image": str(tmp_path / "dod" / doc["input_image"])}
        if c.endswith("-feasible"):
            lines.append({"key": c, "text": "I will draw the path now.", **unchanged})
        elif c == infeasible[0]:
            lines.append({"key": c, "text": "Here is the path.", **unchanged})
        else:
            lines.append({"key": c, "text": "There is no valid path from start to end: every route is blocked by walls, so I cannot draw it."})
    # GRADE: six samples, one without an image
    make_dataset(tmp_path / "GRADE")
    for row in read_jsonl(make_outputs(tmp_path / "grade_out")):
        if row.get("image"):
            row["image"] = str(tmp_path / "grade_out" / row["image"])
        lines.append(row)
    # ABACUS: synthetic edits
    assert syn.main(["--out", str(tmp_path / "abacus"), "--n", "3", "--seed", "11", "--edits", "touch"]) == 0
    for row in read_jsonl(tmp_path / "abacus" / "replay.jsonl"):
        if row["task"].startswith("abacus_add_"):  # the group abacus_add: its three tiers
            lines.append({**row, "image": str(tmp_path / "abacus" / row["image"])})
    # CwI: right answers for half of the items
    assert make_cwi(["--tasks", CWI_TASK, "--n", "8", "--seed", "3", "--out", str(tmp_path / "cwi")]) == 0
    import pyarrow.parquet as pq

    docs = pq.read_table(next((tmp_path / "cwi" / CWI_TASK).glob("test-*.parquet")), columns=["answer"]).to_pylist()
    for i, d in enumerate(docs):
        answer = d["answer"] if i % 2 == 0 else "-1"
        lines.append({"task": f"cwi_{CWI_TASK}", "doc_id": i, "text": f"<answer>{answer}</answer>"})
    return lines


def _table_rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """(task, metric) -> cells of the printed results table (a task name is given on its first row only)."""
    rows, task = {}, ""
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 8 or set(line) <= {"|", "-", ":"} or cells[0] == "Tasks":
            continue
        task = cells[0] or task
        rows[(task, cells[3])] = cells
    return rows


def test_one_run_of_four_benchmarks_prints_a_short_table_with_standard_errors(tmp_path, run_lmms_eval, capsys):
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps(x) + "\n" for x in _replay_lines(tmp_path)))
    with FakeJudgeServer(canned_judge) as server:
        env = {
            "LMMS_PLUGINS_DOD_ROOT": str(tmp_path / "dod"), "LMMS_PLUGINS_GRADE_ROOT": str(tmp_path / "GRADE"),
            "LMMS_PLUGINS_ABACUS_ROOT": str(tmp_path / "abacus"),
            "LMMS_PLUGINS_CWI_ROOT": str(tmp_path / "cwi"), "LMMS_PLUGINS_DATA_ROOT": "",
            "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
            "LMMS_PLUGINS_JUDGE_API_KEY": "dummy", "LMMS_PLUGINS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
        }
        tasks = ",".join("abacus_add" if t == "abacus_add_easy" else t for t in RATES)
        mine = settings_include(tmp_path / "settings", {"dod_no_hint": {"edit_judge": "off"},  # the judge is GRADE's
                                                        "abacus_add": {"detector": "synthetic_test"}})
        res = run_lmms_eval(tasks, "replay", f"outputs={replay}", out_dir=tmp_path / "run", env=env, include_path=mine)
    out = res["_stdout"]
    rows = _table_rows(out)
    assert rows, out[-3000:]
    # lmms-eval pads a column to its widest cell, so one long value widens every line of the table
    long_values = {m: len(c[5]) for (_, m), c in rows.items() if len(c[5]) > MAX_VALUE}
    assert not long_values, long_values
    widest = max(len(line) for line in out.splitlines() if line.startswith("|"))
    assert widest <= MAX_LINE, widest  # 210-258 characters while the breakdown rows were printed
    printed = {m for _, m in rows}
    for task, names in NON_NUMBER_ROWS.items():  # not printed, but in the results JSON as before
        assert not printed & set(names), printed & set(names)
        assert all(isinstance(res["results"][task][f"{n},none"], dict) for n in names), task
    assert not [m for m in printed if m.startswith("category_") or m.endswith("_counts")], sorted(printed)
    assert "abacus_leaderboard,none" in res["results"]["abacus_add"]  # the group's exact pooling, in the JSON
    # ... and its Score printed in the groups table (the only place a group's Score exists)
    group_scores = [c for (_, m), c in rows.items() if m == "abacus_leaderboard.score"]
    want = res["results"]["abacus_add"]["abacus_leaderboard,none"]["score"]
    assert group_scores and float(group_scores[0][5]) == pytest.approx(want, abs=1e-4), (group_scores, want)
    # every summary line the package prints names its task (the harness names the task being aggregated)
    summary = [line for line in res["_stderr"].splitlines() if line.startswith("[lmms_plugins] ") and " samples: " in line]
    assert summary and all(any(f"] {t}" in line for t in list(RATES) + ["abacus_add_medium", "abacus_add_hard"])
                           for line in summary), summary[:5]
    # every sample was generated and scored (the judge answers, the detector is the test one): no end lines
    assert "not generated or not scored" not in out

    results = res["results"]
    for task, metrics in RATES.items():
        got = results[task]
        for m in metrics:
            se = got[f"{m}_stderr,none"]
            assert isinstance(se, float) and math.isfinite(se), (task, m, se)
            # a group's subtasks are printed as " - <alias>"
            cells = next((c for (t, name), c in rows.items() if name == m and t.lstrip("- ") in (task, got.get("alias", task))),
                         None)
            assert cells is not None, (task, m, sorted(rows))
            assert float(cells[7]) == pytest.approx(se, abs=1e-4), (task, m, cells)  # the Stderr column
    # a rate's standard error is sqrt(p (1 - p) / (n - 1)) over its own denominator
    dod = results["dod_no_hint"]
    success, _, total = dod["dod_breakdown,none"]["D_strict"]
    p = success / total
    assert 0 < p < 1 and dod["D_strict_stderr,none"] == pytest.approx(math.sqrt(p * (1 - p) / (total - 1)))
    cwi = results[f"cwi_{CWI_TASK}"]
    assert cwi["accuracy,none"] == pytest.approx(0.5)
    assert cwi["accuracy_stderr,none"] == pytest.approx(math.sqrt(0.25 / 7))

    # GRADE's details: per-domain lines in the log, the whole breakdown from the samples file
    assert "[lmms_plugins] grade: domain physics: n 2," in res["_stderr"]
    from lmms_plugins.tasks.grade import breakdown

    capsys.readouterr()  # what the data makers printed
    assert breakdown.main([str(Path(res["_path"]).parent), "--resamples", "50"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert b["by_domain"]["physics"]["n"] == 2 and set(b["by_domain"]) == {"physics", "sports", "chemistry", "math", "eco"}
    assert b["overall"]["strict"] == pytest.approx(results["grade"]["grade_strict,none"])

    # item 4: the full DoD record once per sample (dod_run), the other metrics a few fields
    samples = res["_samples"]["dod_no_hint"]
    assert len(samples) == 2 * PAIRS
    for line in samples:
        full = [m for m, v in line.items() if isinstance(v, dict) and "refusal_evidence" in (v.get("record") or {})]
        assert full == ["dod_run"], full
        assert line["E"]["record"]["case_id"] == line["dod_run"]["record"]["case_id"]
    # the report's card shows the full record, although its verdict metric carries the short one
    from lmms_plugins.report import sample_card

    declined = next(x for x in samples if x["dod_run"]["record"]["refusal_evidence"])
    assert "refusal_evidence" in sample_card("dod_no_hint", declined) and "refusal_evidence" not in str(declined["D_strict"])
