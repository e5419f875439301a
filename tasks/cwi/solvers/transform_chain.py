"""transform_chain solver: try the 8 rotation/mirror combinations, phase-correlate each with
image 2, keep the combination with the sharpest correlation peak."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import circular_shift, gray


def solve(image, image_2, prompt) -> str:
    import numpy as np

    a, b = gray(image), gray(image_2)
    best = None
    for k in range(4):
        r = np.rot90(a, k)
        for f in (0, 1):
            c = r[:, ::-1] if f else r
            if c.shape != b.shape:
                continue
            dx, dy, peak = circular_shift(c, b)
            if best is None or peak > best[0]:
                best = (peak, dx, dy, k, f)
    _, dx, dy, k, f = best
    return f"dx={dx}, dy={dy}, rot_k={k}, fliph={f}"
