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
endpoint, at a fixed local resolution, the pixels of the path colour or the endpoint's colour
must join the line in a drawn neighbour cell to the endpoint's interior, with gaps of at most
``BRIDGE`` x pitch bridged (a thin grid line drawn over the path, anti-aliasing).  A line that
ends at the neighbour's centre leaves a passage-coloured gap of (0.5 - width / 2) x pitch and
does not reach; a line that runs into the cell or only touches its edge does.

Passages are also measured on their central 80 % (a line along one side of its corridor), and a
passage at a turn between two drawn cells counts with 1 % there (a line hugging the inside of the
turn).  Last, ``line_pieces`` reads the line's pixels again at 24-48 px per cell: a gap of a few
pixels leaves every cell covered but splits the line in two.
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
LOCAL_PITCH = 40  # endpoint contact is measured at 20-40 px per cell (enlarged to 40 below 20)
BRIDGE = 0.1  # widest gap (x pitch) still read as touching: a grid line over the path, blur
LINE_PITCH = 24  # continuity is measured at 24-48 px per cell (16-24 kept, smaller enlarged to 24) ...
LINE_BRIDGE = 0.06  # ... bridging gaps up to this (x pitch): a 1-px grid line drawn over the path
STRONG = 0.5  # share of the fill's / line's chroma a pixel needs to count near an endpoint
STRONG_LINE = 0.65  # ... and in the continuity check (soft edges of a gap left out)


@dataclass(frozen=True)
class DrawnPath:
    box: mg.GridBox  # the grid in the decoded output (JPEGs may decode reduced; deskewed when turned)
    covered: frozenset  # cells the drawn path covers
    coverage: dict = field(compare=False)  # cell -> added share of path colour (cells > 0 only)
    fractions: Any = field(compare=False, repr=False, default=None)  # (n, n, classes) of the output
    located_by: str = "wall_box"  # or "scaled_input"
    reaches: dict = field(compare=False, default_factory=dict)  # "start"/"end" -> EndpointContact
    line_pieces: int = 1  # separate pieces of line pixels in the covered cells (a gap makes 2)


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
    box, frac, scale, wide = mg.locate(img, img.size, n=n, path_color=path_color, relaxed=relaxed)
    if _ring_wall_share(frac) < RING_WALL_MIN:
        raise mg.UnreadableGrid("outer wall not found")
    return box, frac, scale, wide


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
    return box, frac, scale, mg.wide_fractions(labels, box)


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
        box, frac, scale, wide = _locate_with_ring(img, geometry.n, path_color)
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
        box, frac, scale, wide = found
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
    covered = frozenset(covered)
    best = np.maximum(added, added_w)
    for r, c in covered:
        best[r, c] = max(best[r, c], added_f[r, c])
    coverage = {(int(r), int(c)): float(best[r, c]) for r, c in zip(*np.nonzero(best > 0))}
    box = box.scaled(scale)
    reaches = {name: endpoint_contact(located_img, box, cell, mg.GREEN if name == "start" else mg.RED,
                                      covered, geometry, path_color)
               for name, cell in (("start", geometry.start), ("end", geometry.goal))}
    pieces = line_pieces(located_img, box, covered, geometry, path_color)
    return DrawnPath(box=box, covered=covered, coverage=coverage, fractions=frac,
                     located_by=located_by, reaches=reaches, line_pieces=pieces)


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


def _local_view(img, box: mg.GridBox, r0: int, c0: int, rows: int, cols: int, target: int = LOCAL_PITCH,
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


def _chroma2(local):
    import numpy as np

    f = np.asarray(local, dtype=np.float32)
    return (f[..., 0] - 0.5 * (f[..., 1] + f[..., 2])) ** 2 + (0.8660254 * (f[..., 1] - f[..., 2])) ** 2


def line_pieces(img, box: mg.GridBox, covered: frozenset, geometry: mg.MazeGeometry,
                path_color=mg.DEFAULT_PATH_RGB) -> int:
    """How many separate pieces the drawn line makes inside the covered cells (1 when continuous).

    The cells alone cannot show a gap of a few pixels inside the path (both sides of it still
    cover their cells), but "one continuous line" is a pixel property: the path-coloured pixels
    of the covered cells other than start and end, at 24-48 px per cell, with at least 0.65 of
    the line's mean chroma (the soft edges of a gap left out), dilated to bridge gaps of ``LINE_BRIDGE`` x pitch (a grid line drawn over
    the path, anti-aliasing), must be one piece.  Pieces spanning under 0.3 x pitch (colour noise, JPEG
    specks) are not counted."""
    import cv2
    import numpy as np

    inner = set(covered) - {geometry.start, geometry.goal}
    if len(inner) < 2:
        return 1
    n = geometry.n
    px, py = box.pitch_x, box.pitch_y
    x0, y0 = int(round(box.x0)), int(round(box.y0))
    crop = img.crop((x0, y0, int(round(box.x0 + n * px)), int(round(box.y0 + n * py))))
    if min(px, py) < 16:  # small cells: enlarged, so that a gap is a few pixels
        from PIL import Image

        local = crop.resize((n * LINE_PITCH, n * LINE_PITCH), Image.BILINEAR)
    else:  # box-reduced by a whole factor (fast, no ringing)
        # (a pitch measured a hair under a whole multiple, 47.99 for 48, counts as that multiple)
        local = crop.reduce(max(1, int(min(px, py) / LINE_PITCH + 0.05)))
    arr = np.asarray(local)
    h, w = arr.shape[:2]
    sx, sy = w / max(1, crop.width), h / max(1, crop.height)
    pitch = min(px * sx, py * sy)
    # each pixel's cell and its place in the cell (0..1), from the real (unrounded) grid
    fy = ((np.arange(h) + 0.5) / sy + y0 - box.y0) / py
    fx = ((np.arange(w) + 0.5) / sx + x0 - box.x0) / px
    ry, rx = np.clip(fy.astype(int), 0, n - 1), np.clip(fx.astype(int), 0, n - 1)
    drawn = np.zeros((n, n), dtype=bool)
    drawn[tuple(np.array(sorted(inner)).T)] = True
    # the line in the drawn cells; the endpoints (whose fill may share the path colour; reaching
    # them is endpoint_contact's question) left out, with a pixel to spare for rounding
    region = drawn[ry][:, rx]
    for r, c in (geometry.start, geometry.goal):
        ys = np.abs(fy - (r + 0.5)) <= 0.55
        xs = np.abs(fx - (c + 0.5)) <= 0.55
        region[np.ix_(ys, xs)] = False
    inside_y = np.abs(fy - ry - 0.5) <= 0.5 - mg.INSET
    inside_x = np.abs(fx - rx - 0.5) <= 0.5 - mg.INSET
    core = inside_y[:, None] & inside_x[None, :] & region
    # colour classes only for the drawn cells' pixels (the costly part; the rest is never part of the line)
    line, chroma_in = mg.class_mask(arr[region], mg.path_class(path_color), path_color)
    mask = np.zeros(region.shape, dtype=bool)
    mask[region] = line
    chroma2 = np.zeros(region.shape, dtype=chroma_in.dtype)
    chroma2[region] = chroma_in
    line_c = chroma2[mask & core]
    if line_c.size:
        mask &= chroma2 >= STRONG_LINE ** 2 * float(line_c.mean())
    mask = mask.view(np.uint8)
    rad = max(1, round(LINE_BRIDGE * pitch / 2))
    grown = cv2.dilate(mask, None, iterations=rad)
    _, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    span = 0.3 * pitch + 2 * rad  # every piece grew from line pixels: count the long ones
    return int((np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]) >= span).sum())


def endpoint_contact(img, box: mg.GridBox, end: mg.Cell, end_class: int, covered: frozenset,
                     geometry: mg.MazeGeometry, path_color=mg.DEFAULT_PATH_RGB) -> EndpointContact:
    """Does the line drawn in a covered neighbour of ``end`` run into (or touch) ``end``?

    ``box`` is the grid in ``img``'s pixels.  Measured on the cells spanned by ``end`` and its
    covered neighbours, at 0.5-1 x ``LOCAL_PITCH`` px per cell:
    the mask of path-or-endpoint colour, dilated to bridge gaps of ``BRIDGE`` x pitch, must join
    the line's pixels in a neighbour's central part to the endpoint's central part."""
    import cv2
    import numpy as np

    r, c = end
    nbs = [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    nbs = [nb for nb in nbs if nb in covered and 0 <= nb[0] < geometry.n and 0 <= nb[1] < geometry.n
           and not geometry.grid[nb[0]][nb[1]]]
    if not nbs:
        return EndpointContact(False)
    r0, r1 = min(q[0] for q in nbs + [end]), max(q[0] for q in nbs + [end])
    c0, c1 = min(q[1] for q in nbs + [end]), max(q[1] for q in nbs + [end])
    local, pitch, central = _local_view(img, box, r0, c0, r1 - r0 + 1, c1 - c0 + 1)

    labels = mg.classify(np.asarray(local), path_color)
    pcls = mg.path_class(path_color)
    mask = (labels == pcls) | (labels == end_class)
    # JPEG and resampling bleed colour a few pixels into the gap a short line leaves: only
    # pixels with at least half the (mean) chroma of the endpoint's fill and of the line count
    chroma2 = _chroma2(local)
    end_c = chroma2[central(end, 0.3)][mask[central(end, 0.3)]]
    # the line's part of a neighbour: its central 80 % (a line may run along one side)
    line_c = np.concatenate([chroma2[central(nb, mg.WIDE_INSET)][labels[central(nb, mg.WIDE_INSET)] == pcls]
                             for nb in nbs])
    if end_c.size and line_c.size:
        floor = STRONG ** 2 * min(float(end_c.mean()), float(line_c.mean()))
        mask &= chroma2 >= floor
    mask = mask.view(np.uint8)
    rad = max(1, round(BRIDGE * pitch / 2))
    grown = cv2.dilate(mask, None, iterations=rad)  # 3 x 3 square, rad times
    _, parts = cv2.connectedComponents(grown, connectivity=8)

    inside = parts[central(end, 0.3)][mask[central(end, 0.3)] > 0]
    targets = set(np.unique(inside).tolist()) - {0}
    for nb in nbs:
        region = central(nb, mg.WIDE_INSET)
        line = parts[region][labels[region] == pcls]
        if targets & set(np.unique(line).tolist()):
            return EndpointContact(True, nb)
    return EndpointContact(False)
