"""print_misreg: sub-pixel misregistration of a colour plate.

Construction: a grey-level photo printed with three plates (R, G, B channels carry the same
picture); the red plate is offset by a sub-pixel (dx, dy) relative to the green plate
(resampled with a cubic spline from a larger crop, so no wrap-around), each plate gets its
own sensor noise, and from the expert tier the blue plate is offset too (a distractor).
Harder tiers: smaller offsets, more noise. The answer is the red plate's offset. Rule (card):
dx, dy each within +-0.3 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "print_misreg"

_TIERS = {
    "easy": dict(size=(480, 360), shift=3.0, noise=1.0, blue=False),
    "medium": dict(size=(512, 384), shift=2.0, noise=3.0, blue=False),
    "hard": dict(size=(512, 384), shift=1.5, noise=5.0, blue=True),
    "expert": dict(size=(640, 480), shift=1.2, noise=7.0, blue=True),
}
_PAD = 8

PROMPT = (
    "This picture was printed with three colour plates (red, green and blue channels) that "
    "all carry the same grey-level picture, but the red plate is misregistered: its content is "
    "offset from the green plate by a fraction of a pixel or a few pixels (the blue plate may be "
    "offset as well). How far is the red channel's content shifted relative to the green "
    "channel's? Positive dx means moved right, positive dy moved down, in pixels."
) + answer_instruction("as dx,dy with two decimals", "1.25,-0.40")


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np
    from scipy import ndimage

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        dx, dy = (float(v) for v in np.round(rng.uniform(-p["shift"], p["shift"], size=2), 2))
        if max(abs(dx), abs(dy)) < 0.35:
            return None
        big = np.asarray(random_photo(rng, w + 2 * _PAD, h + 2 * _PAD).convert("L"), dtype=np.float64)
        # keep the picture away from 0 and 255 so noise is not clipped
        big = 16 + big * (223 / 255)
        green = big[_PAD : _PAD + h, _PAD : _PAD + w]
        # red(x) = green(x - d): content moved by +d
        red = ndimage.shift(big, (dy, dx), order=3, mode="nearest")[_PAD : _PAD + h, _PAD : _PAD + w]
        if p["blue"]:
            bdx, bdy = (float(v) for v in np.round(rng.uniform(-p["shift"], p["shift"], size=2), 2))
            blue = ndimage.shift(big, (bdy, bdx), order=3, mode="nearest")[_PAD : _PAD + h, _PAD : _PAD + w]
        else:
            bdx, bdy = 0.0, 0.0
            blue = green
        image = to_pil(add_noise(np.stack([red, green, blue], axis=2), rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "red_shift": [dx, dy],
            "blue_shift": [bdx, bdy],
            "noise_sigma": p["noise"],
            "resampling": "cubic spline (scipy.ndimage.shift, order 3)",
        }
        return GeneratedItem(image, None, PROMPT, f"{dx:.2f},{dy:.2f}", meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """No shift, and a typical one-pixel offset."""
    return {"zero": "0.00,0.00", "one_right": "1.00,0.00", "one_down": "0.00,1.00"}
