"""channel_mix: predict what an unknown colour-mixing transform does to a given colour.

Construction: image = a photo; image_2 = the same photo after an unknown affine channel mix,
out = M @ rgb + b (clipped to 0-255, rounded, with sensor noise in the harder tiers). The
question gives a query colour q and asks for M @ q + b. The easy tier uses a scaled channel
permutation without offset; harder tiers a full 3x3 mix with offset, more noise and more
clipping. Query colours whose image falls outside 0-255 are re-drawn (the gold is unclipped).
Rule (card): R,G,B each within +-8.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, prompt_ints, rgb_str, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "channel_mix"

_TIERS = {
    "easy": dict(size=(480, 360), kind="permutation", offset=0, noise=0.0),
    "medium": dict(size=(512, 384), kind="mix", mix=0.35, offset=25, noise=0.0),
    "hard": dict(size=(512, 384), kind="mix", mix=0.6, offset=40, noise=3.0),
    "expert": dict(size=(640, 480), kind="mix", mix=0.9, offset=60, noise=6.0),
}

def _prompt(q) -> str:
    return (
        "The second image is the first image after an unknown colour transform that mixes the "
        "channels: every pixel's new (R,G,B) is the same affine function of its old (R,G,B) "
        "(a 3x3 matrix plus an offset), then clipped to 0-255 and rounded, with a little noise. "
        f"What colour does the pixel colour ({int(q[0])},{int(q[1])},{int(q[2])}) become under "
        "this transform?"
    ) + answer_instruction("as R,G,B with integers 0-255", "120,64,200")


def _query(prompt: str):
    return list(prompt_ints(prompt, r"pixel colour \((\d+),(\d+),(\d+)\)", "the channel_mix query colour '(R,G,B)'"))


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        if p["kind"] == "permutation":
            perm = rng.permutation(3)
            while np.all(perm == np.arange(3)):
                perm = rng.permutation(3)
            m = np.zeros((3, 3))
            m[np.arange(3), perm] = rng.uniform(0.6, 1.2, size=3)
            off = np.zeros(3)
        else:
            m = np.diag(rng.uniform(0.5, 1.2, size=3)) + rng.uniform(-p["mix"], p["mix"], size=(3, 3)) * (
                1 - np.eye(3)
            )
            off = rng.uniform(-p["offset"], p["offset"], size=3)
        if abs(np.linalg.det(m)) < 0.15:
            return None
        photo = random_photo(rng, w, h)
        src = np.asarray(photo, dtype=np.float64)
        image_2 = to_pil(add_noise(src @ m.T + off, rng, p["noise"]))
        out = np.asarray(image_2)
        # enough unclipped pixels to see the transform
        if np.all((out > 0) & (out < 255), axis=2).mean() < 0.3:
            return None
        for _q in range(50):
            q = rng.integers(0, 256, size=3)
            target = m @ q + off
            if np.all((target >= 2) & (target <= 253)):
                break
        else:
            return None
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "matrix": [[round(float(v), 6) for v in row] for row in m],
            "offset": [round(float(v), 6) for v in off],
            "query_rgb": [int(v) for v in q],
            "target_rgb_exact": [round(float(v), 4) for v in target],
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(photo, image_2, _prompt(q), rgb_str(target), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The query colour unchanged, the query moved by the mean colour change, the mean colour
    of the transformed image, and a mid grey."""
    import numpy as np

    q = np.array(_query(prompt), dtype=np.float64)
    m1 = np.asarray(image.convert("RGB"), dtype=np.float64).reshape(-1, 3).mean(0)
    m2 = np.asarray(image_2.convert("RGB"), dtype=np.float64).reshape(-1, 3).mean(0)

    return {"identity": rgb_str(q), "mean_shift": rgb_str(q + m2 - m1), "mean": rgb_str(m2), "constant": "128,128,128"}
