"""Finding a drawn path in an edited maze image and mapping it to the cells it covers.

The output is located on its own (its solid outer wall gives the grid box, n is the input's), so
a model may return another resolution, a crop or a padded canvas; when its wall ring cannot be
found the input's grid box is scaled to the output size instead.  A cell is *covered* when the
path colour fills at least ``COVER_MIN`` of its central 60 % beyond what the input already had
there (so start / end cells that share the path colour do not count as drawn).  A 2-px line
through a 48-px cell fills ~7 % of that region, a full-cell line 100 %; anti-aliasing and JPEG
keep the hue, which is what the colour classes test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from . import maze_geometry as mg

COVER_MIN = 0.04
NOISE_FACTOR = 3.0
RING_WALL_MIN = 0.8  # share of outer-ring cells that must still read as wall in the output


@dataclass(frozen=True)
class DrawnPath:
    box: mg.GridBox  # the grid in the output image, original pixels
    covered: frozenset  # cells the drawn path covers
    coverage: dict = field(compare=False)  # cell -> added share of path colour (cells > 0 only)
    fractions: Any = field(compare=False, repr=False, default=None)  # (n, n, classes) of the output
    located_by: str = "wall_box"  # or "scaled_input"


def _ring_wall_share(frac) -> float:
    n = frac.shape[0]
    ring = [(0, c) for c in range(n)] + [(n - 1, c) for c in range(n)] + \
           [(r, 0) for r in range(1, n - 1)] + [(r, n - 1) for r in range(1, n - 1)]
    return sum(frac[r, c, mg.WALL] >= 0.5 for r, c in ring) / len(ring)


def read_drawn_path(output_image: Any, geometry: mg.MazeGeometry,
                    path_color: Sequence[int] = mg.DEFAULT_PATH_RGB) -> DrawnPath:
    """Cells covered by the path drawn in ``output_image``. Raises UnreadableGrid."""
    import numpy as np

    img, size = mg.open_rgb(output_image)
    located_by = "wall_box"
    try:
        box, frac, scale = mg.locate(img, size, n=geometry.n, path_color=path_color)
        if _ring_wall_share(frac) < RING_WALL_MIN:
            raise mg.UnreadableGrid("outer wall not found")
    except mg.UnreadableGrid as first:
        # fall back to the input's grid scaled to the output's size (a pure rescale)
        sx, sy = size[0] / geometry.image_size[0], size[1] / geometry.image_size[1]
        if min(geometry.box.pitch_x * sx, geometry.box.pitch_y * sy) < mg.MIN_PITCH_PX:
            raise mg.UnreadableGrid(f"output: {size[0]}x{size[1]} px is too small for the maze ({first})") from None
        factor = max(1, max(img.size) // mg.WORK_SIDE)
        arr = mg.working_array(img, factor)
        scale = size[0] / arr.shape[1]
        b = geometry.box
        box = mg.GridBox(b.n, b.x0 * sx / scale, b.y0 * sy / scale, b.pitch_x * sx / scale, b.pitch_y * sy / scale)
        frac = mg.cell_fractions(mg.classify(arr, path_color), box)
        if _ring_wall_share(frac) < RING_WALL_MIN:
            raise mg.UnreadableGrid(f"output: no maze found ({first})") from None
        located_by = "scaled_input"
    pcls = mg.path_class(path_color)
    added = frac[..., pcls] - (geometry.fractions[..., pcls] if geometry.fractions is not None else 0.0)
    added = np.clip(added, 0.0, 1.0)
    coverage = {(int(r), int(c)): float(added[r, c]) for r, c in zip(*np.nonzero(added > 0))}
    # a noisy image has path-coloured speckles everywhere: the typical cell (the median; a path
    # covers far fewer than half the cells) sets the floor a drawn cell must clear
    threshold = max(COVER_MIN, NOISE_FACTOR * float(np.median(added)))
    covered = frozenset(cell for cell, v in coverage.items() if v >= threshold)
    return DrawnPath(box=box.scaled(scale), covered=covered, coverage=coverage, fractions=frac,
                     located_by=located_by)
