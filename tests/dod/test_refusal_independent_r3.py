"""The refusal detector on the third independent round (tests/dod/data/refusal_independent_r3.jsonl) and on
this package's own third frozen split (tests/dod/data/refusal_frozen3.jsonl).

Round 3: 319 responses in 21 languages by another writer (REFUSALSET), who read neither the rules nor the
earlier sets; committed (a70513d) before the detector was run on it. Labels are for the whole response
(``declined`` / ``not_declined``); 4 rows marked ``ambiguous`` are skipped. First run of the shipped
detector (6c56464, language coverage in, no round-3 rule yet), whole-output reading: 144/218 = 0.661 on
the covered languages (P 0.814, R 0.432), 96 of the 97 other-language rows uncertain. After the rule
changes this round made (README, Changelog 2.1): 213/218 = 0.977 (P 1.000, R 0.955); the disagreements
left are pinned by id below.

Frozen split 3: 61 responses written here before any round-3 rule change and never tuned on; first run
28/61 = 0.459, after the round-3 changes 59/61 = 0.967.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal import COVERED
from lmms_plugins.tasks.dod.refusal import UNCERTAIN
from lmms_plugins.tasks.dod.refusal.text import detect_in
from lmms_plugins.utils.jsonl import read_jsonl

DATA = Path(__file__).parent / "data"

# Disagreements left on the covered languages (whole-output reading), each with why:
KNOWN = {
    "r3-0024",  # "No — it would melt.": a bare "No" with a reason; "No, the wall is open, so ..." is common too
    "r3-0038",  # the conclusion sits in a sentence that ends as a question ("... satisfies that — can you tell me?")
    "r3-0060",  # "it looks like no solution exists": a hedge by design (README: hedges do not count)
    "r3-0067",  # a long polite answer whose decline comes after 600 characters of physics in one run-on line
    "r3-0289",  # "can't stack it": an ability about "it" with no reason in the clause (could be any refusal)
}


def _covered_language(row) -> bool:
    return row["language"] in COVERED and not row.get("script")  # transliterated Hindi/Russian/Arabic are not


@pytest.fixture(scope="module")
def rows():
    return [r for r in read_jsonl(DATA / "refusal_independent_r3.jsonl") if not r["ambiguous"]]


@pytest.fixture(scope="module")
def decisions(rows):
    return {r["id"]: detect_in(r["response"], "all") for r in rows}


def test_the_set_is_what_was_frozen(rows):
    every = read_jsonl(DATA / "refusal_independent_r3.jsonl")
    assert len(every) == 319 and sum(r["ambiguous"] for r in every) == 4
    assert Counter(r["label"] for r in every) == {"declined": 165, "not_declined": 154}
    assert len({r["language"] for r in every}) == 21


def test_covered_languages_agree_judge_free(rows, decisions):
    covered = [r for r in rows if _covered_language(r)]
    scored = [r for r in covered if decisions[r["id"]].covered]
    assert len(scored) == len(covered) == 218  # none of them is read as another language
    wrong = {r["id"] for r in scored if bool(decisions[r["id"]].refused) != (r["label"] == "declined")}
    accuracy = 1 - len(wrong) / len(scored)
    assert accuracy >= 0.95 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    fp = sum(1 for r in scored if decisions[r["id"]].refused and r["label"] != "declined")
    assert fp <= 2  # precision is not bought with recall


def test_other_languages_are_uncertain_not_guessed(rows, decisions):
    others = [r for r in rows if not _covered_language(r)]
    assert len(others) == 97
    uncertain = [r for r in others if decisions[r["id"]].verdict == UNCERTAIN]
    assert len(uncertain) >= 96  # one Portuguese JSON answer is read as Spanish (and read right)
    for r in others:
        d = decisions[r["id"]]
        if d.covered:
            assert bool(d.refused) == (r["label"] == "declined"), r["id"]


def test_hybrid_routing(rows, decisions):
    # hybrid mode sends the uncertain responses to the judge: which, and how many (README, "Languages")
    routed = [r for r in rows if decisions[r["id"]].verdict == UNCERTAIN]
    not_covered = [r for r in routed if not decisions[r["id"]].covered]
    assert len(not_covered) == 96 and len(routed) - len(not_covered) <= 30
    # with a judge that answers as the labels do, every covered error left is one the detector was sure of
    hybrid = {r["id"]: (r["label"] == "declined") if decisions[r["id"]].verdict == UNCERTAIN else bool(decisions[r["id"]].refused)
              for r in rows}
    agree = sum(1 for r in rows if hybrid[r["id"]] == (r["label"] == "declined"))
    assert agree / len(rows) >= 0.98


def test_own_frozen_split_3():
    rows = read_jsonl(DATA / "refusal_frozen3.jsonl")
    assert len(rows) == 61 and sum(r["label"] for r in rows) == 35
    right = sum(1 for r in rows if bool(detect_in(r["text"], "all").refused) == r["label"])
    assert right / len(rows) >= 0.95, right  # measured 59/61 (first run 28/61)
