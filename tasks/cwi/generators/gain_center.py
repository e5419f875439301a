"""gain_center: locate the spotlights that brightened a photo, strongest first.

Construction: image = a photo, dimmed to 58 % of its levels; image_2 = the same photo lit by K soft spotlights: every pixel
is multiplied by a gain 1 + sum_k s_k * exp(-|x - c_k|^2 / (2 sigma_k^2)) (clipped to 255,
with sensor noise in the harder tiers). Strengths s_k differ by at least 0.1 so the order is
defined; spotlights are far enough apart that each has its own maximum. K = 1 (easy), 2
(medium), 2-3 (hard), 3-4 (expert). The answer is the K centres, strongest first, in pixels.
Rule (card): count and order match, every centre within 15 px (Euclidean).
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "gain_center"

_TIERS = {
    "easy": dict(size=(480, 360), k=(1, 1), strength=(0.3, 0.8), sigma=(40, 70), noise=0.0),
    "medium": dict(size=(512, 384), k=(2, 2), strength=(0.25, 0.8), sigma=(35, 60), noise=2.0),
    "hard": dict(size=(512, 384), k=(2, 3), strength=(0.2, 0.7), sigma=(30, 55), noise=4.0),
    "expert": dict(size=(640, 480), k=(3, 4), strength=(0.15, 0.65), sigma=(30, 55), noise=6.0),
}
_MIN_STRENGTH_GAP = 0.1
_DIM = 0.58

PROMPT = (
    "The second image is the first image lit by one or more soft round spotlights: each "
    "spotlight multiplies the brightness around its centre by a gain that falls off smoothly "
    "(a Gaussian bump), and the spotlights have different strengths. Give the centre of every "
    "spotlight, ordered from the strongest to the weakest."
) + answer_instruction(
    "as a list of [x,y] centres in pixels, strongest first (x to the right, y down, origin at the top-left)",
    "[[320,140],[95,260]]",
)


def points_str(pts) -> str:
    return "[" + ",".join(f"[{int(round(x))},{int(round(y))}]" for x, y in pts) + "]"


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np
    from PIL import Image

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)

    def draw(_attempt):
        k = int(rng.integers(p["k"][0], p["k"][1] + 1))
        strengths = np.sort(rng.uniform(*p["strength"], size=k))[::-1]
        if k > 1 and np.min(-np.diff(strengths)) < _MIN_STRENGTH_GAP:
            return None
        spots = []
        for s in strengths:
            for _try in range(100):
                sg = float(rng.uniform(*p["sigma"]))
                cx, cy = float(rng.uniform(0.5 * sg, w - 0.5 * sg)), float(rng.uniform(0.5 * sg, h - 0.5 * sg))
                if all(np.hypot(cx - ox, cy - oy) > 2.5 * (sg + osg) for ox, oy, osg, _s in spots):
                    spots.append((cx, cy, sg, float(s)))
                    break
        if len(spots) < k:
            return None
        # a dim scene (58 % of the photo's levels), so the lit areas mostly stay below 255
        src = np.round(np.asarray(random_photo(rng, w, h), dtype=np.float32) * _DIM)
        photo = Image.fromarray(src.astype(np.uint8))
        gain = np.ones((h, w), np.float32)
        for cx, cy, sg, s in spots:
            gain += s * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sg * sg))
        out = add_noise(src * gain[:, :, None], rng, p["noise"])
        # the photo must show the light: around each centre, enough pixels neither black nor
        # saturated
        usable = True
        for cx, cy, sg, _s in spots:
            y0, y1, x0, x1 = int(max(0, cy - sg)), int(min(h, cy + sg)), int(max(0, cx - sg)), int(min(w, cx + sg))
            patch = out[y0:y1, x0:x1].mean(axis=2)
            if ((patch > 15) & (patch < 250)).mean() < 0.5:
                usable = False
        if not usable:
            return None
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "spotlights": [
                {"x": round(cx, 3), "y": round(cy, 3), "sigma": round(sg, 3), "strength": round(s, 4)}
                for cx, cy, sg, s in spots
            ],
            "noise_sigma": p["noise"],
        }
        answer = points_str([(cx, cy) for cx, cy, _sg, _s in spots])
        return GeneratedItem(photo, to_pil(out), PROMPT, answer, meta)

    return draw_until_clear(TASK, shortcut_answers, draw, attempts=300)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The image centre, and the brightest area of the lit image (heavily blurred maximum),
    each as a one-spotlight answer."""
    import numpy as np
    from PIL import ImageFilter

    w, h = image_2.size
    blurred = np.asarray(image_2.convert("L").filter(ImageFilter.GaussianBlur(20)), dtype=np.float64)
    y, x = np.unravel_index(int(np.argmax(blurred)), blurred.shape)
    return {"centre": points_str([(w / 2, h / 2)]), "brightest_area": points_str([(x, y)])}
