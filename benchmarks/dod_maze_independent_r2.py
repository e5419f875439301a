"""Audit round 2 of the DoD maze verifier: drawings by a second independent renderer.

Pairs come from ``make-data dod-maze`` at several cell pitches (20-48 px); the drawings from
``tests/dod/independent_maze_render_r2.py`` (signed-distance strokes 0.15-1.0 x pitch, round and
square caps, pure / orange / dark reds; thin strokes cutting through a wall cell or lying inside
a wall; thick or thin strokes one cell short; gaps of a few pixels; ...), each verified in 4 forms
drawn at random from PNG, JPEG q60-95, rescaled 0.5x-1.7x and rescaled + JPEG.  The case list is
fixed by the seed.  Prints per class: correct drawings accepted / wrong drawings rejected, and the
reasons given; ``--json`` writes every verdict.

    python benchmarks/dod_maze_independent_r2.py               # tuning split (seed 2611)
    python benchmarks/dod_maze_independent_r2.py --seed 2612   # held-out split: run before and
                                                               # after a change, never tuned on

Both splits were frozen (this file and the renderer committed) before the verifier changed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "dod"))

import independent_maze_render_r2 as r2  # noqa: E402
from dod_maze_independent import failures, table  # noqa: E402  (round 1's report format)


def make_pairs(root: Path, seed: int, pitches, pairs_per_pitch: int):
    """[(pitch, pair_id, evidence_a, path_a, evidence_b, path_b)] from make-data at each pitch."""
    from lmms_plugins.tasks.dod.maze.generate import main as make_data

    out = []
    for k, pitch in enumerate(pitches):
        d = root / f"pitch{pitch}"
        make_data(["--pairs", str(pairs_per_pitch), "--seed", str(seed + k), "--pitch", str(pitch),
                   "--sizes", "7,9,11", "--out", str(d)])
        by = defaultdict(dict)
        for line in (d / "ground_truth_criteria.jsonl").read_text().splitlines():
            rec = json.loads(line)
            by[rec["pair_id"]]["A" if rec["ground_truth"]["feasible"] else "B"] = rec["grid_evidence"]
        for pid, ev in sorted(by.items()):
            out.append((pitch, pid, ev["A"], d / "image" / f"{pid}-A.png", ev["B"], d / "image" / f"{pid}-B.png"))
    return out


def run(pairs, seed: int, verify=None, classes=None, forms=None):
    """Rows in the layout of round 1's benchmark (its ``table`` and ``failures`` print them):
    (pair, class, pen@pitch, form, expect_ok, ok, reason)."""
    from PIL import Image

    if verify is None:
        from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit as verify
    rows = []
    for idx, (pitch, pid, ev_a, pa, ev_b, pb) in enumerate(pairs):
        img_a, img_b = Image.open(pa).convert("RGB"), Image.open(pb).convert("RGB")
        for case in r2.cases(ev_a, img_a, ev_b, img_b, seed=seed * 1000 + idx):
            if classes and case.cls not in classes:
                continue
            inp, ev = (img_a, ev_a) if case.on == "A" else (img_b, ev_b)
            for form in forms or case.forms:
                v = verify(inp, r2.finish(case.image, form), ev)
                rows.append((f"{pid}@{pitch}px", case.cls, f"{case.pen}@{pitch}px", form, case.expect_ok, v.ok, v.reason))
        print(f"  pitch {pitch} {pid}: {len(rows)} verdicts so far", file=sys.stderr)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2611)
    ap.add_argument("--pitches", default="20,28,34,41,48")
    ap.add_argument("--pairs-per-pitch", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write every verdict here")
    args = ap.parse_args(argv)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        pairs = make_pairs(Path(tmp), args.seed, [int(p) for p in args.pitches.split(",")], args.pairs_per_pitch)
        rows = run(pairs, args.seed)
    print(table(rows))
    print(f"\nwrong verdicts (class, pen@pitch, form -> reason):\n{failures(rows, 60)}")
    print(f"\n{len(rows)} verdicts in {time.time() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
