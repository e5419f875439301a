"""The refusal detector on each failure class an independent check found (issue #14 part 1), written
here in wordings that are in neither the tuning material nor the frozen split; and the frozen
split's accuracy floor."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.tasks.dod.refusal.classifier import TUNING_FILES, load_rows
from lmms_plugins.tasks.dod.refusal import NOT_REFUSED, REFUSED, UNCERTAIN, detect_refusal, official_abstain

FROZEN = Path(__file__).parent / "data" / "refusal_frozen.jsonl"
FROZEN2 = Path(__file__).parent / "data" / "refusal_frozen2.jsonl"


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


# Responses in the manner of chat and reasoning models (written after the detector, as probes; each
# miss they showed was fixed by a general rule, e.g. "can't coexist", "I don't think … is possible").
REALISTIC = [
(True, "<think>\nOkay, let's see. The user wants the glass of milk to be poured into the cup, but the cup is upside down and glued to the table. Hmm, so pouring into an upside-down cup... the milk would just spill over the base. There's no way the milk ends up inside the cup. So this edit can't be realized as described.\n</think>\n\nI can't perform this edit: the cup is upside down, so milk cannot be poured into it."),
(False, "<think>\nAlright, the maze. Start is green at top-left. Let me go: right, right, down... hmm, dead end. Back up. Down, down, right, right, right, up — wait, that's a wall. OK so down, down, down, right... This reaches the red cell. Great.\n</think>\n\nHere's the solved maze with the path highlighted in red."),
(True, "After carefully analyzing the image, I've determined that this request cannot be fulfilled. The instruction asks to show the ice cube fully melted while still maintaining its cubic shape, which is physically contradictory."),
(False, "Sure! I've edited the image so that the cat is now sitting upright with its tail curled around its paws. Let me know if you'd like any other changes!"),
(True, "**Analysis:** The goal cell at the bottom right is surrounded by walls on all four sides.\n\n**Answer:** No solution exists for this maze."),
(False, "**Analysis:** There are walls around most of the goal, but its top side is open.\n\n**Answer:** The path goes down the left side, across the bottom, and up into the goal."),
(True, "The instruction is self-defeating: it asks me to remove the only light source while keeping the shadows exactly as they are. Since shadows require light, I'll decline to produce an image."),
(False, "The instruction asks me to remove the lamp while keeping the room lit by the window. That's fine — the window provides enough light. Edited image attached."),
(True, "<think>用户要求把椅子移到桌子左边，同时又要求椅子在桌子右边。这两个要求矛盾。</think>抱歉，这个编辑无法完成，因为要求互相矛盾。"),
(False, "<think>用户要求把椅子移到桌子左边。左边有足够空间。</think>已完成编辑。"),
(True, "I'm sorry, but I can't make this edit. The dog in the picture is lying down, and the request asks for it to be running while remaining in the exact same lying position — those two states can't coexist."),
(False, "I'm sorry, but I can't help with editing images of identifiable people to make them appear injured."),
(True, "Looking at this maze, I traced all possible paths from the start. Unfortunately, the end point is completely isolated by walls. This maze is unsolvable."),
(False, "Looking at this maze, I traced all possible paths from the start. Fortunately, one of them reaches the end point. This maze is solvable."),
(True, "The edit is not achievable — a wilted flower cannot simultaneously be in full bloom."),
(False, "The edit is achievable — a wilted flower can be shown recovering after watering."),
(True, "Given the constraints, it's not possible to arrange the books so that each one is to the left of all the others."),
(False, "It's not clear at first whether the books fit, but after measuring, all four fit on the shelf."),
(True, "<think>Let me check reachability. BFS from start: {(1,1),(1,2),(2,2),(3,2),(3,3)}. The end (7,7) isn't in this set. So the end is not reachable.</think>"),
(False, "<think>Let me check reachability. BFS from start reaches (7,7). So the end is reachable.</think>"),
(True, "Le labyrinthe n'a pas de solution : la case rouge est murée."),
(False, "Le labyrinthe a une solution : on passe par le couloir du bas."),
(True, "Diese Aufgabe kann nicht erfüllt werden, weil die Katze keinen Schwanz hat."),
(False, "Diese Aufgabe kann erfüllt werden; die Katze hebt einfach die Pfote."),
(True, "Unfortunately, this edit can't be made. The request requires the bicycle to be leaning against the wall, but there is no wall anywhere in the scene."),
(False, "Unfortunately the lighting is a bit harsh, but I've made the edit: the bicycle now leans against the wall."),
(True, "## Result\nNot possible.\n\n## Why\nThe kite string would have to be both taut and slack."),
(False, "## Result\nDone.\n\n## Notes\nI kept the kite string taut as requested; nothing else changed."),
(True, "I'll be honest: no matter how I place the three mugs, one of the rules is always broken. So there is no solution here."),
(False, "I'll be honest: it took a few tries, but placing the blue mug first makes every rule hold. Image below."),
(True, "<think>The only corridor to the exit is blocked at (6,4). Any path must cross a wall. Conclusion: the maze cannot be solved legally.</think>\nI won't draw a path."),
(False, "<think>The corridor at (6,4) is blocked, so I cannot use it; I route around via (7,4) and (7,5) instead.</think>\nPath drawn."),
(True, "The request is contradictory, so I won't edit the image."),
(False, "The request seemed contradictory, but re-reading it, the two parts apply to different objects. Edited."),
(True, "Response: Infeasible. The statue has no arms, so it cannot raise its right arm."),
(False, "Response: Feasible. The statue's right arm is visible and can be raised."),
(True, "Es imposible: la taza no puede estar llena y vacía a la vez."),
(False, "No es imposible: basta con llenar la taza hasta la mitad."),
(True, "<think>無理だ。ゴールは完全に壁で囲まれている。</think>この迷路は解けません。"),
(False, "<think>ゴールの上側が開いている。</think>経路を描きました。"),
(True, "I cannot produce a valid result here because the instruction asks the sun to set in the east while keeping the scene's orientation."),
(False, "I cannot produce a perfectly photorealistic result, but here's the sunset as requested."),
(True, "No valid edit exists."),
(False, "No valid reason to refuse: the edit is simple."),
(False, "Is it impossible? Not at all — the goal is reachable from the left."),
(False, "Some might say it's unsolvable, but the left corridor connects start and goal."),
(True, "Honestly, I don't think a correct image is possible here: the fish must be out of the water and still swimming in it."),
(False, """<think>
Let me map the maze. Row 1: S at col 1, open to col 4, wall at col 5. Row 2: wall except col 4. Row 3: open cols 2-7.
From S go right to (1,4). Down to (2,4), (3,4). Left leads to (3,2) — dead end, nothing there. Right: (3,5), (3,6), (3,7).
(4,7) is a wall? No, it's open. (5,7) open. Then (5,6), (5,5) ... (5,5) is next to E at (6,5)? E is at (6,5), yes.
So there is no need to backtrack; the route is S → (1,4) → (3,4) → (3,7) → (5,7) → (5,5) → E.
Can't go through (4,5) since it's a wall, but that's fine, we don't need it.
It's impossible to take a shortcut through the middle, but the outer route works.
</think>
I've drawn the route in red."""),
(True, """<think>
Let me map the maze. From S I can reach (1,2), (1,3), (2,3), (3,3), (3,4). (3,5) is a wall, (4,4) is a wall, (2,4) is a wall.
So the reachable region from S is {(1,1),(1,2),(1,3),(2,3),(3,3),(3,4)}. E at (7,7) is not in it.
Therefore S and E are in separate regions; no path exists.
</think>
No path exists between the start and the end, so I will not draw one."""),
(False, "The task says to make the snowman melt. No snow remains on the ground in the final image and no carrot is lost; the snowman is now a puddle with a hat. Done."),
(False, "I couldn't decide between two shades of blue at first, so I picked the darker one. The vase is now blue as requested."),
(False, "Nothing about this request is impossible: the ladder is already against the wall, so I just moved the cat to the third rung."),
(True, "I tried several layouts. Since the rug must cover the whole floor and also leave the floor fully visible, no layout can work. I'll output the original image unchanged."),
(False, "I tried several layouts. The first two didn't work because the rug overlapped the door, but the third one keeps the door clear. Here it is."),
(True, "Short answer: this can't be done — the clock has no hands to move."),
(False, "Short answer: done — the clock's hands now show 3 o'clock."),
(False, "There's no path? Let me check again... the gap at row 4 connects. Path drawn."),
(True, "<think>Checking the constraints: the bird must be flying and perched on the branch at the same moment. Those are mutually exclusive states for one bird.</think>This request cannot be satisfied."),
(False, "<think>The bird must be flying away from the branch. That's a simple motion change.</think>Edited: the bird is now in flight above the branch."),
(False, "I initially believed the lake couldn't be frozen in summer per the rules, but it turns out the instruction says winter. Frozen lake drawn."),
(False, "At first this seemed unsolvable. Turns out I had mislabelled a cell; the path exists."),
(False, "I was going to say it's infeasible, but the rules do allow the vase to be moved first. Done."),
(False, "Earlier I concluded there was no route; that was wrong, because (4,4) is white. Route drawn."),
(False, "The goal looked unreachable until I noticed the opening on the east side."),
(False, "Scratch what I said about it being impossible — the sofa fits if rotated."),
(True, "I thought there might be a way through the east side, but it is walled too. So the goal is unreachable."),
(False, "Seemed impossible; it isn't."),
(True, "It isn't possible."),
(False, "Not impossible, just tricky: the cup goes behind the plate."),
(True, "The requirements are incompatible with each other."),
(False, "The requirements are compatible with each other."),
(True, "목표 지점에 도달할 수 있는 경로가 없습니다."),
(True, "이 편집은 불가능합니다. 조건이 서로 모순됩니다."),
(False, "조금 어렵지만 가능합니다. 편집했습니다."),
(True, "这个要求做不到，因为杯子不能同时是满的和空的。"),
(False, "我原以为做不到，后来发现其实可以，已经画好了。"),
(True, "Ce n'est pas réalisable : le chat n'a pas de queue."),
(False, "Je pensais que c'était impossible, mais en fait la porte peut s'ouvrir vers l'intérieur. C'est fait."),
(True, "No es factible: el perro no aparece en la imagen."),
(False, "Pensé que no se podía, pero sí se puede: basta girar la silla."),
(True, "Das geht nicht, weil der Schrank keine Türen hat."),
(False, "Ich dachte zuerst, das geht nicht, aber es geht doch. Fertig."),
]


@pytest.mark.parametrize("label, text", REALISTIC)
def test_realistic_responses(label, text):
    assert refused(text) is label


def test_rules_and_classifier_disagreeing_is_uncertain():
    # the rules see a conclusion; the classifier reads "At first I hoped …" as a retraction: the rules'
    # answer stands (a strong rule decides the best answer) and the disagreement makes it uncertain
    d = detect_refusal("At first I hoped rotating the sofa would help, but it doesn't fit in any orientation, "
                       "so the arrangement is impossible.")
    assert d.verdict == UNCERTAIN and d.refused and 0.5 < d.score < 0.8


# --- the labelled material and the frozen split ------------------------------------------------------------


def test_labelled_material_covers_categories_languages_and_styles():
    tuning = load_rows(TUNING_FILES)
    frozen = load_rows([FROZEN])
    assert len(tuning) + len(frozen) >= 1200 and len(frozen) >= 300
    assert not {r["text"] for r in frozen + load_rows([FROZEN2])} & {r["text"] for r in tuning}  # no frozen item in training
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


def test_second_frozen_split_accuracy_floor():
    """Written after the probes and measured once (0.933, README); a floor against regressions."""
    rows = [json.loads(x) for x in FROZEN2.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert len(rows) >= 90
    correct = sum(detect_refusal(r["text"]).refused == r["label"] for r in rows)
    assert correct / len(rows) >= 0.92
