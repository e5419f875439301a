"""The refusal detector on the sixth independent round (tests/dod/data/refusal_independent_r6.jsonl).

Round 6: 321 responses (318 scored) by another writer (R6SET), who read only the DoD dataset card: neither the
detector, its rules and tests, the README's refusal sections nor any earlier refusal set (round 5 included);
committed (abbdaf6) before the detector was run on it, in the styles of real systems' transcripts (reasoning
blocks that turn, tool calls, editors that always return an image, captions). ``image`` per row; ``lang`` is the
prompt's language (six rows answer in another one). 3 rows marked ``ambiguous`` are skipped.

First run (the detector of round 5's first run, 2.5 as landed at 7ee5132: nothing changed in between and nothing
tuned on this set; the lead ran it once), whole-output reading, judge-free on the covered languages: 164/167
decided = 0.982 (P 1.000, R 0.941), 80 of 247 pending (32.4 %); hybrid with a judge answering as the labels 0.991,
149 of 318 to the judge. The goal (>= 0.95 first time) was met a second time. The image alone is right on 163 of
the 167 decided (README "Round 6").

After rounds 5 and 6 were used as tuning material (README "After rounds 5 and 6", DoD 2.5; no longer an unseen
figure): 219/219 decided = 1.000, 28 of 247 pending (11.3 %: 8 declines, 20 not); best answers on all 247 covered
0.943 (R 0.955, first run 0.757 / 0.541); hybrid 1.000 with 97 of 318 to the judge. The first run's three errors
are right (r6-0097 and r6-0272 decided "refused"; r6-0163 decided "refused": "como alternativa" names a stand-in).
"""

from __future__ import annotations

from collections import Counter

import pytest
from refusal_round import Round  # tests/dod/, this file's folder, is on sys.path

# Disagreements left on the covered languages' decided responses (whole-output reading), each with why; an id that
# agrees again must leave the set (the test fails). The first run's three, all declines with an image read as "not
# refused" (r6-0097 "Unable to edit: the requested head rotation is beyond human anatomy."; r6-0163 "Esa pose no
# existe. Como alternativa, te lo he dibujado …"; r6-0272 "… cannot be both inside … and visible; the returned image is
# unchanged"), are fixed by meaning after rounds 5 and 6.
KNOWN: set[str] = set()
FIRST_RUN_ERRORS = {"r6-0097", "r6-0163", "r6-0272"}


@pytest.fixture(scope="module")
def rnd():
    return Round("r6")


def test_the_set_is_what_was_frozen(rnd):
    every = rnd.every
    assert len(every) == 321 and sum(r["ambiguous"] for r in every) == 3
    assert Counter(r["refused"] for r in rnd.rows) == {True: 147, False: 171}
    assert len(rnd.covered) == 247
    assert Counter((r["refused"], r["image"]) for r in rnd.rows) == {(True, False): 128, (True, True): 19,
                                                                   (False, True): 164, (False, False): 7}


def test_covered_languages_agree_judge_free(rnd):
    covered = rnd.covered
    # two are read as another language and held back: a German tool call (no prose: "da") and a Mandarin
    # sentence py3langid reads as Wu ("wuu"); uncertain, never guessed
    assert sum(not rnd.decisions[r["id"]].covered for r in covered) <= 2
    decided = rnd.decided
    assert len(decided) >= 0.84 * len(covered)  # measured 219 of 247 (28 pending); first run 167 (80)
    wrong = rnd.wrong
    accuracy = 1 - len(wrong) / len(decided)
    assert accuracy >= 0.98 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    assert KNOWN <= wrong, sorted(KNOWN - wrong)  # a known error that is right now leaves KNOWN
    assert not wrong & FIRST_RUN_ERRORS, sorted(wrong & FIRST_RUN_ERRORS)
    fp = rnd.false_declines
    assert fp <= 1  # measured 0


def test_pending_is_fewer_declines(rnd):
    """60 of the 80 pending covered responses were declines at the first run; 8 of 28 after rounds 5 and 6."""
    covered = rnd.covered
    pending = [r for r in covered if rnd.pending(r)]
    assert len(pending) <= 33 and sum(r["refused"] for r in pending) <= 12, (len(pending), sum(r["refused"] for r in pending))


def test_what_the_image_alone_would_say(rnd):
    """"No image = refused" is right on 163 of the 167 decided responses (the detector: 164); of the 22 covered
    responses where the image and the label disagree the detector decides 4 (1 right) and holds 18 back. After
    rounds 5 and 6: the image alone 205 of the 219 decided, the detector 219; of the 22, 14 decided, all right."""
    decided = rnd.decided
    by_image = sum((not r["image"]) == r["refused"] for r in decided)
    by_text = sum(rnd.refused(r) == r["refused"] for r in decided)
    assert by_text >= by_image + 10, (by_text, by_image)  # measured 219 against 205 (first run 164 against 163)
    against = rnd.against_image
    taken = [r for r in against if not rnd.pending(r)]
    right = sum(rnd.refused(r) == r["refused"] for r in taken)
    assert len(against) == 22 and len(taken) <= 16 and right >= len(taken) - 1, (len(taken), right)  # measured 14, 14


def test_other_languages_are_uncertain_not_guessed(rnd):
    others = rnd.others
    assert len(others) == 71
    guessed = [r["id"] for r in others if not rnd.pending(r)]
    assert len(guessed) <= 2, guessed  # measured 2, both right: "gata" (ro, read as es) and an Arabic "تم." with an image


def test_hybrid_routing(rnd):
    routed = [r for r in rnd.rows if rnd.pending(r)]
    assert len(routed) <= 104  # measured 97: 71 not covered, 26 covered but uncertain (first run 149)
    assert rnd.hybrid_agreement() >= 0.995  # measured 318/318 (first run 315/318)
