"""alignment: image 2 is another window of the same scene, offset by (dx, dy) from image 1.

Both images are crops of one larger photo; image 2's top-left corner lies at (dx, dy) in image
1's coordinates. Harder tiers: larger offsets (less overlap), noise, a contrast change and blur
on image 2. Rule (card): dx, dy each within ±2 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "alignment"
_SIZE = (320, 240)
_TIERS = {
    "easy": dict(max_shift=24, blur=0.0, gain=0.0, noise=0.0),
    "medium": dict(max_shift=40, blur=0.0, gain=0.05, noise=3.0),
    "hard": dict(max_shift=56, blur=0.8, gain=0.12, noise=6.0),
    "expert": dict(max_shift=72, blur=1.2, gain=0.2, noise=10.0),
}
PROMPT = (
    "Both images are {w}x{h} windows of the same larger scene. The top-left corner of image 2 "
    "lies at pixel (dx, dy) of image 1's coordinate frame (x to the right, y down), so image 2's "
    "pixel (x, y) shows the scene point at image 1's (x + dx, y + dy). Image 2 may differ in "
    "brightness, sharpness and noise. What is (dx, dy)?"
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "0,0", "constant": "10,10"}


def generate(rng, tier: str) -> GeneratedItem:
    import cv2

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    m = p["max_shift"]
    prompt = PROMPT.format(w=w, h=h) + answer_instruction("as dx,dy (integers, pixels)", "12,-7")

    def draw_offset(_attempt):
        dx, dy = (int(v) for v in rng.integers(-m, m + 1, size=2))
        return Draft(f"{dx},{dy}", prompt, (dx, dy))

    offset = draw_until_clear(TASK, shortcut_answers, draw_offset)
    dx, dy = offset.values
    big = photo_array(rng, w + 2 * m, h + 2 * m)
    a = big[m : m + h, m : m + w]
    b = big[m + dy : m + dy + h, m + dx : m + dx + w].copy()
    if p["blur"] > 0:
        b = cv2.GaussianBlur(b, (0, 0), p["blur"])
    g = p["gain"]
    gain, bias = 1.0 + float(rng.uniform(-g, g)), float(rng.uniform(-40 * g, 40 * g))
    b = b * gain + bias
    sigma = p["noise"]
    meta = {"dx": dx, "dy": dy, "width": w, "height": h, "gain": gain, "bias": bias,
            "blur_sigma": p["blur"], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, offset.answer, meta)
