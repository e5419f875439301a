"""gain_center solver.

The gain map is lit / original. Per block of the image it is estimated as a ratio of sums
over the pixels that are neither near black nor saturated (far less noisy than averaging
per-pixel ratios). That coarse map is 1 + a sum of Gaussian bumps: its local maxima give
candidates, one Gaussian bump per candidate is fitted jointly (robust least squares), bumps
that are too weak or too narrow to be a spotlight are dropped and the rest refitted; the
centres are returned strongest first.
"""

from __future__ import annotations

CELL = 10  # px, block size of the coarse gain map
MIN_STRENGTH = 0.1  # weaker bumps are noise (the generator's spotlights have >= 0.15)
MIN_SIGMA_PX = 22.0  # narrower bumps are noise (spotlights have sigma >= 30 px)
MAX_CANDIDATES = 6


def _fit(gx, gy, gv, wt, init):
    import numpy as np
    from scipy import optimize

    def resid(q):
        out = np.zeros_like(gv)
        for j in range(0, len(q), 4):
            x0, y0, s, sg = q[j : j + 4]
            out += s * np.exp(-((gx - x0) ** 2 + (gy - y0) ** 2) / (2 * sg * sg))
        return (out - gv) * wt

    return optimize.least_squares(resid, np.array(init, float), loss="soft_l1", f_scale=0.05, max_nfev=100).x


def solve(image, image_2, prompt) -> str:
    import numpy as np
    from scipy import ndimage

    a = np.asarray(image.convert("RGB"), dtype=np.float64).mean(axis=2)
    b = np.asarray(image_2.convert("RGB"), dtype=np.float64).mean(axis=2)
    h, w = a.shape
    valid = (a > 12) & (b < 250)
    gh, gw = h // CELL, w // CELL

    def blocks(x):
        return x[: gh * CELL, : gw * CELL].reshape(gh, CELL, gw, CELL).sum(axis=(1, 3))

    sa, sb, n = blocks(np.where(valid, a, 0)), blocks(np.where(valid, b, 0)), blocks(valid)
    known = n >= CELL * CELL // 4
    if known.sum() < 10:
        return "[]"
    grid = np.where(known, sb / np.maximum(sa, 1e-6), np.nan)
    idx = ndimage.distance_transform_edt(~known, return_distances=False, return_indices=True)
    sm = ndimage.gaussian_filter(grid[tuple(idx)], 1.0) - 1.0
    peaks = (ndimage.maximum_filter(sm, size=5) == sm) & (sm > 0.6 * MIN_STRENGTH)
    pys, pxs = np.nonzero(peaks)
    if len(pys) == 0:
        return "[]"
    order = np.argsort(-sm[pys, pxs])[:MAX_CANDIDATES]
    init = []
    for i in order:
        init += [pxs[i] + 0.5, pys[i] + 0.5, float(sm[pys[i], pxs[i]]), 4.0]
    cy, cx = np.nonzero(known)
    gx, gy, gv = cx + 0.5, cy + 0.5, grid[known] - 1.0
    wt = np.sqrt(sa[known] / sa[known].max())  # brighter blocks have a less noisy ratio
    spots = []
    for _round in range(3):
        q = _fit(gx, gy, gv, wt, init)
        spots = [
            q[j : j + 4]
            for j in range(0, len(q), 4)
            if q[j + 2] >= MIN_STRENGTH and abs(q[j + 3]) * CELL >= MIN_SIGMA_PX
            and -1 < q[j] < gw + 1 and -1 < q[j + 1] < gh + 1
        ]
        if len(spots) * 4 == len(q):
            break
        init = [v for s in spots for v in s]
        if not init:
            return "[]"
    spots.sort(key=lambda s: -s[2])
    return "[" + ",".join(f"[{int(round(s[0] * CELL))},{int(round(s[1] * CELL))}]" for s in spots) + "]"
