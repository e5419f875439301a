"""An independent "other tool" that draws on DoD maze maps, to audit the maze verifier.

Nothing here comes from ``lmms_plugins.tasks.dod.maze`` (no layout, no renderer, no corrupter):
the grid is found from the input's own pixels (the bounding box of the light-blue outer wall,
divided by the n of the record's grid), and lines are drawn the way an image editor or a
plotting script would: OpenCV anti-aliased polylines (round caps and joints), PIL lines with
supersampled anti-aliasing and round joints, semi-transparent overlays, smoothed curves, lines
hugging one side of the corridor; then saved as PNG or JPEG, resized or padded.

``cases(record_a, record_b, img_a, img_b)`` yields every (kind, style, expected) drawing of one
pair; ``finish(img, form)`` turns a drawing into the bytes another tool would hand back.
"""

from __future__ import annotations

import io
import random
from collections import deque
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

WALL_BLUE = (173, 216, 230)
SS = 4  # supersampling factor of the PIL renderer


@dataclass(frozen=True)
class Grid:
    n: int
    x0: float
    y0: float
    pitch: float

    def centre(self, cell):
        r, c = cell
        return self.x0 + (c + 0.5) * self.pitch, self.y0 + (r + 0.5) * self.pitch


def find_grid(img: Image.Image, n: int) -> Grid:
    """The maze's cell grid from pixels: the outer wall is the bounding box of wall-blue pixels."""
    a = np.asarray(img.convert("RGB")).astype(int)
    wall = (np.abs(a - np.array(WALL_BLUE)).sum(axis=-1) <= 30)
    ys, xs = np.nonzero(wall)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    # the outer wall cells end where the bounding box ends (the thin grid border lies inside)
    pitch = ((x1 - x0) + (y1 - y0)) / (2 * n)
    return Grid(n, float(x0), float(y0), float(pitch))


def bfs_path(grid, start, goal):
    """Shortest path of open cells (None when there is none)."""
    n = len(grid)
    prev = {tuple(start): None}
    todo = deque([tuple(start)])
    while todo:
        cur = todo.popleft()
        if cur == tuple(goal):
            out = []
            while cur is not None:
                out.append(cur)
                cur = prev[cur]
            return out[::-1]
        r, c = cur
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nb[0] < n and 0 <= nb[1] < n and not grid[nb[0]][nb[1]] and nb not in prev:
                prev[nb] = cur
                todo.append(nb)
    return None


# -- line styles -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Style:
    name: str
    engine: str  # "cv2" (LINE_AA, round caps) or "pil" (supersampled, round joints)
    width: float  # x pitch, or pixels when > 1
    rgb: tuple
    alpha: float = 1.0
    smooth: bool = False  # Chaikin-smoothed curve instead of the centre polyline
    offset: float = 0.0  # x pitch: hug one side of the corridor


RED, CRIMSON, DARKRED, ORANGERED = (255, 0, 0), (200, 20, 40), (150, 10, 10), (235, 60, 30)

GOOD_STYLES = (
    Style("cv2_red_2px", "cv2", 2, RED),
    Style("cv2_red_0.15", "cv2", 0.15, RED),
    Style("cv2_crimson_0.3", "cv2", 0.3, CRIMSON),
    Style("cv2_darkred_0.45", "cv2", 0.45, DARKRED),
    Style("cv2_red_0.6", "cv2", 0.6, RED),
    Style("pil_orangered_0.25", "pil", 0.25, ORANGERED),
    Style("pil_red_0.5_alpha0.55", "pil", 0.5, RED, alpha=0.55),
    Style("pil_red_0.2_smooth", "pil", 0.2, RED, smooth=True),
    Style("cv2_red_0.35_smooth", "cv2", 0.35, CRIMSON, smooth=True),
    Style("pil_red_3px_hugging", "pil", 3, RED, offset=0.3),
    Style("cv2_red_0.12_hugging", "cv2", 0.12, DARKRED, offset=-0.28),
)
# not red: the instruction says "Using the red color"; wall-blue also hides the maze
OFF_COLOUR_STYLES = (
    Style("cv2_blue_0.3", "cv2", 0.3, (30, 60, 230)),
    Style("cv2_green_0.3", "cv2", 0.3, (20, 170, 40)),
    Style("pil_black_0.2", "pil", 0.2, (20, 20, 20)),
    Style("pil_wallblue_0.4", "pil", 0.4, WALL_BLUE),
)


def _px(style: Style, g: Grid) -> float:
    return style.width if style.width > 1 else style.width * g.pitch


def _chaikin(pts, rounds=3):
    pts = [np.asarray(p, dtype=float) for p in pts]
    for _ in range(rounds):
        if len(pts) < 3:
            break
        out = [pts[0]]
        for a, b in zip(pts[:-1], pts[1:]):
            out += [0.75 * a + 0.25 * b, 0.25 * a + 0.75 * b]
        out.append(pts[-1])
        pts = out
    return [tuple(p) for p in pts]


def polyline_points(cells, g: Grid, style: Style, head=None, tail=None):
    """Pixel points through the cell centres (optionally moved at both ends: ``head``/``tail``
    are explicit first/last points)."""
    pts = [g.centre(c) for c in cells]
    if head is not None:
        pts[0] = head
    if tail is not None:
        pts[-1] = tail
    if style.offset:
        d = style.offset * g.pitch
        pts = [(x + d, y + d) for x, y in pts]
    if style.smooth:
        pts = _chaikin(pts)
    return pts


def draw_lines(img: Image.Image, strokes, style: Style, g: Grid) -> Image.Image:
    """Draw polylines (lists of (x, y) points) on a copy of ``img`` in ``style``."""
    w = _px(style, g)
    base = img.convert("RGB")
    if style.engine == "cv2":
        import cv2

        layer = np.zeros((base.height, base.width), dtype=np.uint8)
        shift = 4
        for pts in strokes:
            arr = np.round(np.asarray(pts) * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(layer, [arr], False, 255, thickness=max(1, int(round(w))),
                          lineType=cv2.LINE_AA, shift=shift)
        cover = layer.astype(np.float32) / 255.0 * style.alpha
    else:
        big = Image.new("L", (base.width * SS, base.height * SS), 0)
        d = ImageDraw.Draw(big)
        ww = max(1, int(round(w * SS)))
        for pts in strokes:
            sp = [(x * SS, y * SS) for x, y in pts]
            d.line(sp, fill=255, width=ww, joint="curve")
            for x, y in (sp[0], sp[-1]):  # round caps
                d.ellipse([x - ww / 2, y - ww / 2, x + ww / 2, y + ww / 2], fill=255)
        cover = np.asarray(big.resize(base.size, Image.BOX), dtype=np.float32) / 255.0 * style.alpha
    a = np.asarray(base, dtype=np.float32)
    col = np.array(style.rgb, dtype=np.float32)
    out = a * (1 - cover[..., None]) + col * cover[..., None]
    return Image.fromarray(np.clip(np.round(out), 0, 255).astype(np.uint8))


def paint_cell_part(img: Image.Image, g: Grid, cell, rgb, part=(0.0, 0.0, 1.0, 1.0)) -> Image.Image:
    """Fill a sub-rectangle (fractions of the cell) of ``cell`` with ``rgb`` (an eraser / brush)."""
    out = img.convert("RGB").copy()
    r, c = cell
    x = g.x0 + c * g.pitch
    y = g.y0 + r * g.pitch
    fx0, fy0, fx1, fy1 = part
    ImageDraw.Draw(out).rectangle([round(x + fx0 * g.pitch), round(y + fy0 * g.pitch),
                                   round(x + fx1 * g.pitch) - 1, round(y + fy1 * g.pitch) - 1], fill=rgb)
    return out


# -- forms another tool hands back ---------------------------------------------------------------

FORMS = ("png", "jpeg95", "jpeg75", "jpeg60", "resize0.9", "resize1.1", "pad5")


def finish(img: Image.Image, form: str) -> Image.Image:
    """The drawing as another tool saves it (decoded again, as the verifier would read it)."""
    img = img.convert("RGB")
    buf = io.BytesIO()
    if form.startswith("jpeg"):
        img.save(buf, "JPEG", quality=int(form[4:]))
    else:
        if form.startswith("resize"):
            f = float(form[6:])
            img = img.resize((round(img.width * f), round(img.height * f)), Image.LANCZOS)
        elif form.startswith("pad"):
            p = int(form[3:])
            canvas = Image.new("RGB", (img.width + p + 2, img.height + p + 1), (255, 255, 255))
            canvas.paste(img, (p, p - 1))
            img = canvas
        img.save(buf, "PNG")
    buf.seek(0)
    return Image.open(buf)


# -- the cases of one pair -------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    kind: str  # what was drawn
    style: str
    expect_ok: bool
    image: Image.Image
    on: str  # "A" (feasible map) or "B" (infeasible map): the input to verify against


def _toward(p, q, frac):
    return (p[0] + (q[0] - p[0]) * frac, p[1] + (q[1] - p[1]) * frac)


def _wall_shortcut(grid, path):
    """Indices (i, j) of two path cells two steps apart in a straight line with a wall between
    them (the line between them crosses the wall), the longest such detour saved; or None."""
    pos = {c: i for i, c in enumerate(path)}
    best = None
    for i, (r, c) in enumerate(path):
        for dr, dc in ((0, 2), (2, 0), (0, -2), (-2, 0)):
            j = pos.get((r + dr, c + dc))
            mid = (r + dr // 2, c + dc // 2)
            if j is not None and j > i + 2 and grid[mid[0]][mid[1]]:
                if best is None or j - i > best[1] - best[0]:
                    best = (i, j)
    return best


def _dead_ends(grid, path):
    n = len(grid)
    on = set(path)
    out = []
    for r in range(1, n - 1):
        for c in range(1, n - 1):
            if grid[r][c] or (r, c) in on:
                continue
            deg = sum(not grid[r + dr][c + dc] for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if deg == 1:
                out.append((r, c))
    return out


def cases(evidence_a: dict, img_a: Image.Image, evidence_b: dict, img_b: Image.Image,
          styles=None, seed: int = 0):
    """Every drawing of one pair: (Case, ...). ``evidence_*`` are ``grid_evidence`` records."""
    rng = random.Random(seed)
    grid_a, grid_b = evidence_a["grid"], evidence_b["grid"]
    start, goal = tuple(evidence_a["start"]), tuple(evidence_a["goal"])
    n = len(grid_a)
    g = find_grid(img_a, n)
    path = bfs_path(grid_a, start, goal)
    assert path and bfs_path(grid_b, start, goal) is None
    styles = styles or GOOD_STYLES
    out = []

    def add(kind, style, ok, image, on="A"):
        out.append(Case(kind, style.name, ok, image, on))

    for st in styles:
        full = polyline_points(path, g, st)
        add("correct", st, True, draw_lines(img_a, [full], st, g))
        # the line ends exactly on the endpoint cells' edges (it touches them): a path to them
        edge_s = _toward(g.centre(path[0]), g.centre(path[1]), 0.5)
        edge_e = _toward(g.centre(path[-1]), g.centre(path[-2]), 0.5)
        if not st.offset and not st.smooth:
            add("correct_touching_edges", st, True,
                draw_lines(img_a, [polyline_points(path, g, st, head=edge_s, tail=edge_e)], st, g))
        # stops half a cell before the end cell's edge (at the neighbour's centre)
        add("short_half_cell_end", st, False, draw_lines(img_a, [polyline_points(path[:-1], g, st)], st, g))
        add("short_half_cell_start", st, False, draw_lines(img_a, [polyline_points(path[1:], g, st)], st, g))
        # stops a whole cell before the end cell's edge
        tail = _toward(g.centre(path[-3]), g.centre(path[-2]), 0.5)
        add("short_one_cell_end", st, False,
            draw_lines(img_a, [polyline_points(path[:-1], g, st, tail=tail)], st, g))
        # two pieces with a gap of a few pixels (6 px / 0.25 pitch) in the middle of the path
        k = len(path) // 2
        a_pt, b_pt = g.centre(path[k]), g.centre(path[k + 1])
        for gap_px in (6.0, 0.25 * g.pitch):
            gap_px = max(gap_px, 6.0)
            # the caps of the pieces reach half the width beyond their end points
            half = gap_px / 2 + _px(st, g) / 2 + 1.0
            dist = g.pitch
            p1 = _toward(a_pt, b_pt, 0.5 - half / dist)
            p2 = _toward(a_pt, b_pt, 0.5 + half / dist)
            s1 = polyline_points(path[:k + 1], g, st)
            s1 = s1 + [(p1[0] + st.offset * g.pitch, p1[1] + st.offset * g.pitch)]
            s2 = [(p2[0] + st.offset * g.pitch, p2[1] + st.offset * g.pitch)] + polyline_points(path[k + 1:], g, st)
            label = "gap_6px" if gap_px <= 6.0 else "gap_quarter_cell"
            add(label, st, False, draw_lines(img_a, [s1, s2], st, g))
        # through a wall: a straight shortcut between two path cells with a wall between them
        sc = _wall_shortcut(grid_a, path)
        if sc:
            i, j = sc
            add("through_wall_shortcut", st, False,
                draw_lines(img_a, [polyline_points(path[:i + 1] + path[j:], g, st)], st, g))
        # straight along the start's row, then down the end's column (when that crosses a wall)
        ell = [(start[0], c) for c in range(start[1], goal[1] + 1)] + [(r, goal[1]) for r in range(start[0] + 1, goal[0] + 1)]
        if any(grid_a[r][c] for r, c in ell):
            add("straight_across_walls", st, False,
                draw_lines(img_a, [[g.centre(start), (g.centre(goal)[0], g.centre(start)[1]), g.centre(goal)]], st, g))
        # to the wrong end: from the start to a dead end off the solution
        ends = _dead_ends(grid_a, path)
        if ends:
            dead = ends[rng.randrange(len(ends))]
            add("to_wrong_end", st, False,
                draw_lines(img_a, [polyline_points(bfs_path(grid_a, start, dead), g, st)], st, g))
        # the right path, plus the maze altered
        walls = [(r, c) for r in range(1, n - 1) for c in range(1, n - 1)
                 if grid_a[r][c] and not any(abs(r - pr) + abs(c - pc) <= 1 for pr, pc in path)]
        opens = [(r, c) for r in range(1, n - 1) for c in range(1, n - 1)
                 if not grid_a[r][c] and (r, c) not in path]
        drawn = draw_lines(img_a, [full], st, g)
        if walls:
            w = walls[rng.randrange(len(walls))]
            add("wall_erased", st, False, paint_cell_part(drawn, g, w, (255, 255, 255)))
            add("wall_half_erased", st, False, paint_cell_part(drawn, g, w, (255, 255, 255), (0.0, 0.0, 1.0, 0.55)))
        if opens:
            o = opens[rng.randrange(len(opens))]
            add("wall_added", st, False, paint_cell_part(drawn, g, o, WALL_BLUE))
            add("wall_half_added", st, False, paint_cell_part(drawn, g, o, WALL_BLUE, (0.0, 0.0, 0.55, 1.0)))
        # the right path plus scribbles over cells off the path
        if len(opens) >= 2:
            o1, o2 = rng.sample(opens, 2)
            scr = [g.centre(o1), _toward(g.centre(o1), g.centre(o2), 0.3)]
            add("scribble_off_path", st, False, draw_lines(drawn, [full, scr], st, g))
        # the infeasible map: the feasible solution drawn anyway (through the cut)
        add("infeasible_path_drawn", st, False, draw_lines(img_b, [full], st, g), on="B")
    for st in OFF_COLOUR_STYLES:
        add("wrong_colour_path", st, False, draw_lines(img_a, [polyline_points(path, g, st)], st, g))
    nothing = Style("none", "pil", 1, RED)
    add("unchanged", nothing, False, img_a.copy())
    add("infeasible_unchanged", nothing, False, img_b.copy(), on="B")
    return out
