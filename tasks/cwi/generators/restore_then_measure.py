"""restore_then_measure: what percentage of a distorted, wrapped pie chart is one sector?

A pie chart (K flat-coloured sectors, no anti-aliasing) was stretched/sheared by an unknown
affine map and then shifted circularly, so it appears as an ellipse cut into pieces across the
borders. The gold is the sector's share of the pie (its angle / 360 x 100) from construction.
Affine maps keep area ratios, so restoring and measuring areas recovers it; reading angles off
the distorted picture does not. Harder tiers: more sectors, stronger distortion, more noise.
Against the constant shortcut (±1.5 pp is absolute) every tier draws the asked share first,
uniformly over 1.5-96 %, and splits the rest over the other sectors (each >= 0.5 %) with no
rejection that would favour small shares; so a fixed answer hits ~3 % of items, about the
floor for a percentage with this tolerance (3 pp of a 0-100 range).
Rule (card): the percentage within ±1.5 pp.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, prompt_ints, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "restore_then_measure"
_SIZE = (320, 320)
_TIERS = {
    "easy": dict(sectors=(3, 4), stretch=0.15, noise=0.0),
    "medium": dict(sectors=(4, 5), stretch=0.3, noise=3.0),
    "hard": dict(sectors=(5, 6), stretch=0.45, noise=6.0),
    "expert": dict(sectors=(6, 8), stretch=0.6, noise=10.0),
}
SHARE = (1.5, 96.0)  # the asked sector's share (percent), every tier and every k
_MIN_OTHER = 0.5  # percent; the other k-1 <= 7 sectors fit in the 4 % left at the top share
PROMPT = (
    "This image shows a pie chart with {k} sectors that was distorted by an unknown linear "
    "stretch/shear and then shifted circularly (wrap-around), so its pieces may appear on "
    "opposite borders. The background is the colour that fills most of the image. What "
    "percentage of the whole pie (in the undistorted chart) is the sector coloured "
    "RGB({r},{g},{b})?"
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return _shortcuts(prompt_ints(prompt, r"pie chart with (\d{1,2}) sectors", "the number of sectors")[0])


def _shortcuts(k: int) -> dict[str, str]:
    # no fixed "constant" entry: every listed value is a hole in the flat share range
    return {"equal_share": f"{100 / k:.1f}"}


def _palette(rng, k: int):
    import numpy as np

    cols: list = []
    bg = np.array([int(rng.integers(200, 256))] * 3)
    for _ in range(10000):
        if len(cols) == k:
            break
        c = rng.integers(0, 256, size=3)
        if np.linalg.norm(c - bg) >= 110 and all(np.linalg.norm(c - o) >= 110 for o in cols):
            cols.append(c)
    return bg, cols


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    k = int(rng.integers(p["sectors"][0], p["sectors"][1] + 1))
    target = int(rng.integers(k))

    def draw_share(_attempt):
        wanted = float(rng.uniform(*SHARE))
        return Draft(f"{wanted:.1f}", "", wanted)

    # the asked share is drawn first, uniformly (a redraw only leaves out the 100/k hole), and
    # the other sectors split the rest above a small minimum, so nothing is rejected afterwards;
    # its shortcuts need only k (the prompt, which names the sector's colour, comes later)
    share = draw_until_clear(TASK, lambda *_: _shortcuts(k), draw_share)
    wanted, answer = share.values, share.answer
    rest = 100.0 - wanted - (k - 1) * _MIN_OTHER
    shares = np.insert(_MIN_OTHER + rng.dirichlet(np.ones(k - 1) * 2.0) * rest, target, wanted)

    def draw_palette(_attempt):  # the palette is retried for the same shares
        bg, cols = _palette(rng, k)
        return (bg, cols) if len(cols) == k else None

    bg, cols = retry(draw_palette, f"palette of {k} distinct colours")
    prompt = PROMPT.format(k=k, r=int(cols[target][0]), g=int(cols[target][1]), b=int(cols[target][2]))
    # draw the pie at the canvas centre, sectors starting at a random angle
    canvas = np.empty((h, w, 3), dtype=np.uint8)
    canvas[:] = bg
    radius = 90
    start = float(rng.uniform(0, 360))
    edges = start + np.concatenate([[0.0], np.cumsum(shares)]) * 3.6
    for i in range(k):
        cv2.ellipse(canvas, (w // 2, h // 2), (radius, radius), 0, float(edges[i]), float(edges[i + 1]),
                    tuple(int(v) for v in cols[i]), -1, lineType=cv2.LINE_8)
    s = p["stretch"]

    def draw_affine(_attempt):
        A = np.array([[1 + rng.uniform(-s, s), rng.uniform(-s, s)], [rng.uniform(-s, s), 1 + rng.uniform(-s, s)]])
        # the distorted pie must stay inside the canvas (before the lossless roll), else area is
        # lost; and stay small enough (det <= 1.5: pie <= 37 % of the canvas) that the background
        # outnumbers even a 96 % sector, as the prompt promises
        half_w, half_h = radius * np.hypot(A[0, 0], A[0, 1]), radius * np.hypot(A[1, 0], A[1, 1])
        return A if half_w <= w / 2 - 3 and half_h <= h / 2 - 3 and 0.3 < abs(np.linalg.det(A)) <= 1.5 else None

    A = retry(draw_affine, "distortion that keeps the pie on the canvas")
    c = np.array([w / 2, h / 2])
    M = np.hstack([A, (c - A @ c)[:, None]])
    warped = cv2.warpAffine(canvas, M, (w, h), flags=cv2.INTER_NEAREST, borderValue=tuple(int(v) for v in bg))
    sx, sy = int(rng.integers(0, w)), int(rng.integers(0, h))
    rolled = np.roll(warped, (sy, sx), axis=(0, 1)).astype(np.float32)
    prompt = prompt + answer_instruction("as a percentage (number only)", "37.5")
    meta = {"shares": [round(float(v), 3) for v in shares], "target": target, "colours": [[int(x) for x in c] for c in cols],
            "background": [int(x) for x in bg], "affine": [[round(float(x), 4) for x in row] for row in A],
            "shift": [sx, sy], "share_range": list(SHARE), "noise_sigma": p["noise"], "tier": tier}
    return GeneratedItem(to_pil(add_noise(rolled, rng, p["noise"])), None, prompt, answer, meta)
