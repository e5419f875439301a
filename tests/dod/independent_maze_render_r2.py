"""A second independent "other tool" that draws on DoD maze maps (audit round 2).

Written from the task's meaning only: it shares no code with ``lmms_plugins.tasks.dod.maze`` nor
with ``independent_maze_render.py``.  The grid is placed from the two endpoint cells (the green
start and the red end are solid squares whose centres, with the record's start and goal, give the
pitch and the origin); strokes are rasterised here from signed distances (round or square caps,
analytic anti-aliasing, optional wobble as a hand would draw), in pure, orange and dark reds;
the result is rescaled (0.5x-1.7x, several resamplers) and/or saved as JPEG (q60-95).

Ground truth comes from the record's grid and the drawn geometry, never from the verifier:

* correct: the solution's cells, in order, with the stroke fully inside the corridors
  (widths 0.15-1.0 x pitch, centred or hugging one side, round or square caps, ending anywhere
  inside the endpoint cells);
* wrong: a thin stroke (0.2-0.35) whose centre line cuts through a wall cell (or across its
  corner, at least 0.12 x pitch deep); a thin stroke lying
  inside a run of wall cells along its length; a stroke (thin or 0.7-0.83 thick) that ends one
  cell short (at the centre of the endpoint's neighbour); a gap of a few pixels; a line to a dead
  end; the infeasible map solved anyway; a passage painted as wall.

``cases(...)`` yields every drawing of one pair; ``finish(img, form)`` turns it into what another
tool hands back.  ``FORMS`` are the forms each case may be saved in.
"""

from __future__ import annotations

import io
import math
import random
from collections import deque
from dataclasses import dataclass

import numpy as np
from PIL import Image

# the DoD maze colours (dataset card / upstream facts): start and end fills, the wall
START_FILL, END_FILL, WALL_FILL = (34, 197, 94), (239, 68, 68), (173, 216, 230)

# reds a user or a model would call red: pure, orange-reds, dark reds
REDS = {
    "red": (255, 0, 0),
    "orangered": (255, 69, 0),
    "tomato_deep": (240, 80, 40),
    "vermilion": (227, 66, 52),
    "darkred": (139, 0, 0),
    "maroon": (128, 0, 0),
    "firebrick": (178, 34, 34),
}


@dataclass(frozen=True)
class Placement:
    """Cell (r, c) covers [x0 + c * pitch, x0 + (c + 1) * pitch) horizontally (same vertically)."""

    x0: float
    y0: float
    pitch: float

    def point(self, r: float, c: float) -> tuple[float, float]:
        """Pixel (x, y) of a position in cell units (cell centres at r + 0.5, c + 0.5)."""
        return self.x0 + c * self.pitch, self.y0 + r * self.pitch


def _blob_centre(arr, rgb, tol=40):
    close = np.abs(arr - np.array(rgb)).sum(axis=-1) <= tol
    ys, xs = np.nonzero(close)
    if not len(xs):
        raise ValueError(f"no pixels of colour {rgb}")
    return (xs.min() + xs.max() + 1) / 2.0, (ys.min() + ys.max() + 1) / 2.0


def place(img: Image.Image, start, goal) -> Placement:
    """Where the cells lie, from the solid start and end squares and their cells in the record."""
    arr = np.asarray(img.convert("RGB")).astype(int)
    sx, sy = _blob_centre(arr, START_FILL)
    ex, ey = _blob_centre(arr, END_FILL)
    pitch = 0.5 * ((ex - sx) / (goal[1] - start[1]) + (ey - sy) / (goal[0] - start[0]))
    return Placement(sx - (start[1] + 0.5) * pitch, sy - (start[0] + 0.5) * pitch, pitch)


def solve(grid, start, goal):
    """Shortest route of open cells from start to goal (None when there is none)."""
    n = len(grid)
    came = {tuple(start): None}
    queue = deque([tuple(start)])
    while queue:
        cur = queue.popleft()
        if cur == tuple(goal):
            route = []
            while cur is not None:
                route.append(cur)
                cur = came[cur]
            return route[::-1]
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nxt = (cur[0] + dr, cur[1] + dc)
            if 0 <= nxt[0] < n and 0 <= nxt[1] < n and not grid[nxt[0]][nxt[1]] and nxt not in came:
                came[nxt] = cur
                queue.append(nxt)
    return None


# -- strokes: signed distance rasteriser ------------------------------------------------------

@dataclass(frozen=True)
class Pen:
    name: str
    width: float  # x pitch
    rgb: tuple
    cap: str = "round"  # "round" (round caps and joins) or "square" (square caps, mitred corners)
    shift: float = 0.0  # x pitch, sideways from the corridor's centre line (hugging one side)
    wobble: float = 0.0  # x pitch, amplitude of a slow hand tremor
    opacity: float = 1.0


def _simplify(points):
    """Drop points on a straight run (fewer segments, same stroke)."""
    out = [points[0]]
    for i in range(1, len(points) - 1):
        a, b, c = out[-1], points[i], points[i + 1]
        cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if abs(cross) > 1e-9:
            out.append(b)
    out.append(points[-1])
    return out


def _wobbled(points, amp, rng):
    """Densify a polyline and move it sideways by a slow random tremor (amplitude ``amp`` px)."""
    dense = []
    for a, b in zip(points[:-1], points[1:]):
        steps = max(2, int(math.dist(a, b) / 3))
        for k in range(steps):
            t = k / steps
            dense.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    dense.append(points[-1])
    ph1, ph2 = rng.uniform(0, 6.3), rng.uniform(0, 6.3)
    out = []
    for i, (x, y) in enumerate(dense):
        j = max(0, min(len(dense) - 1, i))
        a = dense[max(0, j - 1)]
        b = dense[min(len(dense) - 1, j + 1)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        norm = math.hypot(dx, dy) or 1.0
        off = amp * math.sin(0.21 * i + ph1) * math.cos(0.07 * i + ph2)
        out.append((x - dy / norm * off, y + dx / norm * off))
    return out


def coverage(shape, polylines, width_px: float, cap: str):
    """Anti-aliased coverage (0..1, H x W) of the strokes: the union of per-segment shapes."""
    h, w = shape
    cover = np.zeros((h, w), dtype=np.float32)
    half = width_px / 2.0
    for pts in polylines:
        pts = pts if len(pts) > 1 else [pts[0], (pts[0][0] + 1e-3, pts[0][1])]
        for (ax, ay), (bx, by) in zip(pts[:-1], pts[1:]):
            pad = half + 2
            x_lo, x_hi = int(max(0, math.floor(min(ax, bx) - pad))), int(min(w, math.ceil(max(ax, bx) + pad)))
            y_lo, y_hi = int(max(0, math.floor(min(ay, by) - pad))), int(min(h, math.ceil(max(ay, by) + pad)))
            if x_lo >= x_hi or y_lo >= y_hi:
                continue
            px = np.arange(x_lo, x_hi, dtype=np.float32)[None, :] + 0.5 - ax
            py = np.arange(y_lo, y_hi, dtype=np.float32)[:, None] + 0.5 - ay
            dx, dy = bx - ax, by - ay
            length = math.hypot(dx, dy) or 1e-6
            ux, uy = dx / length, dy / length
            along = px * ux + py * uy
            across = -px * uy + py * ux
            if cap == "round":
                t = np.clip(along, 0.0, length)
                dist = np.hypot(along - t, across) - half
            else:
                dist = np.maximum(np.abs(across) - half, np.maximum(-along - half, along - length - half))
            part = np.clip(0.5 - dist, 0.0, 1.0)
            view = cover[y_lo:y_hi, x_lo:x_hi]
            np.maximum(view, part, out=view)
    return cover


def stroke(img: Image.Image, polylines, pen: Pen, pitch: float, seed: int = 0) -> Image.Image:
    """A copy of ``img`` with ``polylines`` (pixel points) drawn with ``pen``."""
    rng = random.Random(seed)
    lines = [_simplify(p) for p in polylines]
    if pen.wobble:
        lines = [_wobbled(p, pen.wobble * pitch, rng) for p in lines]
    base = np.asarray(img.convert("RGB"), dtype=np.float32)
    a = coverage(base.shape[:2], lines, max(1.0, pen.width * pitch), pen.cap)[..., None] * pen.opacity
    out = base * (1.0 - a) + np.array(pen.rgb, dtype=np.float32) * a
    return Image.fromarray(np.clip(np.rint(out), 0, 255).astype(np.uint8))


def fill_cell(img: Image.Image, pl: Placement, cell, rgb) -> Image.Image:
    """A copy with one cell's interior (less a 2-px rim) painted ``rgb``."""
    out = np.asarray(img.convert("RGB")).copy()
    x, y = pl.point(cell[0], cell[1])
    x0, y0 = int(math.ceil(x + 2)), int(math.ceil(y + 2))
    x1, y1 = int(math.floor(x + pl.pitch - 2)), int(math.floor(y + pl.pitch - 2))
    out[y0:y1, x0:x1] = rgb
    return Image.fromarray(out)


# -- forms another tool hands back -------------------------------------------------------------

FORMS = ("png", "jpeg95", "jpeg80", "jpeg60", "scale0.5", "scale0.7", "scale1.3", "scale1.7",
         "scale0.5+jpeg70", "scale0.6+jpeg60", "scale1.7+jpeg85")
_RESAMPLERS = {"0.5": Image.BILINEAR, "0.6": Image.BICUBIC, "0.7": Image.LANCZOS, "1.3": Image.BICUBIC,
               "1.7": Image.BILINEAR}


def finish(img: Image.Image, form: str) -> Image.Image:
    """The drawing rescaled and / or saved as JPEG (decoded again), as the verifier receives it."""
    out = img.convert("RGB")
    quality = None
    for part in form.split("+"):
        if part.startswith("scale"):
            f = part[5:]
            out = out.resize((max(1, round(out.width * float(f))), max(1, round(out.height * float(f)))),
                             _RESAMPLERS[f])
        elif part.startswith("jpeg"):
            quality = int(part[4:])
    buf = io.BytesIO()
    if quality is not None:
        out.save(buf, "JPEG", quality=quality)
    else:
        out.save(buf, "PNG")
    buf.seek(0)
    return Image.open(buf)


# -- the cases of one pair ---------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    cls: str  # the class of drawing (what the audit reports on)
    pen: str
    expect_ok: bool
    image: Image.Image
    on: str  # "A" (feasible map) or "B" (infeasible map)
    forms: tuple  # the forms this case is verified in


def _pens(rng):
    """Correct-drawing pens: widths 0.15-1.0, both caps, the reds, some shifted or wobbling."""
    names = list(REDS)
    pens = []
    for i, width in enumerate((0.15, 0.22, 0.3, 0.4, 0.5, 0.62, 0.75, 0.9, 1.0)):
        cap = "round" if i % 2 == 0 else "square"
        colour = names[(i * 3 + rng.randrange(len(names))) % len(names)]
        pens.append(Pen(f"{cap}_{colour}_{width}", width, REDS[colour], cap))
    # hugging one side of the corridor (the stroke stays inside it)
    for width, shift, colour in ((0.15, 0.27, "darkred"), (0.25, -0.2, "orangered"), (0.4, 0.08, "red")):
        pens.append(Pen(f"round_{colour}_{width}_shift{shift}", width, REDS[colour], "round", shift=shift))
    pens.append(Pen("round_firebrick_0.3_wobble", 0.3, REDS["firebrick"], "round", wobble=0.05))
    pens.append(Pen("square_red_0.45_opacity0.8", 0.45, REDS["red"], "square", opacity=0.8))
    return pens


def _centres(pl: Placement, cells, shift=0.0):
    return [pl.point(r + 0.5 + shift, c + 0.5 + shift) for r, c in cells]


def _forms(rng, k):
    return tuple(sorted(rng.sample(FORMS, k)))


def _wall_cuts(grid, path, lo=0.25, hi=0.51):
    """Straight chords between two path cells whose centre line runs through a wall cell, as
    (i, j): the line leaves the path at i and rejoins it at j.  The deepest point of the centre
    line inside a wall cell (distance to the cell's edge, x pitch) is in [lo, hi): from 0.25 a
    clear crossing, 0.12-0.25 a cut across a wall's corner or edge.  Sampled along the chord."""
    n = len(grid)
    out = []
    for i in range(len(path)):
        for j in range(i + 2, min(len(path), i + 9)):
            (r1, c1), (r2, c2) = path[i], path[j]
            if abs(r1 - r2) + abs(c1 - c2) > 4:
                continue
            depth = 0.0
            for k in range(1, 400):
                t = k / 400
                y, x = r1 + 0.5 + (r2 - r1) * t, c1 + 0.5 + (c2 - c1) * t
                r, c = int(y), int(x)
                if 0 <= r < n and 0 <= c < n and grid[r][c]:
                    depth = max(depth, min(y - r, r + 1 - y, x - c, c + 1 - x))
            if lo <= depth < hi:
                out.append((i, j))
    return out


def _wall_runs(grid, path):
    """Two path cells in one row (or column) with only wall cells (>= 1) between them: (i, j,
    axis).  A line from one to the other runs along the wall's length, inside it."""
    pos = {c: k for k, c in enumerate(path)}
    out = []
    for i, (r, c) in enumerate(path):
        for dr, dc in ((0, 1), (1, 0)):
            k = 1
            while grid[r + dr * k][c + dc * k] and 0 < r + dr * k < len(grid) - 1 and 0 < c + dc * k < len(grid) - 1:
                k += 1
            end = (r + dr * k, c + dc * k)
            if k >= 2 and end in pos and abs(pos[end] - i) > k:
                out.append((min(i, pos[end]), max(i, pos[end]), "row" if dr == 0 else "col"))
    return out


def _dead_ends(grid, path):
    on = set(path)
    out = []
    for r in range(1, len(grid) - 1):
        for c in range(1, len(grid) - 1):
            if not grid[r][c] and (r, c) not in on and \
                    sum(not grid[r + dr][c + dc] for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))) == 1:
                out.append((r, c))
    return out


def cases(evidence_a: dict, img_a: Image.Image, evidence_b: dict, img_b: Image.Image, seed: int = 0,
          forms_per_case: int = 4):
    """Every drawing of one pair (list of Case)."""
    rng = random.Random(seed)
    grid_a = evidence_a["grid"]
    start, goal = tuple(evidence_a["start"]), tuple(evidence_a["goal"])
    pl = place(img_a, start, goal)
    p = pl.pitch
    path = solve(grid_a, start, goal)
    assert path and solve(evidence_b["grid"], start, goal) is None
    out = []

    def add(cls, pen, ok, image, on="A", k=forms_per_case, forms=None):
        out.append(Case(cls, pen.name, ok, image, on, forms or _forms(rng, k)))

    pens = _pens(rng)
    # correct: through the centres, or shifted inside the corridor
    for pen in pens:
        add("correct", pen, True, stroke(img_a, [_centres(pl, path, pen.shift)], pen, p, seed=rng.randrange(1 << 30)))
    # correct, ending part-way into the endpoint cells (a quarter of a cell beyond their edge)
    for pen in pens[1::3]:
        pts = _centres(pl, path, pen.shift)
        for k, nb in ((0, 1), (-1, -2)):
            (x, y), (qx, qy) = pts[k], pts[nb]
            pts[k] = (x + (qx - x) * 0.25, y + (qy - y) * 0.25)
        add("correct_ends_inside_endpoints", pen, True, stroke(img_a, [pts], pen, p))
    # correct, a round cap in an orange-red or dark red over part of the start and end cells
    for width, colour, opacity in ((0.4, "orangered", 1.0), (0.45, "darkred", 1.0), (0.5, "tomato_deep", 1.0),
                                   (0.42, "maroon", 1.0), (0.45, "orangered", 0.7), (0.5, "darkred", 0.6)):
        pen = Pen(f"round_{colour}_{width}" + (f"_opacity{opacity}" if opacity < 1 else ""), width, REDS[colour],
                  "round", opacity=opacity)
        add("correct_cap_over_endpoint", pen, True, stroke(img_a, [_centres(pl, path)], pen, p))

    thin = [Pen(f"{cap}_{colour}_{w}", w, REDS[colour], cap)
            for cap, colour, w in (("round", "red", 0.2), ("square", "orangered", 0.25), ("round", "darkred", 0.3),
                                   ("square", "firebrick", 0.35), ("round", "vermilion", 0.28))]
    # a thin stroke cutting through a wall cell (a chord between two path cells)
    cuts = _wall_cuts(grid_a, path)
    for pen in rng.sample(thin, min(3, len(thin))) if cuts else ():
        i, j = cuts[rng.randrange(len(cuts))]
        pts = _centres(pl, path[:i + 1]) + _centres(pl, path[j:])
        add("thin_cut_through_wall", pen, False, stroke(img_a, [pts], pen, p))
    shallow = _wall_cuts(grid_a, path, 0.12, 0.25)
    for pen in rng.sample(thin, min(3, len(thin))) if shallow else ():
        i, j = shallow[rng.randrange(len(shallow))]
        pts = _centres(pl, path[:i + 1]) + _centres(pl, path[j:])
        add("thin_cut_across_wall_corner", pen, False, stroke(img_a, [pts], pen, p))
    # a thin stroke along a wall's length, inside the wall (from one path cell to another)
    runs = _wall_runs(grid_a, path)
    for pen in rng.sample(thin, min(3, len(thin))) if runs else ():
        i, j, axis = runs[rng.randrange(len(runs))]
        room = 0.5 - pen.width / 2 - 0.04  # the whole stroke stays inside the wall cells
        off = rng.choice((-1, 1)) * rng.uniform(0.1, max(0.1, room))
        (r1, c1), (r2, c2) = path[i], path[j]
        if axis == "row":
            mid = [pl.point(r1 + 0.5 + off, c1 + 0.5), pl.point(r2 + 0.5 + off, c2 + 0.5)]
        else:
            mid = [pl.point(r1 + 0.5, c1 + 0.5 + off), pl.point(r2 + 0.5, c2 + 0.5 + off)]
        pts = _centres(pl, path[:i + 1]) + mid + _centres(pl, path[j:])
        add("thin_along_wall_inside", pen, False, stroke(img_a, [pts], pen, p))
    # one cell short: the stroke ends at the centre of the endpoint's neighbour (thick and thin)
    for w, cap, colour in ((0.7, "round", "red"), (0.75, "square", "orangered"), (0.8, "round", "darkred"),
                           (0.83, "square", "firebrick"), (0.3, "round", "red"), (0.5, "square", "maroon")):
        pen = Pen(f"{cap}_{colour}_{w}", w, REDS[colour], cap)
        cls = "thick_one_cell_short" if w >= 0.7 else "thin_one_cell_short"
        extra = ("scale0.5+jpeg70", "scale0.6+jpeg60") if w >= 0.7 else ()
        add(cls, pen, False, stroke(img_a, [_centres(pl, path[:-1])], pen, p),
            forms=tuple(sorted(set(_forms(rng, forms_per_case - len(extra))) | set(extra))))
        add(cls + "_at_start", pen, False, stroke(img_a, [_centres(pl, path[1:])], pen, p))
    # a gap of a few pixels between two pieces of an otherwise correct line
    for pen in rng.sample(pens[:9], 4):
        gap = rng.choice((3.0, 4.0, 5.0, 6.0)) * max(1.0, p / 48)
        k = rng.randrange(2, len(path) - 3)
        (ax, ay), (bx, by) = _centres(pl, path[k:k + 2], pen.shift)
        ext = pen.width * p / 2 if pen.cap == "square" else pen.width * p / 2
        t1, t2 = 0.5 - (gap / 2 + ext) / p, 0.5 + (gap / 2 + ext) / p
        one = _centres(pl, path[:k + 1], pen.shift) + [(ax + (bx - ax) * t1, ay + (by - ay) * t1)]
        two = [(ax + (bx - ax) * t2, ay + (by - ay) * t2)] + _centres(pl, path[k + 1:], pen.shift)
        if t1 > 0.05:
            add("gap_few_px", pen, False, stroke(img_a, [one, two], pen, p))
    # to a dead end instead of the goal
    dead = _dead_ends(grid_a, path)
    if dead:
        pen = pens[rng.randrange(len(pens))]
        add("to_dead_end", pen, False, stroke(img_a, [_centres(pl, solve(grid_a, start, dead[rng.randrange(len(dead))]))], pen, p))
    # the infeasible map solved anyway (the line crosses the cut cell)
    for pen in rng.sample(pens, 2):
        add("infeasible_drawn_anyway", pen, False, stroke(img_b, [_centres(pl, path, pen.shift)], pen, p), on="B")
    # a passage painted as wall, the path correct
    opens = [(r, c) for r in range(1, len(grid_a) - 1) for c in range(1, len(grid_a) - 1)
             if not grid_a[r][c] and (r, c) not in path]
    if opens:
        pen = pens[rng.randrange(len(pens))]
        drawn = stroke(img_a, [_centres(pl, path, pen.shift)], pen, p)
        add("passage_painted_wall", pen, False, fill_cell(drawn, pl, opens[rng.randrange(len(opens))], WALL_FILL))
    return out
