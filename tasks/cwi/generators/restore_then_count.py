"""restore_then_count: how many coloured discs are on a canvas that was rolled with wrap-around?

The canvas (grey photo texture + N saturated discs that never touch, even across the wrap) was
shifted circularly, so discs that cross a border appear cut into 2 or 4 pieces on opposite
sides. At least one disc is always cut, so counting pieces (no restore) is wrong.
Against the constant shortcut (exact integer rule) every tier draws N uniformly from one wide
range (3-60) on one canvas size, so no count is right on more than ~2 % of items; harder tiers
have smaller discs and more noise, not other counts. Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "restore_then_count"
_SIZE = (512, 384)  # one size for every count: the image size must not reveal N
COUNT = (3, 60)  # every tier: tier ranges that overlap would peak the mixture
_TIERS = {
    "easy": dict(radius=(12, 17), noise=0.0),
    "medium": dict(radius=(9, 14), noise=3.0),
    "hard": dict(radius=(7, 12), noise=6.0),
    "expert": dict(radius=(5, 10), noise=10.0),
}
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


def _place_discs(rng, n: int, w: int, h: int, rlo: int, rhi: int):
    """N discs at random positions, no two closer than _GAP on the torus (None if they don't fit)."""
    import numpy as np

    xs, ys, rs = np.empty(n), np.empty(n), np.empty(n, dtype=int)
    m = 0
    for _ in range(4000):
        if m == n:
            return [(float(xs[i]), float(ys[i]), int(rs[i])) for i in range(n)]
        r = int(rng.integers(rlo, rhi + 1))
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        ddx = np.abs(xs[:m] - x)
        ddy = np.abs(ys[:m] - y)
        ddx, ddy = np.minimum(ddx, w - ddx), np.minimum(ddy, h - ddy)
        if np.all(ddx * ddx + ddy * ddy >= (r + rs[:m] + _GAP) ** 2):
            xs[m], ys[m], rs[m] = x, y, r
            m += 1
    return [(float(xs[i]), float(ys[i]), int(rs[i])) for i in range(n)] if m == n else None


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    lo, hi = COUNT
    rlo, rhi = p["radius"]
    prompt = PROMPT + answer_instruction("as one integer", "7")

    def draw_count(_attempt):
        n = int(rng.integers(lo, hi + 1))
        return Draft(str(n), prompt, n)

    # the count is drawn first (uniform); a failed placement is retried for the same count
    count = draw_until_clear(TASK, shortcut_answers, draw_count)
    n = count.values
    discs = retry(lambda _: _place_discs(rng, n, w, h, rlo, rhi), f"placement of {n} discs")
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
    meta = {"count": n, "discs": [[round(x, 1), round(y, 1), r] for x, y, r in discs], "shift": [sx, sy], "count_range": list(COUNT), "noise_sigma": p["noise"], "tier": tier}
    return GeneratedItem(to_pil(add_noise(rolled, rng, p["noise"])), None, prompt, count.answer, meta)
