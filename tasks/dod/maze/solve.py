"""Solving a maze image by program: read the grid, BFS, draw the path or decline.

This is the core of the ``maze_solver`` baseline model (lmms_plugins/models/maze_solver.py): the
upper bound of the maze category, and an end-to-end check of the DoD pipeline.  Declining
follows the official protocol: reasoning inside ``<think>…</think>`` that ends with ``[ABSTAIN]``,
then a plain sentence, and no image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from . import bfs
from . import geometry as mg
from .render import PATH_WIDTH_FRACTION, draw_polyline


@dataclass(frozen=True)
class MazeSolution:
    status: str  # "solved", "no_path" or "unreadable"
    text: str  # the answer text (reasoning + final sentence)
    image: Any = None  # PIL image with the path drawn (solved only)
    path: tuple = ()  # cells of the drawn path


def _cell(c) -> str:
    return f"({c[0]},{c[1]})"


def solve_maze_image(image: Any, path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> MazeSolution:
    """Read the maze in ``image`` (path or PIL), and draw the shortest start-to-end path on it."""
    try:
        geom = mg.read_geometry(image, path_color=path_color)
    except mg.UnreadableGrid as exc:
        return MazeSolution("unreadable", f"I could not read a maze grid in the image ({exc}), so I did not edit it.")
    n, start, goal = geom.n, geom.start, geom.goal
    seen = f"The maze is a {n}x{n} grid (outer wall included) with the green start at {_cell(start)} and the red end at {_cell(goal)}."
    path = bfs.shortest_path(geom.grid, start, goal)
    if path is None:
        region = len(bfs.distances(geom.grid, start))
        text = (f"<think>{seen} A breadth-first search from the start over open cells reaches {region} cell(s), "
                f"and the end is not one of them: walls separate the start's region from the end's. "
                f"No path exists. [ABSTAIN]</think>\n"
                f"No solution exists: walls separate the green start from the red end, so no continuous "
                f"path through white cells can join them.")
        return MazeSolution("no_path", text)
    img, _size = mg.open_rgb(image, allow_draft=False)  # drawn at full size, in original pixels
    img = img.copy()
    box = geom.box
    pitch = min(box.pitch_x, box.pitch_y)
    width = 2 * round(pitch * PATH_WIDTH_FRACTION / 2) + 1
    draw_polyline(img, [box.centre(c) for c in path], width, tuple(int(v) for v in path_color))
    text = (f"<think>{seen} A breadth-first search over open cells finds a route of {len(path) - 1} moves: "
            f"{bfs.format_path(path)}.</think>\n"
            f"Here is the maze with the red path drawn from the green start to the red end.")
    return MazeSolution("solved", text, img, tuple(path))
