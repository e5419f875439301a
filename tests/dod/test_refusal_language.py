"""The refusal detector knows which languages it covers: a response mainly in another language is
``uncertain`` (pending judge-free, the judge's in hybrid mode), never a guessed "not refused".

Texts written for this test: very short answers, code-switched sentences, responses that are
mostly JSON or coordinates, and reasoning in another language than the answer."""

from __future__ import annotations

import json

import pytest
from judge_server import FakeJudgeServer
from test_refusal_hybrid import docs, hybrid  # noqa: F401  (the fixture: a small dataset, judge settings, no cache)

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.refusal.language import COVERED, coverage
from lmms_plugins.tasks.dod.refusal import UNCERTAIN, detect_refusal
from lmms_plugins.tasks.dod.refusal.text import detect_in


@pytest.mark.parametrize("text,lang", [
    # terse answers: a few words are enough for the identifier with the covered-language prior
    ("Impossible.", None), ("No valid path.", "en"), ("Nope, walled in.", "en"), ("Can't do that one.", "en"),
    ("Geht nicht.", "de"), ("Aucun chemin.", "fr"), ("No se puede.", "es"),
    ("做不到。", "zh"), ("無理です。", "ja"), ("불가능합니다.", "ko"),
    # an English response quoting a word or two of another language stays English
    ('The sign on the door says "Выход" and the corridor behind it is open, so I trace the route to the red cell.', "en"),
    ("La tasse est pleine ; I keep the saucer as it is and only tint the glaze.", None),
    # prose in JSON values; keys, coordinates and code symbols are no language
    ('{"feasible": false, "reason": "the exit is sealed by walls on every side"}', "en"),
    ("[(0,1), (1,1), (2,1), (2,2), (2,3)]", ""),
    ('{"path": [[0, 1], [1, 1]], "feasible": true}', ""),
])
def test_covered_texts(text, lang):
    cov = coverage(text)
    assert cov.covered, cov
    if lang is not None:
        assert cov.language == lang
    assert detect_refusal(text).covered


@pytest.mark.parametrize("text", [
    "Nie da się.",  # Polish
    "Невозможно.",  # Russian
    "Não dá.",  # Portuguese: a few patterns exist, not enough to answer "not refused"
    "مستحيل.",  # Arabic
    "Dat kan niet, de uitgang is dichtgemetseld.",  # Dutch
    "Yapılamaz, çünkü çıkış tamamen duvarla kapalı.",  # Turkish
    "Không thể vẽ được vì lối ra bị tường chặn hết.",  # Vietnamese
    "निकास तक कोई रास्ता नहीं है।",  # Hindi
    # code-switched, mainly in an uncovered language with English technical words
    "Я проверил все routes, и ни один не доходит до goal, потому что стена закрывает выход.",
    "Ho provato ogni path, ma nessuno arriva alla goal cell perché il muro chiude tutto.",
    # JSON whose prose is in an uncovered language
    '{"feasible": true, "reason": "il percorso passa sotto il muro e arriva alla cella rossa"}',
])
def test_uncovered_texts_are_uncertain(text):
    d = detect_refusal(text)
    assert not d.covered and d.verdict == UNCERTAIN, d
    assert d.language not in COVERED


def test_an_uncovered_part_after_the_english_could_take_it_back():
    # the conclusion is read, but what follows is in a language the rules do not read (a retraction?)
    text = ("There is no valid path: the exit is walled in on all four sides. "
            "Подожди, клетка справа от выхода на самом деле открыта, значит путь есть, рисую его.")
    d = detect_refusal(text)
    assert d.verdict == UNCERTAIN and not d.covered


def test_a_conclusion_after_an_uncovered_part_stands():
    # the response is mainly English and nothing the rules cannot read follows its conclusion
    text = ("Die Aufgabe: 'Zeichne den Weg'. I looked at every corridor from the green cell and followed each to its end. "
            "The red cell sits in a closed pocket, so no valid path exists.")
    text = text.replace("Die Aufgabe: 'Zeichne den Weg'.", "Zadanie: narysuj drogę.")  # a Polish quote first
    d = detect_refusal(text)
    assert d.refused and d.covered and d.verdict != UNCERTAIN


def test_an_english_response_that_ends_in_another_language_is_not_read_as_no_refusal():
    text = ("I traced the corridors from the start: right, down, right again, then the long hallway. "
            "Ostatecznie: tego labiryntu nie da się przejść, wyjście jest zamurowane.")
    d = detect_refusal(text)
    assert d.verdict == UNCERTAIN and not d.covered


def test_the_reasoning_language_decides_under_the_default_reading():
    # reasoning in Russian, an English answer after it: the default reading reads the reasoning only
    text = "<think>Выход замурован со всех сторон, пути нет.</think>I cannot draw this path: the exit is sealed."
    assert detect_in(text, "reasoning").verdict == UNCERTAIN
    # reasoning in Chinese (covered), answer in Russian: the reasoning decides
    text = "<think>出口四面都是墙，从起点无法到达终点。</think>Ответ: решения нет."
    d = detect_in(text, "reasoning")
    assert d.refused and d.covered


POLISH_DECLINE = "Tego nie da się narysować: filiżanka nie może być jednocześnie pełna i pusta."


def test_judge_free_an_uncovered_language_is_pending(docs, monkeypatch):
    from lmms_plugins.tasks.dod import metrics as M

    rec = hooks.score_sample(docs["material_modification-1-infeasible"], json.dumps({"text": POLISH_DECLINE, "images": []}))
    assert rec.refused is None and rec.status == hooks.REFUSAL_NOT_COVERED and "'pl'" in rec.reason
    for metric in ("D_strict", "D_lenient"):
        o = M.outcome(metric, rec)
        assert o.applicable and o.value is None and o.status == hooks.REFUSAL_NOT_COVERED
    # a feasible request with an image keeps its E verdict path: only the refusal is unknown
    feas = hooks.score_sample(docs["material_modification-1-feasible"], json.dumps({"text": POLISH_DECLINE, "images": []}))
    assert feas.refused is None and M.outcome("E", feas).value == 0.0  # no image: E is known


def test_hybrid_sends_an_uncovered_language_to_the_judge(docs, monkeypatch):
    def handler(request):
        return json.dumps({"concludes_infeasible": True, "reason_correct": None,
                           "evidence": "Tego nie da się narysować", "reason": "r"})

    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        rec = hooks.score_sample(docs["material_modification-1-infeasible"], json.dumps({"text": POLISH_DECLINE, "images": []}),
                                 settings=hybrid())
        assert server.calls == 1 and rec.refused is True and rec.refusal_rule == "hybrid_judge" and rec.status == "ok"
        out = hooks.process_results(docs["material_modification-1-infeasible"], [json.dumps({"text": POLISH_DECLINE, "images": []})],
                                    settings=hybrid())
        assert hooks.aggregate_run([out["dod_run"]])["refusal_judged"] == 1  # what hybrid mode cost, in the results
