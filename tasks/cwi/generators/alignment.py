"""alignment: image 2 is another window of the same scene, offset by (dx, dy) from image 1.

Both images are crops of one larger photo; image 2's top-left corner lies at (dx, dy) in image
1's coordinates. Harder tiers: larger offsets (less overlap), noise, a contrast change and blur
on image 2. Rule (card): dx, dy each within ±2 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "alignment"
_SIZE = (320, 240)
_MAX_SHIFT = {"easy": 24, "medium": 40, "hard": 56, "expert": 72}
_BLUR = {"easy": 0.0, "medium": 0.0, "hard": 0.8, "expert": 1.2}
_GAIN = {"easy": 0.0, "medium": 0.05, "hard": 0.12, "expert": 0.2}
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

    check_tier(tier)
    w, h = _SIZE
    m = _MAX_SHIFT[tier]
    for _ in range(MAX_ATTEMPTS):
        dx, dy = (int(v) for v in rng.integers(-m, m + 1, size=2))
        answer = f"{dx},{dy}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, "")):
            break
    big = photo_array(rng, w + 2 * m, h + 2 * m)
    a = big[m : m + h, m : m + w]
    b = big[m + dy : m + dy + h, m + dx : m + dx + w].copy()
    if _BLUR[tier] > 0:
        b = cv2.GaussianBlur(b, (0, 0), _BLUR[tier])
    g = _GAIN[tier]
    gain, bias = 1.0 + float(rng.uniform(-g, g)), float(rng.uniform(-40 * g, 40 * g))
    b = b * gain + bias
    sigma = NOISE[tier]
    prompt = PROMPT.format(w=w, h=h) + answer_suffix("dx,dy (integers, pixels)", "12,-7")
    meta = {"dx": dx, "dy": dy, "width": w, "height": h, "gain": gain, "bias": bias,
            "blur_sigma": _BLUR[tier], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, answer, meta)
