"""retouch_region solver: map the local noise level and box the region where it vanishes.

The high-pass residual (image minus a 3x3 median) carries the sensor noise plus fine texture.
A robust local scale of it (median of |residual| over a window) is near zero where the noise
was removed and at least the noise level elsewhere. Threshold at a fraction of the typical
level, keep the largest connected region, and return its bounding box.
"""

from __future__ import annotations


def solve(image, image_2, prompt) -> str:
    import cv2
    import numpy as np
    from scipy import ndimage

    g = np.asarray(image.convert("RGB"), dtype=np.float32)
    h, w = g.shape[:2]
    res = np.zeros((h, w), np.float32)
    for c in range(3):
        ch = g[..., c]
        res += np.abs(ch - cv2.medianBlur(ch.astype(np.uint8), 3).astype(np.float32))
    level = cv2.blur(res, (9, 9))
    typical = float(np.median(level))
    mask = level < 0.35 * typical
    mask = ndimage.binary_opening(mask, iterations=2)
    mask = ndimage.binary_closing(mask, iterations=2)
    lab, n = ndimage.label(mask)
    if n == 0:
        return "[0,0,1000,1000]"
    sizes = ndimage.sum(mask, lab, range(1, n + 1))
    k = int(np.argmax(sizes))
    sl = ndimage.find_objects(lab)[k]
    y0, y1, x0, x1 = sl[0].start, sl[0].stop, sl[1].start, sl[1].stop
    box = (x0 / w * 1000, y0 / h * 1000, x1 / w * 1000, y1 / h * 1000)
    return "[" + ",".join(str(int(round(v))) for v in box) + "]"
