"""Systematic wrong edits of a generated maze, to measure the verifier (tests and benchmark).

Each corruption is drawn in the reference style and has the verdict reason the verifier must
give (``EXPECTED``).  ``None`` means the corruption does not apply to that maze (e.g. no branch
leaves the solution path, so there is no dead end to detour into).
"""

from __future__ import annotations

import random
from typing import Any

from . import bfs
from . import render as mr
from .generate import MazePair

EXPECTED = {
    "reference": "ok",  # the solution, as the generator draws it
    "through_wall": "crosses_wall",  # a shortcut through a wall cell between two path cells (else a spur into a wall)
    "gap": "disconnected",  # one middle cell of the solution left undrawn
    "dead_end_detour": "wrong_endpoint",  # along the solution, then into a dead end, stopping there
    "wrong_end": "wrong_endpoint",  # the solution stopping 3 moves before the end cell
    "short_of_end": "wrong_endpoint",  # the solution stopping in the cell next to the end
    "short_of_start": "wrong_endpoint",  # the solution starting in the cell next to the start
    "repainted_wall": "maze_altered",  # the solution drawn, and one inner wall painted white
    "no_path": "no_path_drawn",  # the input returned unchanged
}
# how the line is drawn (another renderer): width as a share of the pitch, anti-aliased round
# ends and joints (supersampled 4x), or a path colour slightly off the requested one
STYLES = {
    "reference": {"width": mr.PATH_WIDTH_FRACTION},
    "thin": {"width": 0.1},
    "wide": {"width": 0.5},
    "antialiased": {"width": 0.3, "smooth": True},
    "off_colour": {"width": 0.3, "smooth": True, "colour": (203, 58, 44)},
}
INFEASIBLE_EXPECTED = {
    "infeasible_drawn": "crosses_wall",  # the feasible map's solution drawn over the cut wall
    "infeasible_unchanged": "no_path_drawn",
}


def _shortcut(pair: MazePair) -> list | None:
    index = {cell: i for i, cell in enumerate(pair.path)}
    n = pair.n
    best = None
    for r in range(1, n - 1):
        for c in range(1, n - 1):
            if not pair.grid[r][c]:
                continue
            on_path = [index[nb] for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if nb in index]
            if len(on_path) >= 2 and max(on_path) - min(on_path) >= 2:
                gain = max(on_path) - min(on_path)
                if best is None or gain > best[0]:
                    best = (gain, (r, c), min(on_path), max(on_path))
    if best is None:
        return None
    _, wall, i, j = best
    return list(pair.path[: i + 1]) + [wall] + list(pair.path[j:])


def _detour(pair: MazePair, rng: random.Random) -> list | None:
    on_path = set(pair.path)
    options = []
    for k, cell in enumerate(pair.path[1:-1], start=1):
        for nb in bfs.open_neighbours(pair.grid, cell):
            if nb not in on_path:
                options.append((k, nb))
    if not options:
        return None
    k, first = options[rng.randrange(len(options))]
    # the deepest cell of that branch (the branch is a subtree: walls nowhere else meet the path)
    blocked = tuple(tuple(1 if (r, c) in on_path else v for c, v in enumerate(row)) for r, row in enumerate(pair.grid))
    dist = bfs.distances(blocked, first)
    leaf = max(sorted(dist), key=lambda cell: dist[cell])
    return list(pair.path[: k + 1]) + bfs.shortest_path(blocked, first, leaf)


def draw_styled(img, lay: mr.Layout, cells, style: str = "reference"):
    """Draw a path through the centres of ``cells`` in one of ``STYLES`` (in place; returns img)."""
    spec = STYLES[style]
    colour = spec.get("colour", mr.PATH)
    if not spec.get("smooth"):
        return mr.draw_cells_path(img, lay, cells, colour=colour, width_fraction=spec["width"])
    from PIL import Image, ImageDraw

    k = 4
    width = spec["width"] * lay.pitch * k
    pts = [((x + 0.5) * k, (y + 0.5) * k) for x, y in (lay.centre(c) for c in cells)]
    ink = Image.new("L", (img.width * k, img.height * k), 0)
    draw = ImageDraw.Draw(ink)
    if len(pts) > 1:
        draw.line(pts, fill=255, width=round(width), joint="curve")
    for x, y in (pts[0], pts[-1]):  # round caps
        draw.ellipse([x - width / 2, y - width / 2, x + width / 2, y + width / 2], fill=255)
    alpha = ink.resize(img.size, Image.BOX)
    img.paste(Image.new("RGB", img.size, colour), (0, 0), alpha)
    return img


def corrupt(pair: MazePair, kind: str, seed: int = 0, pitch: int = mr.DEFAULT_PITCH, style: str = "reference") -> Any:
    """The output image (PIL) of one corruption kind drawn in ``style``, or None when it does not apply."""
    rng = random.Random(f"{pair.pair_id}:{kind}:{seed}")

    def draw(img, lay, cells):
        return draw_styled(img, lay, cells, style)

    img, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=pitch)
    if kind == "no_path":
        return img
    if kind == "reference":
        return draw(img, lay, pair.path)
    if kind == "through_wall":
        cells = _shortcut(pair)
        if cells is not None:
            return draw(img, lay, cells)
        # no wall touches two path cells: the path plus a spur into a wall beside it
        spurs = [(cell, nb) for cell in pair.path[1:-1] for nb in
                 ((cell[0] - 1, cell[1]), (cell[0] + 1, cell[1]), (cell[0], cell[1] - 1), (cell[0], cell[1] + 1))
                 if 0 < nb[0] < pair.n - 1 and 0 < nb[1] < pair.n - 1 and pair.grid[nb[0]][nb[1]]]
        if not spurs:
            return None
        draw(img, lay, pair.path)
        return draw(img, lay, spurs[rng.randrange(len(spurs))])
    if kind == "gap":
        i = len(pair.path) // 2
        draw(img, lay, pair.path[:i])
        return draw(img, lay, pair.path[i + 1:])
    if kind == "dead_end_detour":
        cells = _detour(pair, rng)
        return None if cells is None else draw(img, lay, cells)
    if kind == "wrong_end":
        return draw(img, lay, pair.path[:-3])
    if kind == "short_of_end":
        return draw(img, lay, pair.path[:-1])
    if kind == "short_of_start":
        return draw(img, lay, pair.path[1:])
    if kind == "repainted_wall":
        walls = [(r, c) for r in range(1, pair.n - 1) for c in range(1, pair.n - 1) if pair.grid[r][c]]
        cell = walls[rng.randrange(len(walls))]
        draw(img, lay, pair.path)
        from PIL import ImageDraw

        ImageDraw.Draw(img).rectangle(lay.interior(cell), fill=mr.PASSAGE)
        return img
    if kind == "infeasible_unchanged":
        return mr.render_maze(pair.blocked_grid, pair.start, pair.goal, pitch=pitch)[0]
    if kind == "infeasible_drawn":
        b, lay_b = mr.render_maze(pair.blocked_grid, pair.start, pair.goal, pitch=pitch)
        return draw(b, lay_b, pair.path)
    raise ValueError(f"unknown corruption {kind!r}")


def degrade(img, how: str):
    """The output as a model might return it: ``clean``, ``jpeg75``, ``scale0.5``, ``scale1.7``."""
    import io

    from PIL import Image

    if how == "clean":
        return img
    if how.startswith("jpeg"):
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=int(how[4:]))
        buf.seek(0)
        out = Image.open(buf)
        out.load()
        return out
    if how.startswith("scale"):
        s = float(how[5:])
        return img.resize((round(img.width * s), round(img.height * s)), Image.BILINEAR)
    raise ValueError(f"unknown degradation {how!r}")
