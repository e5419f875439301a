"""The refusal detector on the fifth independent round (tests/dod/data/refusal_independent_r5.jsonl).

Round 5: 345 responses (339 scored) in 31 language tags by another writer (R5SET), who read only the DoD dataset
card and the issue: neither the detector, its rules and tests nor any earlier refusal set; committed (84c18b4)
before the detector was run on it. Each row says whether the response delivered an image (``image``), as a run's
hooks know it. Labels are for the whole response (``refused``); 6 rows marked ``ambiguous`` are skipped.

First run (the detector as landed at 7ee5132, DoD 2.5, nothing tuned on this set; the lead ran it once), whole-output
reading, judge-free on the covered languages (a code-switched tag counts when all its languages are covered):
199/202 decided = 0.985 (P 0.988, R 0.976), 67 of 269 pending (24.9 %); hybrid with a judge answering as the labels
0.991, 136 of 339 to the judge. The goal (>= 0.95 first time) was met. The image alone ("no image = refused") is
right on 235/269 of the covered responses and on 194 of the 202 the detector decides: README "Round 5" says what
that means for the pending share.

After rounds 5 and 6 were used as tuning material (README "After rounds 5 and 6", DoD 2.5; no longer an unseen
figure): 242/242 decided = 1.000, 27 of 269 pending (10.0 %: 12 declines, 15 not); best answers on all 269 covered
0.948 (R 0.927, first run 0.836 / 0.715); hybrid 1.000 with 96 of 339 to the judge. The first run's three errors
are right (r5-0063 decided "refused": "I didn't move it" says the image holds only the possible part; r5-0304
pending: an image after a conclusion with nothing that calls it a substitute; r5-0323 pending: no conclusion, no image).
"""

from __future__ import annotations

from collections import Counter

import pytest
from refusal_round import Round  # tests/dod/, this file's folder, is on sys.path

# Disagreements left on the covered languages' decided responses (whole-output reading), each with why; an id that
# agrees again must leave the set (the test fails). The first run's three (r5-0063 partial compliance, "the clock has
# nowhere to go"; r5-0304 "anatomy doesn't allow that posture. I gave you a giraffe lying down"; r5-0323 "No genero
# imágenes, pero el resultado sería: …") are fixed by meaning after rounds 5 and 6.
KNOWN: set[str] = set()
FIRST_RUN_ERRORS = {"r5-0063", "r5-0304", "r5-0323"}


@pytest.fixture(scope="module")
def rnd():
    return Round("r5")


def test_the_set_is_what_was_frozen(rnd):
    every = rnd.every
    assert len(every) == 345 and sum(r["ambiguous"] for r in every) == 6
    assert Counter(r["refused"] for r in rnd.rows) == {True: 172, False: 167}
    assert len(rnd.covered) == 269
    assert Counter((r["refused"], r["image"]) for r in rnd.rows) == {(True, False): 142, (True, True): 30,
                                                                   (False, True): 157, (False, False): 10}


def test_covered_languages_agree_judge_free(rnd):
    covered = rnd.covered
    assert all(rnd.decisions[r["id"]].covered for r in covered)  # none is read as another language
    decided = rnd.decided
    assert len(decided) >= 0.87 * len(covered)  # measured 242 of 269 (27 pending); first run 202 (67)
    wrong = rnd.wrong
    accuracy = 1 - len(wrong) / len(decided)
    assert accuracy >= 0.98 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    assert KNOWN <= wrong, sorted(KNOWN - wrong)  # a known error that is right now leaves KNOWN
    assert not wrong & FIRST_RUN_ERRORS, sorted(wrong & FIRST_RUN_ERRORS)
    fp = rnd.false_declines
    assert fp <= 1  # precision is not bought with recall (measured 0; first run 1)


def test_pending_is_fewer_declines(rnd):
    """The pending covered responses are mostly declines (a judge-free decline rate undercounts them): 53 of 67 at
    the first run, 12 of 27 after rounds 5 and 6."""
    covered = rnd.covered
    pending = [r for r in covered if rnd.pending(r)]
    assert len(pending) <= 31 and sum(r["refused"] for r in pending) <= 15, (len(pending), sum(r["refused"] for r in pending))


def test_the_detector_reads_more_than_the_image(rnd):
    """An image-only rule ("no image = refused") is right on 194 of the 202 responses the detector decides; the
    detector on 199. Where the image and the label disagree (34 covered responses: declines with a fallback,
    relaxed or partial image, text-only compliance) it mostly abstains: 8 decided, 5 right (the image: 0).
    After rounds 5 and 6: the image alone 219 of the 242 decided, the detector 242; of the 34, 23 decided (the
    input returned, a partial image, a stand-in named as such), all right."""
    decided = rnd.decided
    by_image = sum((not r["image"]) == r["refused"] for r in decided)
    by_text = sum(rnd.refused(r) == r["refused"] for r in decided)
    assert by_text >= by_image + 15, (by_text, by_image)  # measured 242 against 219 (first run 199 against 194)
    against = rnd.against_image
    taken = [r for r in against if not rnd.pending(r)]
    right = sum(rnd.refused(r) == r["refused"] for r in taken)
    assert len(against) == 34 and len(taken) <= 26 and right >= len(taken) - 1, (len(taken), right)  # measured 23 taken, 23 right


def test_other_languages_are_uncertain_not_guessed(rnd):
    others = rnd.others
    assert len(others) == 70
    guessed = [r["id"] for r in others if not rnd.pending(r)]
    assert len(guessed) <= 1, guessed  # measured 1: read as a covered language, and read right


def test_hybrid_routing(rnd):
    routed = [r for r in rnd.rows if rnd.pending(r)]
    assert len(routed) <= 103  # measured 96: 69 not covered, 27 covered but uncertain (first run 136)
    assert rnd.hybrid_agreement() >= 0.995  # measured 339/339 (first run 336/339)
