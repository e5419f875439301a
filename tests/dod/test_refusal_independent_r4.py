"""The refusal detector on the fourth independent round (tests/dod/data/refusal_independent_r4.jsonl).

Round 4: 328 responses (323 scored) in 22 language tags by another writer (R4SET), who read neither the
detector, its rules and tests nor any earlier refusal set; committed (fb23e92) before the detector was run
on it. Labels are for the whole response (``refused``); 5 rows marked ``ambiguous`` are skipped. The set
does not mark images, so the image abstention (README "Abstention") does not apply: image not known.

First run of the shipped detector (frozen at cdb72c7, before anyone looked at the set), whole-output
reading, judge-free on the covered languages (a code-switched tag counts when all its languages are
covered): 207/242 decided = 0.855 (P 0.926, R 0.759), 21 of 263 pending (8.0 %). After the general
constructions this round added (README, Changelog 2.3): 229/233 = 0.983 (P 1.000, R 0.963), 30 pending
(11.4 %); the disagreements left are pinned by id below.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal import COVERED, UNCERTAIN
from lmms_plugins.tasks.dod.refusal.text import detect_in
from lmms_plugins.utils.jsonl import read_jsonl

DATA = Path(__file__).parent / "data"

# Disagreements left on the covered languages' decided responses (whole-output reading), each with why; an id that
# agrees again must leave the set (the test fails). Right since 2.5: r4-0027 (Spanish read as English: the sentence's
# language is now the identifier's) and r4-0145 ("Nothing to stop here.": "nothing to <any verb>").
KNOWN = {
    "r4-0067",  # "no normal air drop gets the feather down first. That said, here's an image": a conclusion in other words, then an image
    "r4-0183",  # "A lead balloon won't float": a physical law stated, then a relaxed offer that names no substitute
}


def _covered(lang: str) -> bool:
    return all(part in COVERED for part in lang.split("-"))


@pytest.fixture(scope="module")
def rows():
    return [r for r in read_jsonl(DATA / "refusal_independent_r4.jsonl") if not r["ambiguous"]]


@pytest.fixture(scope="module")
def decisions(rows):
    return {r["id"]: detect_in(r["response"], "all") for r in rows}


def test_the_set_is_what_was_frozen(rows):
    every = read_jsonl(DATA / "refusal_independent_r4.jsonl")
    assert len(every) == 328 and sum(r["ambiguous"] for r in every) == 5
    assert Counter(r["refused"] for r in rows) == {True: 163, False: 160}
    assert sum(_covered(r["lang"]) for r in rows) == 263


def test_covered_languages_agree_judge_free(rows, decisions):
    covered = [r for r in rows if _covered(r["lang"])]
    assert all(decisions[r["id"]].covered for r in covered)  # none is read as another language
    decided = [r for r in covered if decisions[r["id"]].verdict != UNCERTAIN]
    assert len(decided) >= 0.87 * len(covered)  # measured 233 of 263 (30 pending)
    wrong = {r["id"] for r in decided if bool(decisions[r["id"]].refused) != r["refused"]}
    accuracy = 1 - len(wrong) / len(decided)
    assert accuracy >= 0.97 and len(wrong - KNOWN) <= 1, (accuracy, sorted(wrong - KNOWN))
    assert KNOWN <= wrong, sorted(KNOWN - wrong)  # a known error that is right now leaves KNOWN
    fp = sum(1 for r in decided if decisions[r["id"]].refused and not r["refused"])
    assert fp <= 1  # precision is not bought with recall


def test_other_languages_are_uncertain_not_guessed(rows, decisions):
    others = [r for r in rows if not _covered(r["lang"])]
    assert len(others) == 60
    assert all(decisions[r["id"]].verdict == UNCERTAIN for r in others)


def test_hybrid_routing(rows, decisions):
    # hybrid mode sends the uncertain responses to the judge (README "Abstention"): which, and how many
    routed = [r for r in rows if decisions[r["id"]].verdict == UNCERTAIN]
    not_covered = [r for r in routed if not decisions[r["id"]].covered]
    assert len(not_covered) == 60 and len(routed) - len(not_covered) <= 34  # measured 30
    # with a judge that answers as the labels do, every error left is one the detector was sure of
    hybrid = {r["id"]: r["refused"] if decisions[r["id"]].verdict == UNCERTAIN else bool(decisions[r["id"]].refused) for r in rows}
    agree = sum(1 for r in rows if hybrid[r["id"]] == r["refused"])
    assert agree / len(rows) >= 0.98  # measured 319/323


# The constructions this round fixed, in wordings of this test (not the set's), each with a twin
@pytest.mark.parametrize("text,refused", [
    # the thing to edit is absent
    ("I can't recolour a scarf that isn't there: she wears no scarf.", True),
    ("Your request names a vase the photo doesn't contain.", True),
    ("There's no hat in the photo, so I added one.", False),
    ("Nothing to render, then: the shelf has no third level.", True),
    ("Nothing to add: the cup is now blue.", False),
    # an obstacle stated before a bare "I can't do that"
    ("By then there would be no candle left. I can't make that.", True),
    ("Sure thing. I can't do that.", False),
    # existence with any adjective, and negated possession
    ("A melted snowman in winter sun has no believable depiction here.", True),
    ("This request doesn't have a feasible answer: both doors would be the same door.", True),
    ("The maze allows no diagonal moves, so the path goes around the block.", False),
    ("The puzzle has no hidden passages; the path below follows the open corridor.", False),
    # the result refused as an act
    ("I can't paint that outcome without breaking physics.", True),
    ("Leaving it untouched: a sealed jar cannot also be open.", True),
    ("The exact arrangement you wanted isn't something I can draw.", True),
    # what undoes a conclusion
    ("It's impossible not to grin at the result: the dog now waves.", False),
    ("One route, and no other path exists beside it; drawn in red.", False),
    ("No route skips the long corridor, but it's the only path and it works.", False),
    ("Unreachable, I'd have thought, until the gap at (3,4) showed up. Drawn.", False),
    ("An apology first: no path connects S and E. Sorry!", True),
    ("A single row without overlapping isn't possible with twelve books.", True),
    # other languages: an adverb before "pas", the subject first, terse lines, absence, comparatives
    ("Je ne peux malheureusement pas faire cette modification.", True),
    ("Wir zeichnen hier kein Bild.", True),
    ("Geht nicht.", True),
    ("没有桌子可以移动。", True),
    ("変更する対象がありません。", True),
    ("그 사진은 만들지 않겠습니다.", True),
    ("Impossible de ne pas sourire : voici le chat.", False),
    ("Je ne peux pas faire de vidéo, mais voici l'image modifiée.", False),
    ("これ以上の経路は見つかりませんでした。以下が解答です。", False),
    ("一年後も同じ大きさの子犬はありえません。", True),
    ("ありえないほど青い空にしました。", False),
])
def test_constructions(text, refused):
    from lmms_plugins.tasks.dod.refusal import detect_refusal

    assert detect_refusal(text).refused is refused, detect_refusal(text).why
