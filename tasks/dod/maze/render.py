"""Rendering of maze maps and drawn paths in the DoD / UniREditBench maze style.

Style (measured from UniREditBench figures, see specs/upstream-facts.md): square cells, walls
light blue #ADD8E6, passages white, thin light-grey cell borders, start #22C55E, end #EF4444,
row indices on the left and column indices on top; the solution is a #DC2626 polyline through
the cell centres, about 0.3 x the pitch wide, with square corners.  With the default pitch of 48
px and 1-px borders a cell interior is 47 x 47 = 2,209 px, the size of the single-cell difference
between the official feasible and infeasible maps.

Everything is drawn with integer rectangles (no anti-aliasing) so the same grid gives the same
bytes on every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

WALL = (173, 216, 230)
PASSAGE = (255, 255, 255)
BORDER = (229, 231, 235)
START = (34, 197, 94)
END = (239, 68, 68)
PATH = (220, 38, 38)
LABEL = (55, 65, 81)
BACKGROUND = (255, 255, 255)

DEFAULT_PITCH = 48
PATH_WIDTH_FRACTION = 0.3


@dataclass(frozen=True)
class Layout:
    """Where a rendered n x n maze lies: cell (r, c) spans [x0 + c*pitch, x0 + (c+1)*pitch)."""

    n: int
    x0: int
    y0: int
    pitch: int
    width: int
    height: int

    def interior(self, cell: tuple[int, int]) -> tuple[int, int, int, int]:
        """Inclusive pixel box (left, top, right, bottom) of a cell without its border line."""
        r, c = cell
        left, top = self.x0 + c * self.pitch + 1, self.y0 + r * self.pitch + 1
        return left, top, left + self.pitch - 2, top + self.pitch - 2

    def centre(self, cell: tuple[int, int]) -> tuple[float, float]:
        left, top, right, bottom = self.interior(cell)
        return (left + right) / 2, (top + bottom) / 2


def layout_for(n: int, pitch: int = DEFAULT_PITCH, labels: bool = True) -> Layout:
    margin = round(pitch * 0.75) if labels else round(pitch * 0.25)
    tail = round(pitch * 0.25)
    size_x = margin + n * pitch + 1 + tail
    return Layout(n=n, x0=margin, y0=margin, pitch=pitch, width=size_x, height=size_x)


def render_maze(grid: Sequence[Sequence[int]], start, goal, *, pitch: int = DEFAULT_PITCH,
                labels: bool = True, borders: bool = True):
    """Draw a maze map; returns ``(PIL.Image, Layout)``."""
    from PIL import Image, ImageDraw, ImageFont

    n = len(grid)
    lay = layout_for(n, pitch, labels)
    img = Image.new("RGB", (lay.width, lay.height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    if borders:
        span = n * pitch
        draw.rectangle([lay.x0, lay.y0, lay.x0 + span, lay.y0 + span], fill=BORDER)
    for r in range(n):
        for c in range(n):
            cell = (r, c)
            colour = WALL if grid[r][c] else PASSAGE
            if cell == tuple(start):
                colour = START
            elif cell == tuple(goal):
                colour = END
            box = lay.interior(cell)
            if not borders:  # cells touch: fill the border line too
                box = (box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1)
            draw.rectangle(box, fill=colour)
    if labels:
        font = ImageFont.load_default(size=max(8, round(pitch * 0.36)))
        for i in range(n):
            cx, cy = lay.centre((i, i))
            draw.text((lay.x0 / 2, cy), str(i), fill=LABEL, font=font, anchor="mm")
            draw.text((cx, lay.y0 / 2), str(i), fill=LABEL, font=font, anchor="mm")
    return img, lay


def draw_polyline(img, centres: Sequence[tuple[float, float]], width: float, colour=PATH):
    """Draw a path through the given pixel centres onto ``img`` in place: one axis-aligned
    rectangle per segment, extended by half the width, which gives square corners and ends.
    Diagonal segments (never in a valid path, but corruptions need them) are drawn as lines."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(img)
    half = max(0.0, (width - 1) / 2)
    pts = [(round(x), round(y)) for x, y in centres]
    if len(pts) == 1:
        x, y = pts[0]
        draw.rectangle([x - half, y - half, x + half, y + half], fill=colour)
    for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
        if xa == xb or ya == yb:
            draw.rectangle([min(xa, xb) - half, min(ya, yb) - half, max(xa, xb) + half, max(ya, yb) + half],
                           fill=colour)
        else:
            draw.line([(xa, ya), (xb, yb)], fill=colour, width=max(1, round(width)))
    return img


def draw_cells_path(img, layout: Layout, cells: Sequence[tuple[int, int]], colour=PATH,
                    width_fraction: float = PATH_WIDTH_FRACTION):
    """Draw a path through the centres of ``cells`` of a rendered maze (in place)."""
    width = 2 * round(layout.pitch * width_fraction / 2) + 1  # odd, so it centres on a pixel
    return draw_polyline(img, [layout.centre(c) for c in cells], width, colour)
