"""rotated_jigsaw solver: for every piece try the 4 turns back, shrink to the reference tile
size, and assign pieces to tiles by the best-turn squared difference (Hungarian)."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import assignment
from lmms_plugins.tasks.cwi.solvers.jigsaw import grid_size, piece_costs


def solve(image, image_2, prompt) -> str:
    g = grid_size(prompt)
    cost, best_k = piece_costs(image, image_2, g, rotations=(0, 1, 2, 3))
    order = assignment(cost)
    rots = [int(best_k[t, p]) for t, p in enumerate(order)]
    return "tiles=[" + ",".join(map(str, order)) + "]; rots=[" + ",".join(map(str, rots)) + "]"
