"""Feasible / infeasible maze pairs in the official Draw-or-Decline layout.

``lmms-plugins make-data dod-maze --pairs N --sizes 7,9,11 --seed S --out DIR`` calls :func:`main`.

Each pair ``synthetic-maze-<nnn>`` has
* a feasible map A: a perfect maze on an n x n grid (outer wall included) whose open cells form a
  tree, so the path from the green start (1,1) to the red end (n-2,n-2) is unique;
* an infeasible map B: A with one cell of that path, at least 4 moves from both ends, turned into
  a wall, nothing else changed;
* the reference image of A with the solution drawn.
Both labels are checked by BFS, and the rendered images are checked pixel by pixel (A and B
differ in exactly one cell interior) before anything is written.  The same seed gives the same
bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import maze_bfs as bfs

MIN_CUT_DISTANCE = 4
SPANNING_TREE_ALGORITHM = "randomized_depth_first_search"

# This project's own wording of the official maze rules and instruction (same content).
RULES = (
    "You are given a maze drawn on a square grid. Light-blue cells are walls and white cells are "
    "open passages. The green cell is the start and the red cell is the end. A move goes from one "
    "cell to a cell that shares a side with it (up, down, left or right); only white cells, the "
    "start and the end may be entered. Diagonal moves are not allowed, and a path may never pass "
    "through a wall cell."
)
INSTRUCTION = (
    "Edit the image: draw a single continuous red line that leads from the green start cell to the "
    "red end cell through white cells only, and keep every other part of the maze unchanged."
)


@dataclass(frozen=True)
class MazePair:
    pair_id: str
    n: int
    seed: int
    grid: tuple[tuple[int, ...], ...]  # feasible map
    start: tuple[int, int]
    goal: tuple[int, int]
    path: tuple[tuple[int, int], ...]
    cut: tuple[int, int]

    @property
    def blocked_grid(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(1 if (r, c) == self.cut else v for c, v in enumerate(row))
                     for r, row in enumerate(self.grid))


def tree_maze(n: int, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """A perfect maze by randomized depth-first search on the odd-coordinate lattice."""
    if n < 7 or n % 2 == 0:
        raise ValueError(f"maze size must be odd and >= 7 (got {n}): the cut needs a path of >= 8 moves")
    grid = [[1] * n for _ in range(n)]
    grid[1][1] = 0
    stack = [(1, 1)]
    while stack:
        r, c = stack[-1]
        options = [(r + 2 * dr, c + 2 * dc, dr, dc) for dr, dc in bfs.STEPS
                   if 0 < r + 2 * dr < n - 1 and 0 < c + 2 * dc < n - 1 and grid[r + 2 * dr][c + 2 * dc]]
        if not options:
            stack.pop()
            continue
        nr, nc, dr, dc = options[rng.randrange(len(options))]
        grid[r + dr][c + dc] = 0
        grid[nr][nc] = 0
        stack.append((nr, nc))
    return tuple(tuple(row) for row in grid)


def pair_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index * 7919) % (2**31)


def make_pair(index: int, n: int, seed: int) -> MazePair:
    """Pair number ``index`` (1-based) of a run with global ``seed``; raises if BFS disagrees."""
    own_seed = pair_seed(seed, index)
    rng = random.Random(own_seed)
    grid = tree_maze(n, rng)
    start, goal = (1, 1), (n - 2, n - 2)
    path = bfs.shortest_path(grid, start, goal)
    if path is None or not bfs.is_tree(grid):
        raise AssertionError(f"generator bug: maze {index} is not a connected tree")
    candidates = [cell for i, cell in enumerate(path)
                  if i >= MIN_CUT_DISTANCE and len(path) - 1 - i >= MIN_CUT_DISTANCE]
    cut = candidates[rng.randrange(len(candidates))]
    pair = MazePair(f"synthetic-maze-{index:03d}", n, own_seed, grid, start, goal, tuple(path), cut)
    if bfs.shortest_path(pair.blocked_grid, start, goal) is not None:
        raise AssertionError(f"generator bug: cut {cut} leaves a path in maze {index}")
    return pair
