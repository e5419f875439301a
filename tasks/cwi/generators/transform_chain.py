"""transform_chain: image 2 = image 1 rotated by k quarter turns, maybe mirrored, then rolled.

Order: rotate counter-clockwise by rot_k * 90° (numpy.rot90), then mirror left-right if
fliph = 1, then shift circularly by (dx, dy). Square images so every step keeps the size.
Harder tiers: larger images and shifts, more noise. Rule (card): every field exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "transform_chain"
_TIERS = {
    "easy": dict(size=192, noise=0.0),
    "medium": dict(size=224, noise=3.0),
    "hard": dict(size=256, noise=6.0),
    "expert": dict(size=288, noise=10.0),
}
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
    p = tier_params(_TIERS, tier)
    s = p["size"]
    half = s // 2
    prompt = PROMPT.format(s=s, half=half) + answer_instruction(
        "as dx=<int>, dy=<int>, rot_k=<0-3>, fliph=<0|1>", "dx=5, dy=-12, rot_k=3, fliph=1"
    )

    def draw_chain(_attempt):
        dx, dy = (int(v) for v in rng.integers(-half + 1, half + 1, size=2))
        rot_k, fliph = int(rng.integers(0, 4)), int(rng.integers(0, 2))
        return Draft(f"dx={dx}, dy={dy}, rot_k={rot_k}, fliph={fliph}", prompt, (dx, dy, rot_k, fliph))

    chain = draw_until_clear(TASK, shortcut_answers, draw_chain)
    dx, dy, rot_k, fliph = chain.values
    a = photo_array(rng, s, s)
    b = apply_chain(a, dx, dy, rot_k, fliph)
    sigma = p["noise"]
    meta = {"dx": dx, "dy": dy, "rot_k": rot_k, "fliph": fliph, "size": s, "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, chain.answer, meta)
