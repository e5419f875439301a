"""retouch_region: find the rectangle that was retouched (smoothed) in a noisy photo.

Construction: a photo with sensor noise everywhere (Gaussian, sigma per tier) except inside
one rectangle, which was "retouched": replaced by a smoothed, noise-free version of the
photo. The retouch is invisible at a glance (the content is the same) but the local noise
level drops to zero there. Harder tiers: less noise (smaller contrast between retouched and
untouched texture), smaller rectangles. The answer is its box normalised to 0-1000.
Rule (card): IoU >= 0.5 with the true region.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    answer_instruction, box_str, draw_until_clear, norm_box, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "retouch_region"

_TIERS = {
    "easy": dict(size=(480, 360), area=(0.10, 0.20), noise=8.0),
    "medium": dict(size=(512, 384), area=(0.05, 0.10), noise=6.0),
    "hard": dict(size=(512, 384), area=(0.03, 0.06), noise=4.5),
    "expert": dict(size=(640, 480), area=(0.015, 0.035), noise=3.5),
}
_RETOUCH_BLUR = 1.2  # px, Gaussian sigma of the retouch

PROMPT = (
    "One rectangular region of this photo was retouched (smoothed), which removed the fine "
    "sensor noise that the rest of the picture has; the content itself is unchanged. Which "
    "rectangle was retouched?"
) + answer_instruction(
    "as a box [x1,y1,x2,y2] normalised to 0-1000 (x to the right, y down; integers)", "[120,340,410,600]"
)


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        src = np.asarray(random_photo(rng, w, h), dtype=np.float32)
        area = float(rng.uniform(*p["area"])) * w * h
        aspect = float(rng.uniform(0.5, 2.0))
        rw, rh = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
        if rw >= w - 8 or rh >= h - 8 or min(rw, rh) < 16:
            return None
        x0, y0 = int(rng.integers(0, w - rw + 1)), int(rng.integers(0, h - rh + 1))
        noisy = src + rng.normal(0, p["noise"], size=src.shape).astype(np.float32)
        smooth = cv2.GaussianBlur(src, (0, 0), _RETOUCH_BLUR)
        out = noisy.copy()
        out[y0 : y0 + rh, x0 : x0 + rw] = smooth[y0 : y0 + rh, x0 : x0 + rw]
        # clipping kills the noise in saturated areas too; such a region would look retouched
        sat = ((noisy <= 0) | (noisy >= 255)).any(axis=2).mean()
        if sat > 0.02:
            return None
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "region_xywh_px": [x0, y0, rw, rh],
            "noise_sigma": p["noise"],
            "retouch_blur_sigma": _RETOUCH_BLUR,
        }
        return GeneratedItem(to_pil(out), None, PROMPT, box_str(norm_box(x0, y0, rw, rh, w, h)), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The central box (a quarter of the area), the whole image, and the smoothest-looking
    block of a coarse 4x4 grid (the flattest area, as the eye would guess)."""
    import numpy as np

    g = np.asarray(image.convert("L"), dtype=np.float64)
    h, w = g.shape
    best, best_std = (0, 0), None
    for i in range(4):
        for j in range(4):
            blk = g[i * h // 4 : (i + 1) * h // 4, j * w // 4 : (j + 1) * w // 4]
            sd = float(blk.std())
            if best_std is None or sd < best_std:
                best, best_std = (i, j), sd
    i, j = best
    flat = box_str((j * 250, i * 250, (j + 1) * 250, (i + 1) * 250))
    return {"centre": "[250,250,750,750]", "full": "[0,0,1000,1000]", "flattest_block": flat}
