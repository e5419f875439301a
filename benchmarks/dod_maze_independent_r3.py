"""Audit round 3 of the DoD maze verifier: drawings by a third independent renderer.

Pairs come from ``make-data dod-maze`` at cell pitches 20-48 px; the drawings from
``tests/dod/independent_maze_render_r3.py`` (OpenCV polylines with LINE_AA / LINE_8, Pillow lines
with butt / square / round caps, 4x-supersampled Pillow lines; 0.15-1.0 x pitch; pure, orange and
dark reds, some semi-transparent): correct routes (through the centres, shifted inside the
corridor, a cap over the start, covering both endpoints, full width) and wrong ones (thin strokes
through a wall cell straight / diagonally / clipping a wall corner, a stretch of the route or a
separate line inside a wall along its length, the route along the cells' borders, the infeasible
map solved anyway; thick and thin strokes one cell short; a gap; a wall erased).  Each case is
verified in 3 forms (PNG and two of JPEG (Pillow or OpenCV), rescaled, rescaled + JPEG).
Prints per class: right verdicts and the reasons given; ``--json`` writes every verdict.

    python benchmarks/dod_maze_independent_r3.py               # tuning split (seed 3301)
    python benchmarks/dod_maze_independent_r3.py --seed 3302   # held-out split (never tuned on)
    # an older verifier on the same drawings (a copy of its tasks/dod/maze folder):
    mkdir -p /tmp/old_maze && git archive REV tasks/dod/maze | tar -x -C /tmp/old_maze
    python benchmarks/dod_maze_independent_r3.py --verifier /tmp/old_maze/tasks/dod/maze

Both splits were frozen (this file and the renderer committed) before the verifier ran on them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "dod"))

import independent_maze_render_r3 as r3
from dod_maze_independent import failures, table  # (round 1's report format)
from dod_maze_independent_r2 import make_pairs  # (make-data at several pitches)

# --explore: the thin-through-a-wall classes only, each in more forms than the frozen splits use:
# turned maps (the verifier finds the record's orientation), large upscales (an image model's
# 1024-px output), heavy JPEG
EXPLORE_CLASSES = ("thin_cut_wall_loop", "thin_cut_wall_shortcut", "thin_diagonal_through_wall",
                   "thin_clip_wall_corner", "thin_route_inside_wall", "thin_route_inside_wall_loop",
                   "thin_line_inside_wall_extra", "thin_route_on_cell_borders", "infeasible_solved_thin")
EXPLORE_FORMS = ("png", "rot1", "rot2+jpeg_pil50", "rot3+rescale0.6_bilinear+jpeg_cv240", "rescale2.5_lanczos+jpeg_pil60",
                 "rescale3.0_bicubic+jpeg_cv270", "rescale0.5_box+jpeg_pil40", "rescale0.7_cv2_area+jpeg_cv250",
                 "rot1+rescale2.0_bilinear+jpeg_pil80")


def run(pairs, seed: int, verify=None, classes=None, forms=None):
    """Rows (pair, class, pen@pitch, form, expect_ok, ok, reason, final pitch px, meta)."""
    from PIL import Image

    if verify is None:
        from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit as verify
    rows = []
    for idx, (pitch, pid, ev_a, pa, ev_b, pb) in enumerate(pairs):
        img_a, img_b = Image.open(pa).convert("RGB"), Image.open(pb).convert("RGB")
        for case in r3.cases(ev_a, img_a, ev_b, img_b, seed=seed * 1000 + idx):
            if classes and case.cls not in classes:
                continue
            inp, ev = (img_a, ev_a) if case.on == "A" else (img_b, ev_b)
            for form in forms or case.forms:
                if r3.final_pitch(pitch, form) < 10:   # under 10 px per cell: outside the audit
                    continue
                v = verify(r3.turn_input(inp, form), r3.finish(case.image, form), ev)
                rows.append((f"{pid}@{pitch}px", case.cls, f"{case.pen}@{pitch}px", form, case.expect_ok, v.ok,
                             v.reason, r3.final_pitch(pitch, form), case.meta))
        print(f"  pitch {pitch} {pid}: {len(rows)} verdicts so far", file=sys.stderr)
    return rows


def short_by_gap(rows) -> str:
    """One-cell-short cases by the gap to the endpoint cell in the delivered image's pixels."""
    acc = defaultdict(Counter)
    for r in rows:
        if "one_cell_short" in r[1]:
            px = r[8]["gap"] * r[7]
            b = "< 1 px" if px < 1 else "1-2 px" if px < 2 else "2-4 px" if px < 4 else ">= 4 px"
            acc[b]["n"] += 1
            acc[b]["right"] += r[4] == r[5]
    return "\n".join(f"  gap {b:8s}: {c['right']}/{c['n']} rejected" for b, c in sorted(acc.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=3301)
    ap.add_argument("--pitches", default="20,24,28,34,41,48")
    ap.add_argument("--pairs-per-pitch", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every verdict here")
    ap.add_argument("--explore", action="store_true", help="thin strokes through walls only, in 9 more forms")
    ap.add_argument("--verifier", type=Path, help="verify with a copy of an older tasks/dod/maze folder")
    args = ap.parse_args(argv)
    verify = None
    if args.verifier:
        from dod_maze_speed import load_baseline

        verify = load_baseline(args.verifier)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        pairs = make_pairs(Path(tmp), args.seed, [int(p) for p in args.pitches.split(",")], args.pairs_per_pitch)
        rows = run(pairs, args.seed, verify, *((EXPLORE_CLASSES, EXPLORE_FORMS) if args.explore else ()))
    print(table([r[:7] for r in rows]))
    print(f"\none cell short, by the gap left in the delivered image:\n{short_by_gap(rows)}")
    print(f"\nwrong verdicts (class, pen@pitch, form -> reason):\n{failures([r[:7] for r in rows], 80)}")
    print(f"\n{len(rows)} verdicts in {time.time() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps([list(r[:8]) + [r[8]] for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
