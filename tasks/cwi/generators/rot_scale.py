"""rot_scale: image 2 shows the scene of image 1 rotated by an angle and scaled about the centre.

Both are windows of one larger photo (no empty corners). Harder tiers: wider scale range, more
noise, blur. Rule (card): angle within ±3° (circular) and scale within ±0.05.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem
from lmms_plugins.tasks.cwi.generators.shift_rot_align import has_texture, warp_window

TASK = "rot_scale"
_SIZE = (288, 288)
_SCALE = {"easy": (0.8, 1.25), "medium": (0.75, 1.35), "hard": (0.7, 1.45), "expert": (0.65, 1.55)}
_BLUR = {"easy": 0.0, "medium": 0.0, "hard": 0.6, "expert": 0.9}
PROMPT = (
    "Image 2 shows the scene of image 1 rotated about the image centre by `angle` degrees "
    "counter-clockwise as displayed (in (-180, 180], negative = clockwise) and magnified by the "
    "factor `scale` (scale > 1: things look bigger in image 2). Image 2 may be noisier. "
    "Find angle and scale."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "angle=0, scale=1.0", "constant": "angle=90, scale=1.0"}


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import math

    check_tier(tier)
    w, h = _SIZE
    lo, hi = _SCALE[tier]
    for _ in range(MAX_ATTEMPTS):
        angle = round(float(rng.uniform(-180.0, 180.0)), 1)
        if angle == -180.0:
            angle = 180.0
        scale = round(math.exp(float(rng.uniform(math.log(lo), math.log(hi)))), 3)
        answer = f"angle={angle}, scale={scale}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, "")):
            break
    for _ in range(MAX_ATTEMPTS):
        big = photo_array(rng, 2 * w, 2 * h)
        b, a = warp_window(big, w, h, 0.0, 0.0, angle, scale)
        if has_texture(a) and has_texture(b):
            break
    if _BLUR[tier] > 0:
        b = cv2.GaussianBlur(b, (0, 0), _BLUR[tier])
    sigma = NOISE[tier]
    prompt = PROMPT + answer_suffix("angle=<degrees>, scale=<factor>", "angle=-37.5, scale=1.18")
    meta = {"angle": angle, "scale": scale, "width": w, "height": h, "blur_sigma": _BLUR[tier], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, answer, meta)
