"""grating_period: the period of a stripe pattern, to +-1.5 px.

Construction: a sinusoidal (square-wave in the expert tier) stripe grating with period 6-130 px
(6-80 px in the expert tier).
Easy: a clean axis-aligned grating filling the image. Medium: any orientation, noise. Hard:
blended into a photo at low contrast. Expert: a square-wave grating inside a disc over a
photo, with more noise. The answer is the period in pixels, measured perpendicular to the
stripes. Rule (card): within +-1.5.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "grating_period"

# Periods are spread wide because the tolerance is absolute (+-1.5 px): over a flat range R a
# single constant answer hits ~3 / R of the items. The expert tier (a disc over a photo) stops
# at 80 px, where the disc still holds ~7 periods; the mixture stays nearly flat (~3 % for the
# best constant).
_TIERS = {
    "easy": dict(size=(640, 480), periods=(6.0, 130.0), axis=True, photo=0.0, noise=0.0, square=False, disc=None),
    "medium": dict(size=(640, 480), periods=(6.0, 130.0), axis=False, photo=0.0, noise=8.0, square=False, disc=None),
    "hard": dict(size=(800, 600), periods=(6.0, 130.0), axis=False, photo=0.6, noise=6.0, square=False, disc=None),
    "expert": dict(size=(960, 720), periods=(6.0, 80.0), axis=False, photo=0.7, noise=10.0, square=True, disc=(0.38, 0.48)),
}

PROMPT = (
    "This image contains a periodic stripe pattern (a grating). What is its period: the "
    "distance in pixels from one stripe to the next, measured perpendicular to the stripes?"
) + answer_instruction("as a number with two decimals", "17.25")


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)

    def draw(_attempt):
        period = float(np.round(rng.uniform(*p["periods"]), 2))
        theta = float(rng.choice([0.0, 90.0])) if p["axis"] else float(np.round(rng.uniform(0, 180), 2))
        phase = float(rng.uniform(0, 2 * np.pi))
        t = xx * np.cos(np.deg2rad(theta)) + yy * np.sin(np.deg2rad(theta))
        wave = np.cos(2 * np.pi * t / period + phase)
        if p["square"]:
            wave = np.sign(wave)
        contrast = float(rng.uniform(0.5, 0.9)) * (1 - p["photo"])
        grat = 128 + 120 * contrast * wave
        if p["photo"]:
            ph = np.asarray(random_photo(rng, w, h).convert("L"), dtype=np.float64)
            img = p["photo"] * ph + (1 - p["photo"]) * 128 + 120 * contrast * wave
        else:
            img = grat
        disc = None
        if p["disc"]:
            rad = float(rng.uniform(*p["disc"])) * min(w, h)
            cx, cy = float(rng.uniform(rad, w - rad)), float(rng.uniform(rad, h - rad))
            inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= rad * rad
            img = np.where(inside, img, ph)
            disc = [round(cx, 2), round(cy, 2), round(rad, 2)]
        image = to_pil(add_noise(img, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "period": period,
            "period_range": list(p["periods"]),
            "orientation_deg": theta,
            "phase": round(phase, 4),
            "contrast": round(contrast, 4),
            "square_wave": p["square"],
            "photo_weight": p["photo"],
            "disc_xyr": disc,
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(image, None, PROMPT, f"{period:.2f}", meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """Typical periods a guess would give (each is a 3 px hole in the period range)."""
    return {"constant_small": "20.00", "constant_mid": "45.00", "constant_large": "70.00"}
