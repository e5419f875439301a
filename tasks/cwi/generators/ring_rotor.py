"""ring_rotor: in image 2 exactly one ring of a disc was rotated about the centre; which ring,
and by how much?

The disc of radius R at the image centre is split into N rings of equal width (ring 0 is the
innermost disc). Image 2 = image 1 with ring `ring` rotated by `angle` degrees counter-clockwise
as displayed. Harder tiers: more (thinner) rings, more noise.
Rule (card): ring index exact and angle within ±5° (circular).
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "ring_rotor"
_SIZE = 320
_RADIUS = 150
_TIERS = {
    "easy": dict(rings=3, noise=0.0),
    "medium": dict(rings=4, noise=3.0),
    "hard": dict(rings=6, noise=6.0),
    "expert": dict(rings=8, noise=10.0),
}
_MIN_ANGLE = 15.0
PROMPT = (
    "Both images are {s}x{s} px. The disc of radius {R} px centred at ({c}, {c}) is divided into "
    "{n} concentric rings of equal width ({wdt:g} px each), numbered 0 (the innermost disc) to "
    "{last} (the outermost). Image 2 is image 1 with exactly one ring rotated about the centre by "
    "`angle` degrees counter-clockwise as displayed (in (-180, 180], negative = clockwise); "
    "image 2 may have some noise. Which ring was rotated, and by what angle?"
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "ring=0, angle=0", "constant": "ring=1, angle=90", "half_turn": "ring=0, angle=180"}


def rotate_ring(a, ring: int, n: int, radius: float, angle: float):
    """``a`` with ring ``ring`` (of ``n``) rotated counter-clockwise (as displayed) by ``angle``."""
    import math

    import cv2
    import numpy as np

    h, w = a.shape[:2]
    c = (w - 1) / 2
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = xs - c, -(ys - c)  # maths axes: y up
    r = np.hypot(u, v)
    t = math.radians(angle)
    # the output at visual angle psi shows the input at psi - angle
    su = u * math.cos(t) + v * math.sin(t)
    sv = -u * math.sin(t) + v * math.cos(t)
    map_x, map_y = (su + c).astype(np.float32), (c - sv).astype(np.float32)
    rotated = cv2.remap(a, map_x, map_y, interpolation=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    width = radius / n
    inside = (r >= ring * width) & (r < (ring + 1) * width)
    out = a.copy()
    out[inside] = rotated[inside]
    return out


def _visible_change(a, b, ring: int, n: int) -> bool:
    """Well-posedness: the turned ring must be textured and really look different (no flat sky)."""
    import numpy as np

    h, w = a.shape[:2]
    c = (w - 1) / 2
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot(xx - c, yy - c)
    width = _RADIUS / n
    inside = (r >= ring * width + 1) & (r < (ring + 1) * width - 1)
    ga, gb = a.mean(axis=-1)[inside], b.mean(axis=-1)[inside]
    return float(ga.std()) >= 15.0 and float(np.abs(ga - gb).mean()) >= 8.0


def generate(rng, tier: str) -> GeneratedItem:
    p = tier_params(_TIERS, tier)
    n = p["rings"]
    prompt = PROMPT.format(s=_SIZE, R=_RADIUS, c=(_SIZE - 1) / 2, n=n, wdt=_RADIUS / n, last=n - 1) + answer_instruction(
        "as ring=<index>, angle=<degrees>", "ring=2, angle=-135.0"
    )

    def draw_turn(_attempt):
        ring = int(rng.integers(0, n))
        angle = round(float(rng.uniform(-180, 180)), 1)
        if abs(angle) < _MIN_ANGLE or angle == -180.0:
            return None
        return Draft(f"ring={ring}, angle={angle}", prompt, (ring, angle))

    turn = draw_until_clear(TASK, shortcut_answers, draw_turn)
    ring, angle = turn.values

    def draw_images(_attempt):
        a = photo_array(rng, _SIZE, _SIZE)
        b = rotate_ring(a, ring, n, _RADIUS, angle)
        return (a, b) if _visible_change(a, b, ring, n) else None

    a, b = retry(draw_images, "photo whose turned ring is textured")
    sigma = p["noise"]
    meta = {"ring": ring, "angle": angle, "rings": n, "radius": _RADIUS, "size": _SIZE, "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, turn.answer, meta)
