"""scan_moire: the scale ratio of two superimposed line screens, to +-0.004.

Construction: a line screen (grating A) of known period p px is overlaid (multiplied, like two
transparencies) with a rescaled copy (grating B) of period s * p, which produces broad moire
fringes. Stripes are vertical or horizontal. The prompt states p; the answer is s, drawn
uniformly from 0.75-0.97 or 1.03-1.25 in every tier (0.44 wide in all, so one constant within
+-0.004 hits ~2 % of items). Harder tiers: noise, a photo showing through, a smaller screen
period. Reading s off the fringes by eye gives a couple of percent at best.
Rule (card): within +-0.004.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "scan_moire"

_TIERS = {
    "easy": dict(size=(480, 360), period=(8.0, 12.0), noise=0.0, photo=0.0),
    "medium": dict(size=(512, 384), period=(6.0, 10.0), noise=6.0, photo=0.0),
    "hard": dict(size=(512, 384), period=(5.0, 9.0), noise=8.0, photo=0.4),
    "expert": dict(size=(640, 480), period=(4.0, 8.0), noise=12.0, photo=0.5),
}
# the scale, shared by all tiers: two equally wide ranges either side of 1 (the answer is drawn
# uniformly from their union); together 0.44 wide, so a constant within +-0.004 hits ~2 %
DOWN, UP = (0.75, 0.97), (1.03, 1.25)


def _prompt(period: float) -> str:
    return (
        "This image overlays two transparent line screens with parallel stripes, which creates "
        f"moire fringes. Screen A has a period of exactly {period:.3f} px. Screen B is a rescaled "
        "copy of A: its period is s times A's period. What is s?"
    ) + answer_instruction("as a number with four decimals", "1.0625")


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        period = float(np.round(rng.uniform(*p["period"]), 3))
        s = float(np.round(rng.uniform(*UP), 4))
        if rng.random() < 0.5:
            s = float(np.round(rng.uniform(*DOWN), 4))
        vertical = bool(rng.random() < 0.5)
        n = w if vertical else h
        t = np.arange(n, dtype=np.float64)
        c1, c2 = float(rng.uniform(0.5, 0.95)), float(rng.uniform(0.5, 0.95))
        a = 0.5 + 0.5 * c1 * np.cos(2 * np.pi * t / period + rng.uniform(0, 2 * np.pi))
        b = 0.5 + 0.5 * c2 * np.cos(2 * np.pi * t / (period * s) + rng.uniform(0, 2 * np.pi))
        prof = 255 * a * b
        img = np.tile(prof[None, :], (h, 1)) if vertical else np.tile(prof[:, None], (1, w))
        if p["photo"]:
            ph = np.asarray(random_photo(rng, w, h).convert("L"), dtype=np.float64)
            img = (1 - p["photo"]) * img + p["photo"] * ph
        image = to_pil(add_noise(img, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "period_a": period,
            "scale": s,
            "stripes": "vertical" if vertical else "horizontal",
            "contrast_a": round(c1, 4),
            "contrast_b": round(c2, 4),
            "photo_weight": p["photo"],
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(image, None, _prompt(period), f"{s:.4f}", meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """No rescaling, and typical small rescalings either way."""
    return {"one": "1.0000", "up_5pct": "1.0500", "down_5pct": "0.9500", "up_10pct": "1.1000", "down_10pct": "0.9000"}
