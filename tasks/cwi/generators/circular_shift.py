"""circular_shift: image 2 is image 1 rolled (with wrap-around) by an unknown (dx, dy).

Harder tiers: larger images, larger shifts, more sensor noise and a brightness/contrast change
between the two images. Rule (card): dx, dy each within ±2 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "circular_shift"
_SIZE = {"easy": (256, 192), "medium": (320, 240), "hard": (384, 288), "expert": (448, 336)}
_GAIN = {"easy": 0.0, "medium": 0.05, "hard": 0.12, "expert": 0.2}
PROMPT = (
    "Image 2 is image 1 circularly shifted: every pixel moved right by dx and down by dy pixels, "
    "wrapping around the borders (negative values move left/up), and the second image may have "
    "slightly different brightness and noise. The shift satisfies -W/2 < dx <= W/2 and "
    "-H/2 < dy <= H/2 for an image of W x H pixels. What is (dx, dy)?"
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "0,0", "constant": "10,10"}


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    check_tier(tier)
    w, h = _SIZE[tier]
    for _ in range(MAX_ATTEMPTS):
        dx = int(rng.integers(-w // 2 + 1, w // 2 + 1))
        dy = int(rng.integers(-h // 2 + 1, h // 2 + 1))
        answer = f"{dx},{dy}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, "")):
            break
    a = photo_array(rng, w, h)
    g = _GAIN[tier]
    gain, bias = 1.0 + float(rng.uniform(-g, g)), float(rng.uniform(-40 * g, 40 * g))
    b = np.roll(a, (dy, dx), axis=(0, 1)) * gain + bias
    sigma = NOISE[tier]
    img1, img2 = to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma))
    prompt = PROMPT + answer_suffix("dx,dy (integers, pixels)", "12,-7")
    meta = {"dx": dx, "dy": dy, "width": w, "height": h, "gain": gain, "bias": bias, "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(img1, img2, prompt, answer, meta)
