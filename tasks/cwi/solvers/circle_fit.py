"""circle_fit solver: RANSAC over the dark pixels (3-point circles, radius in the stated
range), then a least-squares refinement on the inliers of the best circle.

Straight strokes in the same ink would be explained by huge circles; the radius bound and the
inlier count (the arc is the longest curved structure) rule them out.
"""

from __future__ import annotations

N_HYPOTHESES = 1500
INLIER_PX = 1.5


def _circle_from_3(p):
    """Circles through point triples p (n, 3, 2): centres (n, 2) and radii (n,)."""
    import numpy as np

    a, b, c = p[:, 0], p[:, 1], p[:, 2]
    d = 2 * (a[:, 0] * (b[:, 1] - c[:, 1]) + b[:, 0] * (c[:, 1] - a[:, 1]) + c[:, 0] * (a[:, 1] - b[:, 1]))
    sa, sb, sc = (a**2).sum(1), (b**2).sum(1), (c**2).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ux = (sa * (b[:, 1] - c[:, 1]) + sb * (c[:, 1] - a[:, 1]) + sc * (a[:, 1] - b[:, 1])) / d
        uy = (sa * (c[:, 0] - b[:, 0]) + sb * (a[:, 0] - c[:, 0]) + sc * (b[:, 0] - a[:, 0])) / d
    centres = np.stack([ux, uy], 1)
    return centres, np.linalg.norm(a - centres, axis=1)


def _refine(pts, cx, cy, r, iters=15, ink=None):
    """Geometric circle fit (Gauss-Newton) from an initial guess, with Cauchy weights so that
    pixels of strokes crossing the arc do not pull it."""
    import numpy as np

    for _ in range(iters):
        dx, dy = pts[:, 0] - cx, pts[:, 1] - cy
        dist = np.hypot(dx, dy) + 1e-9
        J = np.stack([-dx / dist, -dy / dist, -np.ones_like(dist)], 1)
        resid = dist - r
        wt = 1.0 / (1.0 + (resid / 1.0) ** 2)
        if ink is not None:
            wt = wt * ink
        wt = np.sqrt(wt)
        step, *_ = np.linalg.lstsq(J * wt[:, None], -resid * wt, rcond=None)
        cx, cy, r = cx + step[0], cy + step[1], r + step[2]
        if np.abs(step).max() < 1e-3:
            break
    return cx, cy, r


def solve(image, image_2, prompt) -> str:
    import re

    import cv2
    import numpy as np

    g = np.asarray(image.convert("L"), dtype=np.float32)
    h, w = g.shape
    m = re.search(r"radius is between (\d+) and (\d+)", prompt)
    rmin, rmax = (float(m.group(1)), float(m.group(2))) if m else (10.0, 4.0 * max(h, w))
    sm = cv2.GaussianBlur(g, (0, 0), 1.0)
    bg = float(np.median(sm))
    # ink pixels: clearly darker than the paper, with isolated specks removed
    mask = (sm < bg - 0.5 * (bg - float(np.percentile(sm, 0.5)))).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    big = np.zeros(n, bool)
    big[1:] = stats[1:, cv2.CC_STAT_AREA] >= 25  # specks are a few pixels
    mask = big[lab]
    ys, xs = np.nonzero(mask)
    pts = np.stack([xs, ys], 1).astype(np.float64)
    if len(pts) < 3:
        return f"{w / 2:.1f},{h / 2:.1f}"
    rng = np.random.default_rng(0)
    sub = pts if len(pts) <= 3000 else pts[rng.choice(len(pts), 3000, replace=False)]
    idx = rng.integers(0, len(sub), size=(N_HYPOTHESES, 3))
    centres, radii = _circle_from_3(sub[idx])
    ok = np.isfinite(radii) & (radii >= rmin * 0.9) & (radii <= rmax * 1.1)
    ok &= (centres[:, 0] > -w * 0.1) & (centres[:, 0] < w * 1.1) & (centres[:, 1] > -h * 0.1) & (centres[:, 1] < h * 1.1)
    centres, radii = centres[ok], radii[ok]
    if len(radii) == 0:
        return f"{w / 2:.1f},{h / 2:.1f}"
    best, best_n = None, -1
    for start in range(0, len(radii), 250):  # chunks keep the distance matrix small
        c, r = centres[start : start + 250], radii[start : start + 250]
        d = np.abs(np.hypot(sub[None, :, 0] - c[:, 0:1], sub[None, :, 1] - c[:, 1:2]) - r[:, None])
        n = (d < INLIER_PX).sum(1)
        i = int(np.argmax(n))
        if n[i] > best_n:
            best_n, best = n[i], (c[i, 0], c[i, 1], r[i])
    cx, cy, r = best
    d = np.abs(np.hypot(pts[:, 0] - cx, pts[:, 1] - cy) - r)
    if (d < 3.0).sum() >= 3:
        cx, cy, r = _refine(pts[d < 3.0], cx, cy, r)
    # final fit on every pixel of a band around the circle, weighted by how much ink it holds
    # (grey levels carry the anti-aliased stroke's sub-pixel position; thresholds lose it)
    gy, gx = np.mgrid[0:h, 0:w]
    band = np.abs(np.hypot(gx - cx, gy - cy) - r) < 3.0
    band &= cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    ink = np.clip(bg - g[band], 0, None)
    if band.sum() >= 3 and ink.sum() > 0:
        cx, cy, r = _refine(np.stack([gx[band], gy[band]], 1).astype(np.float64), cx, cy, r, ink=ink)
    return f"{cx:.1f},{cy:.1f}"
