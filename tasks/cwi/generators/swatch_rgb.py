"""swatch_rgb: recover a swatch's true colour from a photo taken under a colour cast.

Construction: a photo with square colour patches printed on it: several reference patches
whose true colours the prompt lists, and one target swatch. The whole picture then goes
through an unknown affine colour transform (per-channel gain in the easy tier; gain + offset,
then growing cross-channel mixing in the harder ones) plus sensor noise. The prompt gives
each patch's centre and side in pixels. The answer is the target's true (pre-cast) colour;
reading its pixels gives the cast colour, which the generator ensures is off by more than
the tolerance. Rule (card): R,G,B each within +-10.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, rgb_str, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "swatch_rgb"

_TIERS = {
    "easy": dict(size=(480, 360), refs=6, side=(40, 56), offset=0, mix=0.0, noise=0.0),
    "medium": dict(size=(512, 384), refs=6, side=(32, 48), offset=30, mix=0.0, noise=3.0),
    "hard": dict(size=(512, 384), refs=7, side=(24, 36), offset=35, mix=0.12, noise=6.0),
    "expert": dict(size=(640, 480), refs=8, side=(18, 28), offset=40, mix=0.22, noise=10.0),
}

def _prompt(refs, target) -> str:
    lines = [
        "Square colour patches (each with a thin black border) are printed on this photo. The "
        "photo was then taken under an unknown colour cast: every pixel went through the same "
        "unknown affine colour transform (a 3x3 matrix plus an offset), with sensor noise.",
        "Reference patches (centre x,y in pixels; side in pixels; true colour R,G,B):",
    ]
    for i, (x, y, s, c) in enumerate(refs):
        lines.append(f"- reference {i + 1}: centre ({x},{y}), side {s}, true colour {c[0]},{c[1]},{c[2]}")
    x, y, s = target
    lines.append(
        f"Target swatch: centre ({x},{y}), side {s}. What is the target swatch's true colour "
        "(before the cast)?"
    )
    return "\n".join(lines) + answer_instruction("as R,G,B with integers 0-255", "120,64,200")


def parse_layout(prompt: str):
    """(refs, target) from the prompt: refs = [(x, y, side, (r,g,b))], target = (x, y, side)."""
    import re

    refs = [
        (int(m[0]), int(m[1]), int(m[2]), (int(m[3]), int(m[4]), int(m[5])))
        for m in re.findall(
            r"centre \((\d+),(\d+)\), side (\d+), true colour (\d+),(\d+),(\d+)", prompt
        )
    ]
    t = re.search(r"Target swatch: centre \((\d+),(\d+)\), side (\d+)", prompt)
    if not refs or not t:
        raise ValueError("swatch_rgb prompt lacks the patch layout")
    return refs, (int(t.group(1)), int(t.group(2)), int(t.group(3)))


def patch_mean(arr, x, y, side):
    """Mean colour of the central half of a patch (away from its border)."""
    r = max(1, side // 4)
    return arr[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3).astype(float).mean(0)


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    n = p["refs"] + 1

    def draw(_attempt):
        side = int(rng.integers(p["side"][0], p["side"][1] + 1))
        # non-overlapping positions on a jittered grid
        cols, rows = w // (side * 2), h // (side * 2)
        cells = rng.choice(cols * rows, size=n, replace=False)
        pos = []
        for c in cells:
            cx = (c % cols) * side * 2 + side + int(rng.integers(-side // 3, side // 3 + 1))
            cy = (c // cols) * side * 2 + side + int(rng.integers(-side // 3, side // 3 + 1))
            pos.append((int(cx), int(cy)))
        true = rng.integers(15, 241, size=(n, 3))
        m = np.diag(rng.uniform(0.6, 1.3, size=3)) + rng.uniform(-p["mix"], p["mix"], size=(3, 3)) * (1 - np.eye(3))
        off = rng.uniform(-p["offset"], p["offset"], size=3) if p["offset"] else np.zeros(3)
        seen = true @ m.T + off
        if not np.all((seen > 10) & (seen < 245)):
            return None  # clipped patches would make the cast non-affine
        photo = np.asarray(random_photo(rng, w, h), dtype=np.float64).copy()
        half = side // 2
        for (cx, cy), c in zip(pos, true):
            photo[cy - half - 2 : cy + half + 2, cx - half - 2 : cx + half + 2] = 0.0  # border
            photo[cy - half : cy + half, cx - half : cx + half] = c
        image = to_pil(add_noise(photo @ m.T + off, rng, p["noise"]))
        refs = [(x, y, side, tuple(int(v) for v in c)) for (x, y), c in zip(pos[1:], true[1:])]
        target = (pos[0][0], pos[0][1], side)
        gold = [int(v) for v in true[0]]
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "side": side,
            "target_centre": list(pos[0]),
            "target_rgb": gold,
            "references": [{"centre": [x, y], "rgb": list(c)} for x, y, _s, c in refs],
            "cast_matrix": [[round(float(v), 6) for v in row] for row in m],
            "cast_offset": [round(float(v), 6) for v in off],
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(image, None, _prompt(refs, target), rgb_str(gold), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The swatch's colour as it appears (no cast correction), the image's mean colour, the
    mean of the references' true colours, and a mid grey."""
    import numpy as np

    arr = np.asarray(image.convert("RGB"))
    refs, (x, y, s) = parse_layout(prompt)

    return {
        "as_seen": rgb_str(patch_mean(arr, x, y, s)),
        "mean": rgb_str(arr.reshape(-1, 3).mean(0)),
        "mean_reference": rgb_str(np.mean([c for *_r, c in refs], axis=0)),
        "constant": "128,128,128",
    }
