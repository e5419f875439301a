"""GRADE scoring (strict, lenient, per domain / sub_task, intervals) and answer matching: pure code."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lmms_plugins.tasks.grade.records import Question, domain_of
from lmms_plugins.tasks.grade.rubric import match_answers, parse_scale, yes_no
from lmms_plugins.tasks.grade.scoring import SampleScore, breakdown, lenient, score_group


def s(task_id="math_x_001", ctype="overall", R=1.0, C=2, L=2, status="ok", sub="S"):
    return SampleScore(task_id=task_id, domain=domain_of(task_id), sub_task=sub, consistency_type=ctype,
                       R=R, C=C, L=L, status=status)


def test_published_lenient_of_nano_banana_pro():
    # Published: R 77.5, C 89.5, L 95.8 -> lenient 82.9 (GRADE paper, table 3; upstream-facts.md)
    assert round(lenient(77.5, 89.5, 95.8), 1) == 82.9


def test_lenient_from_samples_averages_consistency_over_non_none_only():
    # 500 samples whose means are the published Nano Banana Pro ones, plus 20 'none' samples with
    # R and L equal to the means: they must not move C (averaged over the 500 only).
    samples = [s(f"math_{i:03d}", R=0.775, C=2 if i < 395 else 1, L=2 if i < 458 else 1) for i in range(500)]
    g = score_group(samples, n_resamples=0)
    assert (round(g.reasoning, 6), round(g.consistency, 6), round(g.readability, 6)) == (77.5, 89.5, 95.8)
    assert round(g.lenient, 1) == 82.9
    with_none = samples + [s(f"physics_{i}", ctype="none", R=0.775, C=None, L=2 if i < 18 else 1) for i in range(25)]
    g2 = score_group(with_none, n_resamples=0)
    assert g2.consistency == pytest.approx(89.5) and g2.n_consistency == 500 and g2.n == 525


@pytest.mark.parametrize(
    "sample, ok",
    [
        (s(R=1.0), True),
        (s(R=0.995), True),  # "R = 1" with float weights: > 0.99
        (s(R=0.99), False),
        (s(R=0.8), False),
        (s(C=1), False),
        (s(L=1), False),
        (s(ctype="none", C=None), True),  # no consistency requirement
        (s(ctype="style", C=None, status="judge_error"), False),  # pending C
        (s(R=None, status="judge_error"), False),
    ],
)
def test_strict_rule(sample, ok):
    assert sample.strict is ok


def test_pending_values_stay_in_the_denominator():
    g = score_group([s("math_1"), s("math_2", R=None, C=None, L=None, status="judge_error")], n_resamples=0)
    assert g.strict == 50.0 and g.reasoning == 50.0 and g.consistency == 50.0 and g.readability == 50.0
    assert g.status_counts == {"judge_error": 1, "ok": 1}


@pytest.mark.parametrize(
    "task_id, domain",
    [("board_go_003", "sports"), ("engineering_draw_001", "physics"), ("ComputerScience_graph_002", "ComputerScience"),
     ("eco_macro_001", "eco"), ("his_timeline_010", "his"), ("sports_x_1", "sports")],
)
def test_domain_of(task_id, domain):
    assert domain_of(task_id) == domain


def test_breakdown_per_domain_and_sub_task_with_intervals():
    rng = random.Random(3)
    samples = [
        s(f"{p}_{i:03d}", ctype=rng.choice(["overall", "style", "none"]), R=rng.choice([0, 0.5, 1.0]),
          C=rng.choice([0, 1, 2]), L=rng.choice([1, 2]), sub=f"{p}-{i % 2}")
        for p in ("board", "physics", "eco") for i in range(12)
    ]
    samples = [x if x.consistency_type != "none" else SampleScore(**{**x.__dict__, "C": None}) for x in samples]
    b = breakdown(samples, n_resamples=200)
    assert set(b["by_domain"]) == {"sports", "physics", "eco"}
    assert set(b["by_sub_task"]) == {f"{p}-{k}" for p in ("board", "physics", "eco") for k in (0, 1)}
    ov = b["overall"]
    assert ov["n"] == 36 and b["status_counts"] == {"ok": 36}
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        lo, hi = ov["ci95"][name]
        assert lo <= ov[name] <= hi and lo < hi
    sports = score_group([x for x in samples if x.task_id.startswith("board")], n_resamples=0)
    assert b["by_domain"]["sports"]["lenient"] == pytest.approx(sports.lenient)
    # same numbers whatever order the samples arrive in (threads, ranks)
    assert breakdown(list(reversed(samples)), n_resamples=200) == b


QS = (Question("Q1", "Is A red?", 0.2), Question("Q2", "Is B blue?", 0.3), Question("Q3", "Is C drawn?", 0.5))


def test_answers_matched_by_id_in_any_order():
    reply = [{"id": "Q3", "answer": "Yes"}, {"id": "Q1", "answer": "no."}, {"id": "Q2", "answer": "YES"}]
    v = match_answers(QS, reply)
    assert v.matched_by == "id" and v.score == pytest.approx(0.8)
    assert [a.yes for a in v.answers] == [False, True, True]


def test_answers_matched_by_numeric_ids_and_by_question_text_and_position():
    assert match_answers(QS, [{"id": 3, "answer": "Yes"}, {"id": 2, "answer": "No"}, {"id": 1, "answer": "Yes"}]).score == pytest.approx(0.7)
    by_text = match_answers(QS, [{"question": "is c drawn", "answer": "Yes"}, {"question": "Is A red?", "answer": "No"},
                                 {"question": "Is B blue?", "answer": "No"}])
    assert by_text.matched_by == "question" and by_text.score == pytest.approx(0.5)
    by_pos = match_answers(QS, [{"answer": "Yes"}, {"answer": "No"}, {"answer": "No"}])
    assert by_pos.matched_by == "position" and by_pos.score == pytest.approx(0.2)
    # ids that do not name the questions (the judge renumbered them): position
    assert match_answers(QS, [{"id": "a", "answer": "No"}, {"id": "b", "answer": "No"}, {"id": "c", "answer": "Yes"}]).score == pytest.approx(0.5)
    # an object keyed by id
    assert match_answers(QS, {"Q1": "Yes", "Q2": "Yes", "Q3": "No"}).score == pytest.approx(0.5)
    assert match_answers(QS, {"answers": [{"id": "Q1", "answer": True}, {"id": "Q2", "answer": False}, {"id": "Q3", "answer": True}]}).score == pytest.approx(0.7)


@pytest.mark.parametrize(
    "reply, message",
    [
        ([{"id": "Q1", "answer": "Yes"}, {"id": "Q2", "answer": "Yes"}], "answered 2 question"),
        ([{"answer": "Yes"}] * 4, "answered 4 question"),
        ([{"id": "Q1", "answer": "Maybe"}, {"id": "Q2", "answer": "Yes"}, {"id": "Q3", "answer": "No"}], "neither Yes nor No"),
        ([{"id": "Q1"}, {"id": "Q2", "answer": "Yes"}, {"id": "Q3", "answer": "No"}], "no 'answer'"),
        ("Yes", "expected a JSON list"),
    ],
)
def test_unusable_answers_are_errors(reply, message):
    with pytest.raises(ValueError, match=message):
        match_answers(QS, reply)


def test_parse_scale():
    assert parse_scale({"score": 2, "reason": "fine"}).score == 2
    assert parse_scale({"Final Score": "1", "Reason": "x"}).score == 1  # the official prompts' key
    assert parse_scale([{"score": 0}]).score == 0
    for bad in ({"score": 3}, {"score": 1.5}, {"score": "two"}, {"reason": "no score"}, [1, 2], {"score": True}):
        with pytest.raises(ValueError):
            parse_scale(bad)


def test_yes_no():
    assert yes_no("Yes, clearly") and not yes_no("No.") and yes_no(True)
    with pytest.raises(ValueError):
        yes_no("unclear")


def test_every_published_lenient_in_the_baselines_table_is_reproduced():
    """The package's table of published numbers (lmms_plugins/baselines/grade.csv): each model
    with a published lenient score gets it back from its published R, C and L."""
    import csv

    import lmms_plugins.baselines as baselines

    rows = list(csv.DictReader(open(Path(baselines.__file__).with_name("grade.csv"), encoding="utf-8")))
    table: dict = {}
    for r in rows:
        table.setdefault((r["model"], r["setting"]), {})[r["metric"]] = float(r["value"])
    with_lenient = {k: v for k, v in table.items() if "lenient" in v}
    assert with_lenient, "no published lenient score in the baselines table"
    for (model, setting), m in with_lenient.items():
        assert round(lenient(m["R"], m["C"], m["L"]), 1) == m["lenient"], (model, setting)
