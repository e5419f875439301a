"""ring_rotor solver: unwrap both images to polar coordinates; the rotated ring is the band
that differs most; its angle is the circular cross-correlation peak along the angle axis."""

from __future__ import annotations

import re

from lmms_plugins.tasks.cwi.solver_helpers import gray

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
    if angle == -180.0:
        angle = 180.0
    return f"ring={ring}, angle={angle:.1f}"
