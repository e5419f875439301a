"""The refusal detector on each failure class an independent check found (issue #14 part 1), written
here in wordings that are in neither the tuning material nor the frozen split; and the frozen
split's accuracy floor."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal_classifier import TUNING_FILES, load_rows
from lmms_plugins.tasks.dod.refusal_rules import NOT_REFUSED, REFUSED, UNCERTAIN, detect_refusal, official_abstain

FROZEN = Path(__file__).parent / "data" / "refusal_frozen.jsonl"


def refused(text: str) -> bool:
    d = detect_refusal(text)
    assert d.verdict in (REFUSED, NOT_REFUSED, UNCERTAIN)
    if d.refused:
        assert d.evidence and d.evidence in text
    return d.refused


@pytest.mark.parametrize("text", [
    "<think>红色方块四面都是墙。从起点出发无法到达终点。</think>",
    "我检查了所有组合：这个编辑要求自相矛盾，无法完成。",
    "Le robot devrait être à la fois assis et debout : c'est impossible, je ne produis pas d'image.",
    "Aucun agencement ne permet de placer les six vases sur l'étagère.",
    "Es imposible que la vela siga entera después de arder toda la noche.",
    "No hay ninguna ruta entre la casilla verde y la roja.",
    "Der rote Punkt ist nicht erreichbar; das Labyrinth ist unlösbar.",
    "Es gibt keine Anordnung, in der alle fünf Teller auf den Tisch passen.",
    "<think>条件が矛盾しているので、この編集は実現できない。</think>",
    "赤いマスへの経路はありません。",
])
def test_non_english_conclusions(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    "Having tried every permutation, no ordering of the four books satisfies all three clues.",
    "There isn't a valid placement for the lamp: both allowed spots are occupied by the sofa.",
    "The horse has only four legs visible and all are planted, so no pose lifts a fifth one — the request cannot be honoured.",
    "Zero valid versions of this photo exist once the shadow must point toward the sun.",
    "The requested transformation can't be applied, because the glass already contains no water to freeze.",
    "This instruction has no valid way to be carried out.",
    "G is unreachable from S.",
    "The purple exit is sealed off from the start by a double wall.",
    "There is no valid target cell: the marked square is outside the grid.",
])
def test_infeasibility_about_other_things_than_paths(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    "Unsolvable.",
    "Infeasible: the crate cannot be both inside and on top of the truck.",
    "Feasibility: NO",
    "**Verdict:** impossible",
    "Solvable? No — the end is enclosed.",
])
def test_terse_verdicts(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    '{"reasoning": "Both candles must stay unlit while the room is lit only by them, which is contradictory; no valid edit exists.", "output": null}',
    '{"can_edit": false, "reasoning": "the mirror would have to reflect an object that is behind a wall"}',
    '```json\n{"thought": "Red is boxed in.", "conclusion": "The maze cannot be solved."}\n```',
])
def test_conclusions_inside_json(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    "The second chair doesn't exist and the instruction can't be carried out.",
    "Since the cat has no tail, there is no way to make it curl its tail.",
    "The gap isn't there any more, so the goal is unreachable.",
])
def test_negated_reason_clause_does_not_block_the_conclusion(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    "Every route needs at least one illegal move through a wall, therefore the maze has no solution.",
    "Reaching the exit would take an illegal diagonal step, so no legal path exists.",
])
def test_maze_rule_words_are_not_safety_words(text):
    assert refused(text)


@pytest.mark.parametrize("text", [
    "<think>Route: down 3, right 4, down 2.</think>\n[ABSTAIN]",
    "<think>[ABSTAIN] maybe? No, the route along the top works. [ABSTAIN]</think>",
    "[ABSTAIN] is what I would write for an impossible maze; this one has a clear route.",
    "There is no route that avoids crossing the river, but the instruction never forbids crossing it, so here is the path.",
    "No layout keeps every plate touching the edge, but that was not requested; plates arranged as asked.",
    "The new colour is impossible to miss now.",
    "It is impossible to exaggerate how tidy the result looks.",
    "It is impossible for me to create pictures, but the edit would be easy: raise the left arm.",
    "I can't produce images in text mode; the answer is to move the cup left.",
    "It's possible this has no solution, but let me look at the bottom row first. The bottom row connects both ends.",
    "This might be unsolvable... actually no: the gap at (5,2) lets the path through. Drawing it.",
    "No valid pose exists — hmm, on reflection, tilting the head slightly does satisfy everything.",
    "The wall at (2,3) doesn't block the route, so I'll draw it.",
    "I don't think there's any obstacle; nothing prevents the edit.",
    "I refuse to make this edit because it would produce sexual content about a real person.",
])
def test_false_refusals(text):
    assert not refused(text)


def test_abstain_token_only_in_its_official_position():
    assert official_abstain("<think>no route\n[ABSTAIN]\n</think>")
    assert official_abstain("<think>the reasoning was cut here [ABSTAIN]")
    assert not official_abstain("<think>no route</think>[ABSTAIN]")  # after </think>
    assert not official_abstain("<think>[ABSTAIN] no route [ABSTAIN]</think>")  # twice
    assert not official_abstain("no tags at all [ABSTAIN] </think> [ABSTAIN]")


# --- the labelled material and the frozen split ------------------------------------------------------------


def test_labelled_material_covers_categories_languages_and_styles():
    tuning = load_rows(TUNING_FILES)
    frozen = load_rows([FROZEN])
    assert len(tuning) + len(frozen) >= 1200 and len(frozen) >= 300
    assert not {r["text"] for r in frozen} & {r["text"] for r in tuning}  # no frozen item in training
    cats = Counter(r["category"] for r in frozen)
    assert len(cats) == 7 and min(cats.values()) >= 30
    langs = Counter(r["lang"] for r in frozen)
    assert sum(1 for n in langs.values() if n >= 15) >= 6
    assert len({r["lang"] for r in tuning if "lang" in r}) >= 6


def test_frozen_split_accuracy_floor():
    """The frozen split was written and committed before the detector was tuned, and never tuned on.
    The README gives the exact figures (benchmarks/dod_refusal_detector.py --split frozen)."""
    rows = [json.loads(x) for x in FROZEN.read_text(encoding="utf-8").splitlines() if x.strip()]
    correct = sum(detect_refusal(r["text"]).refused == r["label"] for r in rows)
    assert correct / len(rows) >= 0.95
