"""The refusal detector on the seventh independent round (tests/dod/data/refusal_independent_r7.jsonl).

Round 7: 287 responses (284 scored) by another writer (R7SET), who read only the DoD dataset card: neither the
detector, its rules and tests, the README's refusal sections nor any earlier refusal set; committed (ad13696)
before the detector was run on it, in the styles of small and open models (verdict words first, literal
translations, numbered steps, "Dear user", boilerplate). ``image`` per row; ``lang`` is the response's language;
3 rows marked ``ambiguous`` are skipped.

First run (the detector after rounds 5 and 6 were tuned on, 2.5 at 770a500; the lead ran it once), whole-output
reading, judge-free on the covered languages: 174/176 decided = 0.989 (P 1.000, R 0.976), 46 of 222 pending
(20.7 %); best answers on all 222 covered 0.847 (R 0.761); hybrid with a judge answering as the labels 0.993, 107
of 284 to the judge. The goal (>= 0.95 first time) was met a third time (README "Round 7").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal import COVERED, UNCERTAIN
from lmms_plugins.tasks.dod.refusal.text import detect_in
from lmms_plugins.utils.jsonl import read_jsonl

DATA = Path(__file__).parent / "data"

# Disagreements on the covered languages' decided responses at the first run (whole-output reading), each with why:
KNOWN = {
    "r7-0174",  # fr: "… les deux ensemble sont impossibles. J'ai mis la brique sans la transparence, voir image.": the possible part drawn
    "r7-0238",  # de: "… schließt sich aus. Ich habe sie abgebrannt …, die Länge konnte ich nicht halten.": the possible part drawn
}


def _covered(lang: str) -> bool:
    return all(part in COVERED for part in lang.split("-"))


@pytest.fixture(scope="module")
def rows():
    return [r for r in read_jsonl(DATA / "refusal_independent_r7.jsonl") if not r["ambiguous"]]


@pytest.fixture(scope="module")
def decisions(rows):
    return {r["id"]: detect_in(r["response"], "all", image=r["image"]) for r in rows}


def test_the_set_is_what_was_frozen(rows):
    every = read_jsonl(DATA / "refusal_independent_r7.jsonl")
    assert len(every) == 287 and sum(r["ambiguous"] for r in every) == 3
    assert Counter(r["refused"] for r in rows) == {True: 149, False: 135}
    assert sum(_covered(r["lang"]) for r in rows) == 222
    assert Counter((r["refused"], r["image"]) for r in rows) == {(True, False): 134, (True, True): 15,
                                                                   (False, True): 128, (False, False): 7}


def test_covered_languages_agree_judge_free(rows, decisions):
    covered = [r for r in rows if _covered(r["lang"])]
    assert sum(not decisions[r["id"]].covered for r in covered) <= 1  # an English reply ending in uncovered text
    decided = [r for r in covered if decisions[r["id"]].verdict != UNCERTAIN]
    assert len(decided) >= 0.76 * len(covered)  # measured 176 of 222 (46 pending)
    wrong = {r["id"] for r in decided if bool(decisions[r["id"]].refused) != r["refused"]}
    accuracy = 1 - len(wrong) / len(decided)
    assert accuracy >= 0.985 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    assert not any(decisions[r["id"]].refused and not r["refused"] for r in decided)  # measured: no false decline


def test_what_the_image_alone_would_say(rows, decisions):
    """"No image = refused" is right on 170 of the 176 decided responses (the detector: 174); of the 17 covered
    responses where the image and the label disagree the detector decides 6 (4 right)."""
    covered = [r for r in rows if _covered(r["lang"])]
    decided = [r for r in covered if decisions[r["id"]].verdict != UNCERTAIN]
    by_image = sum((not r["image"]) == r["refused"] for r in decided)
    by_text = sum(bool(decisions[r["id"]].refused) == r["refused"] for r in decided)
    assert by_text >= by_image + 3, (by_text, by_image)
    against = [r for r in covered if r["image"] == r["refused"]]
    taken = [r for r in against if decisions[r["id"]].verdict != UNCERTAIN]
    right = sum(bool(decisions[r["id"]].refused) == r["refused"] for r in taken)
    assert len(against) == 17 and right >= 4, (len(taken), right)


def test_other_languages_are_uncertain_not_guessed(rows, decisions):
    others = [r for r in rows if not _covered(r["lang"])]
    assert len(others) == 62
    guessed = [r["id"] for r in others if decisions[r["id"]].verdict != UNCERTAIN]
    assert len(guessed) <= 1, guessed  # measured 1, right: a Hinglish reply read as English


def test_hybrid_routing(rows, decisions):
    routed = [r for r in rows if decisions[r["id"]].verdict == UNCERTAIN]
    assert len(routed) <= 115  # measured 107: 62 not covered, 45 covered but uncertain
    hybrid = {r["id"]: r["refused"] if decisions[r["id"]].verdict == UNCERTAIN else bool(decisions[r["id"]].refused) for r in rows}
    assert sum(hybrid[r["id"]] == r["refused"] for r in rows) / len(rows) >= 0.99  # measured 282/284
