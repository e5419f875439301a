"""Reading a maze grid from pixels: size n x n (outer wall included), cell pitch and origin, walls,
passages, the green start and the red end.

No pixel size, margin, label or border is assumed.  The steps:

1. every pixel gets a colour class by hue (opponent-colour angle) and chroma, so anti-aliasing,
   JPEG and small palette shifts keep their class: light-blue wall, green, red, the path colour
   (merged with red or green when it has their hue), neutral light (passage, borders,
   background), dark (labels, text), other;
2. the maze box is where the wall class fills at least half of the fullest column / row (the
   outer wall is a solid ring, so its outer columns and rows are the fullest; labels, stray marks
   and margins stay far below);
3. n is the smallest size >= 5 for which 3 x 3 samples around every cell centre agree and the
   outer ring is wall (multiples of the true n also agree, divisors do not);
4. each cell's class is the majority of its central 60 % (borders and anti-aliased edges left out).

``grid_evidence`` (the official record of the grid) can fix n and is compared cell by cell; a
mismatch is reported, after trying the 8 rotations/reflections of the record.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

Cell = tuple[int, int]

# colour classes
OPEN, WALL, GREEN, RED, PATH, DARK, OTHER = range(7)
CLASS_NAMES = ("open", "wall", "green", "red", "path", "dark", "other")
N_CLASSES = 7

WALL_RGB = (173, 216, 230)
GREEN_RGB = (34, 197, 94)
RED_RGB = (239, 68, 68)
DEFAULT_PATH_RGB = (220, 38, 38)

CHROMA_MIN = 22.0  # below: neutral (white, grey borders, black text); the wall colour has ~51
HUE_TOLERANCE_DEG = 25.0  # wall (194 deg), green (141), red (0): the windows do not overlap
WALL_MIN_LUMA = 150.0  # the wall blue is light; dark slate text of similar hue is not a wall
SAME_HUE_DEG = 20.0  # a path colour this close to red / green shares their class
INSET = 0.2  # each side of a cell left out when measuring it
WIDE_INSET = 0.1  # the wider measure of a passage (+ 1 px): a line may run along one side of its corridor
MIN_N = 5
MIN_PITCH_PX = 3  # a cell needs a few pixels to carry a colour and a line
MAX_N = 151
PURITY_MIN = 0.97
RING_WALL_KNOWN_N = 0.9
ENDPOINT_FILL = 0.75  # an endpoint cell is filled with its colour; a drawn line covers less
WORK_SIDE = 192  # images are box-reduced to about this size: a cell needs only ~8-12 px
MIN_WORK_PITCH = 7.0  # finer reduction when cells come out smaller than this
MAX_PIXELS = 40_000_000  # refuse to decode more than this (a verdict, not a memory error)


class UnreadableGrid(ValueError):
    """The image does not show a readable maze; the message says why."""


def _hue(rgb) -> float:
    return _hue_of(*(float(v) for v in rgb))


@functools.lru_cache(maxsize=256)  # a handful of colours, asked for on every verification
def _hue_of(r: float, g: float, b: float) -> float:
    import math

    return math.degrees(math.atan2(0.8660254 * (g - b), r - 0.5 * (g + b))) % 360


def _hue_diff(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


def path_class(path_color: Sequence[int]) -> int:
    """The class path pixels of this colour fall in (RED or GREEN when they share the hue)."""
    return _path_class_of(_hue(path_color))


@functools.lru_cache(maxsize=256)
def _path_class_of(h: float) -> int:
    if _hue_diff(h, _hue(RED_RGB)) <= SAME_HUE_DEG:
        return RED
    if _hue_diff(h, _hue(GREEN_RGB)) <= SAME_HUE_DEG:
        return GREEN
    return PATH


def open_rgb(image: Any, *, allow_draft: bool = True):
    """A decoded RGB PIL image from a path or a PIL image of any mode (RGBA is composited on
    white, grayscale and palettes converted).  JPEGs larger than needed are decoded at reduced
    size.  Raises UnreadableGrid with the reason for a missing, corrupt, tiny or oversized image.
    """
    from PIL import Image

    try:
        img = image if isinstance(image, Image.Image) else Image.open(image)
        w, h = img.size
        if w * h > MAX_PIXELS:
            raise UnreadableGrid(f"image too large: {w}x{h} px (limit {MAX_PIXELS} px)")
        if w < 8 or h < 8:
            raise UnreadableGrid(f"image too small: {w}x{h} px")
        if allow_draft and img.format == "JPEG" and max(w, h) > 4 * WORK_SIDE:
            img.draft("RGB", (w // 2, h // 2))  # JPEG decodes at 1/2 size (still 2x the working size)
        if img.mode in ("RGBA", "LA", "PA", "RGBa") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            img = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba)
        if img.mode != "RGB":
            img = img.convert("RGB")
        img.load()
    except UnreadableGrid:
        raise
    except (OSError, ValueError, SyntaxError, TypeError, Image.DecompressionBombError) as exc:
        raise UnreadableGrid(f"cannot read image: {type(exc).__name__}: {exc}") from None
    return img, (w, h)


def working_array(img, factor: int):
    """The image box-reduced by ``factor`` as a uint8 array (box averaging keeps thin lines as
    paler pixels of the same hue, which the classes tolerate)."""
    import numpy as np

    return np.asarray(img.reduce(factor) if factor > 1 else img)


def classify(arr, path_color: Sequence[int] = DEFAULT_PATH_RGB):
    """Colour class (uint8 H x W) of every pixel; see the module docstring."""
    import numpy as np

    f = arr.astype(np.float32)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    a, q, chroma2 = _opponent(f)
    luma = r + g + b  # x 3
    coloured = chroma2 >= CHROMA_MIN * CHROMA_MIN

    def near(hue_deg: float):
        return _near(a, q, chroma2, coloured, hue_deg)

    labels = np.full(arr.shape[:2], OTHER, dtype=np.uint8)
    labels[~coloured] = DARK
    labels[~coloured & (luma >= 3 * 128)] = OPEN
    labels[near(_hue(GREEN_RGB))] = GREEN
    labels[near(_hue(RED_RGB))] = RED
    wall = near(_hue(WALL_RGB)) & (luma >= 3 * WALL_MIN_LUMA)
    if path_class(path_color) == PATH:
        path = near(_hue(path_color))
        if _hue_diff(_hue(path_color), _hue(WALL_RGB)) < 2 * HUE_TOLERANCE_DEG:
            # a path hue near the wall's (blue): the light wall has far less chroma than a line
            cut = 0.5 * (_chroma(WALL_RGB) + _chroma(path_color))
            strong = chroma2 >= cut * cut
            wall &= ~(path & strong)
            path &= strong | ~wall
        labels[path] = PATH
    labels[wall] = WALL
    return labels


def _opponent(f):
    """Opponent-colour axes and squared chroma of a float RGB array."""
    a = f[..., 0] - 0.5 * (f[..., 1] + f[..., 2])
    q = 0.8660254 * (f[..., 1] - f[..., 2])
    return a, q, a * a + q * q


def _near(a, q, chroma2, coloured, hue_deg: float):
    import math

    h = math.radians(hue_deg)
    dot = a * math.cos(h) + q * math.sin(h)
    return coloured & (dot > 0) & (dot * dot >= math.cos(math.radians(HUE_TOLERANCE_DEG)) ** 2 * chroma2)


def class_mask(arr, cls: int, path_color: Sequence[int] = DEFAULT_PATH_RGB):
    """``classify(arr, path_color) == cls`` for green, red or ``path_class(path_color)``, and the
    squared chroma, without computing the other classes (the hue windows of green, red and the wall do
    not overlap; a path hue near the wall's needs the full classification)."""
    import numpy as np

    arr = np.asarray(arr)
    f = arr.astype(np.float32)
    a, q, chroma2 = _opponent(f)
    if cls == PATH and _hue_diff(_hue(path_color), _hue(WALL_RGB)) < 2 * HUE_TOLERANCE_DEG:
        labels = classify(arr[None] if arr.ndim == 2 else arr, path_color)  # (pixels, 3) or (h, w, 3)
        return labels.reshape(arr.shape[:-1]) == PATH, chroma2
    if cls not in (GREEN, RED, PATH):
        raise ValueError(f"class_mask: not a line colour class: {cls}")
    hue = {GREEN: _hue(GREEN_RGB), RED: _hue(RED_RGB)}.get(cls, _hue(path_color))
    mask = _near(a, q, chroma2, chroma2 >= CHROMA_MIN * CHROMA_MIN, hue)
    if cls != PATH and path_class(path_color) == PATH:  # path pixels take precedence over red / green
        mask &= ~_near(a, q, chroma2, chroma2 >= CHROMA_MIN * CHROMA_MIN, _hue(path_color))
    return mask, chroma2


def _chroma(rgb) -> float:
    import math

    r, g, b = (float(v) for v in rgb)
    return math.hypot(r - 0.5 * (g + b), 0.8660254 * (g - b))


@dataclass(frozen=True)
class GridBox:
    """Where the n x n grid lies in an image: cell (r, c) spans x0 + c*pitch_x ... (floats)."""

    n: int
    x0: float
    y0: float
    pitch_x: float
    pitch_y: float

    def centre(self, cell: Cell) -> tuple[float, float]:
        r, c = cell
        return self.x0 + (c + 0.5) * self.pitch_x, self.y0 + (r + 0.5) * self.pitch_y

    def scaled(self, s: float) -> "GridBox":
        return GridBox(self.n, self.x0 * s, self.y0 * s, self.pitch_x * s, self.pitch_y * s)


@dataclass(frozen=True)
class MazeGeometry:
    """A maze read from an image. Coordinates are in the original image's pixels."""

    box: GridBox
    grid: tuple[tuple[int, ...], ...]  # 1 = wall, 0 = open (start and end included)
    start: Cell
    goal: Cell
    image_size: tuple[int, int]
    fractions: Any = field(compare=False, repr=False, default=None)  # (n, n, classes) of the input
    wide_fractions: Any = field(compare=False, repr=False, default=None)  # the same, see wide_fractions

    @property
    def n(self) -> int:
        return self.box.n


def wall_box(labels) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) (exclusive ends) of the solid outer wall, or None."""
    import numpy as np

    wall = labels == WALL
    cols = wall.sum(axis=0)
    rows = wall.sum(axis=1)
    if cols.max(initial=0) < 8 or rows.max(initial=0) < 8:
        return None
    xs = np.flatnonzero(cols >= 0.5 * cols.max())
    ys = np.flatnonzero(rows >= 0.5 * rows.max())
    return int(xs[0]), int(ys[0]), int(xs[-1]) + 1, int(ys[-1]) + 1


def _samples(labels, box: GridBox):
    """Labels at 3 x 3 points around every cell centre: array (n, 3, n, 3)."""
    import numpy as np

    h, w = labels.shape
    offs = np.array([-0.25, 0.0, 0.25])
    idx = np.arange(box.n)[:, None] + 0.5 + offs[None, :]
    xs = np.clip((box.x0 + idx * box.pitch_x).astype(int), 0, w - 1)
    ys = np.clip((box.y0 + idx * box.pitch_y).astype(int), 0, h - 1)
    return labels[ys[:, :, None, None], xs[None, None, :, :]]


def _ring(n: int):
    import numpy as np

    m = np.zeros((n, n), dtype=bool)
    m[0, :] = m[-1, :] = m[:, 0] = m[:, -1] = True
    return m


def find_box(labels, n: int | None = None, wildcard: int | None = None, relaxed: bool = False) -> tuple[GridBox, dict]:
    """The grid box (searching n when not given). Raises UnreadableGrid.

    Samples of class ``wildcard`` (the path colour) are ignored when judging a cell uniform, so
    a maze with a path drawn on it is read too."""
    import numpy as np

    wb = wall_box(labels)
    if wb is None:
        raise UnreadableGrid("no light-blue wall region found")
    x0, y0, x1, y1 = wb
    bw, bh = x1 - x0, y1 - y0
    if min(bw, bh) < 3 * MIN_N:
        raise UnreadableGrid(f"wall region too small ({bw}x{bh} px)")
    if not 0.8 <= bw / bh <= 1.25:
        raise UnreadableGrid(f"wall region is not square ({bw}x{bh} px)")
    if n and min(bw, bh) < MIN_PITCH_PX * n:
        raise UnreadableGrid(f"wall region {bw}x{bh} px is too small for {n}x{n} cells")
    candidates = [n] if n else range(MIN_N, min(MAX_N, min(bw, bh) // 4) + 1)
    tried = {}
    for k in candidates:
        box = GridBox(k, float(x0), float(y0), bw / k, bh / k)
        s = _samples(labels, box)
        flat = s.transpose(0, 2, 1, 3).reshape(k, k, 9)
        if wildcard is None:
            pure = (flat == flat[..., :1]).all(axis=-1)
        else:
            ref = np.where(flat == wildcard, 255, flat).min(axis=-1, keepdims=True)
            pure = ((flat == ref) | (flat == wildcard)).all(axis=-1)
        purity = float(pure.mean())
        ring_wall = float((flat[_ring(k)] == WALL).all(axis=-1).mean())
        tried[k] = (round(purity, 3), round(ring_wall, 3))
        if purity >= PURITY_MIN and ring_wall >= 0.95:
            return box, {"purity": purity, "ring_wall": ring_wall, "wall_box": wb}
        if n and relaxed:
            # a known n only needs the box confirmed; point samples fail on a noisy image, so
            # judge the outer ring by the majority of each cell's central part instead
            frac = cell_fractions(labels, box)
            ring = frac[_ring(k)][:, WALL]
            if float((ring >= 0.5).mean()) >= RING_WALL_KNOWN_N:
                return box, {"purity": purity, "ring_wall": float((ring >= 0.5).mean()), "wall_box": wb}
        if n:
            break
    best = max(tried.items(), key=lambda kv: kv[1])
    raise UnreadableGrid(
        f"no grid size fits the wall region {bw}x{bh} px"
        + (f" with n={n}" if n else "")
        + f" (best n={best[0]}: purity {best[1][0]}, outer ring wall {best[1][1]})"
    )


def cell_fractions(labels, box: GridBox, inset: float = INSET):
    """Share of each class in the central part of every cell: float array (n, n, classes)."""
    import numpy as np

    h, w = labels.shape
    n = box.n

    def bounds(o, p, limit):
        lo = np.floor(o + (np.arange(n) + inset) * p).astype(int)
        hi = np.ceil(o + (np.arange(n) + 1 - inset) * p).astype(int)
        lo = np.clip(lo, 0, limit - 1)
        hi = np.clip(np.maximum(hi, lo + 1), 1, limit)
        return lo, hi

    ylo, yhi = bounds(box.y0, box.pitch_y, h)
    xlo, xhi = bounds(box.x0, box.pitch_x, w)
    # each pixel row/column -> the cell band it lies in (-1 outside every cell's central part)
    row_of = np.full(h, -1, dtype=np.int64)
    col_of = np.full(w, -1, dtype=np.int64)
    for i in range(n):
        row_of[ylo[i]:yhi[i]] = i
        col_of[xlo[i]:xhi[i]] = i
    ys = np.flatnonzero(row_of >= 0)
    xs = np.flatnonzero(col_of >= 0)
    sub = labels[ys[0]:ys[-1] + 1, xs[0]:xs[-1] + 1]
    r = row_of[ys[0]:ys[-1] + 1][:, None]
    c = col_of[xs[0]:xs[-1] + 1][None, :]
    inside = (r >= 0) & (c >= 0)
    key = ((r * n + c) * N_CLASSES + sub)[inside]
    sums = np.bincount(key, minlength=n * n * N_CLASSES).reshape(n, n, N_CLASSES)
    area = sums.sum(axis=-1, keepdims=True)
    return sums / np.maximum(area, 1)


def locate(img, size: tuple[int, int], *, n: int | None, path_color, relaxed: bool = False) -> tuple[GridBox, Any, float, Any, Any]:
    """Grid box (in working pixels), cell fractions, the working->original scale, the cell
    fractions of ``wide_fractions`` and the working array with its colour classes (``(arr, labels)``)."""
    w, h = size
    factor = max(1, max(img.size) // WORK_SIDE)
    pcls = path_class(path_color)
    while True:
        arr = working_array(img, factor)
        labels = classify(arr, path_color)
        box, _info = find_box(labels, n, wildcard=pcls, relaxed=relaxed)
        if factor == 1 or min(box.pitch_x, box.pitch_y) >= MIN_WORK_PITCH:
            break
        factor = max(1, min(factor - 1, int(factor * min(box.pitch_x, box.pitch_y) / (2 * MIN_WORK_PITCH))))
        n = box.n
    return box, cell_fractions(labels, box), w / arr.shape[1], wide_fractions(labels, box), (arr, labels)


def wide_fractions(labels, box: GridBox):
    """Cell fractions over the central 80 %, less one more pixel on each side (the bands are
    rounded outwards, and a line ending at a cell's border must not show inside its neighbour)."""
    return cell_fractions(labels, box, WIDE_INSET + 1.0 / max(1.0, min(box.pitch_x, box.pitch_y)))


def read_geometry(image: Any, *, n: int | None = None, path_color: Sequence[int] = DEFAULT_PATH_RGB) -> MazeGeometry:
    """Read the maze of an input image (path or PIL). Raises UnreadableGrid with the reason."""
    import numpy as np

    img, size = open_rgb(image)
    box, frac, scale, wide, _work = locate(img, size, n=n, path_color=path_color)
    base = frac[..., [OPEN, WALL, GREEN, RED]].copy()
    pcls = path_class(path_color)
    # path-coloured pixels (a path already drawn) count as open, except in a filled endpoint cell
    if pcls == PATH:
        base[..., 0] += frac[..., PATH]
    else:
        k = 2 if pcls == GREEN else 3
        partial = base[..., k] < ENDPOINT_FILL
        base[..., 0] += np.where(partial, base[..., k], 0.0)
        base[..., k] = np.where(partial, 0.0, base[..., k])
    kind = base.argmax(axis=-1)
    share = base.max(axis=-1)
    unclear = [(int(r), int(c)) for r, c in zip(*np.nonzero(share < 0.5))]
    if unclear:
        raise UnreadableGrid(f"{len(unclear)} cell(s) of no clear colour, e.g. {unclear[:5]}")
    greens = [(int(r), int(c)) for r, c in zip(*np.nonzero(kind == 2))]
    reds = [(int(r), int(c)) for r, c in zip(*np.nonzero(kind == 3))]
    if len(greens) != 1:
        raise UnreadableGrid(f"expected one green start cell, found {len(greens)}")
    if len(reds) != 1:
        raise UnreadableGrid(f"expected one red end cell, found {len(reds)}")
    grid = tuple(tuple(int(v == 1) for v in row) for row in kind)
    return MazeGeometry(box=box.scaled(scale), grid=grid, start=greens[0], goal=reds[0],
                        image_size=size, fractions=frac, wide_fractions=wide)


# -- agreement with the official grid record ---------------------------------------------------

_TRANSFORMS = {
    "identity": lambda r, c, n: (r, c),
    "rot90": lambda r, c, n: (c, n - 1 - r),
    "rot180": lambda r, c, n: (n - 1 - r, n - 1 - c),
    "rot270": lambda r, c, n: (n - 1 - c, r),
    "flip_h": lambda r, c, n: (r, n - 1 - c),
    "flip_v": lambda r, c, n: (n - 1 - r, c),
    "transpose": lambda r, c, n: (c, r),
    "anti_transpose": lambda r, c, n: (n - 1 - c, n - 1 - r),
}


@dataclass(frozen=True)
class EvidenceCheck:
    agrees: bool
    transform: str | None  # how the record maps onto the image ("identity" normally)
    mismatches: tuple  # cells (image coordinates) that differ under the identity mapping
    problem: str = ""


def check_evidence(geom: MazeGeometry, evidence: dict) -> EvidenceCheck:
    """Compare the grid read from pixels with ``grid_evidence`` (grid, start, goal)."""
    try:
        grid = [[int(v) for v in row] for row in evidence["grid"]]
        start = tuple(int(v) for v in evidence.get("start") or ())
        goal = tuple(int(v) for v in evidence.get("goal") or ())
    except (KeyError, TypeError, ValueError) as exc:
        return EvidenceCheck(False, None, (), f"grid_evidence unreadable: {exc!r}")
    n = len(grid)
    if n != geom.n or any(len(row) != n for row in grid):
        return EvidenceCheck(False, None, (), f"grid_evidence is {n}x{len(grid[0]) if grid else 0}, image is {geom.n}x{geom.n}")
    first_mismatch: tuple = ()
    for name, t in _TRANSFORMS.items():
        mapped = [[0] * n for _ in range(n)]
        for r in range(n):
            for c in range(n):
                rr, cc = t(r, c, n)
                mapped[rr][cc] = grid[r][c]
        bad = tuple((r, c) for r in range(n) for c in range(n) if mapped[r][c] != geom.grid[r][c])
        ends_ok = (not start or t(*start, n) == geom.start) and (not goal or t(*goal, n) == geom.goal)
        if name == "identity":
            first_mismatch = bad if bad else (() if ends_ok else (geom.start, geom.goal))
        if not bad and ends_ok:
            return EvidenceCheck(True, name, first_mismatch)
    return EvidenceCheck(False, None, first_mismatch,
                         f"pixels disagree with grid_evidence in {len(first_mismatch)} cell(s)")
