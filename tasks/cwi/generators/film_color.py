"""film_color: recover the colour of a translucent film laid over a photo.

Construction: image = a photo; image_2 = the same photo seen through a uniform translucent
colour film, out = (1 - a) * photo + a * C, plus sensor noise, rounded to 8 bits. The answer
is the film colour C. In the easy tier the opacity a is stated; otherwise it is unknown (the
same for all channels) and has to be estimated together with C (a per-channel regression of
image_2 on image does it). Rule (card): R,G,B each within +-10.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, rgb_str, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "film_color"

_TIERS = {
    "easy": dict(size=(480, 360), alpha=(0.35, 0.65), noise=0.0, stated=True),
    "medium": dict(size=(512, 384), alpha=(0.25, 0.6), noise=0.0, stated=False),
    "hard": dict(size=(512, 384), alpha=(0.2, 0.5), noise=3.0, stated=False),
    "expert": dict(size=(640, 480), alpha=(0.15, 0.4), noise=6.0, stated=False),
}

def _prompt(alpha: float | None) -> str:
    opacity = (
        f"The film's opacity is {alpha:.3f} (the same for all channels). "
        if alpha is not None
        else "The film's opacity is unknown but the same for all channels and all pixels. "
    )
    return (
        "The first image is a photo. The second image is the same photo seen through a uniform "
        "translucent colour film: every pixel became (1 - opacity) * original + opacity * "
        "film_colour, per channel, plus a little sensor noise. "
        + opacity
        + "What is the film colour?"
        + answer_instruction("as R,G,B with integers 0-255", "120,64,200")
    )


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        photo = random_photo(rng, w, h)
        src = np.asarray(photo, dtype=np.float64)
        alpha = float(np.round(rng.uniform(*p["alpha"]), 3))
        colour = rng.integers(0, 256, size=3)
        image_2 = to_pil(add_noise((1 - alpha) * src + alpha * colour, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "alpha": alpha,
            "alpha_stated": p["stated"],
            "film_rgb": [int(v) for v in colour],
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(photo, image_2, _prompt(alpha if p["stated"] else None), rgb_str(colour), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """Mean colour of the filmed image, of the photo, a mid grey, and the mean difference
    pushed away from the photo (a guess at the tint without solving for the opacity)."""
    import numpy as np

    m2 = np.asarray(image_2.convert("RGB"), dtype=np.float64).reshape(-1, 3).mean(0)
    m1 = np.asarray(image.convert("RGB"), dtype=np.float64).reshape(-1, 3).mean(0)
    tint = np.clip(128 + 2 * (m2 - m1), 0, 255)

    return {"mean": rgb_str(m2), "mean_photo": rgb_str(m1), "constant": "128,128,128", "tint": rgb_str(tint)}
