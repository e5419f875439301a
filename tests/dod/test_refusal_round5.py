"""Rules added before round 5 (2.5), each in wordings of its own with a twin that keeps its reading (README
"Round 4" → "What it still gets wrong", and "Abstention").

* a sentence's rule language is the identifier's reading of it (py3langid, language.sentence_language), not
  only a count of function words: short Spanish or French words ("no", "a") had a sentence read as English;
* "nothing to <verb>" with any verb is nothing to act on, unless the phrase has another reading (an idiom)."""

from __future__ import annotations

import pytest

from lmms_plugins.tasks.dod.refusal import detect_refusal
from lmms_plugins.tasks.dod.refusal.language import sentence_language
from lmms_plugins.tasks.dod.refusal.rules import rule_refusal


@pytest.mark.parametrize("text", [
    "Pues no: no hay a quién editar, ni a quién mover.",
    "Ahora mismo no hay manera: a cuarenta grados todo hielo se derrite.",
    "Bueno, no hay a quién mover así.",
])
def test_a_spanish_sentence_with_english_looking_words_is_read_by_the_spanish_rules(text):
    assert sentence_language(text) == "es"
    assert not rule_refusal(text).refused  # the word count alone reads it as English: nothing fires
    d = detect_refusal(text)
    assert d.refused and d.language == "es"


@pytest.mark.parametrize("text", [
    "No a todo el mundo le gusta, pero ya moví la lámpara a la izquierda.",  # Spanish, feasible
    "There is no fan in the picture, so I added one to the ceiling as asked.",  # English, feasible
])
def test_the_twins_keep_their_reading(text):
    assert not detect_refusal(text).refused


def test_a_short_sentence_has_no_language_of_its_own():
    assert sentence_language("No hay.") == "" and sentence_language("没有路径。") == ""


@pytest.mark.parametrize("text", [
    "The photo has a bicycle and a wall, no kite. Nothing to fly here.",
    "I looked twice: no dog in this picture. Nothing to groom.",
    "No candle anywhere on the table, so nothing to blow out.",
])
def test_nothing_to_any_verb_is_a_missing_referent(text):
    d = detect_refusal(text)
    assert d.refused and d.rule == "missing_referent"


@pytest.mark.parametrize("text", [
    "Nothing to worry about: the corridor on the left is open. Path drawn.",
    "There is nothing to add; the lamp now stands on the left.",
    "Nothing to it, really. I moved the cup to the shelf.",
    "The request has nothing to do with gravity, so I simply moved the lamp.",
])
def test_nothing_to_in_another_reading_is_not(text):
    assert not detect_refusal(text).refused


@pytest.mark.parametrize("text", ["No route reaches the exit, sorry.", "Ce n'est pas possible : aucune solution, sorry about that."])
def test_a_closing_apology_does_not_retract(text):
    assert detect_refusal(text).refused


def test_sorry_followed_by_a_correction_still_retracts():
    assert not detect_refusal("No route reaches the exit — sorry, I misread (2,5): it is open. Path drawn.").refused


# an elliptic verdict as the whole sentence (fr, es, de), "X 불가" (ko), 成立しない (ja): written for this test
@pytest.mark.parametrize("text", ["Pas faisable.", "Le chat et le chien au même endroit ? Pas possible.", "Sin solución.",
                                  "No factible.", "Ohne Lösung.", "해결 불가.", "この条件では成立しません。"])
def test_an_elliptic_verdict_is_a_conclusion(text):
    assert detect_refusal(text).refused


@pytest.mark.parametrize("text", ["Pas faisable en une heure, mais en deux, oui : voici.",
                                  "Pas possible de faire mieux : voici le chemin le plus court.",
                                  "Sans solution de continuité, le mur est repeint.",
                                  "Sin solución aparente al principio; luego vi la salida. Dibujado.",
                                  "もし壁がなければ成立しません。",
                                  "Not doable in two moves, but four work: RRDD."])
def test_an_elliptic_verdict_inside_a_longer_sentence_or_undone_is_not(text):
    assert not detect_refusal(text).refused


# a sentence that only denies existence, its noun (the result) in the sentence before
@pytest.mark.parametrize("text", ["I tried every way to fit the piano through the cat flap. There isn't one.",
                                  "We need an ordering where each child is taller than the next and shorter too. None exists."])
def test_none_exists_after_the_result_noun_is_a_conclusion(text):
    d = detect_refusal(text)
    assert d.refused and d.rule == "no_solution"


@pytest.mark.parametrize("text", ["I checked for a quicker route. There isn't one, so this is the path.",  # optimality
                                  "Is there a way around the fence? There isn't one, so I used the gate.",  # a question answered
                                  "Any wall in the way? There isn't one. Drawn.",  # not the result
                                  "I looked for another layout. There is none; this one is drawn."])  # uniqueness
def test_none_exists_after_a_comparison_a_question_or_another_noun_is_not(text):
    assert not detect_refusal(text).refused


# more shapes of the decision and the verdict, written for this test, each with a twin
@pytest.mark.parametrize("text", [
    "A kite can't fly underwater, so I'll give this one a miss.",
    "Nothing I could draw fits both, so there's nothing I can draw.",
    "What you're asking for cannot exist: a cube with five faces.",
    "Une bougie allumée sous l'eau ? Je préfère ne rien produire.",
    "La consigne se contredit : le verre doit être plein et vide.",
    "Un gato no puede dormir y saltar a la vez; prefiero no generar nada.",
    "Die Anfrage widerspricht sich. Ich verzichte auf ein Bild.",
    "Ein Hund, der gleichzeitig sitzt und rennt? Daraus wird nichts.",
    "扉を開けたまま閉めることはできないので、このご依頼にはお応えできません。",
    "물을 끓이면서 얼릴 수는 없으니 이 요청은 들어드릴 수 없습니다.",
])
def test_more_decline_shapes_are_conclusions(text):
    assert detect_refusal(text).refused


@pytest.mark.parametrize("text", [
    "There is nothing I can draw better than this layout. Done.",
    "A shadow can't exist without light, so I added a lamp.",
    "This scene doesn't exist yet, so I created it.",
    "Je préfère ne pas trop modifier le fond : seule la tasse change.",
    "Prefiero no editar el fondo; solo cambié la taza.",
    "Ich verzichte auf die Änderung der Farbe und verschiebe nur die Lampe.",
    "Parecía imposible, pero hay un hueco a la izquierda. Listo, la silla está ahí.",
    "On pourrait croire que c'est impossible, mais le chat tient sur l'étagère. Voilà.",
])
def test_their_twins_are_not(text):
    assert not detect_refusal(text).refused
