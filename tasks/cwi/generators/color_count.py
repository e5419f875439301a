"""color_count: how many distinct RGB values does a flat-shaded drawing contain?

Construction: a procedural canvas of flat, non-antialiased shapes (rectangles, ellipses) in
clearly different palette colours, plus "hidden" colours that a viewer merges with a visible
one: near-duplicates that differ by a few units in one or two channels (large shapes) and, in
the harder tiers, tiny specks of a few pixels. The gold is the number of palette colours
visible after all shapes are drawn (tracked with a label map while drawing).

Answer spread: the count is drawn first, uniformly from the tier's range; the four ranges tile
8-55 without overlap (12 values each, balanced tiers), so the overall count distribution is
flat over 48 values and no single answer is right on more than ~2.3 % of a split (the
constant shortcut's value is left out of the draw). Failed drawings (a colour painted over
entirely, or a shortcut hit) are redrawn for the same count, which keeps it flat.
Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import answer_instruction, draw_until_clear, tier_params
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "color_count"

# total colour count, hidden near-duplicates, their channel difference range, specks (one
# canvas size for every tier, so that the size does not tell which count range applies)
_TIERS = {
    "easy": dict(size=(640, 480), count=(8, 19), near=(1, 3), near_diff=(4, 10), specks=(0, 0)),
    "medium": dict(size=(640, 480), count=(20, 31), near=(2, 6), near_diff=(2, 6), specks=(0, 2)),
    "hard": dict(size=(640, 480), count=(32, 43), near=(3, 8), near_diff=(1, 4), specks=(1, 4)),
    "expert": dict(size=(640, 480), count=(44, 55), near=(4, 12), near_diff=(1, 3), specks=(2, 8)),
}
CONSTANT_GUESS = 20  # a typical answer, used as the "constant" shortcut
_MERGE_DIST = 12  # colours closer than this (max channel) look the same to a viewer
_MIN_VISIBLE_PIXELS = 40  # smaller regions are not noticed by a viewer

PROMPT = (
    "This drawing is made of flat-coloured shapes without anti-aliasing. Some colours differ "
    "from others by only a few units in one channel, and some shapes are only a few pixels "
    "large. How many distinct RGB colour values (exact 8-bit triples) appear in the image, "
    "counting the background colour too?"
) + answer_instruction("with a single integer", "12")


def _distinct_colour(rng, palette, min_dist):
    import numpy as np

    for _ in range(500):
        c = rng.integers(0, 256, size=3)
        if all(np.abs(c - p).max() >= min_dist for p in palette):
            return c
    raise RuntimeError("could not draw a distinct colour")


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np
    from PIL import Image

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    # the count is drawn once, uniformly (the constant shortcut's value excluded); every retry
    # below redraws the picture for this same count
    counts = [c for c in range(p["count"][0], p["count"][1] + 1) if c != CONSTANT_GUESS]
    target = counts[int(rng.integers(len(counts)))]

    def draw(_attempt):
        n_near = int(rng.integers(p["near"][0], p["near"][1] + 1))
        n_speck = int(rng.integers(p["specks"][0], p["specks"][1] + 1))
        n_vis = target - 1 - n_near - n_speck
        if n_vis < max(2, n_near):
            return None
        palette = []
        for _ in range(n_vis + 1):  # +1: background
            palette.append(_distinct_colour(rng, palette, 40))
        kinds = ["bg"] + ["visible"] * n_vis
        for _ in range(n_near):
            base = palette[int(rng.integers(1, n_vis + 1))]
            for _ in range(100):
                c = base.copy()
                nch = int(rng.integers(1, 3))
                for ch in rng.choice(3, size=nch, replace=False):
                    d = int(rng.integers(p["near_diff"][0], p["near_diff"][1] + 1))
                    c[ch] = c[ch] + d if c[ch] + d <= 255 else c[ch] - d
                if all(np.abs(c - q).max() > 0 for q in palette):
                    break
            palette.append(c)
            kinds.append("near")
        for _ in range(n_speck):
            palette.append(_distinct_colour(rng, palette, 1))
            kinds.append("speck")

        label = np.zeros((h, w), np.int32)
        # shapes of visible and near colours, drawn in random order
        order = [i for i, k in enumerate(kinds) if k in ("visible", "near")]
        rng.shuffle(order)
        shrink = min(1.0, (10.0 / len(order)) ** 0.5)
        for i in order:
            for _ in range(int(rng.integers(1, 3))):
                cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
                # smaller shapes when there are many colours, so that few get painted over
                sx = max(4, int(rng.integers(w // 20, w // 5) * shrink))
                sy = max(4, int(rng.integers(h // 20, h // 5) * shrink))
                if rng.random() < 0.5:
                    cv2.rectangle(label, (cx - sx, cy - sy), (cx + sx, cy + sy), int(i), -1, cv2.LINE_8)
                else:
                    ang = float(rng.uniform(0, 180))
                    cv2.ellipse(label, (cx, cy), (sx, sy), ang, 0, 360, int(i), -1, cv2.LINE_8)
        for i, k in enumerate(kinds):
            if k == "speck":
                s = int(rng.integers(1, 4))
                x, y = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
                label[y : y + s, x : x + s] = i
        present = np.unique(label)
        if len(present) != target:
            return None  # a colour was painted over completely: draw again
        image = Image.fromarray(np.array(palette, dtype=np.uint8)[label])
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "n_visible": n_vis,
            "n_near_duplicates": n_near,
            "n_specks": n_speck,
            "palette": [[int(v) for v in c] for c in palette],
            "kinds": kinds,
            "present_labels": [int(v) for v in present],
            "count": int(len(present)),
        }
        return GeneratedItem(image, None, PROMPT, str(int(len(present))), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """A constant, and the count a viewer would make: colours merged within a few units,
    regions of a few dozen pixels ignored."""
    import numpy as np

    arr = np.asarray(image.convert("RGB")).reshape(-1, 3).astype(np.int32)
    packed, counts = np.unique((arr[:, 0] << 16) | (arr[:, 1] << 8) | arr[:, 2], return_counts=True)
    cols = np.stack([packed >> 16, (packed >> 8) & 255, packed & 255], axis=1)
    order = np.argsort(-counts)
    reps: list = []
    for i in order:
        if counts[i] < _MIN_VISIBLE_PIXELS:
            continue
        c = cols[i]
        if not any(np.abs(c - r).max() < _MERGE_DIST for r in reps):
            reps.append(c)
    return {"constant": str(CONSTANT_GUESS), "perceived": str(len(reps))}
