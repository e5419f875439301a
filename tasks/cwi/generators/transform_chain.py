"""transform_chain: image 2 = image 1 rotated by k quarter turns, maybe mirrored, then rolled.

Order: rotate counter-clockwise by rot_k * 90° (numpy.rot90), then mirror left-right if
fliph = 1, then shift circularly by (dx, dy). Square images so every step keeps the size.
Harder tiers: larger images and shifts, more noise. Rule (card): every field exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "transform_chain"
_SIZE = {"easy": 192, "medium": 224, "hard": 256, "expert": 288}
PROMPT = (
    "Image 2 was made from image 1 ({s}x{s} px) by this chain: (1) rotate counter-clockwise by "
    "rot_k x 90 degrees (rot_k in 0..3); (2) if fliph = 1, mirror left-right; (3) shift circularly "
    "(wrap-around) right by dx and down by dy pixels, with -{half} < dx, dy <= {half}. "
    "Image 2 also has some noise. Find dx, dy, rot_k and fliph."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "dx=0, dy=0, rot_k=0, fliph=0"}


def apply_chain(a, dx: int, dy: int, rot_k: int, fliph: int):
    import numpy as np

    out = np.rot90(a, rot_k, axes=(0, 1))
    if fliph:
        out = out[:, ::-1]
    return np.roll(out, (dy, dx), axis=(0, 1))


def generate(rng, tier: str) -> GeneratedItem:
    check_tier(tier)
    s = _SIZE[tier]
    half = s // 2
    for _ in range(MAX_ATTEMPTS):
        dx, dy = (int(v) for v in rng.integers(-half + 1, half + 1, size=2))
        rot_k, fliph = int(rng.integers(0, 4)), int(rng.integers(0, 2))
        answer = f"dx={dx}, dy={dy}, rot_k={rot_k}, fliph={fliph}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, "")):
            break
    a = photo_array(rng, s, s)
    b = apply_chain(a, dx, dy, rot_k, fliph)
    sigma = NOISE[tier]
    prompt = PROMPT.format(s=s, half=half) + answer_suffix("dx=<int>, dy=<int>, rot_k=<0-3>, fliph=<0|1>", "dx=5, dy=-12, rot_k=3, fliph=1")
    meta = {"dx": dx, "dy": dy, "rot_k": rot_k, "fliph": fliph, "size": s, "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, answer, meta)
