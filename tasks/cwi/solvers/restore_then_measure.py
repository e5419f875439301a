"""restore_then_measure solver: area ratios survive affine maps and wrap-around shifts, so count
pixels: the target colour's pixels over all non-background pixels."""

from __future__ import annotations

import re

from lmms_plugins.tasks.cwi.solvers.helpers import rgb


def solve(image, image_2, prompt) -> str:
    import numpy as np
    from scipy import ndimage

    m = re.search(r"coloured RGB\((\d{1,3}),(\d{1,3}),(\d{1,3})\)", prompt)
    if not m:
        raise ValueError("prompt does not name the sector colour")
    target = np.array([int(v) for v in m.groups()], dtype=np.float64)
    a = rgb(image)
    a = np.stack([ndimage.median_filter(a[..., c], size=3, mode="wrap") for c in range(3)], axis=-1)
    q = (a // 16).astype(np.int64)
    codes = q[..., 0] * 256 + q[..., 1] * 16 + q[..., 2]
    # the background is the colour most pixels are close to; noise splits it over several
    # histogram bins, so score the top bins' colours by how many pixels lie near each
    counts = np.bincount(codes.ravel())
    top = [c for c in np.argsort(counts)[::-1][:8] if counts[c] > 0]  # an image may fill fewer than 8 bins
    candidates = [a[codes == c].mean(axis=0) for c in top]
    bg = max(candidates, key=lambda col: int((np.linalg.norm(a - col, axis=-1) < 45).sum()))
    not_bg = np.linalg.norm(a - bg, axis=-1) > 45
    is_target = np.linalg.norm(a - target, axis=-1) < 45
    share = 100.0 * float((is_target & not_bg).sum()) / max(1, int(not_bg.sum()))
    return f"{share:.1f}"
