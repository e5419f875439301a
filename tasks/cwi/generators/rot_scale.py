"""rot_scale: image 2 shows the scene of image 1 rotated by an angle and scaled about the centre.

Both are windows of one larger photo (no empty corners). Harder tiers: wider scale range, more
noise, blur. Rule (card): angle within ±3° (circular) and scale within ±0.05.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem
from lmms_plugins.tasks.cwi.generators.shift_rot_align import textured_windows

TASK = "rot_scale"
_SIZE = (288, 288)
_TIERS = {
    "easy": dict(scale=(0.8, 1.25), blur=0.0, noise=0.0),
    "medium": dict(scale=(0.75, 1.35), blur=0.0, noise=3.0),
    "hard": dict(scale=(0.7, 1.45), blur=0.6, noise=6.0),
    "expert": dict(scale=(0.65, 1.55), blur=0.9, noise=10.0),
}
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

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    lo, hi = p["scale"]
    prompt = PROMPT + answer_instruction("as angle=<degrees>, scale=<factor>", "angle=-37.5, scale=1.18")

    def draw_transform(_attempt):
        angle = round(float(rng.uniform(-180.0, 180.0)), 1)
        if angle == -180.0:
            angle = 180.0
        scale = round(math.exp(float(rng.uniform(math.log(lo), math.log(hi)))), 3)
        return Draft(f"angle={angle}, scale={scale}", prompt, (angle, scale))

    transform = draw_until_clear(TASK, shortcut_answers, draw_transform)
    angle, scale = transform.values
    b, a = retry(lambda _: textured_windows(rng, w, h, 0.0, 0.0, angle, scale), "textured window")
    if p["blur"] > 0:
        b = cv2.GaussianBlur(b, (0, 0), p["blur"])
    sigma = p["noise"]
    meta = {"angle": angle, "scale": scale, "width": w, "height": h, "blur_sigma": p["blur"], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, transform.answer, meta)
