"""congruent_pair solver: a rotation-invariant signature per shape, compared across panels.

Each cell's shape is segmented (dark pixels), and its boundary is described by the distance
from the centroid as a function of angle (720 bins; the centroid moves with the shape, so a
rotation only shifts this function circularly). Two shapes are compared by the smallest RMS
difference over all circular shifts (computed with FFT cross-correlation); the pair with the
smallest difference is the congruent one.
"""

from __future__ import annotations

BINS = 720


def _signature(cell_img):
    import cv2
    import numpy as np

    mask = (cell_img < 128).astype(np.uint8)
    mask[:3, :] = mask[-3:, :] = 0
    mask[:, :3] = mask[:, -3:] = 0  # cell borders
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    shape = (lab == k).astype(np.uint8)
    # sub-pixel centroid from the grey levels (anti-aliased edges)
    ink = (255.0 - cell_img) * cv2.dilate(shape, np.ones((3, 3), np.uint8))
    yy, xx = np.mgrid[0 : cell_img.shape[0], 0 : cell_img.shape[1]]
    cx, cy = (ink * xx).sum() / ink.sum(), (ink * yy).sum() / ink.sum()
    contours, _ = cv2.findContours(shape, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = max(contours, key=len)[:, 0, :].astype(np.float64)
    ang = np.arctan2(pts[:, 1] - cy, pts[:, 0] - cx)
    rad = np.hypot(pts[:, 0] - cx, pts[:, 1] - cy)
    b = ((ang + np.pi) / (2 * np.pi) * BINS).astype(int) % BINS
    sig = np.zeros(BINS)
    np.maximum.at(sig, b, rad)
    empty = sig == 0
    if empty.any():
        idx = np.arange(BINS)
        sig[empty] = np.interp(idx[empty], idx[~empty], sig[~empty], period=BINS)
    return sig


def _distance(a, b):
    import numpy as np

    corr = np.fft.irfft(np.fft.rfft(a) * np.conj(np.fft.rfft(b)), n=BINS)
    return float(np.sqrt(max((a @ a + b @ b - 2 * corr.max()) / BINS, 0.0)))


def solve(image, image_2, prompt) -> str:
    import re

    import numpy as np

    m = re.search(r"grid of (\d+) rows x (\d+) columns", prompt)
    if not m:
        raise ValueError("no grid size in the prompt")
    rows, cols = int(m.group(1)), int(m.group(2))
    n = rows * cols

    def sigs(img):
        g = np.asarray(img.convert("L"), dtype=np.float64)
        ch, cw = g.shape[0] // rows, g.shape[1] // cols
        return [_signature(g[r * ch : (r + 1) * ch, c * cw : (c + 1) * cw]) for r in range(rows) for c in range(cols)]

    sa, sb = sigs(image), sigs(image_2)
    best, pair = None, (0, n)
    for i, a in enumerate(sa):
        for j, b in enumerate(sb):
            if a is None or b is None:
                continue
            d = _distance(a, b)
            if best is None or d < best:
                best, pair = d, (i, n + j)
    return f"[{pair[0]},{pair[1]}]"
