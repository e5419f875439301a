"""Model outputs written around a gold answer in many spellings, right and wrong, for the test
that the scorer's direct route and its general route agree (test_direct_route.py).

Written apart from the throughput benchmark's templates: the numbers of a real gold of each task
are re-spelled by composing random choices (container, separator, names, units, signs, number
format, prose, tags), then perturbed; a share of the outputs is adversarial (tags nested, unclosed
or in other cases, '<' after the answer, unicode minus, fractions, exponents, thousands
separators, list markers, JSON objects, huge outputs)."""

from __future__ import annotations

import json
import random
import re

# two real golds per task, as the generators write them (make-data cwi)
GOLDS = {
    "circular_shift": ["3,80", "-50,13"], "restore_then_count": ["28", "34"],
    "shift_rot_align": ["dx=10, dy=0, theta=-6.96", "dx=-9, dy=-38, theta=-56.6"], "alignment": ["-7,5", "54,48"],
    "rot_scale": ["angle=-76.6, scale=0.887", "angle=-102.9, scale=0.777"],
    "transform_chain": ["dx=-10, dy=29, rot_k=1, fliph=0", "dx=-118, dy=-129, rot_k=0, fliph=1"],
    "unshuffle2d": ["rows=[1,0,2]; cols=[0,2,1]", "rows=[3,4,7,0,1,6,2,5]; cols=[2,4,6,0,5,7,1,3]"],
    "jigsaw": ["[5,3,4,0,8,2,7,1,6]", "[2,0,1,3]"],
    "rotated_jigsaw": ["tiles=[3,0,1,2]; rots=[3,2,3,1]", "tiles=[1,0,2,3,5,4,8,7,6]; rots=[2,1,3,2,0,1,3,0,2]"],
    "restore_then_measure": ["18.4", "74.1"], "ring_rotor": ["ring=0, angle=65.0", "ring=2, angle=91.5"],
    "double_exposure": ["[97]", "[-112,123]"], "grating_period": ["79.73", "28.67"],
    "anomaly_v2": ["[[0,3]]", "[[1,3],[4,0],[4,3]]"], "peak_count": ["32", "27"], "congruent_pair": ["[3,10]", "[4,15]"],
    "trace_length": ["3305.2", "4531.9"], "scan_moire": ["1.0551", "0.9569"],
    "crop_provenance": ["[333,8,612,356]", "[653,631,977,940]"], "brightest_blob": ["207.7,138.0", "268.0,218.0"],
    "sub_rect_swap": ["[[352,356,519,550],[594,683,760,878]]", "[[91,721,134,779],[334,75,378,133]]"],
    "retouch_region": ["[127,344,546,706]", "[744,533,894,675]"], "circle_fit": ["246.9,126.6", "207.2,313.9"],
    "print_misreg": ["2.15,-0.84", "-1.00,0.68"], "gain_center": ["[[332,199]]", "[[261,113],[39,342],[329,363]]"],
    "film_color": ["206,181,79", "217,66,227"], "swatch_rgb": ["83,95,74", "196,161,211"],
    "patch_mean_dots": ["171,150,189", "116,67,73"], "color_count": ["10", "47"], "channel_mix": ["43,85,202", "210,80,83"],
}

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
NAMES = ["dx", "dy", "x", "y", "theta", "angle", "scale", "rot_k", "fliph", "rows", "cols", "tiles", "rots",
         "ring", "percent", "value", "count", "r", "g", "b", "row", "col", "x1", "y1", "x2", "y2", "w", "h",
         "left", "top", "cx", "cy", "period", "length", "s", "Answer", "RGB", "px", "deg", "yes", "e", "tile", "rot"]


def _fmt(rnd: random.Random, v: str) -> str:
    """One number in a random spelling (mostly the same value)."""
    r = rnd.random()
    if r < 0.55 or (CLEAN[0] and r < 0.9):
        return v
    x = float(v)
    choices = [
        lambda: str(int(x)) if x.is_integer() else v,
        lambda: f"{x:.1f}", lambda: f"{x:.3f}", lambda: str(int(round(x))),
        lambda: ("+" + v) if not v.startswith("-") else v,
        lambda: v.replace("-", "\u2212"), lambda: f"{x:e}", lambda: f"{x:.2E}",
        lambda: str(int(round(x)) + rnd.choice([-3, -1, 1, 2, 9, 40])),
        lambda: f"{x + rnd.uniform(-3, 3):.2f}", lambda: "0" + v.lstrip("-") if not v.startswith("-") else v,
        lambda: v + ".", lambda: ("." + v.split(".")[1]) if "." in v and v.startswith("0") else v,
        lambda: f"{x / 100:.4f}", lambda: f"{int(abs(x))}/{rnd.choice([2, 4, 90])}", lambda: "9" * rnd.choice([20, 65, 80]),
        lambda: f"{int(abs(x)) * 1000:,}", lambda: "1e200", lambda: "-0", lambda: "#7f80c8",
    ]
    return rnd.choice(choices)()


def _unit(rnd: random.Random) -> str:
    return rnd.choice(["", "", "", "", " px", "px", "°", " deg", " degrees", "%", " %", " pixels", " PX", " pp", " pct", "pxx"])


def _sep(rnd: random.Random) -> str:
    return rnd.choice([",", ", ", " ", "  ", ";", " , ", "\t", ", ", "-", ",,", " and ", "\n", ""])


def _flat(rnd, nums) -> str:
    sep = _sep(rnd)
    unit = _unit(rnd) if rnd.random() < 0.3 else ""
    body = sep.join(_fmt(rnd, n) + (unit if rnd.random() < 0.5 else "") for n in nums)
    br = rnd.choice([("", ""), ("[", "]"), ("(", ")"), ("[ ", " ]"), ("{", "}"), ("[", ")"), ("(", ""), ("Point(", ")"), ("RGB ", "")])
    return f"{br[0]}{body}{br[1]}{_unit(rnd) if rnd.random() < 0.2 else ''}"


def _groups(rnd, nums) -> str:
    size = rnd.choice([2, 2, 2, 4, 1, 3])
    parts = [nums[i:i + size] for i in range(0, len(nums), size)] or [[]]
    inner = rnd.choice([("[", "]"), ("(", ")"), ("[", "]"), ("{", "}")])
    between = rnd.choice([",", ", ", " ", " to ", " and ", ";", ",\n", ""])
    body = between.join(f"{inner[0]}{', '.join(_fmt(rnd, n) for n in p)}{inner[1]}" for p in parts)
    outer = rnd.choice([("[", "]"), ("", ""), ("[", "]"), ("(", ")"), ("boxes: [", "]"), ("[[", "]]"), ("[", "")])
    return f"{outer[0]}{body}{outer[1]}"


def _named(rnd, nums, names) -> str:
    eq = rnd.choice(["=", ": ", " = ", ":", " ", "=="])
    sep = rnd.choice([", ", "; ", ",", " ", "\n", " and "])
    out = []
    for i, n in enumerate(nums):
        name = names[i] if i < len(names) and rnd.random() < 0.8 else rnd.choice(NAMES)
        if rnd.random() < 0.2:
            name = name.upper()
        out.append(f"{name}{eq}{_fmt(rnd, n)}{_unit(rnd) if rnd.random() < 0.3 else ''}")
    if rnd.random() < 0.3:
        rnd.shuffle(out)
    return sep.join(out)


def _named_lists(rnd, lists, names) -> str:
    eq = rnd.choice(["=", ": ", " = ", ":"])
    sep = rnd.choice(["; ", ", ", ";", " ", "\n"])
    out = []
    for i, nums in enumerate(lists):
        name = names[i] if i < len(names) else rnd.choice(NAMES)
        br = rnd.choice([("[", "]"), ("(", ")"), ("", ""), ("[", "]")])
        inner = rnd.choice([",", ", ", " "]) if br[0] else rnd.choice([" ", ", "])
        out.append(f"{name}{eq}{br[0]}{inner.join(_fmt(rnd, n) for n in nums)}{br[1]}")
    return sep.join(out)


def _objects(rnd, nums, names) -> str:
    size = rnd.choice([2, 2, 4, 1, 3])
    keys = names or ["x", "y"]
    objs = []
    for i in range(0, len(nums), size):
        part = nums[i:i + size]
        objs.append("{" + ", ".join(f'"{keys[(j) % len(keys)] if rnd.random() < 0.9 else rnd.choice(NAMES)}": '
                                     f"{_fmt(rnd, n)}" for j, n in enumerate(part)) + "}")
    text = ", ".join(objs)
    return text if len(objs) == 1 and rnd.random() < 0.5 else f"[{text}]"


def _names_for(gold: str, nums: list) -> list:
    named = re.findall(r"([A-Za-z_]\w*)\s*=", gold)
    if named:
        return named
    return rnd_names_by_count.get(len(nums), ["x", "y"])


rnd_names_by_count = {1: ["value"], 2: ["x", "y"], 3: ["r", "g", "b"], 4: ["x1", "y1", "x2", "y2"]}


def _tagged(rnd, span: str) -> str:
    """A whole model output around ``span``: prose, tags (sometimes odd), code."""
    if CLEAN[0]:
        return rnd.choice(["", "Measured with numpy: ", "Thinking...\n" * 3]) + f"<answer>{span}</answer>"
    pre = rnd.choice(["", "The answer is ", "I measured the image with numpy.\n", "Step 1: load. Step 2: <b>fit</b>.\n",
                      "<answer>draft 1</answer> on reflection: ", "<ANSWER>", "```python\nprint(3)\n```\n",
                      "x < 5 and y > 2, so "])
    post = rnd.choice(["", "", " Done.", "\n<|im_end|>", " (see above)", " <answer>", "</answer>", " <b>bold</b>"])
    open_, close = rnd.choice([("<answer>", "</answer>")] * 6 + [("<Answer>", "</Answer>"), ("<ANSWER>", "</answer>"),
                                                                  ("<answer>", "</ANSWER>"), ("<answer> ", " </answer>"),
                                                                  ("<answer>\n", "\n</answer>"), ("<answer>", ""),
                                                                  ("", "</answer>"), ("<answer><answer>", "</answer>")])
    return f"{pre}{open_}{span}{close}{post}"


CLEAN = [False]  # True while spelling a plain output (set by spellings)


def spellings(rnd: random.Random, task: str, gold: str, clean: bool = False) -> str:
    """One model output for ``task`` whose gold is ``gold``; ``clean``: plain tags and prose,
    fewer odd numbers (the adversarial share is then small)."""
    CLEAN[0] = clean
    nums = _NUMBER.findall(gold)
    if rnd.random() < (0.08 if clean else 0.25):  # wrong or odd counts
        k = rnd.choice([0, 1, -1, 2])
        nums = nums[:len(nums) + k] if k < 0 else nums + [rnd.choice(nums or ["1"]) for _ in range(k)]
    names = _names_for(gold, nums)
    kind = rnd.random()
    if kind < 0.3:
        span = _flat(rnd, nums)
    elif kind < 0.5:
        span = _groups(rnd, nums)
    elif kind < 0.68:
        span = _named(rnd, nums, names)
    elif kind < 0.8:
        lists = [m.split(",") for m in re.findall(r"\[([^\[\]]*)\]", gold)] or [nums[: len(nums) // 2], nums[len(nums) // 2:]]
        span = _named_lists(rnd, [[x.strip() for x in lst if x.strip()] for lst in lists], names)
    elif kind < 0.9:
        span = _objects(rnd, nums, names)
    elif clean:
        span = gold
    else:
        span = rnd.choice([
            gold, gold.replace(",", ", "), gold.replace("-", "\u2212"), "\n".join(f"{i + 1}. {n}" for i, n in enumerate(nums)),
            json.dumps({"answer": gold}), f"{gold} ({gold})", f"{gold}, i.e. {gold}", "", "  ", "none", "[[[[[[[[[1]]]]]]]]]",
            "[" * 3 + ",".join(nums), gold + "]", "1/2", "3e5", "1,234", "length: 1,234 px", "2,345.5", "x" * 50,
        ])
    if not clean and rnd.random() < 0.05:  # huge: a long list (the streamed path over 64 KB) or long prose
        span = rnd.choice([", ".join(str(i % 97) for i in range(rnd.choice([800, 14000]))), span + " " * 70000])
    return _tagged(rnd, span)
