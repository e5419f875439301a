"""The maze verifier on drawings by the second independent renderer (independent_maze_render_r2.py).

Signed-distance strokes (round / square caps, pure, orange and dark reds, semi-transparent ones)
on maps of another pitch, rescaled and JPEG-compressed: every correct drawing accepted (a round
cap over the start included), every wrong one rejected (a thin stroke through a wall or inside
one, a thick stroke one cell short, a gap of a few pixels, ...).  The full audit is
benchmarks/dod_maze_independent_r2.py; this is a fixed subset of it (2 maps on a seed of neither
of its splits, pitch 34 and 48, every class, each case in its own 2 forms).
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from PIL import Image

import independent_maze_render_r2 as r2
from lmms_plugins.tasks.dod.maze.generate import main as make_data
from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit

# the reason each wrong class must get (the others are rejected for one of several reasons)
REASONS = {
    "thin_cut_through_wall": "crosses_wall", "thin_along_wall_inside": "crosses_wall",
    "thick_one_cell_short": "wrong_endpoint", "thick_one_cell_short_at_start": "wrong_endpoint",
    "thin_one_cell_short": "wrong_endpoint", "to_dead_end": "wrong_endpoint",
    "gap_few_px": "disconnected", "passage_painted_wall": "maze_altered",
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    out = defaultdict(list)  # class -> [(expect_ok, ok, reason, pen, form)]
    for k, pitch in enumerate((34, 48)):
        root = tmp_path_factory.mktemp(f"r2_{pitch}")
        assert make_data(["--pairs", "1", "--sizes", "9", "--seed", str(733 + k), "--pitch", str(pitch),
                          "--out", str(root)]) == 0
        ev = {}
        for line in (root / "ground_truth_criteria.jsonl").read_text().splitlines():
            rec = json.loads(line)
            ev["A" if rec["ground_truth"]["feasible"] else "B"] = rec["grid_evidence"]
        img = {s: Image.open(root / "image" / f"synthetic-maze-001-{s}.png").convert("RGB") for s in "AB"}
        for case in r2.cases(ev["A"], img["A"], ev["B"], img["B"], seed=733 + k, forms_per_case=2):
            for form in case.forms:
                v = verify_maze_edit(img[case.on], r2.finish(case.image, form), ev[case.on])
                out[case.cls].append((case.expect_ok, v.ok, v.reason, case.pen, form))
    return out


def test_every_class_was_drawn(verdicts):
    assert {"correct", "correct_cap_over_endpoint", "correct_ends_inside_endpoints", "infeasible_drawn_anyway",
            "thin_cut_across_wall_corner"} | set(REASONS) <= set(verdicts)


@pytest.mark.parametrize("cls", ["correct", "correct_cap_over_endpoint", "correct_ends_inside_endpoints"])
def test_correct_drawings_are_accepted(verdicts, cls):
    rows = verdicts[cls]
    assert rows and all(expect for expect, *_ in rows)
    assert not [(pen, form, reason) for _, ok, reason, pen, form in rows if not ok]


@pytest.mark.parametrize("cls", sorted(set(REASONS) | {"infeasible_drawn_anyway", "thin_cut_across_wall_corner",
                                                      "thin_one_cell_short_at_start"}))
def test_wrong_drawings_are_rejected(verdicts, cls):
    rows = verdicts[cls]
    assert rows and not any(expect for expect, *_ in rows)
    assert not [(pen, form) for _, ok, _, pen, form in rows if ok]
    if cls in REASONS:
        assert {reason for _, _, reason, _, _ in rows} == {REASONS[cls]}, rows
