"""The maze verifier on generated mazes: references accepted, corruptions rejected with the right
reason, in PNG, JPEG and rescaled form; line widths, path colours, grid evidence."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from PIL import Image, ImageFilter

from lmms_plugins.tasks.dod.maze import render as mr
from lmms_plugins.tasks.dod.maze.corrupt import EXPECTED, INFEASIBLE_EXPECTED, corrupt, degrade
from lmms_plugins.tasks.dod.maze.generate import make_pair, render_pair
from lmms_plugins.tasks.dod.maze.geometry import read_geometry
from lmms_plugins.tasks.dod.maze.verify import REASONS, MazeVerdict, drew_path_anyway, verify_maze_edit

PAIRS = [make_pair(i, n, 21) for i, n in ((1, 7), (2, 9), (3, 11))]


def _evidence(grid, pair):
    return {"grid": [list(r) for r in grid], "start": list(pair.start), "goal": list(pair.goal)}


@pytest.fixture(scope="module")
def rendered():
    return {p.pair_id: render_pair(p) for p in PAIRS}


def test_geometry_read_from_pixels(rendered):
    for pair in PAIRS:
        a, b, ref, _ = rendered[pair.pair_id]
        for img, grid in ((a, pair.grid), (b, pair.blocked_grid), (ref, pair.grid)):
            geom = read_geometry(img)
            assert (geom.n, geom.grid, geom.start, geom.goal) == (pair.n, grid, pair.start, pair.goal)
            assert geom.box.pitch_x == pytest.approx(48, abs=0.5)


@pytest.mark.parametrize("how", ["clean", "jpeg75", "scale0.5", "scale1.7"])
def test_corruptions_get_their_reason(rendered, how):
    applied = 0
    for pair in PAIRS:
        a, b, _ref, _ = rendered[pair.pair_id]
        for kind, expected in {**EXPECTED, **INFEASIBLE_EXPECTED}.items():
            out = corrupt(pair, kind)
            if out is None:
                continue
            applied += 1
            infeasible = kind.startswith("infeasible")
            given = b if infeasible else a
            grid = pair.blocked_grid if infeasible else pair.grid
            v = verify_maze_edit(given, degrade(out, how), _evidence(grid, pair))
            assert isinstance(v, MazeVerdict) and v.reason in REASONS
            assert v.reason == expected, (pair.pair_id, kind, how, v.details)
            assert v.ok is (expected == "ok")
            assert v.drew_path is (kind not in ("no_path", "infeasible_unchanged"))
            if expected == "ok":
                assert list(v.cells) == list(pair.path)
    assert applied >= 3 * len(EXPECTED)  # at most a few corruptions may not apply to a small maze


def test_reason_details_name_the_cells(rendered):
    pair = PAIRS[2]
    a, b, *_ = rendered[pair.pair_id]
    v = verify_maze_edit(b, corrupt(pair, "infeasible_drawn"), _evidence(pair.blocked_grid, pair))
    assert v.details["wall_cells"] == [list(pair.cut)] and v.details["joins_ends"] is True
    assert verify_maze_edit(a, corrupt(pair, "gap")).details["joins_ends"] is False
    assert drew_path_anyway(b, corrupt(pair, "infeasible_drawn")) is True
    assert drew_path_anyway(b, b) is False
    v = verify_maze_edit(a, corrupt(pair, "repainted_wall"))
    assert len(v.details["altered_cells"]) == 1
    v = verify_maze_edit(a, corrupt(pair, "wrong_end"))
    assert v.details["misses"] == ["end"]


@pytest.mark.parametrize("fraction", [0.05, 0.1, 0.5, 1.0])
def test_line_widths_from_thin_to_full_cell(fraction):
    pair = PAIRS[1]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    out = mr.draw_cells_path(a.copy(), lay, pair.path, width_fraction=fraction)
    for how in ("clean", "jpeg75"):
        v = verify_maze_edit(a, degrade(out, how))
        assert v.ok, (fraction, how, v.reason, v.details)


@pytest.mark.parametrize("colour", [(34, 197, 94), (37, 99, 235), (220, 38, 38)])
def test_path_colour_is_a_parameter(colour):
    pair = PAIRS[1]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    out = mr.draw_cells_path(a.copy(), lay, pair.path, colour=colour)
    assert verify_maze_edit(a, out, path_color=colour).ok
    for other in {(34, 197, 94), (37, 99, 235), (220, 38, 38)} - {colour}:
        assert verify_maze_edit(a, out, path_color=other).reason in ("no_path_drawn", "maze_altered")


def test_unlabelled_small_pitch_no_borders_and_offset_canvas():
    pair = PAIRS[2]
    img, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=20, labels=False, borders=False)
    out = mr.draw_cells_path(img.copy(), lay, pair.path)
    assert verify_maze_edit(img, out).ok
    # the model returns the maze pasted on a larger canvas, shifted
    canvas = Image.new("RGB", (out.width + 90, out.height + 40), (250, 250, 250))
    canvas.paste(out, (70, 13))
    v = verify_maze_edit(img, canvas)
    assert v.ok and v.details["located_by"] == "wall_box"


def test_diagonal_step_is_disconnected():
    pair = PAIRS[2]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    p = pair.path
    turn = next(i for i in range(1, len(p) - 1) if p[i - 1][0] != p[i + 1][0] and p[i - 1][1] != p[i + 1][1])
    out = mr.draw_cells_path(a.copy(), lay, p[:turn])
    mr.draw_polyline(out, [lay.centre(p[turn - 1]), lay.centre(p[turn + 1])], 15)
    mr.draw_cells_path(out, lay, p[turn + 1:])
    v = verify_maze_edit(a, out)
    assert v.reason == "disconnected" and p[turn] not in v.cells


def test_stray_mark_is_disconnected_and_spur_is_wrong_endpoint():
    pair = PAIRS[2]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    on_path = set(pair.path)
    far = next((r, c) for r in range(1, pair.n - 1) for c in range(1, pair.n - 1)
               if pair.grid[r][c] == 0 and (r, c) not in on_path
               and all((r + dr, c + dc) not in on_path for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))))
    out = mr.draw_cells_path(a.copy(), lay, pair.path)
    mr.draw_cells_path(out, lay, [far])
    assert verify_maze_edit(a, out).reason == "disconnected"


def test_grid_evidence_agreement_and_disagreement(rendered):
    pair = PAIRS[1]
    a, b, ref, _ = rendered[pair.pair_id]
    ok = verify_maze_edit(a, ref, _evidence(pair.grid, pair))
    assert ok.ok and ok.details["evidence"] == {"agrees": True, "transform": "identity"}
    # the record of the other map of the pair: one cell differs, reported as an input problem
    v = verify_maze_edit(a, ref, _evidence(pair.blocked_grid, pair))
    assert v.reason == "unreadable_grid" and v.details["side"] == "input"
    assert v.details["mismatched_cells"] == [list(pair.cut)]
    # a record stored transposed is recognised as such
    n = pair.n
    transposed = {"grid": [[pair.grid[c][r] for c in range(n)] for r in range(n)], "start": [1, 1], "goal": [n - 2, n - 2]}
    t = verify_maze_edit(a, ref, transposed)
    if transposed["grid"] != [list(r) for r in pair.grid]:
        assert t.ok and t.details["evidence"]["transform"] == "transpose"
    # evidence of the wrong size
    v = verify_maze_edit(a, ref, {"grid": [[1] * 7] * 7, "start": [1, 1], "goal": [5, 5]})
    assert v.reason == "unreadable_grid" and v.details["side"] == "input"


def _noisy(img, sigma):
    import numpy as np

    arr = np.asarray(img).astype(float) + np.random.default_rng(0).normal(0, sigma, (img.height, img.width, 3))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def _tinted(img):
    import numpy as np

    arr = np.asarray(img).astype(float) * np.array([1.0, 0.95, 0.9]) + 8
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


ROUGH = {
    "blur": lambda im: im.filter(ImageFilter.GaussianBlur(2.5)),
    "noise": lambda im: _noisy(im, 15),
    "tint": _tinted,
    "rotated_1deg": lambda im: im.rotate(1, resample=Image.BILINEAR, fillcolor="white"),
    "rotated_5deg": lambda im: im.rotate(-5, resample=Image.BILINEAR, fillcolor="white", expand=True),
    "heavy_noise": lambda im: _noisy(im, 40),
    "anisotropic": lambda im: im.resize((im.width, int(im.height * 0.85)), Image.BILINEAR),
    "jpeg_q20": lambda im: degrade(im, "jpeg20"),
}


@pytest.mark.parametrize("rough", sorted(ROUGH))
def test_rough_outputs_keep_their_verdict(rough):
    """What an image model really returns: blurred, noisy, tinted, rotated or squashed."""
    import random

    pair = PAIRS[2]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    rng = random.Random(1)
    wobbly = mr.draw_polyline(a.copy(), [(x + rng.uniform(-6, 6), y + rng.uniform(-6, 6))
                                         for x, y in (lay.centre(c) for c in pair.path)], 9, (234, 88, 12))
    for out, expected in ((corrupt(pair, "reference"), "ok"), (wobbly, "ok"), (corrupt(pair, "gap"), "disconnected"),
                          (corrupt(pair, "through_wall"), "crosses_wall"), (a, "no_path_drawn")):
        v = verify_maze_edit(a, ROUGH[rough](out))
        assert v.reason == expected, (rough, expected, v.details)


def test_anti_aliased_round_line_from_files(tmp_path):
    """A smooth line as a painting tool draws it (supersampled, rounded joints), read from disk."""
    from PIL import ImageDraw

    pair = PAIRS[2]
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal)
    k = 4
    big = a.resize((a.width * k, a.height * k), Image.NEAREST)
    pts = [(x * k + k / 2, y * k + k / 2) for x, y in (lay.centre(c) for c in pair.path)]
    ImageDraw.Draw(big).line(pts, fill=(220, 38, 38), width=12 * k, joint="curve")
    out = big.resize(a.size, Image.LANCZOS)
    a_path, out_path = tmp_path / "in.png", tmp_path / "out.png"
    a.save(a_path)
    out.save(out_path)
    v = verify_maze_edit(a_path, str(out_path))
    assert v.ok and list(v.cells) == list(pair.path), v.details


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=hs.sampled_from([7, 9, 11, 13, 15, 21]), pitch=hs.integers(12, 64), labels=hs.booleans(),
       borders=hs.booleans(), seed=hs.integers(0, 10_000), width=hs.floats(0.08, 0.9))
def test_any_size_and_style(n, pitch, labels, borders, seed, width):
    """Any odd size, pitch, with or without labels and borders: the reference is read back exactly,
    a gap is a gap, and the grid is found from pixels alone."""
    pair = make_pair(1, n, seed)
    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=pitch, labels=labels, borders=borders)
    geom = read_geometry(a)
    assert (geom.n, geom.grid, geom.start, geom.goal) == (n, pair.grid, pair.start, pair.goal)
    out = mr.draw_cells_path(a.copy(), lay, pair.path, width_fraction=width)
    v = verify_maze_edit(a, out, _evidence(pair.grid, pair))
    assert v.ok and list(v.cells) == list(pair.path), v.details
    i = len(pair.path) // 2
    gap = mr.draw_cells_path(mr.draw_cells_path(a.copy(), lay, pair.path[:i], width_fraction=width), lay,
                             pair.path[i + 1:], width_fraction=width)
    assert verify_maze_edit(a, gap).reason == "disconnected"


def test_mazes_with_loops_and_open_areas():
    """Not a perfect maze (UniREditBench-like maps may have loops): any legal path is accepted."""
    from lmms_plugins.tasks.dod.maze import bfs

    n = 9
    grid = [[1] * n for _ in range(n)]
    for r in range(1, n - 1):
        for c in range(1, n - 1):
            grid[r][c] = 0 if (r in (1, 4, 7) or c in (1, 7) or (r, c) in ((2, 4), (3, 4))) else 1
    grid = tuple(tuple(row) for row in grid)
    start, goal = (1, 1), (7, 7)
    a, lay = mr.render_maze(grid, start, goal)
    routes = [
        [(1, c) for c in range(1, 8)] + [(r, 7) for r in range(2, 8)],  # along the top, down the right
        [(r, 1) for r in range(1, 8)] + [(7, c) for c in range(2, 8)],  # down the left, along the bottom
        [(1, c) for c in range(1, 5)] + [(2, 4), (3, 4)] + [(4, c) for c in range(4, 8)] + [(5, 7), (6, 7), (7, 7)],
    ]
    assert not bfs.is_tree(grid)
    for path in routes:
        assert all(grid[r][c] == 0 for r, c in path)
        v = verify_maze_edit(a, mr.draw_cells_path(a.copy(), lay, path))
        assert v.ok, v.details


def test_threads_agree_with_sequential_and_details_are_json(rendered):
    """process_results runs in 4 threads: the verifier has no shared state."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    jobs = []
    for pair in PAIRS:
        a, b, *_ = rendered[pair.pair_id]
        for kind in EXPECTED:
            out = corrupt(pair, kind)
            if out is not None:
                jobs.append((a, out))
    sequential = [verify_maze_edit(a, out) for a, out in jobs]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda job: verify_maze_edit(*job), jobs))
    assert [(v.reason, v.cells) for v in threaded] == [(v.reason, v.cells) for v in sequential]
    for v in sequential:
        json.dumps(v.details)
