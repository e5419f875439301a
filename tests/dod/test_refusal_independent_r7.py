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

import pytest
from refusal_round import Round  # tests/dod/, this file's folder, is on sys.path

# Disagreements on the covered languages' decided responses at the first run (whole-output reading), each with why:
KNOWN = {
    "r7-0174",  # fr: "… les deux ensemble sont impossibles. J'ai mis la brique sans la transparence, voir image.": the possible part drawn
    "r7-0238",  # de: "… schließt sich aus. Ich habe sie abgebrannt …, die Länge konnte ich nicht halten.": the possible part drawn
}


@pytest.fixture(scope="module")
def rnd():
    return Round("r7")


def test_the_set_is_what_was_frozen(rnd):
    every = rnd.every
    assert len(every) == 287 and sum(r["ambiguous"] for r in every) == 3
    assert Counter(r["refused"] for r in rnd.rows) == {True: 149, False: 135}
    assert len(rnd.covered) == 222
    assert Counter((r["refused"], r["image"]) for r in rnd.rows) == {(True, False): 134, (True, True): 15,
                                                                   (False, True): 128, (False, False): 7}


def test_covered_languages_agree_judge_free(rnd):
    covered = rnd.covered
    assert sum(not rnd.decisions[r["id"]].covered for r in covered) <= 1  # an English reply ending in uncovered text
    decided = rnd.decided
    assert len(decided) >= 0.76 * len(covered)  # measured 176 of 222 (46 pending)
    wrong = rnd.wrong
    accuracy = 1 - len(wrong) / len(decided)
    assert accuracy >= 0.985 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    assert KNOWN <= wrong, sorted(KNOWN - wrong)  # a known error that is right now leaves KNOWN
    assert rnd.false_declines == 0  # measured: no false decline


def test_what_the_image_alone_would_say(rnd):
    """"No image = refused" is right on 170 of the 176 decided responses (the detector: 174); of the 17 covered
    responses where the image and the label disagree the detector decides 6 (4 right)."""
    decided = rnd.decided
    by_image = sum((not r["image"]) == r["refused"] for r in decided)
    by_text = sum(rnd.refused(r) == r["refused"] for r in decided)
    assert by_text >= by_image + 3, (by_text, by_image)
    against = rnd.against_image
    taken = [r for r in against if not rnd.pending(r)]
    right = sum(rnd.refused(r) == r["refused"] for r in taken)
    assert len(against) == 17 and right >= 4, (len(taken), right)


def test_other_languages_are_uncertain_not_guessed(rnd):
    others = rnd.others
    assert len(others) == 62
    guessed = [r["id"] for r in others if not rnd.pending(r)]
    assert len(guessed) <= 1, guessed  # measured 1, right: a Hinglish reply read as English


def test_hybrid_routing(rnd):
    routed = [r for r in rnd.rows if rnd.pending(r)]
    assert len(routed) <= 115  # measured 107: 62 not covered, 45 covered but uncertain
    assert rnd.hybrid_agreement() >= 0.99  # measured 282/284
