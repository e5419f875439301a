"""jigsaw solver: shrink every piece to the reference's tile size and match pieces to reference
tiles by squared difference (Hungarian assignment)."""

from __future__ import annotations

import re

from lmms_plugins.tasks.cwi.solvers.helpers import assignment, rgb


def grid_size(prompt: str) -> int:
    m = re.search(r"into a (\d{1,2})x\d{1,2} grid", prompt)
    if not m:
        raise ValueError("prompt does not state the grid size")
    return int(m.group(1))


def piece_costs(image, image_2, g: int, rotations=(0,)):
    """cost[t][p] (min over rotations) and the best rotation, reference tile t vs piece p."""
    import cv2
    import numpy as np

    a, ref = rgb(image), rgb(image_2)
    ps = a.shape[0] // g
    ts = ref.shape[0] // g
    ref_tiles = [ref[r * ts : (r + 1) * ts, c * ts : (c + 1) * ts] for r in range(g) for c in range(g)]
    small = []
    for r in range(g):
        for c in range(g):
            piece = a[r * ps : (r + 1) * ps, c * ps : (c + 1) * ps]
            small.append([cv2.resize(np.rot90(piece, -k).copy(), (ts, ts), interpolation=cv2.INTER_AREA) for k in rotations])
    n = g * g
    cost = np.zeros((n, n))
    best_k = np.zeros((n, n), dtype=int)
    for t in range(n):
        for p in range(n):
            d = [float(((small[p][i] - ref_tiles[t]) ** 2).mean()) for i in range(len(rotations))]
            i = int(np.argmin(d))
            cost[t, p], best_k[t, p] = d[i], rotations[i]
    return cost, best_k


def solve(image, image_2, prompt) -> str:
    g = grid_size(prompt)
    cost, _ = piece_costs(image, image_2, g)
    return "[" + ",".join(map(str, assignment(cost))) + "]"
