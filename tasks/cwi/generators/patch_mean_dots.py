"""patch_mean_dots: the mean colour of a patch painted with coloured dots.

Construction: a photo with one (easy/medium) or several (hard/expert) square patches printed
on it; each patch is a flat base colour sprinkled with random dots of 2-5 other colours, so
the eye sees a blend it cannot put a number on. The prompt gives the target patch's pixel
box; the answer is the mean R,G,B over exactly those pixels (computed from the drawn patch).
Harder tiers: smaller dots, more dot colours, smaller patches, decoy patches.
Rule (card): R,G,B each within +-10.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    answer_instruction, draw_until_clear, prompt_ints, rgb_str, tier_params,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "patch_mean_dots"

_TIERS = {
    "easy": dict(size=(480, 360), side=(110, 150), radius=(5, 8), colours=(2, 2), decoys=0),
    "medium": dict(size=(512, 384), side=(90, 130), radius=(3, 5), colours=(2, 3), decoys=0),
    "hard": dict(size=(512, 384), side=(70, 100), radius=(2, 3), colours=(3, 4), decoys=2),
    "expert": dict(size=(640, 480), side=(50, 80), radius=(1, 2), colours=(4, 5), decoys=4),
}

def parse_box(prompt: str):
    """(x0, x1, y0, y1) of the target patch, as the prompt states it."""
    return prompt_ints(prompt, r"x from (\d+) to (\d+) and y from (\d+) to (\d+)", "the patch_mean_dots patch box")


def _prompt(x0, x1, y0, y1, decoys) -> str:
    more = " Several such patches are printed; only the one in the given box counts." if decoys else ""
    return (
        "A square patch covered in coloured dots is printed on this photo." + more + " The target "
        f"patch covers the pixels with x from {x0} to {x1} and y from {y0} to {y1} "
        f"(x0 <= x < x1, y0 <= y < y1; x to the right, y down, origin at the top-left pixel). What "
        "is the mean colour of the pixels in that box (each channel averaged over all its pixels)?"
        + answer_instruction("as R,G,B with integers 0-255 (rounded)", "120,64,200")
    )


def _dotted_patch(rng, side, p):
    import cv2
    import numpy as np

    base = rng.integers(0, 256, size=3)
    n_col = int(rng.integers(p["colours"][0], p["colours"][1] + 1))
    cols = rng.integers(0, 256, size=(n_col, 3))
    patch = np.empty((side, side, 3), np.uint8)
    patch[:] = base
    coverage = float(rng.uniform(0.25, 0.6))
    rmin, rmax = p["radius"]
    area = 0.0
    while area < coverage * side * side:
        r = int(rng.integers(rmin, rmax + 1))
        x, y = int(rng.integers(0, side)), int(rng.integers(0, side))
        c = cols[int(rng.integers(n_col))]
        cv2.circle(patch, (x, y), r, tuple(int(v) for v in c), -1, cv2.LINE_8)
        area += np.pi * r * r
    return patch, base, cols


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np
    from PIL import Image

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        img = np.asarray(random_photo(rng, w, h)).copy()
        boxes = []
        for k in range(1 + p["decoys"]):
            side = int(rng.integers(p["side"][0], p["side"][1] + 1))
            for _ in range(100):
                x0, y0 = int(rng.integers(4, w - side - 4)), int(rng.integers(4, h - side - 4))
                if all(x0 + side + 8 <= bx or bx + bs + 8 <= x0 or y0 + side + 8 <= by or by + bs + 8 <= y0
                       for bx, by, bs in boxes):
                    break
            else:
                break
            boxes.append((x0, y0, side))
        if len(boxes) != 1 + p["decoys"]:
            return None
        info = None
        for k, (x0, y0, side) in enumerate(boxes):
            patch, base, cols = _dotted_patch(rng, side, p)
            img[y0 - 1 : y0 + side + 1, x0 - 1 : x0 + side + 1] = 0  # 1-px black frame around it
            img[y0 : y0 + side, x0 : x0 + side] = patch
            if k == 0:
                info = (x0, y0, side, base, cols)
        x0, y0, side, base, cols = info
        mean = img[y0 : y0 + side, x0 : x0 + side].reshape(-1, 3).astype(np.float64).mean(0)
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "box_xyxy": [x0, y0, x0 + side, y0 + side],
            "base_rgb": [int(v) for v in base],
            "dot_rgbs": [[int(v) for v in c] for c in cols],
            "dot_radius": list(p["radius"]),
            "decoy_boxes": [[bx, by, bx + bs, by + bs] for bx, by, bs in boxes[1:]],
            "mean_rgb_exact": [round(float(v), 4) for v in mean],
        }
        prompt = _prompt(x0, x0 + side, y0, y0 + side, p["decoys"])
        return GeneratedItem(Image.fromarray(img), None, prompt, rgb_str(mean), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The patch's dominant (base) colour, its centre pixel, the image's mean colour, a grey."""
    import numpy as np

    arr = np.asarray(image.convert("RGB")).astype(np.int64)
    x0, x1, y0, y1 = parse_box(prompt)
    box = arr[y0:y1, x0:x1].reshape(-1, 3)
    packed, counts = np.unique((box[:, 0] << 16) | (box[:, 1] << 8) | box[:, 2], return_counts=True)
    mode = packed[int(np.argmax(counts))]
    centre = arr[(y0 + y1) // 2, (x0 + x1) // 2]

    return {
        "dominant": rgb_str([mode >> 16, (mode >> 8) & 255, mode & 255]),
        "centre_pixel": rgb_str(centre),
        "mean": rgb_str(arr.reshape(-1, 3).mean(0)),
        "constant": "128,128,128",
    }
