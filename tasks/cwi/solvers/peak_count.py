"""peak_count solver: read the curve column by column (topmost black pixel), find the red
threshold row, count the local maxima with real prominence that lie above that row."""

from __future__ import annotations

MIN_PROMINENCE = 4.0  # px; the drawn curve's steps are 1 px


def solve(image, image_2, prompt) -> str:
    import numpy as np
    from scipy.signal import find_peaks

    a = np.asarray(image.convert("RGB"), dtype=np.int32)
    h, w = a.shape[:2]
    red = (a[..., 0] > 150) & (a[..., 1] < 110) & (a[..., 2] < 110)
    black = (a.max(axis=2) < 100)
    if not red.any() or not black.any():
        return "0"
    thr_row = float(np.median(np.nonzero(red)[0]))
    has = black.any(axis=0)
    top = np.where(has, np.argmax(black, axis=0), -1).astype(np.float64)
    xs = np.nonzero(has)[0]
    height = h - top[xs]  # the curve's height above the bottom, per column
    peaks, _ = find_peaks(height, prominence=MIN_PROMINENCE)
    return str(int((height[peaks] > h - thr_row).sum()))
