"""circular_shift: image 2 is image 1 rolled (with wrap-around) by an unknown (dx, dy).

Harder tiers: larger images, larger shifts, more sensor noise and a brightness/contrast change
between the two images. Rule (card): dx, dy each within ±2 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "circular_shift"
_TIERS = {
    "easy": dict(size=(256, 192), gain=0.0, noise=0.0),
    "medium": dict(size=(320, 240), gain=0.05, noise=3.0),
    "hard": dict(size=(384, 288), gain=0.12, noise=6.0),
    "expert": dict(size=(448, 336), gain=0.2, noise=10.0),
}
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

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    prompt = PROMPT + answer_instruction("as dx,dy (integers, pixels)", "12,-7")

    def draw_shift(_attempt):
        dx = int(rng.integers(-w // 2 + 1, w // 2 + 1))
        dy = int(rng.integers(-h // 2 + 1, h // 2 + 1))
        return Draft(f"{dx},{dy}", prompt, (dx, dy))

    shift = draw_until_clear(TASK, shortcut_answers, draw_shift)
    dx, dy = shift.values
    a = photo_array(rng, w, h)
    g = p["gain"]
    gain, bias = 1.0 + float(rng.uniform(-g, g)), float(rng.uniform(-40 * g, 40 * g))
    b = np.roll(a, (dy, dx), axis=(0, 1)) * gain + bias
    sigma = p["noise"]
    img1, img2 = to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma))
    meta = {"dx": dx, "dy": dy, "width": w, "height": h, "gain": gain, "bias": bias, "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(img1, img2, prompt, shift.answer, meta)
