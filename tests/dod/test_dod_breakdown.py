"""DoD's counts: the short ``dod_breakdown`` row (metric -> [success, pending, total]) and the whole
summary per category and status from a run's samples files (``python -m lmms_plugins.tasks.dod.breakdown``)."""

from __future__ import annotations

import json
from pathlib import Path

from lmms_plugins.tasks.dod import breakdown, hooks
from lmms_plugins.tasks.dod import metrics as M
from lmms_plugins.utils import status as st


def rec(case, feasible, has_image, refused, edit_ok=None, category="pose_adjustment", status="ok"):
    return M.SampleRecord(case, case.rsplit("-", 1)[0], category, feasible, has_image, refused, edit_ok, status=status)


RECORDS = [
    rec("p1-feasible", True, True, False, True, "maze"),
    rec("p1-infeasible", False, False, True, category="maze"),
    rec("p2-feasible", True, True, False, None, status="no_edit_judge"),
    rec("p2-infeasible", False, True, True),
    rec("p3-feasible", True, False, True),
    rec("p3-infeasible", False, None, None, status="unparsable"),
]


def _line(r: M.SampleRecord) -> dict:
    """One samples-file line as lmms-eval writes it: the full record on dod_run, slim ones elsewhere."""
    full = {**r.to_dict(), "data_root": "/data/dod"}
    slim = {k: full[k] for k in hooks.SLIM_FIELDS}
    line = {"doc_id": r.case_id, "dod_run": st.sample(None, r.status, r.reason, r.case_id, applicable=False, record=full)}
    for m in hooks.METRIC_NAMES:
        line.setdefault(m, st.sample(None, r.status, "", r.case_id, applicable=False, record=slim))
    return line


def test_the_breakdown_row_is_the_summary_in_short_and_every_rate_follows_from_it():
    s = M.summarize(RECORDS)
    row = M.breakdown(RECORDS)
    assert list(row) == list(M.METRICS + M.PAIR_METRICS)
    for m, (success, pending, total) in row.items():
        assert (success, pending, total) == (s[m]["success"], s[m]["pending"], s[m]["total"]), m
        assert total - pending == s[m]["reviewed"], m
    assert row["E"] == [1, 1, 3] and row["D_strict"] == [1, 1, 3] and row["pair_success"] == [1, 0, 3]
    items = [_line(r)["dod_breakdown"] for r in RECORDS]
    assert hooks.aggregate_breakdown(items) == row  # the aggregation reads the slim records
    assert hooks.aggregate_E(items) == M.rate("E", RECORDS) == 1 / 3
    assert len(str(row)) < 150  # one short row in lmms-eval's table, whatever the categories


def test_summaries_read_the_newest_samples_file_of_each_task_and_say_what_is_wrong(tmp_path, capsys):
    run = tmp_path / "out" / "model"
    run.mkdir(parents=True)
    old = RECORDS[:2]
    (run / "20240101_000000_samples_dod_no_hint.jsonl").write_text("".join(json.dumps(_line(r)) + "\n" for r in old))
    (run / "20240102_000000_samples_dod_no_hint.jsonl").write_text("".join(json.dumps(_line(r)) + "\n\n" for r in RECORDS))
    (run / "20240102_000000_samples_dod_decline_hint.jsonl").write_text(json.dumps(_line(RECORDS[0])) + "\n")
    got = breakdown.summaries(tmp_path / "out")
    assert set(got) == {"dod_no_hint", "dod_decline_hint"}
    assert got["dod_no_hint"]["samples"] == len(RECORDS)  # the newer run of the task
    assert got["dod_no_hint"]["E"]["statuses"] == {"no_edit_judge": 1}
    assert got["dod_no_hint"]["D_strict"]["statuses"] == {"unparsable": 1}
    assert set(got["dod_no_hint"]["by_category"]) == {"maze", "pose_adjustment"}
    assert got["dod_no_hint"]["by_category"]["maze"]["E"]["rate"] == 1.0
    assert got["dod_decline_hint"]["samples"] == 1

    assert breakdown.main([str(tmp_path / "out")]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(got))
    assert breakdown.main([str(tmp_path / "nothing")]) == 2
    assert "no *_samples_dod*.jsonl under" in capsys.readouterr().err
    bad = run / "20240103_000000_samples_dod_no_hint.jsonl"
    bad.write_text(json.dumps(_line(RECORDS[0])) + "\n{not json\n")
    assert breakdown.main([str(bad)]) == 2
    assert f"{bad}:2: not JSON" in capsys.readouterr().err
