"""The drawn line must reach both endpoint cells (issue 14.2).

A line that stops in the cell next to the end (or starts in the cell next to the start) was
accepted: start and end were added to the drawn cells, the path red shares the end's colour
class, and the cells were measured on their central 60 % only.  Now the pixels must show the
line running into, or touching, each endpoint cell, in any renderer's style."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from lmms_plugins.tasks.dod.maze import render as mr
from lmms_plugins.tasks.dod.maze.corrupt import STYLES, corrupt, degrade, draw_styled
from lmms_plugins.tasks.dod.maze.generate import make_pair
from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit

PAIRS = [make_pair(i, n, 33) for i, n in ((1, 7), (2, 9), (3, 11))]
FORMS = ("clean", "jpeg75", "scale0.5", "scale1.7")


@pytest.mark.parametrize("style", sorted(STYLES))
def test_one_cell_short_at_either_end_is_rejected_in_every_style_and_form(style):
    for pair in PAIRS:
        a, _ = mr.render_maze(pair.grid, pair.start, pair.goal)
        for kind, missed in (("short_of_end", ["end"]), ("short_of_start", ["start"])):
            out = corrupt(pair, kind, style=style)
            for form in FORMS:
                v = verify_maze_edit(a, degrade(out, form))
                assert (v.reason, v.details.get("misses")) == ("wrong_endpoint", missed), (pair.pair_id, kind, form)
                assert not v.ok and v.drew_path
        for form in FORMS:  # the same drawing reaching both ends is accepted
            v = verify_maze_edit(a, degrade(corrupt(pair, "reference", style=style), form))
            assert v.ok and list(v.cells) == list(pair.path), (pair.pair_id, style, form, v.details)
            assert v.details["reaches"] == {"start": list(pair.path[1]), "end": list(pair.path[-2])}


def _to_edge(lay, inner, end):
    """The midpoint of the edge between cell ``inner`` and cell ``end``, in pixels."""
    (xa, ya), (xb, yb) = lay.centre(inner), lay.centre(end)
    return (xa + xb) / 2, (ya + yb) / 2


@pytest.mark.parametrize("width", [0.1, 0.3, 0.5])
def test_line_touching_the_endpoint_edges_is_accepted(width):
    """Another renderer may stop the line at the endpoint cells' borders: that reaches them."""
    pair = PAIRS[2]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    px = 2 * round(lay.pitch * width / 2) + 1
    half = (px - 1) / 2
    first, last = _to_edge(lay, pair.path[1], pair.start), _to_edge(lay, pair.path[-2], pair.goal)

    def inset(pt, towards):  # stop the square end exactly at the edge, not half a width beyond
        (x, y), (tx, ty) = pt, lay.centre(towards)
        return (x + (half if tx > x else -half if tx < x else 0), y + (half if ty > y else -half if ty < y else 0))

    pts = [inset(first, pair.path[1])] + [lay.centre(c) for c in pair.path[1:-1]] + [inset(last, pair.path[-2])]
    out = mr.draw_polyline(a.copy(), pts, px)
    for form in FORMS:
        v = verify_maze_edit(a, degrade(out, form))
        assert v.ok, (width, form, v.reason, v.details)


def test_grid_line_drawn_over_the_path_still_touches():
    """A renderer that draws its 2-px grid lines after the path: the line is cut at every cell
    border, the endpoints are still reached."""
    from PIL import ImageDraw

    pair = PAIRS[1]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    out = mr.draw_cells_path(a.copy(), lay, pair.path)
    draw = ImageDraw.Draw(out)
    for i in range(pair.n + 1):
        x = lay.x0 + i * lay.pitch
        draw.rectangle([x, lay.y0, x + 1, lay.y0 + pair.n * lay.pitch], fill=mr.BORDER)
        draw.rectangle([lay.x0, x - lay.x0 + lay.y0, lay.x0 + pair.n * lay.pitch, x - lay.x0 + lay.y0 + 1], fill=mr.BORDER)
    v = verify_maze_edit(a, out)
    assert v.ok, v.details


def test_end_cell_overpainted_in_path_red_without_a_line_into_it():
    """The path colour inside the end cell is the end's own class: filling the end cell adds no
    evidence; the line must still come from its neighbour."""
    from PIL import ImageDraw

    pair = PAIRS[0]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    out = mr.draw_cells_path(a.copy(), lay, pair.path[:-1])
    ImageDraw.Draw(out).rectangle(lay.interior(pair.goal), fill=mr.PATH)
    v = verify_maze_edit(a, out)
    assert v.reason == "wrong_endpoint" and v.details["misses"] == ["end"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=hs.sampled_from([7, 9, 11, 15]), pitch=hs.integers(24, 64), borders=hs.booleans(),
       labels=hs.booleans(), seed=hs.integers(0, 10_000), width=hs.floats(0.08, 0.6),
       form=hs.sampled_from(FORMS))
def test_any_pitch_and_width_one_short_rejected_full_accepted(n, pitch, borders, labels, seed, width, form):
    pair = make_pair(1, n, seed)
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=pitch, labels=labels, borders=borders)
    full = mr.draw_cells_path(a.copy(), lay, pair.path, width_fraction=width)
    assert verify_maze_edit(a, degrade(full, form)).ok
    for cells, missed in ((pair.path[:-1], ["end"]), (pair.path[1:], ["start"])):
        out = mr.draw_cells_path(a.copy(), lay, cells, width_fraction=width)
        v = verify_maze_edit(a, degrade(out, form))
        assert (v.reason, v.details.get("misses")) == ("wrong_endpoint", missed), (width, form, v.details)


def test_styles_draw_what_they_say():
    pair = PAIRS[0]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    import numpy as np

    base = np.asarray(a).astype(int)
    for style in STYLES:
        out = np.asarray(draw_styled(a.copy(), lay, pair.path, style)).astype(int)
        changed = (np.abs(out - base).sum(axis=-1) > 0)
        assert changed.any()
        if STYLES[style].get("smooth"):  # anti-aliased: blended edge pixels between two colours
            assert len({tuple(v) for v in out[changed].reshape(-1, 3)}) > 10
