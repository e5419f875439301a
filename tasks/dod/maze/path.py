"""Finding a drawn path in an edited maze image and mapping it to the cells it covers.

The output is located on its own (its solid outer wall gives the grid box, n is the input's), so
a model may return another resolution, a crop or a padded canvas; when its wall ring cannot be
found the input's grid box is scaled to the output size instead.  A cell is *covered* when the
path colour fills at least ``COVER_MIN`` of its central 60 % beyond what the input already had
there (so start / end cells that share the path colour do not count as drawn).  A 2-px line
through a 48-px cell fills ~7 % of that region, a full-cell line 100 %; anti-aliasing and JPEG
keep the hue, which is what the colour classes test.

The endpoints are judged on pixels, not cells: the start and end cells are filled with colours
that a path may share (the default path red is in the end's colour class), so a path colour
inside them proves nothing.  Instead the drawn line must *reach* each endpoint: near the
endpoint, at 48 px per cell, the pixels of the path colour or the endpoint's colour (or a mix of
the endpoint's fill and a path-class colour) must join the line in a drawn neighbour cell to the
endpoint's interior, with gaps of 2 px bridged (a grid line drawn over the path).  A line that
ends at the neighbour's centre leaves a passage-coloured gap of (0.5 - width / 2) x pitch and
does not reach; a line that runs into the cell or only touches its edge does.  An endpoint cell
covered by the path's own stroke keeps its fill (``endpoint_keep``).

Passages are also measured on their central 80 % (a line along one side of its corridor), and a
passage at a turn between two drawn cells counts with 1 % there (a line hugging the inside of the
turn); so does a wall (a stroke crossing a wall's corner or edge crosses it).  Last,
``line_pieces`` reads the line's pixels again at 48 px per cell: a gap of a few pixels leaves
every cell covered but splits the line in two.  Contact and continuity are first read on the
working-resolution classes (solid pixels, nothing bridged), which settles a clean drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from . import geometry as mg

COVER_MIN = 0.04
CORNER_MIN = 0.01  # a passage at a turn between two drawn cells needs only this much (central 80 %)
MIN_SKEW_DEG, MAX_SKEW_DEG = 0.5, 15.0  # outputs rotated this much are turned back
NOISE_FACTOR = 3.0
RING_WALL_MIN = 0.8  # share of outer-ring cells that must still read as wall in the output
CONTACT_PITCH = 48  # endpoint contact is measured at exactly this many px per cell
CONTACT_BRIDGE = 1  # px (at CONTACT_PITCH) grown on each side: bridges a 2-px grid line over the path
KEEP_ENDPOINT = 0.5  # an endpoint keeping this share of its fill (or the stroke) is not altered
INK = 0.5  # share of the line's / fill's ink (255 - darkest channel) a pixel needs near an endpoint
LINE_PITCH = 48  # continuity is measured at exactly this many px per cell ...
LINE_BRIDGE = 1  # ... growing the line by this many px each side: a 2-px grid line over the path is bridged
STRONG = 0.5  # share of the fill's / line's chroma a pixel needs to count near an endpoint
STRONG_LINE = 0.65  # ... and in the continuity check (soft edges of a gap left out)
SOLID = 0.85  # ... and in both checks' first reading, on the working-resolution classes


@dataclass(frozen=True)
class DrawnPath:
    box: mg.GridBox  # the grid in the decoded output (JPEGs may decode reduced; deskewed when turned)
    covered: frozenset  # cells the drawn path covers
    coverage: dict = field(compare=False)  # cell -> added share of path colour (cells > 0 only)
    fractions: Any = field(compare=False, repr=False, default=None)  # (n, n, classes) of the output
    located_by: str = "wall_box"  # or "scaled_input"
    reaches: dict = field(compare=False, default_factory=dict)  # "start"/"end" -> EndpointContact
    line_pieces: int = 1  # separate pieces of line pixels in the covered cells (a gap makes 2)
    endpoint_keep: dict = field(compare=False, default_factory=dict)  # "start"/"end" -> share kept


@dataclass(frozen=True)
class EndpointContact:
    reached: bool
    via: tuple | None = None  # the drawn neighbour cell whose line runs into the endpoint


def _ring_wall_share(frac) -> float:
    n = frac.shape[0]
    ring = [(0, c) for c in range(n)] + [(n - 1, c) for c in range(n)] + \
           [(r, 0) for r in range(1, n - 1)] + [(r, n - 1) for r in range(1, n - 1)]
    return sum(frac[r, c, mg.WALL] >= 0.5 for r, c in ring) / len(ring)


def _locate_with_ring(img, n: int, path_color, relaxed: bool = False):
    found = mg.locate(img, img.size, n=n, path_color=path_color, relaxed=relaxed)
    if _ring_wall_share(found[1]) < RING_WALL_MIN:
        raise mg.UnreadableGrid("outer wall not found")
    return found


def _scaled_input_box(img, geometry: mg.MazeGeometry, path_color, first: Exception):
    """The input's grid scaled to the output's size (for a pure rescale whose walls were not found)."""
    size = img.size
    sx, sy = size[0] / geometry.image_size[0], size[1] / geometry.image_size[1]
    if min(geometry.box.pitch_x * sx, geometry.box.pitch_y * sy) < mg.MIN_PITCH_PX:
        raise mg.UnreadableGrid(f"output: {size[0]}x{size[1]} px is too small for the maze ({first})")
    factor = max(1, max(size) // mg.WORK_SIDE)
    arr = mg.working_array(img, factor)
    scale = size[0] / arr.shape[1]
    b = geometry.box
    box = mg.GridBox(b.n, b.x0 * sx / scale, b.y0 * sy / scale, b.pitch_x * sx / scale, b.pitch_y * sy / scale)
    labels = mg.classify(arr, path_color)
    frac = mg.cell_fractions(labels, box)
    if _ring_wall_share(frac) < RING_WALL_MIN:
        raise mg.UnreadableGrid(f"output: no maze found ({first})")
    return box, frac, scale, mg.wide_fractions(labels, box), (arr, labels)


def skew_degrees(img, path_color=mg.DEFAULT_PATH_RGB) -> float | None:
    """Rotation (degrees, PIL's sense) of the solid outer wall: the slope of its left and right
    edges over the middle half of its rows. None when there is no wall to measure."""
    import math

    import numpy as np

    factor = max(1, max(img.size) // (2 * mg.WORK_SIDE))
    wall = mg.classify(mg.working_array(img, factor), path_color) == mg.WALL
    rows = np.flatnonzero(wall.sum(axis=1) >= 2)
    if len(rows) < 20:
        return None
    span = rows[-1] - rows[0]
    ys = np.arange(int(rows[0] + 0.25 * span), int(rows[-1] - 0.25 * span))
    sub = wall[ys]
    keep = sub.any(axis=1)
    if keep.sum() < 10:
        return None
    ys, sub = ys[keep], sub[keep]
    left = sub.argmax(axis=1)
    right = sub.shape[1] - 1 - sub[:, ::-1].argmax(axis=1)
    slope = 0.5 * (np.polyfit(ys, left, 1)[0] + np.polyfit(ys, right, 1)[0])
    return math.degrees(math.atan(slope))


def read_drawn_path(output_image: Any, geometry: mg.MazeGeometry,
                    path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> DrawnPath:
    """Cells covered by the path drawn in ``output_image``. Raises UnreadableGrid."""
    import numpy as np

    img, size = mg.open_rgb(output_image)
    located_by = "wall_box"
    located_img = img
    try:
        box, frac, scale, wide, work = _locate_with_ring(img, geometry.n, path_color)
    except mg.UnreadableGrid as first:
        found = None
        angle = skew_degrees(img, path_color)
        if angle is not None and MIN_SKEW_DEG <= abs(angle) <= MAX_SKEW_DEG:
            # a slightly rotated output: turn it back and locate again (box in the turned image)
            from PIL import Image

            turned = img.rotate(-angle, resample=Image.BILINEAR, expand=True, fillcolor=(255, 255, 255))
            try:
                found = _locate_with_ring(turned, geometry.n, path_color, relaxed=True)
                located_by = f"deskewed_{angle:+.1f}deg"
                located_img = turned
            except mg.UnreadableGrid:
                found = None
        if found is None:  # a noisy image: the wall ring by cell majority
            try:
                found = _locate_with_ring(img, geometry.n, path_color, relaxed=True)
                located_by = "wall_box_relaxed"
            except mg.UnreadableGrid:
                found = None
        if found is None:
            found = _scaled_input_box(img, geometry, path_color, first)
            located_by = "scaled_input"
        box, frac, scale, wide, work = found
    pcls = mg.path_class(path_color)
    added, limit = _added_and_limit(frac, geometry.fractions, pcls)
    covered = {(int(r), int(c)) for r, c in zip(*np.nonzero((added > 0) & (added >= limit)))}
    # a line along one side of a corridor (hugging a wall) may miss the central 60 %: passages
    # are also measured on their central 80 %, by the same rule (walls and endpoints are not)
    added_w, limit_w = _added_and_limit(wide, geometry.wide_fractions, pcls)
    side = {(int(r), int(c)) for r, c in zip(*np.nonzero((added_w > 0) & (added_w >= limit_w)))
            if not geometry.grid[r][c] and (r, c) not in (geometry.start, geometry.goal)}
    covered |= side
    # a line turning in a corridor's corner (hugging the inside of the turn) may touch only a
    # corner of that cell: a passage at a turn between two drawn neighbours counts with much
    # less of its central 80 %, unless the line cut diagonally through the wall across the turn
    added_f, limit_f = _added_and_limit(wide, geometry.wide_fractions, pcls, CORNER_MIN)
    marked = (added_f > 0) & (added_f >= limit_f)
    ends = (geometry.start, geometry.goal)
    changed = True
    while changed:
        changed = False
        for r, c in zip(*np.nonzero(marked)):
            cell = (int(r), int(c))
            if cell in covered or geometry.grid[r][c] or cell in ends:
                continue
            vert = [r + d for d in (-1, 1) if (r + d, c) in covered or (r + d, c) in ends]
            horiz = [c + d for d in (-1, 1) if (r, c + d) in covered or (r, c + d) in ends]
            if any(not (geometry.grid[rr][cc] and marked[rr, cc]) for rr in vert for cc in horiz):
                covered.add(cell)
                changed = True
    # a stroke that crosses a wall cell crosses it, whatever its width: a wall is covered by the
    # rule of a turn's corner too (path colour on its central 80 % less a pixel, noise-aware),
    # which a thin line cutting through a corner or lying along the wall's edge reaches
    covered |= {(int(r), int(c)) for r, c in zip(*np.nonzero(marked)) if geometry.grid[r][c]}
    covered = frozenset(covered)
    best = np.maximum(added, added_w)
    for r, c in covered:
        best[r, c] = max(best[r, c], added_f[r, c])
    coverage = {(int(r), int(c)): float(best[r, c]) for r, c in zip(*np.nonzero(best > 0))}
    # the pixel checks: first on the working-resolution classes (a line that is one solid piece
    # there, touching both endpoints, needs nothing finer), then where that is not enough on
    # finer pixels
    work_box = box
    box = box.scaled(scale)
    ends = {"start": (geometry.start, mg.GREEN), "end": (geometry.goal, mg.RED)}
    reaches = {name: _solid_contact(work, work_box, cell, cls, covered, geometry, pcls)
               or endpoint_contact(located_img, box, cell, cls, covered, geometry, path_color)
               for name, (cell, cls) in ends.items()}
    keep = {name: endpoint_keep(located_img, box, cell, cls, path_color) for name, (cell, cls) in ends.items()}
    inner = set(covered) - {geometry.start, geometry.goal}
    pieces = 1 if len(inner) < 2 or _pieces(*work, work_box, inner, geometry, path_color, 0) == 1 \
        else line_pieces(located_img, box, covered, geometry, path_color)
    return DrawnPath(box=box, covered=covered, coverage=coverage, fractions=frac,
                     located_by=located_by, reaches=reaches, line_pieces=pieces, endpoint_keep=keep)


def _added_and_limit(frac, input_frac, pcls, base: float = COVER_MIN):
    """Path colour added per cell (beyond the input's) and the share a drawn cell must reach."""
    import numpy as np

    added = frac[..., pcls] - (input_frac[..., pcls] if input_frac is not None else 0.0)
    added = np.clip(added, 0.0, 1.0)
    # a noisy image has path-coloured speckles everywhere: the typical cell (the median; a path
    # covers far fewer than half the cells) sets the floor a drawn cell must clear
    threshold = max(base, NOISE_FACTOR * float(np.median(added)))
    # colour noise spreads over all hues: the share of a cell's pixels in hues the maze does not
    # use ("other") predicts how many fall in the path's hue window by chance
    window = 2 * mg.HUE_TOLERANCE_DEG
    chance = frac[..., mg.OTHER] * window / max(1.0, 360.0 - 3 * window)
    return added, threshold + NOISE_FACTOR * chance


def _local_view(img, box: mg.GridBox, r0: int, c0: int, rows: int, cols: int, target: int = CONTACT_PITCH,
                exact: bool = False):
    """The cells rows x cols from (r0, c0) at target/2 - target px per cell (enlarged to target
    below that; exactly ``target`` when ``exact``), its pitch in pixels and a function
    ``band(cell, inset)`` giving a cell's part (inset each side) as array slices."""
    from PIL import Image

    px, py = box.pitch_x, box.pitch_y
    left, top = box.x0 + c0 * px, box.y0 + r0 * py
    crop = img.crop((round(left), round(top), round(left + cols * px), round(top + rows * py)))
    if exact:  # box-averaged (or enlarged) to exactly target px per cell
        local = crop.resize((cols * target, rows * target), Image.BOX if min(px, py) >= target else Image.BILINEAR)
    elif min(px, py) < target / 2:  # small cells: enlarged, so that a gap is a few pixels
        local = crop.resize((cols * target, rows * target), Image.BILINEAR)
    else:  # box-reduced (a whole-pixel factor: fast, no ringing)
        local = crop.reduce(max(1, int(min(px, py) // (target / 2))))
    # the crop box is rounded to whole pixels: map cell bands through the real scale
    sx, sy = local.width / max(1, crop.width), local.height / max(1, crop.height)
    ox, oy = (round(left) - left) * sx, (round(top) - top) * sy  # offset of the crop's origin

    def band(cell, inset):
        rr, cc = cell[0] - r0, cell[1] - c0
        y0 = int(round((rr + inset) * py * sy - oy)), int(round((rr + 1 - inset) * py * sy - oy))
        x0 = int(round((cc + inset) * px * sx - ox)), int(round((cc + 1 - inset) * px * sx - ox))
        return slice(max(0, y0[0]), max(1, y0[1])), slice(max(0, x0[0]), max(1, x0[1]))

    return local, min(px * sx, py * sy), band


def _ink(arr):
    """How far each pixel is from white in its darkest channel (0 white .. 255): a thin white gap
    keeps its light luma through JPEG even where chroma subsampling bleeds colour into it."""
    import numpy as np

    a = np.asarray(arr)
    return 255.0 - np.minimum(np.minimum(a[..., 0], a[..., 1]), a[..., 2]).astype(np.float32)


def endpoint_keep(img, box: mg.GridBox, cell: mg.Cell, end_class: int, path_color=mg.DEFAULT_PATH_RGB) -> float:
    """Share of an endpoint cell's central part that keeps its fill or carries the path's stroke.

    The stroke may end in the endpoint cell (a round cap over the start): its pixels there are of
    the path's class, or, at its anti-aliased edge or where it is semi-transparent, a mix of the
    fill and a path-class colour.  A pixel P counts as such a mix when P = t * fill + (1 - t) * R
    for some t in [0, 0.85] and some in-gamut R of the path's class; a recoloured cell (white,
    wall blue, yellow, ...) is no such mix.  Measured at about 12 px per cell, like the cells."""
    import numpy as np

    px, py = box.pitch_x, box.pitch_y
    r, c = cell
    left, top = box.x0 + (c + mg.INSET) * px, box.y0 + (r + mg.INSET) * py
    crop = img.crop((int(round(left)), int(round(top)), int(round(left + (1 - 2 * mg.INSET) * px)),
                     int(round(top + (1 - 2 * mg.INSET) * py))))
    factor = max(1, int(min(px, py) // 12))
    arr = np.asarray(crop.reduce(factor) if factor > 1 else crop, dtype=np.float32).reshape(-1, 3)
    if not arr.size:
        return 0.0
    pcls = mg.path_class(path_color)
    labels = mg.classify(arr[None], path_color)[0]
    own = labels == end_class
    keep = own | (labels == pcls)
    rest = np.flatnonzero(~keep)
    if rest.size and own.any() and keep.mean() < KEEP_ENDPOINT:  # (above it, the exact share does not matter)
        keep[rest[_mixes(arr[rest], np.median(arr[own], axis=0), pcls, path_color)]] = True
    return float(keep.mean())


def _mixes(pixels, fill, pcls: int, path_color):
    """Which pixels (N x 3) are t * fill + (1 - t) * R for some t in [0, 0.85] and some in-gamut
    colour R of the path's class (a stroke's edge or a semi-transparent stroke over the fill)."""
    import numpy as np

    pixels = np.asarray(pixels, dtype=np.float32)
    mixed = np.zeros(len(pixels), dtype=bool)
    for t in np.linspace(0.0, 0.85, 18):
        other = (pixels - t * fill) / (1.0 - t)
        in_gamut = ((other >= -12.0) & (other <= 267.0)).all(axis=-1)
        mixed |= in_gamut & mg.class_mask(np.clip(other, 0, 255), pcls, path_color)[0]
    return mixed


def _chroma2(local):
    import numpy as np

    f = np.asarray(local, dtype=np.float32)
    return (f[..., 0] - 0.5 * (f[..., 1] + f[..., 2])) ** 2 + (0.8660254 * (f[..., 1] - f[..., 2])) ** 2


def line_pieces(img, box: mg.GridBox, covered: frozenset, geometry: mg.MazeGeometry,
                path_color=mg.DEFAULT_PATH_RGB) -> int:
    """How many separate pieces the drawn line makes inside the covered cells (1 when continuous).

    The cells alone cannot show a gap of a few pixels inside the path (both sides of it still
    cover their cells), but "one continuous line" is a pixel property: the path-coloured pixels
    of the covered cells other than start and end, at ``LINE_PITCH`` px per cell, with at least
    0.65 of the line's mean chroma and ink (the soft edges of a gap left out), grown by
    ``LINE_BRIDGE`` px (a 2-px grid line drawn over the path), must be one piece.  Pieces
    spanning under 0.3 x pitch (colour noise, JPEG specks) are not counted."""
    inner = set(covered) - {geometry.start, geometry.goal}
    if len(inner) < 2:
        return 1
    px, py = box.pitch_x, box.pitch_y
    # only the rows and columns of cells the line can be in
    rows = [r for r, _ in inner]
    cols = [c for _, c in inner]
    x0, y0 = int(round(box.x0 + min(cols) * px)), int(round(box.y0 + min(rows) * py))
    x1, y1 = int(round(box.x0 + (max(cols) + 1) * px)), int(round(box.y0 + (max(rows) + 1) * py))
    crop = img.crop((x0, y0, x1, y1))
    if min(px, py) < LINE_PITCH - 0.5:  # small cells: enlarged to LINE_PITCH px per cell
        from PIL import Image

        f = LINE_PITCH / min(px, py)
        crop = crop.resize((max(1, round(crop.width * f)), max(1, round(crop.height * f))), Image.BILINEAR)
    else:  # box-reduced by a whole factor (fast, no ringing)
        # (a pitch measured a hair under a whole multiple, 47.99 for 48, counts as that multiple)
        crop = crop.reduce(max(1, int(min(px, py) / LINE_PITCH + 0.02)))
    sx, sy = crop.width / max(1, x1 - x0), crop.height / max(1, y1 - y0)
    local = mg.GridBox(box.n, (box.x0 - x0) * sx, (box.y0 - y0) * sy, px * sx, py * sy)
    bridge = max(1, round(LINE_BRIDGE * min(local.pitch_x, local.pitch_y) / LINE_PITCH))
    return _pieces(crop, None, local, inner, geometry, path_color, bridge)


def _pieces(img, labels, box: mg.GridBox, inner: set, geometry: mg.MazeGeometry, path_color, bridge: int) -> int:
    """Pieces of line in the cells ``inner`` of ``img`` (an image or array; ``box`` in its pixels),
    grown by ``bridge`` px.  With ``labels`` (the colour classes of ``img``, the working
    resolution's) nothing is bridged and only solid pixels count (0.85 of the line's chroma and
    ink): one piece there is one piece at any finer reading."""
    import cv2
    import numpy as np

    arr = np.asarray(img)
    h, w = arr.shape[:2]
    rows = [r for r, _ in inner]
    cols = [c for _, c in inner]
    r0, c0 = min(rows), min(cols)

    def at(cells, origin, p, limit):  # first pixel whose centre lies at or after each position (cells)
        return np.clip(np.ceil(origin + np.asarray(cells, dtype=float) * p - 0.5).astype(int), 0, limit)

    ks_y, ks_x = np.arange(r0, max(rows) + 2), np.arange(c0, max(cols) + 2)
    yb, xb = at(ks_y, box.y0, box.pitch_y, h), at(ks_x, box.x0, box.pitch_x, w)
    yc = at(np.stack([ks_y[:-1] + mg.INSET, ks_y[1:] - mg.INSET]), box.y0, box.pitch_y, h)
    xc = at(np.stack([ks_x[:-1] + mg.INSET, ks_x[1:] - mg.INSET]), box.x0, box.pitch_x, w)
    region = np.zeros((h, w), dtype=bool)
    core = np.zeros((h, w), dtype=bool)
    for r, c in inner:
        i, j = r - r0, c - c0
        region[yb[i]:yb[i + 1], xb[j]:xb[j + 1]] = True
        core[yc[0, i]:yc[1, i], xc[0, j]:xc[1, j]] = True
    # the endpoints (whose fill may share the path colour; reaching them is endpoint_contact's
    # question) left out, with a pixel to spare for rounding
    for r, c in (geometry.start, geometry.goal):
        ya, yz = at([r - 0.05, r + 1.05], box.y0, box.pitch_y, h)
        xa, xz = at([c - 0.05, c + 1.05], box.x0, box.pitch_x, w)
        region[ya:yz, xa:xz] = False
    pixels = arr[region]
    pcls = mg.path_class(path_color)
    if labels is None:  # colour classes only for the drawn cells' pixels (the rest is never line)
        line, chroma = mg.class_mask(pixels, pcls, path_color)
        floor = STRONG_LINE
    else:
        line, chroma = labels[region] == pcls, _chroma2(pixels)
        floor = SOLID
    strong = line & core[region]
    if strong.any():
        ink = _ink(pixels)
        line &= (chroma >= floor ** 2 * float(chroma[strong].mean())) & (ink >= floor * float(ink[strong].mean()))
    mask = np.zeros((h, w), dtype=np.uint8)
    mask[region] = line
    grown = cv2.dilate(mask, None, iterations=bridge) if bridge else mask
    _, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    span = 0.3 * min(box.pitch_x, box.pitch_y) + 2 * bridge  # every piece grew from line pixels: count the long ones
    return int((np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]) >= span).sum())


def _solid_contact(work, box: mg.GridBox, end: mg.Cell, end_class: int, covered: frozenset,
                   geometry: mg.MazeGeometry, pcls: int) -> "EndpointContact | None":
    """endpoint_contact on the working-resolution classes, nothing bridged and only solid pixels
    (0.85 of the line's and the fill's chroma and ink): a contact there is one at any finer
    reading; None when it does not show one (then the finer reading decides)."""
    import numpy as np

    arr, labels = work
    nbs = _drawn_neighbours(end, covered, geometry)
    if not nbs:
        return None
    h, w = labels.shape

    def central(cell, inset):
        r, c = cell
        ya = int(np.ceil(box.y0 + (r + inset) * box.pitch_y - 0.5))
        yz = int(np.ceil(box.y0 + (r + 1 - inset) * box.pitch_y - 0.5))
        xa = int(np.ceil(box.x0 + (c + inset) * box.pitch_x - 0.5))
        xz = int(np.ceil(box.x0 + (c + 1 - inset) * box.pitch_x - 0.5))
        return slice(max(0, ya), min(h, max(ya + 1, yz))), slice(max(0, xa), min(w, max(xa + 1, xz)))

    cells = nbs + [end]
    ys, _ = central((min(q[0] for q in cells), 0), 0.0)
    ye, _ = central((max(q[0] for q in cells), 0), 0.0)
    _, xs = central((0, min(q[1] for q in cells)), 0.0)
    _, xe = central((0, max(q[1] for q in cells)), 0.0)
    win = (slice(ys.start, ye.stop), slice(xs.start, xe.stop))

    def local(cell, inset):  # central() in the window's pixels
        a, b = central(cell, inset)
        return slice(a.start - win[0].start, a.stop - win[0].start), slice(b.start - win[1].start, b.stop - win[1].start)

    sub, lab = arr[win], labels[win]
    mask = (lab == pcls) | (lab == end_class)
    contact = _contact(sub, lab, mask, sub, local, end, nbs, pcls, SOLID, SOLID, 0)
    return contact if contact.reached else None


def _drawn_neighbours(end, covered, geometry) -> list:
    r, c = end
    nbs = [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    return [nb for nb in nbs if nb in covered and 0 <= nb[0] < geometry.n and 0 <= nb[1] < geometry.n
            and not geometry.grid[nb[0]][nb[1]]]


def endpoint_contact(img, box: mg.GridBox, end: mg.Cell, end_class: int, covered: frozenset,
                     geometry: mg.MazeGeometry, path_color=mg.DEFAULT_PATH_RGB) -> EndpointContact:
    """Does the line drawn in a covered neighbour of ``end`` run into (or touch) ``end``?

    ``box`` is the grid in ``img``'s pixels.  Measured on the cells spanned by ``end`` and its
    covered neighbours, resampled to ``CONTACT_PITCH`` px per cell: the mask of path-or-endpoint
    colour with at least half the ink and chroma of the line and of the endpoint's fill, grown by
    ``CONTACT_BRIDGE`` px (a 2-px grid line drawn over the path), must join the line's pixels in
    a neighbour's central part to the endpoint's central part.  A line stopping at the
    neighbour's centre leaves a gap of (0.5 - width / 2) x pitch: 4 px at 48 px per cell for a
    line 0.83 x pitch wide, which is not bridged."""
    import numpy as np

    nbs = _drawn_neighbours(end, covered, geometry)
    if not nbs:
        return EndpointContact(False)
    r0, r1 = min(q[0] for q in nbs + [end]), max(q[0] for q in nbs + [end])
    c0, c1 = min(q[1] for q in nbs + [end]), max(q[1] for q in nbs + [end])
    local, _pitch, central = _local_view(img, box, r0, c0, r1 - r0 + 1, c1 - c0 + 1, exact=True)

    arr = np.asarray(local)
    labels = mg.classify(arr, path_color)
    pcls = mg.path_class(path_color)
    mask = (labels == pcls) | (labels == end_class)
    contact = _contact(arr, labels, mask, local, central, end, nbs, pcls)
    own = labels == end_class
    if contact.reached or not own.any():
        return contact
    # the stroke over the endpoint's fill, where it blends with it (a semi-transparent stroke)
    odd = np.flatnonzero((labels == mg.OTHER) | (labels == mg.DARK))
    fill = np.median(arr[own], axis=0)
    mask.reshape(-1)[odd[_mixes(arr.reshape(-1, 3)[odd], fill, pcls, path_color)]] = True
    return _contact(arr, labels, mask, local, central, end, nbs, pcls)


def _contact(arr, labels, mask, local, central, end, nbs, pcls, chroma_floor=STRONG, ink_floor=INK,
             bridge=CONTACT_BRIDGE) -> EndpointContact:
    import cv2
    import numpy as np

    # JPEG and resampling bleed colour a few pixels into the gap a short line leaves (chroma
    # subsampling most): only pixels with at least half the (mean) chroma and ink of the
    # endpoint's fill and of the line count
    chroma2, ink = _chroma2(local), _ink(arr)
    in_end = central(end, 0.3)
    end_m = mask[in_end]
    # the line's part of a neighbour: its central 80 % (a line may run along one side)
    line_m = [(central(nb, mg.WIDE_INSET), labels[central(nb, mg.WIDE_INSET)] == pcls) for nb in nbs]
    line_c = np.concatenate([chroma2[reg][m] for reg, m in line_m])
    if end_m.any() and line_c.size:
        line_i = np.concatenate([ink[reg][m] for reg, m in line_m])
        mask = mask & (chroma2 >= chroma_floor ** 2 * min(float(chroma2[in_end][end_m].mean()), float(line_c.mean()))) \
            & (ink >= ink_floor * min(float(ink[in_end][end_m].mean()), float(line_i.mean())))
    mask = mask.view(np.uint8)
    grown = cv2.dilate(mask, None, iterations=bridge) if bridge else mask  # 3 x 3 square
    _, parts = cv2.connectedComponents(grown, connectivity=8)

    inside = parts[in_end][mask[in_end] > 0]
    targets = set(np.unique(inside).tolist()) - {0}
    for nb in nbs:
        region = central(nb, mg.WIDE_INSET)
        line = parts[region][labels[region] == pcls]
        for part in targets & set(np.unique(line).tolist()):
            if _across(parts == part, (labels == pcls) & (mask > 0), central, end, nb):
                return EndpointContact(True, nb)
    return EndpointContact(False)


def _across(joined, line, central, end, nb) -> bool:
    """Does the line cross the edge from ``nb`` into ``end`` over at least half its own width?

    A line that runs into the endpoint (or ends on its edge) carries its whole width across the
    edge; a thick line ending one cell short, whose round cap's tip comes within a pixel or two
    of the edge, is joined to the endpoint only at that tip once a grid line's width is bridged.
    Contact: positions along the edge where ``joined`` (the grown piece that links line and
    endpoint) fills a strip of 0.06 x pitch each side of the edge; width: positions where the
    line has pixels 0.1-0.3 x pitch inside the neighbour."""
    e, q = central(end, 0.0), central(nb, 0.0)
    if end[0] != nb[0]:  # one above the other: the edge is horizontal, look at the transposes
        joined, line = joined.T, line.T
        e, q = e[::-1], q[::-1]
    along, e_x, q_x = q[0], e[1], q[1]
    pitch = max(1, q_x.stop - q_x.start)
    s, lo, hi = max(1, round(0.06 * pitch)), round(0.1 * pitch), max(round(0.3 * pitch), round(0.1 * pitch) + 1)
    if e_x.start >= q_x.stop:  # the endpoint after the neighbour
        edge = e_x.start
        band = line[along, max(0, edge - hi):max(0, edge - lo)]
    else:
        edge = q_x.start
        band = line[along, edge + lo:edge + hi]
    strip = joined[along, max(0, edge - s):edge + s]
    contact = int(strip.all(axis=1).sum()) if strip.size else 0
    width = int(band.any(axis=1).sum()) if band.size else 0
    return contact >= max(1.0, 0.5 * width)
