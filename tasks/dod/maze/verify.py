"""Program verification of a maze edit: did the model draw one legal path from start to end?

Binding API (used by the DoD metrics)::

    verify_maze_edit(input_image, output_image, grid_evidence=None, path_color=(220, 38, 38))
        -> MazeVerdict(ok, reason, cells, details, drew_path)
    drew_path_anyway(input_image, output_image, grid_evidence=None, path_color=...) -> bool

Images are paths or PIL images of any mode.  Nothing raises: an unreadable image is a verdict.

Reasons, checked in this order:

* ``unreadable_grid``: no maze can be read; ``details["side"]`` says whether the *input* (a data
  problem: the map, or its disagreement with ``grid_evidence``) or the *output* (the model
  returned no recognisable maze: blank, photo, another picture) is at fault;
* ``no_path_drawn``: no cell outside the start and end carries the path colour;
* ``maze_altered``: a cell lost its colour (a wall repainted, a passage filled, an endpoint
  recoloured, or the whole grid warped): too few of its central pixels keep the input's class
  (walls and undrawn passages 75 %, lower in noisy images, never below 50 %; drawn cells and
  endpoints 50 %; ``details["altered_cells"]``); cells under the path may be any mix of passage and path
  colour, an endpoint any mix of its fill and the path's stroke, and walls under the path are
  left to the next check;
* ``crosses_wall``: a wall cell is covered by the path, however thin the stroke (``details["wall_cells"]``);
* ``disconnected``: the drawn cells (with start and end) fall into several 4-connected pieces:
  a gap, a diagonal jump or stray marks; or the cells make one piece but the line's pixels do
  not (a gap of a few pixels inside the path, ``details["line_pieces"]``);
* ``wrong_endpoint``: one connected drawing that misses the start or the end (``details["misses"]``:
  its cells do not join them, or its pixels stop short of them: a line ending in the cell next
  to an endpoint is not a path to it), or has a loose end elsewhere (a dead-end detour;
  ``details["loose_ends"]``);
* ``ok``: the drawn cells with start and end are one 4-connected set through passages whose only
  ends are the start and the end (in the tree-shaped DoD mazes: exactly the unique path), the
  drawn line reaches both endpoint cells (``details["reaches"]``) and its pixels are one piece.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from . import bfs
from . import geometry as mg
from . import path as mp

REASONS = ("ok", "no_path_drawn", "disconnected", "crosses_wall", "wrong_endpoint", "maze_altered",
           "unreadable_grid")
KEEP_MIN = 0.5  # share of a cell's central pixels that must keep the input's class
KEEP_CLEAN = 0.75  # ... in a clean image, for walls and passages (noise lowers it to KEEP_MIN)
KEEP_MARGIN = 0.2  # below the typical (median) wall / passage cell's share


@dataclass(frozen=True)
class MazeVerdict:
    ok: bool
    reason: str  # one of REASONS
    cells: tuple = ()  # path cells read, (row, col): in path order when ok, else sorted
    details: dict = field(default_factory=dict, compare=False)
    drew_path: bool = False  # some cell besides start/end is covered by the path colour


def _unreadable(side: str, message: str, **extra) -> MazeVerdict:
    return MazeVerdict(False, "unreadable_grid", (), {"side": side, "message": message, **extra})


def _parse_evidence(grid_evidence: Any) -> dict | None:
    if grid_evidence is None:
        return None
    if isinstance(grid_evidence, str):
        grid_evidence = json.loads(grid_evidence)
    if not isinstance(grid_evidence, dict) or not isinstance(grid_evidence.get("grid"), list):
        raise ValueError("grid_evidence has no 'grid' list")
    return grid_evidence


def read_input(input_image: Any, grid_evidence: Any = None,
               path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> tuple[mg.MazeGeometry | None, dict]:
    """The input maze and what was checked; (None, details) when it cannot be read."""
    details: dict = {}
    try:
        evidence = _parse_evidence(grid_evidence)
    except (ValueError, TypeError) as exc:
        return None, {"side": "input", "message": f"bad grid_evidence: {exc}"}
    n = len(evidence["grid"]) if evidence else None
    try:
        geom = mg.read_geometry(input_image, n=n, path_color=path_color)
    except mg.UnreadableGrid as exc:
        return None, {"side": "input", "message": str(exc)}
    details["n"] = geom.n
    if evidence is not None:
        check = mg.check_evidence(geom, evidence)
        details["evidence"] = {"agrees": check.agrees, "transform": check.transform}
        if not check.agrees:
            return None, {"side": "input", "message": check.problem or "grid_evidence disagrees",
                          "mismatched_cells": [list(c) for c in check.mismatches[:20]], "n": geom.n}
    return geom, details


def _keep_limits(geom: mg.MazeGeometry, frac, covered) -> dict:
    """Share of its class a wall / a passage must keep.  A clean image keeps ~100 %, so a wall
    erased (or a passage filled) over more than about a third of its width is altered; colour
    noise blurs every cell's class, so the limit follows the typical cell down to ``KEEP_MIN``."""
    import numpy as np

    limits = {}
    for wall, cls in ((1, mg.WALL), (0, mg.OPEN)):
        shares = [frac[r, c, cls] for r in range(geom.n) for c in range(geom.n)
                  if geom.grid[r][c] == wall and (r, c) not in covered and (r, c) not in (geom.start, geom.goal)]
        typical = float(np.median(shares)) if shares else 1.0
        limits[wall] = max(KEEP_MIN, min(KEEP_CLEAN, typical - KEEP_MARGIN))
    return limits


def _altered_cells(geom: mg.MazeGeometry, drawn: mp.DrawnPath, pcls: int) -> list:
    frac = drawn.fractions
    limits = _keep_limits(geom, frac, drawn.covered)
    out = []
    for r in range(geom.n):
        for c in range(geom.n):
            cell = (r, c)
            share = frac[r, c]
            path_share = share[pcls]
            if cell in (geom.start, geom.goal):
                # its fill, the path's stroke, or the two mixed (the stroke's edge, a
                # semi-transparent stroke): a round cap over the start is no alteration
                keep = drawn.endpoint_keep["start" if cell == geom.start else "end"]
            elif geom.grid[r][c]:
                if cell in drawn.covered:
                    continue  # a wall under the path: that is crosses_wall, reported next
                if share[mg.WALL] < limits[1]:
                    out.append(cell)
                continue
            elif cell in drawn.covered:
                keep = share[mg.OPEN] + path_share
            else:
                if share[mg.OPEN] < limits[0]:
                    out.append(cell)
                continue
            if keep < KEEP_MIN:
                out.append(cell)
    return out


def _reached(drawn: mp.DrawnPath, name: str) -> bool:
    contact = drawn.reaches.get(name)
    return contact is not None and contact.reached


def _judge(geom: mg.MazeGeometry, drawn: mp.DrawnPath, pcls: int, details: dict) -> MazeVerdict:
    start, goal = geom.start, geom.goal
    covered = set(drawn.covered)
    inner = covered - {start, goal}
    adjacent_ends = abs(start[0] - goal[0]) + abs(start[1] - goal[1]) == 1
    drew = bool(inner) or (adjacent_ends and bool(covered))
    sorted_cells = tuple(sorted(covered))
    if not drew:
        return MazeVerdict(False, "no_path_drawn", sorted_cells, details, False)
    # does the drawing link start and end (walls ignored)? On an infeasible map: a full path anyway
    details = {**details, "joins_ends": any(start in comp and goal in comp
                                            for comp in bfs.components(covered | {start, goal}))}
    # altered before crossed: a misplaced grid (a warped or re-drawn maze) shows as many altered
    # cells, which must not be read as a path through walls
    altered = _altered_cells(geom, drawn, pcls)
    if altered:
        return MazeVerdict(False, "maze_altered", sorted_cells,
                           {**details, "altered_cells": [list(c) for c in altered[:20]]}, True)
    walls = sorted(c for c in covered if geom.grid[c[0]][c[1]])
    if walls:
        return MazeVerdict(False, "crosses_wall", sorted_cells, {**details, "wall_cells": [list(c) for c in walls]}, True)
    cells = covered | {start, goal}
    comps = bfs.components(cells)
    if len(comps) > 1:
        pieces = [comp for comp in comps if comp - {start, goal}]
        joined = any(start in comp and goal in comp for comp in comps)
        info = {**details, "pieces": len(pieces)}
        if joined or len(pieces) > 1:
            return MazeVerdict(False, "disconnected", sorted_cells, info, True)
        missed = [name for name, cell in (("start", start), ("end", goal)) if cell not in pieces[0]]
        return MazeVerdict(False, "wrong_endpoint", sorted_cells, {**info, "misses": missed}, True)
    # the cells alone cannot show the line reaching start and end (their fill may share the path
    # colour, and a line stopping in the neighbour still makes one piece with them): the pixels
    # must show the line running into (or touching) each endpoint cell
    missed = [name for name in ("start", "end") if not _reached(drawn, name)]
    if missed:
        return MazeVerdict(False, "wrong_endpoint", sorted_cells, {**details, "misses": missed}, True)
    loose = sorted(c for c in cells - {start, goal}
                   if sum((c[0] + dr, c[1] + dc) in cells for dr, dc in bfs.STEPS) <= 1)
    if loose:
        return MazeVerdict(False, "wrong_endpoint", sorted_cells,
                           {**details, "loose_ends": [list(c) for c in loose]}, True)
    # one piece of cells may still be two pieces of line: a gap of a few pixels inside the path
    if drawn.line_pieces > 1:
        return MazeVerdict(False, "disconnected", sorted_cells,
                           {**details, "pieces": 1, "line_pieces": drawn.line_pieces}, True)
    sub = tuple(tuple(0 if (r, c) in cells else 1 for c in range(geom.n)) for r in range(geom.n))
    order = bfs.shortest_path(sub, start, goal) or sorted_cells
    return MazeVerdict(True, "ok", tuple(order), details, True)


def grid_of(geom: mg.MazeGeometry) -> dict:
    """The input grid in pixels of the input image (JSON values): n, origin, cell pitch, image
    size, start and end cells."""
    b = geom.box
    return {"n": geom.n, "origin": [round(b.x0, 2), round(b.y0, 2)], "pitch": [round(b.pitch_x, 3), round(b.pitch_y, 3)],
            "size": list(geom.image_size), "start": list(geom.start), "end": list(geom.goal)}


def verify_maze_edit(input_image: Any, output_image: Any, grid_evidence: dict | None = None,
                     path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> MazeVerdict:
    """Verify that ``output_image`` is ``input_image`` with one legal start-to-end path drawn."""
    try:
        geom, details = read_input(input_image, grid_evidence, path_color)
        if geom is None:
            return MazeVerdict(False, "unreadable_grid", (), details)
        grid = grid_of(geom)  # where the input's cells lie: what the report's overlay draws on
        try:
            drawn = mp.read_drawn_path(output_image, geom, path_color)
        except mg.UnreadableGrid as exc:
            return _unreadable("output", str(exc), n=geom.n, grid=grid)
        details = {**details, "grid": grid, "located_by": drawn.located_by,
                   "coverage": {f"{r},{c}": round(v, 3) for (r, c), v in sorted(drawn.coverage.items())},
                   "reaches": {name: (list(ct.via) if ct.reached else None) for name, ct in drawn.reaches.items()}}
        return _judge(geom, drawn, mg.path_class(path_color), details)
    except Exception as exc:  # never raise: a scorer that raises aborts the whole lmms-eval run
        return _unreadable("unknown", f"internal error: {type(exc).__name__}: {exc}")


def drew_path_anyway(input_image: Any, output_image: Any, grid_evidence: dict | None = None,
                     path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> bool:
    """For an infeasible maze: did the model draw a (necessarily illegal) path anyway?"""
    return verify_maze_edit(input_image, output_image, grid_evidence, path_color).drew_path
