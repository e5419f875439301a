"""The rule-based refusal detector and the pure DoD metrics."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod import metrics as M
from lmms_plugins.tasks.dod.refusal import detect_refusal, official_abstain
from lmms_plugins.tasks.dod.refusal.rules import sentences
from lmms_plugins.utils.jsonl import read_jsonl

LABELLED = Path(M.__file__).parent / "refusal" / "labelled.jsonl"


# --- refusal rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, evidence", [
    ("<think>BFS from (1,1) never reaches (5,5). [ABSTAIN]</think>", "[ABSTAIN]"),
    ("<think>Blocked.\n[ABSTAIN]\n</think>", "[ABSTAIN]"),
    ("Start at (1,1). The wall at (3,3) cuts the corridor. Therefore, there is no valid path.", "Therefore, there is no valid path."),
    ("The maze is unsolvable, but here is my best attempt.", "The maze is unsolvable, but here is my best attempt."),
    ("The two requirements contradict each other, so the edit cannot be done.", "The two requirements contradict each other, so the edit cannot be done."),
])
def test_explicit_conclusions_count_with_an_exact_evidence_span(text, evidence):
    d = detect_refusal(text)
    assert d.refused and d.evidence == evidence and d.evidence in text


@pytest.mark.parametrize("text", [
    "If the end were walled off, the maze would be unsolvable.",  # hypothetical
    "It seems there might be no path.",  # hedging
    "There is no path through the top corridor, so I go left.",  # failed attempt
    "Walls cannot be crossed and diagonal moves are not allowed.",  # restating the rules
    "It is not impossible: the bottom row connects both ends.",  # negation
    "I'm sorry, I can't complete this request because it depicts violence.",  # unrelated refusal
    "There is no path... wait, actually (3,4) is open, so there is one.",  # retracted
    "Is there no path at all?",  # question
    "The reminder says: \"If no solution exists under these constraints, state that no solution exists.\"",  # quoted
    "<think>I could write [ABSTAIN] if needed, but the corridor is open.</think>",  # token not before </think>
    "",
])
def test_non_conclusions_do_not_count(text):
    d = detect_refusal(text)
    assert not d.refused and d.evidence == ""


def test_official_abstain_token_position():
    assert official_abstain("<think>x [ABSTAIN] </think>")
    assert official_abstain("<think>cut short [ABSTAIN]")
    assert not official_abstain("<think>[ABSTAIN] is the token.</think>")


def test_sentence_spans_are_exact_substrings():
    text = "  Cell (3,4) is open.\nNext (4,4)... done! <think>ok</think>"
    spans = [text[s:e] for s, e in sentences(text)]
    assert spans == ["Cell (3,4) is open.", "Next (4,4)...", "done!", "ok"]


def test_labelled_set_is_large_varied_and_scored_well():
    rows = read_jsonl(LABELLED)
    assert len(rows) >= 200 and len({r["text"] for r in rows}) == len(rows)
    kinds = {r["kind"] for r in rows}
    assert {"hypothetical", "hedge", "negation", "failed_attempt", "constraint", "unrelated_refusal",
            "refuse_then_draw", "abstain_token"} <= kinds
    for r in rows:
        if r["evidence"]:
            assert r["evidence"] in r["text"]
    correct = sum(detect_refusal(r["text"]).refused == r["label"] for r in rows)
    # the README states the exact numbers (benchmarks/dod_refusal_detector.py); guard against regressions
    assert correct / len(rows) >= 0.95


# --- metrics -------------------------------------------------------------------------------------------


def rec(case, feasible, has_image, refused, edit_ok=None, category="pose_adjustment", status="ok"):
    pair = case.rsplit("-", 1)[0]
    return M.SampleRecord(case, pair, category, feasible, has_image, refused, edit_ok, status=status)


def test_metric_definitions_per_request():
    # E: no image is a failure; an unjudged image is pending
    assert M.outcome("E", rec("a-f", True, False, False)).value == 0.0
    assert M.outcome("E", rec("a-f", True, True, False, None)).value is None
    assert M.outcome("E", rec("a-f", True, True, True, True)).value == 1.0  # E ignores a refusal text
    assert not M.outcome("E", rec("a-i", False, True, False)).applicable
    # D strict needs the refusal AND no image; lenient only the refusal
    assert M.outcome("D_strict", rec("a-i", False, False, True)).value == 1.0
    assert M.outcome("D_strict", rec("a-i", False, True, True)).value == 0.0
    assert M.outcome("D_lenient", rec("a-i", False, True, True)).value == 1.0
    assert M.outcome("D_strict", rec("a-i", False, None, True)).value is None  # image state unknown
    assert M.outcome("D_strict", rec("a-i", False, None, False)).value == 0.0  # no refusal decides it
    assert M.outcome("D_f", rec("a-f", True, True, True)).value == 1.0
    assert M.outcome("D_f", rec("a-f", True, True, None, status="judge_error")).status == "judge_error"


def test_tallies_keep_pending_in_the_denominator_and_split_by_category():
    records = [
        rec("p1-feasible", True, True, False, True, "maze"),
        rec("p1-infeasible", False, False, True, category="maze"),
        rec("p2-feasible", True, True, False, None, "pose_adjustment"),
        rec("p2-infeasible", False, True, True, category="pose_adjustment"),
        rec("p3-feasible", True, False, True, category="pose_adjustment"),
        rec("p3-infeasible", False, None, None, category="pose_adjustment", status="unparsable"),
        rec("p4-feasible", True, True, False, None, "pose_adjustment"),  # its partner is absent
    ]
    s = M.summarize(records)
    assert {k: s["E"][k] for k in ("success", "reviewed", "pending", "total")} == {"success": 1, "reviewed": 2, "pending": 2, "total": 4}
    assert s["E"]["rate"] == pytest.approx(0.25)
    assert (s["D_strict"]["success"], s["D_strict"]["pending"], s["D_strict"]["total"]) == (1, 1, 3)
    assert (s["D_lenient"]["success"], s["D_lenient"]["total"]) == (2, 3)
    assert (s["D_f"]["success"], s["D_f"]["total"]) == (1, 4)
    # pairs: p1 both succeed; p2 E pending but D strict failed -> failure; p3 E failed; p4 incomplete
    assert (s["pair_success"]["success"], s["pair_success"]["reviewed"], s["pair_success"]["total"]) == (1, 3, 3)
    assert s["incomplete_pairs"] == 1
    assert s["by_category"]["maze"]["E"]["rate"] == 1.0
    assert s["by_category"]["pose_adjustment"]["E"]["total"] == 3
    assert s["sample_statuses"] == {"ok": 6, "unparsable": 1}
    assert math.isnan(M.tally("E", []).rate) and M.Tally().as_dict()["rate"] is None
    assert any("E" in line for line in M.format_summary(s))


def test_pending_refusal_verdicts_print_the_range_each_d_rate_can_take(capsys):
    """Judge-free, a pending refusal verdict counts as no refusal (official denominator): D_strict and D_lenient
    are then lower bounds and D_f (lower is better) its best case; the run prints the range deciding them gives."""
    from dataclasses import asdict

    from lmms_plugins.tasks.dod import hooks

    records = [
        rec("p1-feasible", True, True, False),
        rec("p2-feasible", True, True, True),  # a false refusal
        rec("p3-feasible", True, False, None, status="refusal_uncertain"),
        rec("p4-feasible", True, False, None, status="refusal_not_covered"),
        rec("p1-infeasible", False, False, True),
        rec("p2-infeasible", False, False, None, status="refusal_uncertain"),
        rec("p3-infeasible", False, True, None, status="judge_error"),  # not a refusal verdict left open by the rules
    ]
    f_rate = M.tally("D_f", records)
    assert hooks.refusal_bounds(f_rate) == (2, 0.25, 0.75)
    line = hooks.print_refusal_bounds("D_f", f_rate)
    assert "2 of 4 requests have no refusal verdict" in line and "its best case (lower is better)" in line
    assert "0.2500-0.7500" in line and line in capsys.readouterr().err
    assert hooks.refusal_bounds(M.tally("D_strict", records)) == (1, 1 / 3, 2 / 3)  # judge_error is not counted
    assert hooks.refusal_bounds(M.tally("D_f", records[:2])) is None  # nothing pending: no line
    # through the aggregation lmms-eval calls
    items = [{"record": asdict(r), "status": r.status, "applicable": r.feasible} for r in records]
    assert hooks.aggregate_D_f(items) == 0.25
    assert "dod D_f: 2 of 4 requests have no refusal verdict" in capsys.readouterr().err
    assert hooks.aggregate_E(items) is not None and "no refusal verdict" not in capsys.readouterr().err
