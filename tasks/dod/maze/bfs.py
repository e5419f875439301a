"""Breadth-first search on a maze grid (1 = wall, 0 = open), shared by the generator, the verifier
and the maze_solver baseline.

Cells are ``(row, col)`` tuples, 0-based, the outer wall included (the official convention).
Moves join orthogonally adjacent open cells; the start and the end are open cells.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

Cell = tuple[int, int]
Grid = Sequence[Sequence[int]]

STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def is_open(grid: Grid, cell: Cell) -> bool:
    r, c = cell
    return 0 <= r < len(grid) and 0 <= c < len(grid[r]) and grid[r][c] == 0


def open_neighbours(grid: Grid, cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in STEPS if is_open(grid, (r + dr, c + dc))]


def distances(grid: Grid, source: Cell) -> dict[Cell, int]:
    """Moves from ``source`` to every open cell it reaches (``source`` itself at 0)."""
    if not is_open(grid, source):
        return {}
    dist = {source: 0}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        for nxt in open_neighbours(grid, cell):
            if nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist


def shortest_path(grid: Grid, start: Cell, goal: Cell) -> list[Cell] | None:
    """One shortest path ``[start, ..., goal]``, or None when the goal is unreachable."""
    if not (is_open(grid, start) and is_open(grid, goal)):
        return None
    parent: dict[Cell, Cell | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            path = [cell]
            while parent[path[-1]] is not None:
                path.append(parent[path[-1]])
            return path[::-1]
        for nxt in open_neighbours(grid, cell):
            if nxt not in parent:
                parent[nxt] = cell
                queue.append(nxt)
    return None


def open_cells(grid: Grid) -> list[Cell]:
    return [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == 0]


def is_tree(grid: Grid) -> bool:
    """Open cells connected and acyclic (edges = vertices - 1): the path between two cells is unique."""
    cells = open_cells(grid)
    if not cells:
        return False
    edges = sum(1 for (r, c) in cells for nb in ((r, c + 1), (r + 1, c)) if is_open(grid, nb))
    return edges == len(cells) - 1 and len(distances(grid, cells[0])) == len(cells)


def components(cells: Iterable[Cell]) -> list[set[Cell]]:
    """4-connected components of a set of cells (ignoring walls: used on drawn cells)."""
    todo = set(cells)
    out = []
    while todo:
        seed = todo.pop()
        comp = {seed}
        queue = deque([seed])
        while queue:
            r, c = queue.popleft()
            for dr, dc in STEPS:
                nb = (r + dr, c + dc)
                if nb in todo:
                    todo.discard(nb)
                    comp.add(nb)
                    queue.append(nb)
        out.append(comp)
    return out


def format_path(path: Sequence[Cell]) -> str:
    """The official witness string: ``"(1,1)->(1,2)->...->(5,5)"``."""
    return "->".join(f"({r},{c})" for r, c in path)
