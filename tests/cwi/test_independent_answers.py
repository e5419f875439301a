"""The CwI scorer against an independent, hand-labelled set of model outputs.

tests/cwi/data/independent_answers.jsonl (300 lines, 10 per task, real golds from
``lmms-plugins make-data cwi --split test --n 4 --seed 7``) was written and committed before the
scorer was run on it, by someone who had not read the test spellings (test_answer_shapes.py).
Each line's ``verdict`` (right / wrong / unparsable) is what a careful grader gives under the
card's rule (README "Decisions where the card is open" where the card is silent); ``why`` says
why. A scorer verdict: status ok and correct = right, ok and not correct = wrong, status
unparsable = unparsable.

Every line must agree, except KNOWN below: the readings the scorer does not make, each with the
reason it is left so. A known line that starts to agree fails too, so the list stays honest.
Agreement per style: ``python tests/cwi/test_independent_answers.py``.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path


from lmms_plugins.tasks.cwi import rules
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

DATA = Path(__file__).parent / "data" / "independent_answers.jsonl"

# id -> why the scorer's verdict differs from the label (and is left so)
KNOWN = {
    # words that carry the value: reading them needs a phrase list, not a rule
    "circular_shift-014": "'39 px up' is dy = -39: direction words are not read",
    "transform_chain-059": "'no rotation, horizontal flip: yes' (rot_k, fliph in words) is not read",
    "swatch_rgb-266": "'BGR = (139, 203, 81)': a stated channel order is not read",
    "retouch_region-216": "'x: 199–527, y: 234–503' (ranges per axis) is not read as a box",
    # commentary next to the answer: telling it from a hedge ('(or maybe 9, 9)', README) needs words
    "restore_then_count-028": "a parenthesis with more numbers after the count reads as 3 numbers",
    "peak_count-147": "'24 (of 31 local maxima in total)' reads as 2 numbers",
    "restore_then_measure-096": "'21.7% (≈ 78° of the pie)': the parenthesised angle is a second value",
    "transform_chain-053": "'rot_k=1 (90° CCW)': the unnamed 90 next to named fields is ambiguous",
    "ring_rotor-108": "'The middle ring (index 1), rotated 54.8°': the parenthesis is a nested list",
    "circle_fit-222": "an extra quantity ('radius ≈ 143 px') next to the point is not dropped",
    "color_count-287": "'24 + 1 background = 25': arithmetic is not evaluated",
    "channel_mix-297": "'(218,145,113) → (160,124,173)': the restated input is a second value",
    # status only (both score 0): a count the rule does not accept is 'wrong' for these kinds
    "congruent_pair-157": "'[7]' scores 0 as wrong (differs from gold); the label says unparsable",
    "circle_fit-228": "'(313, 109) or (240, 180)' scores 0 as wrong (2 points for 1); label unparsable",
}


def _lines() -> list[dict]:
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def verdict(s) -> str:
    if s.status == rules.UNPARSABLE:
        return "unparsable"
    assert s.status == rules.OK, (s.status, s.reason)
    return "right" if s.correct else "wrong"


def _score(line: dict):
    return rules.score(rule_for_task(line["task"]), line["output"], line["gold"], line.get("context"))


def agreement(lines: list[dict]) -> dict:
    """style -> [agreeing lines, lines]; plus the disagreeing lines under None."""
    by = collections.defaultdict(lambda: [0, 0])
    off = []
    for line in lines:
        s = _score(line)
        ok = verdict(s) == line["verdict"]
        by[line["style"]][0] += ok
        by[line["style"]][1] += 1
        if not ok:
            off.append((line["id"], line["verdict"], verdict(s), s.reason))
    return {"by_style": dict(by), "off": off}


def test_the_set_is_well_formed():
    lines = _lines()
    assert len(lines) == 300
    assert len({x["id"] for x in lines}) == len(lines)
    assert collections.Counter(x["task"] for x in lines) == {t: 10 for t in rules_tasks()}
    assert {x["verdict"] for x in lines} == {"right", "wrong", "unparsable"}
    assert set(KNOWN) <= {x["id"] for x in lines}
    for x in lines:  # every gold reads
        assert rules.score(rule_for_task(x["task"]), f"<answer>{x['gold']}</answer>", x["gold"],
                           x.get("context")).correct, x["id"]


def rules_tasks():
    from lmms_plugins.tasks.cwi.task_rules import RULES
    return RULES


def test_scorer_agrees_with_the_labels():
    result = agreement(_lines())
    unexpected = [o for o in result["off"] if o[0] not in KNOWN]
    assert not unexpected, "scorer disagrees with the label:\n" + "\n".join(map(repr, unexpected))
    now_agree = set(KNOWN) - {o[0] for o in result["off"]}
    assert not now_agree, f"these now agree, remove them from KNOWN: {sorted(now_agree)}"


if __name__ == "__main__":  # agreement per style, for the README / a report
    res = agreement(_lines())
    n = sum(t for _, t in res["by_style"].values())
    print(f"3-way agreement {n - len(res['off'])}/{n}")
    for style, (a, t) in sorted(res["by_style"].items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0])):
        print(f"  {style:18s} {a}/{t}")
    for o in res["off"]:
        print("  off:", o, "(known)" if o[0] in KNOWN else "(NEW)", file=sys.stdout)
