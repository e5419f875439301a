"""The refusal detector on the independent labelled set (tests/dod/data/refusal_independent.jsonl).

235 responses written by another hand than the rules', without reading the rules or the other
labelled sets, and committed (e057df9) before the detector was run on them. Each row is labelled by
the DoD criterion (does the text read conclude that the request has no valid solution?) for the
package's default reading (``label``: the reasoning part, ``refusal_text: reasoning``)
and for the whole output (``label_all``), with a one-line ``why``.

Measured before any rule change: 0.949 (reasoning reading, combined detector). After the general
fixes this audit made (tasks/dod/README.md, Changelog 2.0): 0.991, i.e. 2 disagreements, pinned
below by id so that a new one (or a fixed one) shows up by name.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal import official_abstain
from lmms_plugins.tasks.dod.refusal.text import detect_in, reasoning_part
from lmms_plugins.utils.jsonl import read_jsonl

DATA = Path(__file__).parent / "data" / "refusal_independent.jsonl"

# The detector's known disagreements with the labels (reasoning reading), each a judgement call:
KNOWN = {
    # "Obviously it is impossible for two objects to occupy the same spot, so I moved the plant ...":
    # an impossibility about the world used as a step of a feasible edit; read as a conclusion.
    "ind-150",
    # "Perhaps I'm missing something, but ... I'd say this request is infeasible.": the rules treat
    # "I'd say" as a hedge by design (README: hedges); the label counts the softened verdict.
    "ind-158",
}
FLOOR = 0.98  # measured 0.991 (233 / 235); at most one disagreement outside KNOWN is tolerated


@pytest.fixture(scope="module")
def rows():
    return read_jsonl(DATA)


@pytest.fixture(scope="module")
def decisions(rows):
    return {r["id"]: detect_in(r["text"], "reasoning") for r in rows}


def test_the_set_is_what_was_frozen(rows):
    assert len(rows) == 235
    assert sum(r["label"] for r in rows) == 107
    assert len({r["id"] for r in rows}) == len(rows)
    assert Counter(r["category"] for r in rows) == {"maze": 57, "material": 35, "spatial": 32, "medium": 28,
                                                    "pose": 28, "temporal": 28, "motion": 27}
    assert set(Counter(r["lang"] for r in rows)) == {"en", "zh", "es", "de", "fr", "ja", "ko"}
    for r in rows:
        assert r["why"].strip(), r["id"]
        # the two labels differ only where the whole output says more than its reasoning part
        if r["label"] != r["label_all"]:
            assert reasoning_part(r["text"]).answer.strip() or r["text"].startswith("<think></think>"), r["id"]


def test_agreement_on_the_independent_set_in_the_default_reading(rows, decisions):
    disagree = {r["id"] for r in rows if bool(decisions[r["id"]].refused) != r["label"]}
    accuracy = 1 - len(disagree) / len(rows)
    new = sorted(disagree - KNOWN)
    assert len(new) <= 1 and accuracy >= FLOOR, f"accuracy {accuracy:.3f} (floor {FLOOR}); new disagreements {new}"
    # precision and recall of `refused` both stay high: neither side is bought with the other
    tp = sum(1 for r in rows if r["label"] and decisions[r["id"]].refused)
    fp = sum(1 for r in rows if not r["label"] and decisions[r["id"]].refused)
    fn = sum(1 for r in rows if r["label"] and not decisions[r["id"]].refused)
    assert tp / (tp + fp) >= 0.97 and tp / (tp + fn) >= 0.97, (tp, fp, fn)


def test_every_language_and_category_is_read(rows, decisions):
    for field in ("lang", "category"):
        groups: dict[str, list[bool]] = {}
        for r in rows:
            groups.setdefault(r[field], []).append(bool(decisions[r["id"]].refused) == r["label"])
        for key, ok in groups.items():
            assert sum(ok) / len(ok) >= 0.9, f"{field} {key}: {sum(ok)}/{len(ok)}"


def test_evidence_is_an_exact_substring_of_the_text_read(rows, decisions):
    for r in rows:
        d = decisions[r["id"]]
        if d.refused and not official_abstain(r["text"]):
            assert d.evidence and d.evidence in reasoning_part(r["text"]).text, r["id"]


def test_the_reading_decides_where_the_labels_differ(rows):
    # conclusions written only after </think> (or after an empty reasoning block) count under
    # `all` and not under the default reading; the detector follows the reading
    differ = [r for r in rows if r["label"] != r["label_all"]]
    assert {r["id"] for r in differ} == {"ind-008", "ind-212", "ind-214"}
    for r in differ:
        assert bool(detect_in(r["text"], "reasoning").refused) == r["label"], r["id"]
        assert bool(detect_in(r["text"], "all").refused) == r["label_all"], r["id"]


# Each construction the audit fixed, in wordings that are not in the set, with its negative twin:
# the rules must read the construction, not the set's sentences.
AUDIT_FIXES = [
    # a negated belief about existence
    ("We don't believe a single valid ordering of the five vases exists.", True),
    ("I do not think any arrangement of these plates can satisfy both rules.", True),
    ("I don't think any extra shading is needed, so here is the edit.", False),
    ("I don't think any route through the left corridor works; the right one does.", False),
    # the image as the missing result (and a picture on a wall is not one)
    ("Il n'existe aucune image valide pour cette consigne.", True),
    ("Ninguna imagen válida cumple ambas condiciones.", True),
    ("Es gibt kein passendes Bild für diese Vorgabe.", True),
    ("Nenhuma imagem válida cumpre o pedido.", True),
    ("Sur le mur il n'y a aucune image, je n'ai rien à enlever.", False),
    ("Im Hintergrund hängt kein Bild, also muss ich nichts entfernen.", False),
    # Korean "cannot be satisfied / solved"
    ("이 조건들은 동시에 만족시킬 수 없습니다.", True),
    ("이 조건들은 모두 만족시킬 수 있습니다.", False),
    # JSON verdict fields
    ('{"outcome": "declined", "why": "the hand is missing"}', True),
    ('{"outcome": "edit", "why": "raised the paw"}', False),
    # negations of impossibility in other languages
    ("Nada es imposible aquí: muevo la taza.", False),
    ("Keine der Bedingungen ist unvereinbar, also bearbeite ich es.", False),
    ("Unmöglich ist das keineswegs.", False),
    ("Ce n'est nullement impossible.", False),
    ("Das ist unmöglich, weil der Stuhl fehlt.", True),
    # one named route (zh / ja) against every route
    ("左边的通道是死路，不过下面那条可以走到终点。", False),
    ("第二条路线走不通。", False),
    ("地图上所有的路都走不通。", True),
    ("这个迷宫的路走不通。", True),
    # a conclusion after a quoted sentence; the task's own maze is not a local place
    ('"State that no solution exists." — I can state it: no solution exists, since the exit is walled in.', True),
    ("No route exists in this grid.", True),
    ("There is no way forward in this corridor, so I backtrack and go down.", False),
    # found by a second, smaller held-out round (59 responses, 0.932 before these): a contradiction
    # stated as existing, negated copulas and pronouns, German "ausgeschlossen" / "gibt es nicht",
    # and a narrower property in other languages
    ("There's a basic conflict between the two requirements, so the edit has to be declined.", True),
    ("There is no contradiction in the request, so I drew it.", False),
    ("No sería imposible, solo lento; aquí está.", False),
    ("Rien d’impossible ici.", False),
    ("Diese Kombination ist physikalisch ausgeschlossen.", True),
    ("Es ist nicht ausgeschlossen, dass es klappt; ich zeichne.", False),
    ("Eine gültige Reihenfolge gibt es nicht.", True),
    ("Einen kürzeren Weg gibt es nicht, aber dieser funktioniert.", False),
    ("No hay camino directo, pero el rodeo por abajo funciona.", False),
]


@pytest.mark.parametrize("text,concludes", AUDIT_FIXES)
def test_the_audit_fixes_read_the_construction(text, concludes):
    assert bool(detect_in(text, "reasoning").refused) is concludes
