"""Third independent renderer for auditing the DoD maze verifier (issue 26, item 3).

Written from the task's meaning only: it shares no code with ``lmms_plugins.tasks.dod.maze`` or
with the renderers of rounds 1 and 2.  It draws the way other tools draw:

* ``cv2_aa`` / ``cv2_8``: OpenCV ``cv2.polylines`` (round caps and joins), anti-aliased or not,
  sub-pixel vertices (``shift=4``);
* ``pil``: Pillow ``ImageDraw.line`` (butt ends; square caps by lengthening, round caps by a
  disc; mitre-less or ``joint="curve"`` joins);
* ``pil_ss``: the same on a 4x canvas, reduced with BOX or LANCZOS (supersampled anti-aliasing);

at 0.15-1.0 of the pitch, in pure, orange and dark reds, some semi-transparent, over the
package's own maps (``make-data dod-maze``), and hands each drawing back as PNG, JPEG (Pillow or
OpenCV), rescaled (Pillow or OpenCV resamplers) or rescaled + JPEG.

The grid is placed from the image alone (the green start and red goal squares give the origin
and the pitch); walls, start and goal come from the record's ``grid_evidence``.  Every case is
labelled by construction: ``expect_ok`` is what the drawing means, never what a verifier says.
"""

from __future__ import annotations

import io
import random
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

REDS = {
    "red": (255, 0, 0), "dc2626": (220, 38, 38), "crimson": (220, 20, 60), "orangered": (255, 69, 0),
    "firebrick": (178, 34, 34), "darkred": (139, 0, 0), "tomato": (235, 60, 40), "maroonish": (150, 20, 20),
}
ENGINES = ("cv2_aa", "cv2_8", "pil", "pil_ss")


@dataclass
class Case:
    cls: str
    on: str                      # "A" (feasible map) or "B" (infeasible map)
    pen: str                     # engine/cap/colour/width/alpha, for the report
    image: Image.Image
    expect_ok: bool
    forms: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)


@dataclass
class Pen:
    engine: str
    cap: str                     # "round" | "square" | "butt"
    colour: str
    width: float                 # fraction of the pitch
    alpha: float = 1.0
    joint: str | None = None

    def ext(self) -> float:
        """How far (fraction of the pitch) the stroke reaches past its last vertex."""
        return 0.0 if self.cap == "butt" else self.width / 2

    def name(self) -> str:
        a = "" if self.alpha >= 1 else f"/a{self.alpha:.2f}"
        return f"{self.engine}/{self.cap}/{self.colour}/w{self.width:.2f}{a}"


# ---------------------------------------------------------------- grid placement and maze logic

def _box(arr, rgb, tol=40):
    m = (np.abs(arr.astype(int) - np.array(rgb)).max(axis=2) <= tol)
    ys, xs = np.nonzero(m)
    return xs.min(), ys.min(), xs.max(), ys.max()


class Grid:
    """Pixel placement of the cells, read from the green and red squares of the input image."""

    def __init__(self, image: Image.Image, evidence: dict):
        arr = np.asarray(image.convert("RGB"))
        self.walls = np.array(evidence["grid"], dtype=bool)
        self.n = self.walls.shape[0]
        self.start, self.goal = tuple(evidence["start"]), tuple(evidence["goal"])
        gx0, gy0, gx1, gy1 = _box(arr, (34, 197, 94))
        rx0, ry0, rx1, ry1 = _box(arr, (239, 68, 68))
        self.c0 = np.array([(gx0 + gx1 + 1) / 2, (gy0 + gy1 + 1) / 2])   # start centre (x, y)
        c1 = np.array([(rx0 + rx1 + 1) / 2, (ry0 + ry1 + 1) / 2])
        d = np.array([self.goal[1] - self.start[1], self.goal[0] - self.start[0]], dtype=float)
        self.pitch = float(np.mean((c1 - self.c0) / d))

    def centre(self, rc) -> np.ndarray:
        """(x, y) pixel centre of cell (row, col); fractional cells allowed."""
        r, c = rc
        return self.c0 + self.pitch * np.array([c - self.start[1], r - self.start[0]], dtype=float)

    def open(self, rc) -> bool:
        r, c = rc
        return 0 <= r < self.n and 0 <= c < self.n and not self.walls[r, c]

    def wall(self, rc) -> bool:
        r, c = rc
        return 0 <= r < self.n and 0 <= c < self.n and bool(self.walls[r, c])

    def bfs(self, a, b):
        prev = {a: None}
        q = deque([a])
        while q:
            cur = q.popleft()
            if cur == b:
                break
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (cur[0] + dr, cur[1] + dc)
                if self.open(nxt) and nxt not in prev:
                    prev[nxt] = cur
                    q.append(nxt)
        if b not in prev:
            return None
        out, cur = [], b
        while cur is not None:
            out.append(cur)
            cur = prev[cur]
        return out[::-1]


# ---------------------------------------------------------------- drawing engines

def _lengthen(pts, d):
    """Extend both ends of a polyline by d pixels along its end segments (square caps)."""
    pts = [np.asarray(p, float) for p in pts]
    if d <= 0 or len(pts) < 2:
        return pts
    for i, j in ((0, 1), (-1, -2)):
        v = pts[i] - pts[j]
        L = np.hypot(*v)
        if L > 0:
            pts[i] = pts[i] + v / L * d
    return pts


def _pil_stroke(img, pts, w, rgb, cap, joint, scale=1):
    dr = ImageDraw.Draw(img)
    pts = [np.asarray(p, float) * scale for p in pts]
    wpx = max(1, round(w * scale))
    if cap == "square":
        pts = _lengthen(pts, wpx / 2)
    dr.line([tuple(p) for p in pts], fill=rgb, width=wpx, joint=joint)
    if cap == "round":
        r = wpx / 2
        for p in (pts[0], pts[-1]):
            dr.ellipse([p[0] - r, p[1] - r, p[0] + r, p[1] + r], fill=rgb)


def stroke(base: Image.Image, polylines, pen: Pen, pitch: float, rng: random.Random) -> Image.Image:
    """Draw each polyline (list of (x, y) px) with the pen; returns a new RGB image."""
    import cv2

    w = pen.width * pitch
    rgb = REDS[pen.colour]
    if pen.engine.startswith("cv2"):
        arr = np.array(base.convert("RGB"))
        lt = cv2.LINE_AA if pen.engine == "cv2_aa" else cv2.LINE_8
        for pl in polylines:
            p = np.round(np.array(pl, float) * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(arr, [p], False, rgb, thickness=max(1, round(w)), lineType=lt, shift=4)
        over = Image.fromarray(arr)
    elif pen.engine == "pil":
        over = base.convert("RGB").copy()
        for pl in polylines:
            _pil_stroke(over, pl, w, rgb, pen.cap, pen.joint)
    else:   # pil_ss: 4x supersampled, then reduced
        big = base.convert("RGB").resize((base.width * 4, base.height * 4), Image.NEAREST)
        for pl in polylines:
            _pil_stroke(big, pl, w, rgb, pen.cap, pen.joint, scale=4)
        over = big.resize(base.size, rng.choice([Image.BOX, Image.LANCZOS]))
    if pen.alpha < 1:
        over = Image.blend(base.convert("RGB"), over, pen.alpha)
    return over


# ---------------------------------------------------------------- output forms

FORMS = ("png", "jpeg_pil", "jpeg_cv2", "rescale", "rescale_jpeg")


def pick_forms(rng: random.Random, pitch: float, k: int = 3):
    """k forms: PNG always, then JPEG / rescale / rescale+JPEG with their parameters fixed here."""
    out = ["png"]
    smin = max(0.45, 10.0 / pitch)          # never under 10 px per cell
    while len(out) < k:
        kind = rng.choice(FORMS[1:])
        q = rng.choice([50, 60, 70, 80, 90])
        s = rng.choice([x for x in (0.5, 0.6, 0.7, 0.8, 1.25, 1.5) if x >= smin] or [1.25])
        rs = rng.choice(["bilinear", "bicubic", "lanczos", "box", "cv2_area", "cv2_linear"])
        f = {"jpeg_pil": f"jpeg_pil{q}", "jpeg_cv2": f"jpeg_cv2{q}", "rescale": f"rescale{s}_{rs}",
             "rescale_jpeg": f"rescale{s}_{rs}+jpeg_pil{q}"}[kind]
        if f not in out:
            out.append(f)
    return out


def finish(img: Image.Image, form: str) -> Image.Image:
    """Apply a form name made by ``pick_forms``."""
    for step in form.split("+"):
        if step == "png":
            buf = io.BytesIO()
            img.save(buf, "PNG")
            img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
        elif step.startswith("jpeg_pil"):
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=int(step[8:]))
            img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
        elif step.startswith("jpeg_cv2"):
            import cv2
            _ok, enc = cv2.imencode(".jpg", np.asarray(img)[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(step[8:])])
            img = Image.fromarray(cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy())
        elif step.startswith("rot"):         # quarter turns counter-clockwise (the input turns too)
            img = img.rotate(90 * int(step[3:]), expand=True)
        elif step.startswith("rescale"):
            s, rs = step[7:].split("_", 1)
            size = (max(1, round(img.width * float(s))), max(1, round(img.height * float(s))))
            if rs.startswith("cv2"):
                import cv2
                interp = cv2.INTER_AREA if rs == "cv2_area" else cv2.INTER_LINEAR
                img = Image.fromarray(cv2.resize(np.asarray(img), size, interpolation=interp))
            else:
                img = img.resize(size, {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC,
                                        "lanczos": Image.LANCZOS, "box": Image.BOX}[rs])
        else:
            raise ValueError(form)
    return img


def turn_input(img: Image.Image, form: str) -> Image.Image:
    """The input as the verifier must see it for this form: turned when the form turns."""
    for step in form.split("+"):
        if step.startswith("rot"):
            img = img.rotate(90 * int(step[3:]), expand=True)
    return img


def final_pitch(pitch: float, form: str) -> float:
    s = 1.0
    for step in form.split("+"):
        if step.startswith("rescale"):
            s *= float(step[7:].split("_")[0])
    return pitch * s


# ---------------------------------------------------------------- cases

def _pen(rng, wlo, whi, engines=ENGINES, caps=("round", "square", "butt"), alpha=True, colours=None):
    eng = rng.choice(engines)
    cap = "round" if eng.startswith("cv2") else rng.choice(caps)
    a = rng.choice([1.0, 1.0, 1.0, 0.85, 0.7]) if alpha else 1.0
    return Pen(eng, cap, rng.choice(colours or list(REDS)), rng.uniform(wlo, whi), a,
               rng.choice([None, "curve"]))


def _pts(g: Grid, cells, shift=(0.0, 0.0)):
    return [g.centre((r + shift[0], c + shift[1])) for r, c in cells]


def _straight_runs(path, length):
    """(i, j, axis) for runs path[i..j] on one row (axis 0) or column (axis 1) with j - i >= length."""
    out, i = [], 0
    while i < len(path) - 1:
        axis = 0 if path[i][0] == path[i + 1][0] else 1
        j = i + 1
        while j + 1 < len(path) and path[j + 1][axis] == path[i][axis]:
            j += 1
        if j - i >= length:
            out.append((i, j, axis))
        i = j
    return out


def _wall_chords(g: Grid, path):
    """(i, j, wall cells) for path cells i < j - 2 two apart in a line with a wall between."""
    idx = {c: k for k, c in enumerate(path)}
    out = []
    for i, (r, c) in enumerate(path):
        for dr, dc in ((2, 0), (-2, 0), (0, 2), (0, -2)):
            j = idx.get((r + dr, c + dc))
            mid = (r + dr // 2, c + dc // 2)
            if j is not None and j > i + 2 and g.wall(mid):
                out.append((i, j, [mid]))
    return out


def _diag_chords(g: Grid, path):
    """(i, j, walls) for path cells i < j - 2 a knight's move or a 2-diagonal apart whose
    centre-to-centre chord runs inside a wall cell for at least 0.35 of the pitch (inset 0.1)."""
    idx = {c: k for k, c in enumerate(path)}
    out = []
    for i, (r, c) in enumerate(path):
        for dr, dc in ((1, 2), (2, 1), (2, 2), (-1, 2), (-2, 1), (-2, 2), (1, -2), (2, -1), (2, -2),
                       (-1, -2), (-2, -1), (-2, -2)):
            j = idx.get((r + dr, c + dc))
            if j is None or j <= i + 2:
                continue
            inside = {}
            for t in np.linspace(0, 1, 201):
                y, x = r + dr * t, c + dc * t
                cell = (int(np.floor(y + 0.5)), int(np.floor(x + 0.5)))
                fy, fx = y + 0.5 - cell[0], x + 0.5 - cell[1]
                if g.wall(cell) and 0.1 <= fy <= 0.9 and 0.1 <= fx <= 0.9:
                    inside[cell] = inside.get(cell, 0) + np.hypot(dr, dc) / 200
            walls = [w for w, L in inside.items() if L >= 0.35]
            if walls:
                out.append((i, j, walls))
    return out


def _turns(g: Grid, path):
    """(k, inner wall) for turns path[k-1] -> path[k] -> path[k+1] whose inner corner cell is wall."""
    out = []
    for k in range(1, len(path) - 1):
        a, b, d = path[k - 1], path[k], path[k + 1]
        if a[0] != d[0] and a[1] != d[1]:
            inner = (a[0] + d[0] - b[0], a[1] + d[1] - b[1])
            if g.wall(inner):
                out.append((k, inner))
    return out


def _wall_runs(g: Grid, length=2):
    """Horizontal / vertical runs of >= length wall cells, each (cells, axis), inner walls only."""
    out = []
    for axis in (0, 1):
        for a in range(1, g.n - 1):
            run = []
            for b in range(1, g.n - 1):
                rc = (a, b) if axis == 0 else (b, a)
                if g.wall(rc):
                    run.append(rc)
                else:
                    if len(run) >= length:
                        out.append((run, axis))
                    run = []
            if len(run) >= length:
                out.append((run, axis))
    return out


def cases(ev_a: dict, img_a: Image.Image, ev_b: dict, img_b: Image.Image, seed: int, forms_per_case: int = 3):
    """Every case for one pair, reproducible from the seed."""
    rng = random.Random(seed)
    g = Grid(img_a, ev_a)
    gb = Grid(img_b, ev_b)
    path = g.bfs(g.start, g.goal)
    P = g.pitch
    out = []

    def add(cls, on, pen, polylines, expect_ok, base=None, grid=None, **meta):
        gg = grid or (g if on == "A" else gb)
        img = stroke(base or (img_a if on == "A" else img_b), polylines, pen, gg.pitch, rng)
        out.append(Case(cls, on, pen.name(), img, expect_ok, pick_forms(rng, P, forms_per_case), meta))

    full = _pts(g, path)

    # ---- correct drawings
    for _ in range(6):                                   # through the centres, any pen
        add("valid_centres", "A", _pen(rng, 0.15, 0.9), [full], True)
    for _ in range(3):                                   # off-centre by a constant shift inside the corridor
        pen = _pen(rng, 0.15, 0.45)
        room = 0.42 - pen.width / 2
        sh = (rng.uniform(-room, room), rng.uniform(-room, room))
        add("valid_offset", "A", pen, [_pts(g, path, sh)], True, shift=sh)
    for _ in range(3):                                   # a round cap in orange / dark red over the start
        pen = _pen(rng, 0.4, 0.55, engines=("cv2_aa", "pil_ss", "pil"), caps=("round",),
                   colours=["orangered", "darkred", "tomato", "firebrick"])
        add("valid_cap_over_start", "A", pen, [full], True)
    for _ in range(2):                                   # a thick stroke reaching past both endpoints' centres
        pen = _pen(rng, 0.6, 0.85, alpha=False)
        e = min(0.2, 0.45 - pen.ext())                   # the cap stays inside the endpoint cell
        a, b = path[0], path[1]
        z, y = path[-1], path[-2]
        pts = ([g.centre((a[0] - e * (b[0] - a[0]), a[1] - e * (b[1] - a[1])))] + full[1:-1]
               + [g.centre((z[0] - e * (y[0] - z[0]), z[1] - e * (y[1] - z[1])))])
        add("valid_covers_endpoints", "A", pen, [pts], True)
    add("valid_full_width", "A", _pen(rng, 0.96, 1.0, engines=("pil",), caps=("butt",), alpha=False), [full], True)

    # ---- one cell short (thick and thin; the gap to the endpoint cell is 0.5 - ext of the pitch)
    for end in ("end", "start", "end", "start"):
        for lo, hi, cls in ((0.7, 0.88, "thick_one_cell_short"), (0.15, 0.35, "thin_one_cell_short")):
            pen = _pen(rng, lo, hi, alpha=False)
            if 0.5 - pen.ext() < 0.06:                   # would touch the endpoint cell: not short
                pen.width = 2 * (0.5 - 0.06)
            pts = full[:-1] if end == "end" else full[1:]
            add(f"{cls}_at_{end}", "A", pen, [pts], False, gap=0.5 - pen.ext())

    # ---- thin strokes through walls
    chords = _wall_chords(g, path)
    rng.shuffle(chords)
    for i, j, walls in chords[:3]:
        pen = _pen(rng, 0.15, 0.35)
        off = rng.uniform(-0.3, 0.3)                     # off the wall's centre line, still through it
        d = np.array(path[j]) - np.array(path[i])
        perp = np.array([d[1], d[0]]) / 2 * off          # (row, col) offset across the chord
        a = g.centre((path[i][0] + perp[0], path[i][1] + perp[1]))
        b = g.centre((path[j][0] + perp[0], path[j][1] + perp[1]))
        add("thin_cut_wall_loop", "A", pen, [full, [a, b]], False, walls=walls)        # path + chord
        pen2 = _pen(rng, 0.15, 0.35)
        add("thin_cut_wall_shortcut", "A", pen2, [full[:i + 1] + [a, b] + full[j:]], False, walls=walls)
    for i, j, walls in _diag_chords(g, path)[:3]:
        pen = _pen(rng, 0.15, 0.35)
        add("thin_diagonal_through_wall", "A", pen, [full, [full[i], full[j]]], False, walls=walls)
    turns = _turns(g, path)
    rng.shuffle(turns)
    for k, inner in turns[:3]:                           # a corner cut bowing 0.15-0.35 into the inner wall
        pen = _pen(rng, 0.2, 0.35)
        kpt = (np.array(path[k - 1]) + np.array(path[k + 1])) / 2    # the corner the four cells share
        depth = rng.uniform(0.15, 0.35)                  # how far the centre line goes into the wall, per axis
        tip = kpt + (np.array(inner) - kpt) * (depth / 0.5)
        add("thin_clip_wall_corner", "A", pen, [full, [g.centre(path[k - 1]), g.centre(tuple(tip)),
                                                       g.centre(path[k + 1])]], False, walls=[inner], depth=depth)
    runs = _straight_runs(path, 2)
    rng.shuffle(runs)
    n_in = 0
    for i, j, axis in runs:                              # a stretch of the route moved inside the wall beside it
        for side in (1, -1):
            side_cells = [(r + side, c) if axis == 0 else (r, c + side) for r, c in path[i:j + 1]]
            if all(g.wall(s) for s in side_cells[1:-1]) and n_in < 3:
                pen = _pen(rng, 0.15, 0.3)
                lo, hi = 0.5 + pen.width / 2 + 0.06, 1.5 - pen.width / 2 - 0.06
                o = side * rng.uniform(lo, min(hi, 1.25))
                sh = (o, 0.0) if axis == 0 else (0.0, o)
                seg = _pts(g, path[i:j + 1], sh)
                add("thin_route_inside_wall", "A", pen, [full[:i + 1] + seg + full[j:]], False, offset=o)
                add("thin_route_inside_wall_loop", "A", _pen(rng, 0.15, 0.3), [full, [full[i]] + seg + [full[j]]],
                    False, offset=o)
                n_in += 1
                break
    wruns = _wall_runs(g, 2)
    rng.shuffle(wruns)
    for cells, axis in wruns[:3]:                        # a separate thin line lying inside a wall, off its centre line
        pen = _pen(rng, 0.15, 0.3)
        room = 0.5 - pen.width / 2 - 0.08
        o = rng.choice([-1, 1]) * rng.uniform(0.1, room)
        a, b = cells[0], cells[-1]
        sh = (o, 0.0) if axis == 0 else (0.0, o)
        ends = [(a[0] + sh[0] - (0.2 if axis == 1 else 0), a[1] + sh[1] - (0.2 if axis == 0 else 0)),
                (b[0] + sh[0] + (0.2 if axis == 1 else 0), b[1] + sh[1] + (0.2 if axis == 0 else 0))]
        add("thin_line_inside_wall_extra", "A", pen, [full, [g.centre(e) for e in ends]], False, offset=o)
    for _ in range(2):                                   # the route drawn along the cells' borders (through corners)
        pen = _pen(rng, 0.15, 0.3)
        sh = (rng.choice([-0.5, 0.5]), rng.choice([-0.5, 0.5]))
        add("thin_route_on_cell_borders", "A", pen, [_pts(g, path, sh)], False, shift=sh)
    # the feasible solution drawn over the infeasible map: a thin stroke through the cut wall
    for _ in range(2):
        add("infeasible_solved_thin", "B", _pen(rng, 0.15, 0.35), [_pts(gb, path)], False)

    # ---- other wrong drawings
    for _ in range(2):                                   # a gap of 0.2-0.4 of the pitch
        pen = _pen(rng, 0.15, 0.6, alpha=False)
        k = rng.randrange(1, len(path) - 2)
        gap = rng.uniform(0.2, 0.4) + 2 * pen.ext()    # centre-line gap; what shows is 0.2-0.4
        a, b = np.array(path[k], float), np.array(path[k + 1], float)
        mid = (a + b) / 2
        u = (b - a)
        p1, p2 = mid - u * gap / 2, mid + u * gap / 2
        add("gap", "A", pen, [full[:k + 1] + [g.centre(tuple(p1))], [g.centre(tuple(p2))] + full[k + 1:]], False,
            gap=gap - 2 * pen.ext())
    arr = np.array(img_a)                               # a wall erased (painted white) under a correct path
    wall_cells = [(r, c) for r in range(1, g.n - 1) for c in range(1, g.n - 1) if g.wall((r, c))]
    w = rng.choice(wall_cells)
    x, y = g.centre(w)
    h = P / 2
    arr[int(y - h + 1):int(y + h), int(x - h + 1):int(x + h)] = 255
    add("wall_erased", "A", _pen(rng, 0.2, 0.5), [full], False, base=Image.fromarray(arr))
    return out
