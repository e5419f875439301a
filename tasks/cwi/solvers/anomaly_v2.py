"""anomaly_v2 solver: cut the grid into tiles, take the per-pixel median tile as the
reference, smooth each tile's residual with a 5x5 box (an altered patch is at least 5 px)
per channel, and flag the tiles whose strongest smoothed residual stands far above the noise
level estimated from all residuals."""

from __future__ import annotations


def solve(image, image_2, prompt) -> str:
    import re

    import cv2
    import numpy as np

    m = re.search(r"grid of (\d+) rows and (\d+) columns of tiles, separated by (\d+)-px", prompt)
    if not m:
        raise ValueError("no grid size in the prompt")
    rows, cols, gap = (int(m.group(i)) for i in (1, 2, 3))
    a = np.asarray(image.convert("RGB"), dtype=np.float32)
    h, w = a.shape[:2]
    cell = (w - (cols + 1) * gap) // cols
    tiles = np.stack(
        [
            a[gap + r * (cell + gap) : gap + r * (cell + gap) + cell, gap + c * (cell + gap) : gap + c * (cell + gap) + cell]
            for r in range(rows)
            for c in range(cols)
        ]
    )
    ref = np.median(tiles, axis=0)
    resid = tiles - ref
    # noise of one pixel's residual, robustly (MAD), then of a 5x5 mean
    sigma = 1.4826 * float(np.median(np.abs(resid))) + 0.3
    box_sigma = sigma / 5.0
    scores = []
    for t in resid:
        sm = cv2.blur(t, (5, 5), borderType=cv2.BORDER_REFLECT)
        scores.append(float(np.abs(sm).max()))
    scores = np.array(scores)
    thr = max(8.0 * box_sigma, 3.0)
    cells = [(i // cols, i % cols) for i in np.nonzero(scores > thr)[0]]
    return "[" + ",".join(f"[{r},{c}]" for r, c in sorted(cells)) + "]"
