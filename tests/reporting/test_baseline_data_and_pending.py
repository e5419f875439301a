"""Issue 14.4: the published-numbers CSVs are well-formed and say only what sources say, and
``compare`` shows DoD's pending samples and ceiling instead of ranking a capped value."""

from __future__ import annotations

import csv

import pytest

from lmms_plugins import compare as C
from lmms_plugins.baselines import COLUMNS, BaselineDataError, data_files, load, load_file

from .runs import write_run

HEADER = ",".join(COLUMNS)


def test_every_baseline_csv_row_has_exactly_the_header_fields():
    """An unquoted comma shifts a row: the protocol is cut and the real notes are lost."""
    for path in data_files():
        with path.open(newline="", encoding="utf-8") as fh:
            for i, fields in enumerate(csv.reader(fh), start=1):
                assert len(fields) == len(COLUMNS), f"{path.name}:{i} has {len(fields)} fields"


def test_loader_rejects_a_row_with_the_wrong_field_count(tmp_path):
    # the shape of the 49 GRADE rows before the fix: "GPT-5, expert-checked" unquoted
    old_row = ("grade,Nano Banana Pro,implicit,R,77.5,percent,score,520,GRADE (ECCV 2026) Table 1 p. 9,"
               "judge gemini-3-flash-preview (reasoning effort low); rubric questions by GPT-5, expert-checked,")
    bad = tmp_path / "grade.csv"
    bad.write_text(HEADER + "\n" + old_row + "\n", encoding="utf-8")
    with pytest.raises(BaselineDataError, match=r"grade.csv:2: 12 fields, expected 11 .* must be quoted"):
        load_file(bad)
    short = tmp_path / "short.csv"
    short.write_text(HEADER + "\ndod,M,no_hint,E,50,percent,score,10,src\n", encoding="utf-8")
    with pytest.raises(BaselineDataError, match=r"short.csv:2: 9 fields, expected 11"):
        load_file(short)
    # the same row quoted is read whole
    good = tmp_path / "good.csv"
    quoted = old_row.replace("judge gemini", '"judge gemini').replace("expert-checked,", 'expert-checked",')
    good.write_text(HEADER + "\n" + quoted + "\n", encoding="utf-8")
    (row,) = load_file(good)
    assert row.protocol.endswith("rubric questions by GPT-5, expert-checked") and row.notes == ""


def test_grade_rows_keep_their_protocol_and_notes():
    rows = load("grade")
    assert len(rows) == 67
    gpt5 = [r for r in rows if "rubric questions by GPT-5" in r.protocol]
    assert gpt5 and all(r.protocol.endswith("GPT-5, expert-checked") for r in gpt5)
    assert not any(r.notes == "expert-checked" for r in rows)
    assert sum("68-sample subset" in r.notes for r in rows) == 16
    assert any(r.notes == "lenient = 0.6 R + 0.3 C + 0.1 L" for r in rows)


def test_vista_bagel_notes_say_only_what_sources_say():
    rows = [r for r in load("dod") if r.model == "VisTA-BAGEL"]
    assert len(rows) == 5
    for r in rows:
        assert "own model" not in r.notes and "apparently" not in r.notes
    for r in rows[:4]:
        assert "do not say who built it" in r.notes and "upstream-facts" in r.notes


def _dod_run(out, e_pending, total=1050, e_success=120, d_success=200, samples=None):
    # as DoD writes it: the rates and one dod_breakdown row, metric -> [success, pending, total]
    return write_run(out, {"dod_no_hint": {
        "E": e_success / total, "D_strict": d_success / total,
        "dod_breakdown": {"E": [e_success, e_pending, total], "D_strict": [d_success, 0, total]},
        "dod_run": {"samples": 2 * total, "refusal_mode": "rules"}}}, samples)


def test_dod_without_editing_judge_prints_pending_and_ceiling_and_is_not_ranked(tmp_path):
    _dod_run(tmp_path / "nojudge", e_pending=900)
    cmp = C.compare([tmp_path / "nojudge"], labels=["nojudge"])
    e = next(b for b in cmp.blocks if b.metric == "E").entries[0]
    assert e.pending == (900, 1050) and e.rank is None and "not ranked" in e.unranked
    text = cmp.text
    assert "pending 900/1050 (85.7 %), ceiling 14.3" in text
    assert "nojudge: not ranked: 900 of 1050 samples are pending (85.7 % > 5 %)" in text
    d = next(b for b in cmp.blocks if b.metric == "D_strict").entries[0]
    assert d.pending == (0, 1050) and d.rank is not None
    assert "pending 0/1050 (0.0 %), ceiling 100.0" in text
    md = cmp.markdown
    assert "pending 900/1050 (85.7 %), ceiling 14.3" in md
    rows = [r for r in C.csv_rows(cmp) if r.get("row") == "yours" and r["metric"] == "E"]
    assert rows[0]["pending"] == 900 and rows[0]["pending_total"] == 1050 and rows[0]["rank"] == ""


def test_dod_pending_share_at_the_limit_is_still_ranked(tmp_path):
    _dod_run(tmp_path / "few", e_pending=52, e_success=700)  # 4.95 %
    e = next(b for b in C.compare([tmp_path / "few"], labels=["few"]).blocks if b.metric == "E").entries[0]
    assert e.rank is not None and e.pending == (52, 1050)
    _dod_run(tmp_path / "more", e_pending=53, e_success=700)  # 5.05 %
    e = next(b for b in C.compare([tmp_path / "more"], labels=["more"]).blocks if b.metric == "E").entries[0]
    assert e.rank is None


def test_dod_pending_from_logged_samples_when_no_counts(tmp_path):
    from lmms_plugins.utils import status as st

    lines = [{"doc_id": i, "E": st.sample(None if i < 3 else 1.0, "ok", "", f"s{i}")} for i in range(10)]
    write_run(tmp_path / "s", {"dod_no_hint": {"E": 0.7}}, {"dod_no_hint": lines})
    cmp = C.compare([tmp_path / "s"], labels=["s"])
    e = next(b for b in cmp.blocks if b.metric == "E").entries[0]
    assert e.pending == (3, 10) and e.rank is None
    assert "pending 3/10 (30.0 %), ceiling 70.0" in cmp.text
