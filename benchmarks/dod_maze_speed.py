"""Speed of the DoD maze tools.

1. Verifying one 11x11 maze edit (input PNG + edited PNG, both from disk) against decoding the
   same two PNGs, measured side by side (alternating, many rounds, medians): the goal is
   verify <= 2x decode.
2. Generation: pairs per second written by ``make-data dod-maze`` (render, BFS and pixel checks,
   read-back verification of the reference, PNG encoding, JSONL).

    python benchmarks/dod_maze_speed.py
    # side by side with an older verifier (a copy of its tasks/dod/maze folder):
    mkdir -p /tmp/old_maze && git archive REV tasks/dod/maze | tar -x -C /tmp/old_maze
    python benchmarks/dod_maze_speed.py --baseline /tmp/old_maze/tasks/dod/maze
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


def load_baseline(folder: Path):
    """``verify_maze_edit`` of a copy of the maze package in ``folder`` (loaded under another name)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("maze_baseline", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["maze_baseline"] = module
    spec.loader.exec_module(module)
    from maze_baseline.verify import verify_maze_edit as baseline

    return baseline


def side_by_side(a: Path, b: Path, rounds: int, baseline=None) -> tuple[float, float, float | None]:
    """Medians of decoding both files, verifying (and verifying with ``baseline``), alternating."""
    decode_t, verify_t, base_t = [], [], []
    for _ in range(3):  # warm up imports and caches
        decode_two(a, b)
        assert verify_maze_edit(a, b).ok
        assert baseline is None or baseline(a, b).ok
    for _ in range(rounds):
        t0 = time.perf_counter()
        decode_two(a, b)
        t1 = time.perf_counter()
        verify_maze_edit(a, b)
        t2 = time.perf_counter()
        decode_t.append(t1 - t0)
        verify_t.append(t2 - t1)
        if baseline is not None:
            baseline(a, b)
            base_t.append(time.perf_counter() - t2)
    return (statistics.median(decode_t), statistics.median(verify_t),
            statistics.median(base_t) if base_t else None)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--gen-pairs", type=int, default=60)
    p.add_argument("--baseline", type=Path, help="a copy of an older tasks/dod/maze folder, timed alongside")
    p.add_argument("--jpeg", type=int, help="save the edited image as JPEG of this quality instead of PNG")
    args = p.parse_args(argv)
    baseline = load_baseline(args.baseline) if args.baseline else None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pair = make_pair(1, 11, 7)
        a_img, _b, ref_img, _ = render_pair(pair)
        a = tmp / "A.png"
        ref = tmp / ("A-edited.jpg" if args.jpeg else "A-edited.png")
        a_img.save(a)
        ref_img.save(ref, **({"quality": args.jpeg} if args.jpeg else {}))
        dec, ver, base = side_by_side(a, ref, args.rounds, baseline)
        ratio = ver / dec
        print(f"11x11 maze ({a_img.width}x{a_img.height} px), {args.rounds} alternating rounds, medians:")
        print(f"  decode both files: {1000 * dec:7.2f} ms")
        print(f"  verify the edit  : {1000 * ver:7.2f} ms  (includes decoding both)")
        if base is not None:
            print(f"  baseline verifier: {1000 * base:7.2f} ms  (ratio {base / dec:.2f})")
        print(f"  ratio verify/decode = {ratio:.2f} (goal <= 2): {'met' if ratio <= 2 else 'MISSED'}")
        t0 = time.perf_counter()
        generate(tmp / "gen", args.gen_pairs, [7, 9, 11], 0, progress=None)
        dt = time.perf_counter() - t0
        print(f"generation: {args.gen_pairs} pairs (sizes 7,9,11) in {dt:.2f}s = {args.gen_pairs / dt:.1f} pairs/s "
              f"(incl. read-back verification and PNG writing)")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
