"""ring_rotor solver: unwrap both images to polar coordinates; the rotated ring is the band
that differs most; its angle is the circular cross-correlation peak along the angle axis."""

from __future__ import annotations

import re

from lmms_plugins.tasks.cwi.solvers.helpers import gray

_ANGLES = 1440  # 0.25° per row


def solve(image, image_2, prompt) -> str:
    import cv2
    import numpy as np

    m = re.search(r"radius (\d+) px centred at \(([\d.]+), ([\d.]+)\) is divided into (\d+) concentric", prompt)
    if not m:
        raise ValueError("prompt does not describe the rings")
    radius, cx, cy, n = int(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4))
    a, b = gray(image), gray(image_2)
    pa = cv2.warpPolar(a, (radius, _ANGLES), (cx, cy), radius, cv2.WARP_POLAR_LINEAR | cv2.INTER_LINEAR)
    pb = cv2.warpPolar(b, (radius, _ANGLES), (cx, cy), radius, cv2.WARP_POLAR_LINEAR | cv2.INTER_LINEAR)
    width = radius / n
    best = None
    for ring in range(n):
        lo, hi = int(np.ceil(ring * width + 2)), int(np.floor((ring + 1) * width - 2))
        lo = max(lo, 3)
        if hi <= lo:
            continue
        sa, sb = pa[:, lo:hi], pb[:, lo:hi]
        diff = float(np.abs(sa - sb).mean())
        if best is None or diff > best[0]:
            best = (diff, ring, sa, sb)
    _, ring, sa, sb = best
    fa = np.fft.fft(sa - sa.mean(axis=0), axis=0)
    fb = np.fft.fft(sb - sb.mean(axis=0), axis=0)
    corr = np.fft.ifft(fb * np.conj(fa), axis=0).real.sum(axis=1)
    s = int(np.argmax(corr))
    # parabolic refinement of the peak
    y0, y1, y2 = corr[s - 1], corr[s], corr[(s + 1) % _ANGLES]
    den = y0 - 2 * y1 + y2
    frac = 0.5 * (y0 - y2) / den if den != 0 else 0.0
    shift_deg = (s + frac) * 360.0 / _ANGLES
    # warpPolar's angle grows clockwise on screen; a counter-clockwise turn moves content back
    angle = (-shift_deg + 180.0) % 360.0 - 180.0
    if ring == 0:
        # the innermost disc has few pixels per polar row: search the angle directly instead
        angle = _disc_angle(a, b, cx, cy, width)
    if angle <= -180.0:
        angle += 360.0
    return f"ring={ring}, angle={angle:.1f}"


def _disc_angle(a, b, cx, cy, r):
    """Angle (counter-clockwise as displayed) that best maps image 1's central disc onto image 2's."""
    import math

    import cv2
    import numpy as np

    m = int(math.ceil(r)) + 2
    x0, y0 = int(round(cx)) - m, int(round(cy)) - m
    pa = a[y0 : y0 + 2 * m + 1, x0 : x0 + 2 * m + 1].astype(np.float32)
    pb = b[y0 : y0 + 2 * m + 1, x0 : x0 + 2 * m + 1].astype(np.float32)
    c = (cx - x0, cy - y0)
    yy, xx = np.mgrid[0 : pa.shape[0], 0 : pa.shape[1]]
    inside = np.hypot(xx - c[0], yy - c[1]) < r - 1.5

    def cost(angle):
        # getRotationMatrix2D turns content counter-clockwise (as displayed) for angle > 0
        M = cv2.getRotationMatrix2D(c, angle, 1.0)
        rot = cv2.warpAffine(pa, M, pa.shape[::-1], flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return float(((rot - pb)[inside] ** 2).mean())

    coarse = min(np.arange(-180.0, 180.0, 1.0), key=cost)
    fine = min(np.arange(coarse - 1.0, coarse + 1.0001, 0.1), key=cost)
    return float((fine + 180.0) % 360.0 - 180.0)
