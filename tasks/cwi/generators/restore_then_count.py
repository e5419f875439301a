"""restore_then_count: how many coloured discs are on a canvas that was rolled with wrap-around?

The canvas (grey photo texture + N saturated discs that never touch, even across the wrap) was
shifted circularly, so discs that cross a border appear cut into 2 or 4 pieces on opposite
sides. At least one disc is always cut, so counting pieces (no restore) is wrong.
Harder tiers: more and smaller discs, more noise. Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.gen_helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, to_pil,
)
from lmms_plugins.tasks.cwi.gen_types import GeneratedItem

TASK = "restore_then_count"
_SIZE = (320, 240)
_COUNT = {"easy": (3, 8), "medium": (6, 12), "hard": (10, 18), "expert": (15, 25)}
_RADIUS = {"easy": (14, 22), "medium": (10, 18), "hard": (8, 14), "expert": (6, 11)}
_GAP = 6  # minimum background gap between two discs (on the torus)
CONSTANT_GUESS = 10
PROMPT = (
    "This image was shifted circularly (wrap-around) by an unknown amount, so shapes that cross "
    "an image border appear cut, with their pieces on the opposite sides. Before the shift the "
    "canvas held some solid, brightly coloured discs on a grey textured background; no two discs "
    "touch. How many discs are there?"
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    out = {"constant": str(CONSTANT_GUESS)}
    if image is not None:
        out["pieces"] = str(count_pieces(image, wrap=False))
    return out


def count_pieces(image, wrap: bool) -> int:
    """Saturated blobs (shared with the solver's first step); ``wrap`` joins pieces across borders."""
    import numpy as np
    from scipy import ndimage

    a = np.asarray(image, dtype=np.int16)
    a = np.stack([ndimage.median_filter(a[..., c], size=3, mode="wrap") for c in range(3)], axis=-1)
    sat = a.max(axis=-1) - a.min(axis=-1)
    mask = ndimage.binary_opening(sat > 70, iterations=1)
    labels, n = ndimage.label(mask)
    sizes = ndimage.sum(mask, labels, index=np.arange(1, n + 1))
    keep = {i + 1 for i, s in enumerate(sizes) if s >= 6}
    parent = {i: i for i in keep}

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if wrap:
        for x, y in ((labels[:, 0], labels[:, -1]), (labels[0, :], labels[-1, :])):
            for p, q in zip(x.tolist(), y.tolist()):
                if p in keep and q in keep:
                    rp, rq = find(p), find(q)
                    if rp != rq:
                        parent[rp] = rq
    return len({find(i) for i in keep})


def _hsv_colour(rng):
    import colorsys

    r, g, b = colorsys.hsv_to_rgb(float(rng.uniform()), float(rng.uniform(0.75, 1.0)), float(rng.uniform(0.7, 1.0)))
    return (int(r * 255), int(g * 255), int(b * 255))


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    check_tier(tier)
    w, h = _SIZE
    lo, hi = _COUNT[tier]
    rlo, rhi = _RADIUS[tier]
    for _ in range(MAX_ATTEMPTS):
        n = int(rng.integers(lo, hi + 1))
        if n == CONSTANT_GUESS:
            continue
        discs = []
        for _ in range(4000):
            if len(discs) == n:
                break
            r = int(rng.integers(rlo, rhi + 1))
            x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            ok = True
            for (x2, y2, r2) in discs:
                ddx = min(abs(x - x2), w - abs(x - x2))
                ddy = min(abs(y - y2), h - abs(y - y2))
                if ddx * ddx + ddy * ddy < (r + r2 + _GAP) ** 2:
                    ok = False
                    break
            if ok:
                discs.append((x, y, r))
        if len(discs) == n:
            break
    # the shift puts one disc's centre right on a border, so at least one disc is cut
    cx, cy, _ = discs[int(rng.integers(len(discs)))]
    if rng.uniform() < 0.5:  # that disc's centre lands on the left/right border
        sx, sy = int(round(-cx)) % w, int(rng.integers(0, h))
    else:  # ... or on the top/bottom border
        sx, sy = int(rng.integers(0, w)), int(round(-cy)) % h
    grey = photo_array(rng, w, h).mean(axis=-1, keepdims=True)
    canvas = np.repeat(0.5 * grey + 60.0, 3, axis=-1).astype(np.float32)
    for (x, y, r) in discs:
        colour = _hsv_colour(rng)
        for ox in (-w, 0, w):  # draw on the torus
            for oy in (-h, 0, h):
                cv2.circle(canvas, (int(round(x + ox)), int(round(y + oy))), r, colour, -1, lineType=cv2.LINE_8)
    rolled = np.roll(canvas, (sy, sx), axis=(0, 1))
    prompt = PROMPT + answer_suffix("one integer", "7")
    meta = {"count": n, "discs": [[round(x, 1), round(y, 1), r] for x, y, r in discs], "shift": [sx, sy], "noise_sigma": NOISE[tier], "tier": tier}
    return GeneratedItem(to_pil(add_noise(rolled, rng, NOISE[tier])), None, prompt, str(n), meta)
