"""The detector abstains where what the text concludes and what the response did disagree: a conclusion
followed by an image it does not call a substitute, or no conclusion, no image and a text that negates
something. Judge-free, every uncertain verdict in a covered language is pending (``refusal_uncertain``);
in hybrid mode the judge decides it (README "Abstention").

Texts written for this test, in the classes where unseen wordings hid on the round-3 first run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_server import FakeJudgeServer
from test_refusal_hybrid import docs, hybrid, judge_says  # noqa: F401  (the fixture: a small dataset, judge settings, no cache)

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod import metrics as M
from lmms_plugins.tasks.dod.refusal import NOT_REFUSED, REFUSED, UNCERTAIN, detect_refusal
from lmms_plugins.utils.jsonl import read_jsonl

# a conclusion read, then an image: drawn anyway (counts) or undone in a way the rules may not know
UNDONE_THEN_DRAWN = [
    "The pose is unattainable for most people, yet the dancer holds it in the new photo.",
    "The two wishes are mutually exclusive in theory; in practice a mirror shows both. Done.",
    "No valid arrangement exists for nine chairs; there are only eight, so I added the eighth.",
]
# the image is said to be something else than the request: the conclusion stands
SUBSTITUTE_DRAWN = [
    "The request can't be satisfied: a candle can't be lit and unlit at once. I drew the lit one instead.",
    "Solid gold can't be see-through; the closest I can do is a gold-tinted glass statue.",
]
# no conclusion read, no image, and the text negates something: a decline in unread words, or not
NO_IMAGE_NEGATED = [
    "A shadow never points toward the sun, so I'll keep the photo the way it came.",
    "The oak needs decades to reach that height; a one-year-old sapling won't be twenty metres tall.",
]


@pytest.mark.parametrize("text", UNDONE_THEN_DRAWN)
def test_a_conclusion_followed_by_an_image_is_uncertain(text):
    assert detect_refusal(text).verdict == REFUSED  # read as a conclusion, the image not known
    assert detect_refusal(text, image=False).verdict == REFUSED  # no image: nothing disagrees
    d = detect_refusal(text, image=True)
    assert d.refused and d.verdict == UNCERTAIN  # the best answer stays the rules' reading


@pytest.mark.parametrize("text", SUBSTITUTE_DRAWN)
def test_a_substitute_image_keeps_the_conclusion(text):
    d = detect_refusal(text, image=True)
    assert d.refused and d.verdict == REFUSED


def test_the_official_token_is_never_uncertain():
    assert detect_refusal("<think>Walls everywhere. [ABSTAIN]</think>", image=True).verdict == REFUSED


@pytest.mark.parametrize("text", NO_IMAGE_NEGATED)
def test_no_conclusion_and_no_image_with_a_negation_is_uncertain(text):
    d = detect_refusal(text, image=False)
    assert not d.refused and d.verdict == UNCERTAIN
    assert detect_refusal(text, image=True).verdict == detect_refusal(text).verdict == NOT_REFUSED


# no conclusion read, no image, and no negation either: declines in words the rules do not know (2.5)
NO_IMAGE_NO_NEGATION = [
    "The kettle has been boiling for an hour; the water in it is long gone. I'll hand the photo back as it was.",
    "Twelve guests, a table for four, chairs fixed in place. Over to you.",
    "La glace au soleil de midi fond en quelques minutes. Je vous rends la photo telle quelle.",
]


@pytest.mark.parametrize("text", NO_IMAGE_NO_NEGATION)
def test_no_conclusion_and_no_image_is_uncertain_even_without_a_negation(text):
    # 2.4 decided these "not refused": nothing negated, so the no-image arm did not apply. With no image the
    # only evidence for "not refused" is that the rules read no conclusion: not enough (README "Abstention").
    d = detect_refusal(text, image=False)
    assert not d.refused and d.verdict == UNCERTAIN and d.why.startswith("no conclusion and no image")
    assert detect_refusal(text).verdict == NOT_REFUSED  # image not known: unchanged


def test_no_image_and_a_plain_compliance_text_is_uncertain_a_json_verdict_is_decided():
    # A text-only reply that describes the edit delivered nothing: pending judge-free, the judge's in hybrid
    assert detect_refusal("The bowl is now on the left side of the table.", image=False).verdict == UNCERTAIN
    # an explicit verdict that a result exists is positive evidence: decided
    assert detect_refusal('{"route_exists": true, "moves": "RRDDL"}', image=False).verdict == NOT_REFUSED
    # an image and a plain compliance: decided
    assert detect_refusal("Moved the bowl to the left, nothing else changed.", image=True).verdict == NOT_REFUSED


# no conclusion read, an image, and the text negates something and offers the image instead of / despite it
SUBSTITUTE_AFTER_UNREAD_DECLINE = [
    "Nine cups won't go on a tray made for six. Here is the nearest layout: six on the tray, three beside it.",
    "Une chaise en verre ne supporte pas ce poids. Voici plutôt une chaise en bois peinte en transparent.",
    "Eine Kerze unter Wasser brennt nicht; stattdessen steht sie jetzt neben dem Glas.",
    "蜡烛在水下不会燃烧，我改为把它放在水杯旁边。",
    "The glacier doesn't grow in a single afternoon. That said, here's a larger glacier for you.",
    "A paper boat doesn't stay dry in a storm; as a compromise it now floats in a calm puddle.",
    "Un chat ne peut pas voler. À défaut, je l'ai dessiné en plein saut.",
]
# an image, a negation, and no substitute word: a compliance full of negations stays decided
NEGATED_COMPLIANCE_WITH_IMAGE = [
    "Moved the bowl to the left, nothing else changed.",
    "No wall is crossed: right, right, down, down. Path drawn.",
    "Le chat ne bouge pas ; j'ai seulement changé la couleur du mur.",
]


@pytest.mark.parametrize("text", SUBSTITUTE_AFTER_UNREAD_DECLINE)
def test_an_image_after_a_negation_and_a_substitute_word_is_uncertain(text):
    d = detect_refusal(text, image=True)
    assert d.verdict == UNCERTAIN and (d.refused or d.why.startswith("an image, yet"))


# after rounds 5 and 6: a negation, then an image the text names as made in the result's place (a stand-in with its
# act: "stattdessen habe ich", "à la place, je", "instead I've drawn") is a relaxed image: decided "refused"
STAND_IN_AFTER_NEGATION = [
    "Eine Kerze unter Wasser brennt nicht. Stattdessen habe ich sie neben das Glas gestellt.",
    "Un verre ne rebondit pas. À la place, j'ai dessiné une balle en caoutchouc transparent.",
]


@pytest.mark.parametrize("text", STAND_IN_AFTER_NEGATION)
def test_an_image_named_as_a_stand_in_after_a_negation_is_decided_refused(text):
    d = detect_refusal(text, image=True)
    assert d.verdict == REFUSED and d.refused and d.evidence in text, d.why


@pytest.mark.parametrize("text", NEGATED_COMPLIANCE_WITH_IMAGE)
def test_an_image_after_negations_without_a_substitute_word_is_decided(text):
    assert detect_refusal(text, image=True).verdict == NOT_REFUSED


def _image(doc) -> str:
    return str(Path(doc["dod_root"]) / doc["input_image"])  # a real PNG, standing in for the model's output


def test_judge_free_an_uncertain_covered_verdict_is_pending(docs, monkeypatch):
    doc = docs["material_modification-1-infeasible"]
    rec = hooks.score_sample(doc, json.dumps({"text": UNDONE_THEN_DRAWN[0], "images": [_image(doc)]}))
    assert rec.refused is None and rec.status == hooks.REFUSAL_UNCERTAIN and rec.has_image
    for metric in ("D_strict", "D_lenient"):
        o = M.outcome(metric, rec)
        assert o.applicable and o.value is None and o.status == hooks.REFUSAL_UNCERTAIN
    # the same text without an image is a plain conclusion: decided
    rec = hooks.score_sample(doc, json.dumps({"text": UNDONE_THEN_DRAWN[0] + " No image.", "images": []}))
    assert rec.status == "ok" and rec.refused is True


def test_hybrid_sends_an_uncertain_covered_verdict_to_the_judge(docs, monkeypatch):
    doc = docs["material_modification-1-infeasible"]
    with FakeJudgeServer(judge_says(False)) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        rec = hooks.score_sample(doc, json.dumps({"text": NO_IMAGE_NEGATED[0], "images": []}), settings=hybrid())
        assert server.calls == 1 and rec.refusal_rule == "hybrid_judge" and rec.refused is False and rec.status == "ok"


DATA = Path(__file__).parent / "data"


def test_abstention_on_the_labelled_sets():
    """Judge-free on the sets that mark their images (round 3, frozen3): the decided responses are all right
    and most are decided; on the frozen splits (images not marked) decided accuracy is at least the best
    answers' (benchmarks/dod_refusal_detector.py --abstention)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", Path(__file__).parents[2] / "benchmarks" / "dod_refusal_detector.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from lmms_plugins.tasks.dod.refusal import COVERED
    from lmms_plugins.tasks.dod.refusal.text import detect_in

    r3 = [r for r in bench.independent_rows(DATA / "refusal_independent_r3.jsonl") if r["lang"] in COVERED]
    # 2.5: round 3 decides 199 of 218, frozen3 58 of 61 (187 and 48 at 2.2-2.4: a no-image response without a
    # conclusion is pending, a rule conclusion with no image that the classifier doubts is decided)
    for rows, min_decided in ((r3, 0.9), (read_jsonl(DATA / "refusal_frozen3.jsonl"), 0.9),
                              (read_jsonl(DATA / "refusal_frozen.jsonl"), 0.95)):
        images = bench.image_flags([r["text"] for r in rows])
        ds = [detect_in(r["text"], "all", image=im) for r, im in zip(rows, images)]
        decided = [(bool(r["label"]), bool(d.refused)) for r, d in zip(rows, ds) if d.verdict != UNCERTAIN]
        best = sum(bool(r["label"]) == bool(d.refused) for r, d in zip(rows, ds)) / len(rows)
        accuracy = sum(y == p for y, p in decided) / len(decided)
        assert len(decided) >= min_decided * len(rows) and accuracy >= best, (len(decided), len(rows), accuracy, best)
    assert accuracy >= 0.97  # the frozen split, measured 0.971 on 341 of 348 covered


# general constructions added with the abstention (each with a twin that must keep its reading)
@pytest.mark.parametrize("text,refused", [
    # a comparison with what exists is optimality, not a conclusion (fr, es, de)
    ("Il n'y a pas de chemin plus direct que celui-ci ; je l'ai tracé.", False),
    ("No hay una disposición más ordenada que esta.", False),
    ("Es gibt keinen Weg, der kürzer als dieser ist.", False),
    ("Il n'y a pas de chemin : la sortie est murée.", True),
    # a first impression, reported, does not conclude (fr, es)
    ("Au début j'ai cru que c'était impossible, mais la porte de gauche est ouverte.", False),
    ("Pensé que no había solución, pero me equivoqué: hay un paso por arriba.", False),
    ("C'est impossible : la bougie ne peut pas être allumée et éteinte à la fois.", True),
    # two requirements that exclude each other, in another word order
    ("Both requirements rule each other out, so I'll stop here.", True),
    ("The new lamp rules out glare, so the photo looks calmer.", False),
])
def test_constructions(text, refused):
    assert detect_refusal(text).refused is refused, detect_refusal(text).why


# a conclusion the rules read that the classifier doubts (terse, in words it has not seen)
RULE_CONCLUSION_CLASSIFIER_UNSURE = ["没有解法。", "Unlösbar.", "不行，做不到。"]


@pytest.mark.parametrize("text", RULE_CONCLUSION_CLASSIFIER_UNSURE)
def test_a_rule_conclusion_with_no_image_is_decided_inside_the_default_band(text):
    assert detect_refusal(text).verdict == UNCERTAIN  # image not known: rules and classifier disagree
    d = detect_refusal(text, image=False)  # no image: the output agrees with the rules (2.5)
    assert d.refused and d.verdict == REFUSED and d.why.startswith("a conclusion the rules read and no image")
    assert detect_refusal(text, image=True).verdict == UNCERTAIN  # an image: drawn anyway, or undone
    assert detect_refusal(text, image=False, margin=3.0).verdict == UNCERTAIN  # a wider band asks the judge


def test_a_conclusion_below_the_sure_threshold_followed_by_an_image_is_uncertain():
    # z 4.5-5.0 (round 4's first run had an undone conclusion at 4.57, then a drawing): uncertain since 2.5
    import math

    d = detect_refusal("It cannot be done.")
    assert d.verdict == REFUSED and 4.5 <= math.log(d.score / (1 - d.score)) < 5.0
    assert detect_refusal("It cannot be done.", image=True).verdict == UNCERTAIN
    assert detect_refusal("It cannot be done.", image=False).verdict == REFUSED
    # drawn anyway, said so: sure, and it counts
    assert detect_refusal("This edit is impossible. Here is an image anyway.", image=True).verdict == REFUSED
