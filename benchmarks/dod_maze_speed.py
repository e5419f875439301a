"""Speed of the DoD maze tools.

1. Verifying one 11x11 maze edit (input PNG + edited PNG, both from disk) against decoding the
   same two PNGs, measured side by side (alternating, many rounds, medians): the goal is
   verify <= 2x decode.
2. Generation: pairs per second written by ``make-data dod-maze`` (render, BFS and pixel checks,
   read-back verification of the reference, PNG encoding, JSONL).

    python benchmarks/dod_maze_speed.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from lmms_plugins.tasks.dod.maze.generate import generate, make_pair, render_pair
from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit


def decode_two(a: Path, b: Path) -> None:
    for p in (a, b):
        with Image.open(p) as im:
            im.convert("RGB").load()


def side_by_side(a: Path, b: Path, rounds: int) -> tuple[float, float]:
    decode_t, verify_t = [], []
    for _ in range(3):  # warm up imports and caches
        decode_two(a, b)
        assert verify_maze_edit(a, b).ok
    for _ in range(rounds):
        t0 = time.perf_counter()
        decode_two(a, b)
        t1 = time.perf_counter()
        verify_maze_edit(a, b)
        t2 = time.perf_counter()
        decode_t.append(t1 - t0)
        verify_t.append(t2 - t1)
    return statistics.median(decode_t), statistics.median(verify_t)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--gen-pairs", type=int, default=60)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pair = make_pair(1, 11, 7)
        a_img, _b, ref_img, _ = render_pair(pair)
        a, ref = tmp / "A.png", tmp / "A-edited.png"
        a_img.save(a)
        ref_img.save(ref)
        dec, ver = side_by_side(a, ref, args.rounds)
        ratio = ver / dec
        print(f"11x11 maze ({a_img.width}x{a_img.height} px), {args.rounds} alternating rounds, medians:")
        print(f"  decode both PNGs : {1000 * dec:7.2f} ms")
        print(f"  verify the edit  : {1000 * ver:7.2f} ms  (includes decoding both)")
        print(f"  ratio verify/decode = {ratio:.2f} (goal <= 2): {'met' if ratio <= 2 else 'MISSED'}")
        t0 = time.perf_counter()
        generate(tmp / "gen", args.gen_pairs, [7, 9, 11], 0, progress=None)
        dt = time.perf_counter() - t0
        print(f"generation: {args.gen_pairs} pairs (sizes 7,9,11) in {dt:.2f}s = {args.gen_pairs / dt:.1f} pairs/s "
              f"(incl. read-back verification and PNG writing)")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
