"""What the maze verifier read, as a report overlay (``lmms-plugins report`` draws it on the output).

Pure: a :class:`~lmms_plugins.tasks.dod.maze.verify.MazeVerdict` in, a small JSON dict out (the
overlay format of :mod:`lmms_plugins.report`). Coordinates are pixels of the *input* maze, which
the output is a copy of; the report scales them onto the output image. Kept small: the grid's
outline, the path cells read, the cells the verdict blames, the path found (when there is one)
and a caption with the reason. It goes on the sample's full record only (``dod_run``).
"""

from __future__ import annotations

from typing import Any

PATH_CELLS = "#1971c2"
BLAMED = "#e03131"
PATH_LINE = "#2f9e44"
GRID = "#495057"

#: the details key holding the cells a verdict blames, with the legend text for them
_BLAMED = (("wall_cells", "path over a wall"), ("altered_cells", "cell altered"), ("loose_ends", "loose end"))


def _caption(reason: str, details: dict) -> str:
    extra = []
    if details.get("misses"):
        extra.append("misses " + " and ".join(details["misses"]))
    if details.get("pieces"):
        extra.append(f"{details['pieces']} separate pieces")
    if details.get("message"):
        extra.append(str(details["message"])[:160])
    return f"maze verifier: {reason}" + (f" ({'; '.join(extra)})" if extra else "")


def maze_overlay(verdict: Any) -> dict | None:
    """The overlay of one verdict; None when the input grid was not read (nothing to place)."""
    details = dict(getattr(verdict, "details", None) or {})
    grid = details.get("grid")
    if not isinstance(grid, dict):
        return None
    (x0, y0), (px, py), n = grid["origin"], grid["pitch"], int(grid["n"])
    shapes: list[dict] = [{"kind": "box", "xyxy": [x0, y0, round(x0 + n * px, 2), round(y0 + n * py, 2)],
                           "label": f"grid read ({n}x{n})", "color": GRID}]
    cells = [list(c) for c in getattr(verdict, "cells", ()) or ()]
    if cells:
        shapes.append({"kind": "cells", "origin": [x0, y0], "pitch": [px, py], "cells": cells,
                       "label": "path cells read", "color": PATH_CELLS})
    for key, label in _BLAMED:
        if details.get(key):
            shapes.append({"kind": "cells", "origin": [x0, y0], "pitch": [px, py], "cells": details[key][:40],
                           "label": label, "color": BLAMED})
    if getattr(verdict, "ok", False) and len(cells) > 1:  # cells are in path order only when ok
        shapes.append({"kind": "polyline", "label": "path found", "color": PATH_LINE,
                       "points": [[round(x0 + (c + 0.5) * px, 1), round(y0 + (r + 0.5) * py, 1)] for r, c in cells]})
    return {"target": "output", "index": 0, "size": list(grid["size"]), "shapes": shapes,
            "caption": _caption(getattr(verdict, "reason", ""), details)}
