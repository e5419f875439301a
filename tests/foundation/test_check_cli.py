"""``lmms-plugins check``: per task, the samples that were not generated or not scored, and an exit
status a script can use (0 clean, 1 not, 2 cannot tell). Runs in lmms-eval 0.7.3's file layout
(tests/reporting/runs.py); the real CLI's output is checked in test_generation_failure_e2e.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reporting"))

from runs import sample_line, write_run  # noqa: E402

from lmms_plugins import check  # noqa: E402
from lmms_plugins.utils import run_summary  # noqa: E402
from lmms_plugins.utils import status as st  # noqa: E402


def _cwi_lines(states: list[str]) -> list[dict]:
    lines = []
    for i, state in enumerate(states):
        value = 1.0 if state == st.OK else 0.0
        acc = st.sample(value, state, "[LMMS_EVAL_REQUEST_FAILED after 3 retries] 503" if state == st.GENERATION_FAILED else "", f"i{i}")
        gfr = st.sample(1.0 if state == st.GENERATION_FAILED else 0.0, state, "", f"i{i}")
        lines.append(sample_line(i, {"accuracy": acc, "generation_failure_rate": gfr}))
    return lines


def _dod_lines() -> list[dict]:
    """A feasible request with no editing judge (E pending), a declined infeasible one (ok), one
    failed generation, and one scorer error."""
    na = dict(applicable=False)
    pending = {"E": st.sample(None, "no_edit_judge", "editing judge not configured", "a-feasible", applicable=True),
               "D_f": st.sample(0.0, st.OK, "", "a-feasible", applicable=True),
               "dod_run": st.sample(None, "no_edit_judge", "", "a-feasible", **na)}
    ok = {"E": st.sample(None, "not_applicable", "", "a-infeasible", **na),
          "D_strict": st.sample(1.0, st.OK, "", "a-infeasible", applicable=True),
          "dod_run": st.sample(None, st.OK, "", "a-infeasible", **na)}
    failed = {"D_strict": st.sample(None, st.GENERATION_FAILED, "[LMMS_EVAL_BUDGET_EXCEEDED]", "b-infeasible", applicable=True),
              "dod_run": st.sample(None, st.GENERATION_FAILED, "[LMMS_EVAL_BUDGET_EXCEEDED]", "b-infeasible", **na)}
    error = {"E": st.sample(0.0, st.ERROR, "KeyError: 'x'", "b-feasible")}
    return [sample_line(i, m) for i, m in enumerate((pending, ok, failed, error))]


def test_a_clean_run_exits_0(tmp_path, capsys):
    write_run(tmp_path / "run", {"cwi_alignment": {"accuracy": 0.5}}, {"cwi_alignment": _cwi_lines([st.OK, st.UNPARSABLE])})
    assert check.main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr()
    assert "cwi_alignment: all 2 samples generated and scored" in out.out  # an unparsable answer is scored (0)
    assert "exit 0" in out.err


def test_failed_pending_and_error_samples_are_counted_per_task_and_exit_1(tmp_path, capsys):
    write_run(tmp_path / "run", {"cwi_alignment": {"accuracy": float("nan")}, "dod_no_hint": {"D_f": 0.0},
                                 "cwi": {"accuracy": 0.0}},
              {"cwi_alignment": _cwi_lines([st.GENERATION_FAILED] * 3), "dod_no_hint": _dod_lines()})
    data = json.loads(next((tmp_path / "run").glob("*_results.json")).read_text())
    data["group_subtasks"]["cwi"] = ["cwi_alignment"]  # a group: no samples of its own, not a finding
    next((tmp_path / "run").glob("*_results.json")).write_text(json.dumps(data))
    assert check.main([str(tmp_path / "run")]) == 1
    out = capsys.readouterr().out
    cwi = next(line for line in out.splitlines() if "cwi_alignment:" in line)
    assert "3 generation failed of 3 samples" in cwi and "LMMS_EVAL_REQUEST_FAILED" in cwi
    assert "not a number (no sample to stand on): accuracy" in cwi
    dod = next(line for line in out.splitlines() if "dod_no_hint:" in line)
    assert "1 generation failed, 1 pending (not scored), 1 scorer error of 4 samples" in dod, dod
    assert "no_edit_judge 1" in dod and "cwi:" not in out


def test_json_output_and_runs_that_cannot_be_told(tmp_path, capsys):
    write_run(tmp_path / "nosamples", {"grade": {"grade_strict": 10.0}})
    assert check.main([str(tmp_path / "nosamples")]) == 2
    assert "no samples file: cannot tell (run lmms-eval with --log_samples)" in capsys.readouterr().out
    assert check.main([str(tmp_path / "missing")]) == 2
    capsys.readouterr()
    write_run(tmp_path / "run", {"cwi_alignment": {"accuracy": 0.0}}, {"cwi_alignment": _cwi_lines([st.OK, st.GENERATION_FAILED])})
    assert check.main([str(tmp_path / "run"), str(tmp_path / "missing"), "--json"]) == 2  # the worst of the runs
    report = json.loads(capsys.readouterr().out)
    row = report[str(tmp_path / "run")][0]
    assert (row["task"], row["samples"], row["failed"], row["pending"]) == ("cwi_alignment", 2, 1, 0)
    assert report[str(tmp_path / "missing")] == []


def test_the_command_line_entry_point(tmp_path):
    write_run(tmp_path / "run", {"cwi_alignment": {"accuracy": 0.0}}, {"cwi_alignment": _cwi_lines([st.GENERATION_FAILED])})
    proc = subprocess.run([sys.executable, "-m", "lmms_plugins", "check", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "1 generation failed of 1 samples" in proc.stdout


def test_what_counts_as_pending():
    # GRADE's consistency on a "none" sample: no value, status ok -> does not apply, not pending
    assert run_summary.sample_kinds({"grade_consistency": st.sample(None, st.OK)}) == set()
    # DoD's records that carry no value of their own
    assert run_summary.sample_kinds({"dod_run": st.sample(None, "judge_error", applicable=False)}) == set()
    assert run_summary.sample_kinds({"E": st.sample(None, "judge_error")}) == {"pending"}
    assert run_summary.sample_kinds({"abacus_score": st.sample(None, "detector_error")}) == {"pending"}
    assert run_summary.sample_kinds({"accuracy": st.sample(1.0, st.OK, unconfined=True)}) == {"unconfined"}
    # an answer that is no image is the model's answer, scored 0: not pending
    assert run_summary.sample_kinds({"abacus_score": st.sample(0.0, st.MISSING_IMAGE)}) == set()
    # a samples-file line's other fields are not records
    assert run_summary.sample_kinds({"doc": {"status": "draft"}, "target": "x", "doc_id": 3}) == set()


def test_results_and_samples_of_any_shape_end_in_a_line_not_a_traceback(tmp_path, capsys):
    """Hand-edited runs: every odd shape is either counted or 'cannot tell' (exit 2), never a traceback."""
    import random

    rng = random.Random(7)
    odd = [None, [], {}, "x", 3, 2.5, float("nan"), True, [{"status": "ok"}], {"status": ["x"], "value": "1"},
           {"status": st.GENERATION_FAILED, "value": None, "applicable": "no"}, {"value": None, "status": None}]
    for i in range(40):
        run = tmp_path / f"r{i}"
        lines = [sample_line(j, {"accuracy": rng.choice(odd), "other": rng.choice(odd)}) for j in range(rng.randint(0, 3))]
        path = write_run(run, {"cwi_alignment": {"accuracy": rng.choice(odd)}}, {"cwi_alignment": lines})
        if i % 3 == 0:  # the results file itself of another shape
            data = json.loads(path.read_text())
            data[rng.choice(["results", "group_subtasks", "n-samples", "configs"])] = rng.choice(odd)
            path.write_text(json.dumps(data))
        if i % 5 == 0:
            next(run.glob("*_samples_*.jsonl")).write_text(rng.choice(['[1, 2]\n', '"a"\n', 'null\n', '{"doc_id": []}\n']))
        code = check.main([str(run)])
        assert code in (0, 1, 2)
        out = capsys.readouterr()
        assert "Traceback" not in out.out + out.err and "lmms-plugins check:" in out.err


def test_a_task_of_another_package_is_checked_for_failure_markers_in_its_outputs(tmp_path, capsys):
    """lmms-eval's own tasks log no per-sample status: their outputs are read for the wrappers' markers,
    so a stock task whose generations failed is not 'generated and scored' (exit 1)."""
    outputs = ["A", "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Connection error.", ["[LMMS_EVAL_BUDGET_EXCEEDED]"], [[""]]]
    stock = [dict(sample_line(i, {"exact_match": 1.0}), filtered_resps=o) for i, o in enumerate(outputs)]
    write_run(tmp_path / "bad", {"mme": {"exact_match": 0.25}}, {"mme": stock})
    assert check.main([str(tmp_path / "bad")]) == 1
    out = capsys.readouterr().out
    assert "mme: 3 generation failed of 4 samples (not a task of this package" in out, out
    good = [dict(sample_line(i, {"exact_match": 1.0}), filtered_resps=[o]) for i, o in enumerate(["A", "B"])]
    write_run(tmp_path / "good", {"mme": {"exact_match": 1.0}}, {"mme": good})
    assert check.main([str(tmp_path / "good"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[str(tmp_path / "good")] == [
        {"task": "mme", "samples": 2, "failed": 0, "status_checked": False}]
