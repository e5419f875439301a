"""Accuracy of the DoD maze verifier on generated pairs.

For every generated pair, the reference drawing and systematic wrong edits (see
``tasks/dod/maze/corrupt.py``: through a wall, a gap, a dead-end detour, stopping 3 moves short,
stopping one cell short of the end, starting one cell after the start, a repainted wall, no
path; on the infeasible map: the solution drawn anyway, nothing drawn) are verified as PNG, as
JPEG quality 75, and rescaled to 0.5x and 1.7x.  The reference and the two one-cell-short edits
are also drawn in other renderers' styles (``maze.corrupt.STYLES``: thin 0.1 and wide 0.5 x
pitch lines, anti-aliased round lines, a path colour slightly off).  Prints one confusion table
per form (rows: style / corruption and the reason it must get; columns: the reason given) and
the share of correct verdicts; exits 1 when a target is missed (100 % clean, >= 99 % otherwise,
and one-cell-short edits rejected 100 % in every form and style).

    python benchmarks/dod_maze_verifier.py --pairs 300
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

from lmms_plugins.tasks.dod.maze.corrupt import EXPECTED, INFEASIBLE_EXPECTED, STYLES, corrupt, degrade
from lmms_plugins.tasks.dod.maze.generate import make_pair, render_pair
from lmms_plugins.tasks.dod.maze.verify import REASONS, verify_maze_edit

FORMS = ("clean", "jpeg75", "scale0.5", "scale1.7")
TARGET = {"clean": 1.0, "jpeg75": 0.99, "scale0.5": 0.99, "scale1.7": 0.99}
SHORT = {"ok": "ok", "no_path_drawn": "no_path", "disconnected": "discon", "crosses_wall": "wall",
         "wrong_endpoint": "wrong_end", "maze_altered": "altered", "unreadable_grid": "unread"}
STYLED_KINDS = ("reference", "short_of_end", "short_of_start")  # drawn in every style
ONE_SHORT = ("short_of_end", "short_of_start")


def _kinds(styles) -> list[tuple[str, str, str]]:
    """(style, kind, expected reason): every kind in the reference style, the styled ones in all."""
    every = {**EXPECTED, **INFEASIBLE_EXPECTED}
    return [(st, kind, expected) for st in styles for kind, expected in every.items()
            if st == "reference" or kind in STYLED_KINDS]


def run(pairs: int, sizes: list[int], seed: int, forms=FORMS, styles=tuple(STYLES)) -> dict:
    table: dict[str, dict[tuple, Counter]] = {f: defaultdict(Counter) for f in forms}
    not_applicable = Counter()
    misses = []
    t0 = time.perf_counter()
    for index in range(1, pairs + 1):
        pair = make_pair(index, sizes[(index - 1) % len(sizes)], seed)
        a, b, _ref, _ = render_pair(pair)
        evidence = {
            False: {"grid": [list(r) for r in pair.grid], "start": list(pair.start), "goal": list(pair.goal)},
            True: {"grid": [list(r) for r in pair.blocked_grid], "start": list(pair.start), "goal": list(pair.goal)},
        }
        for style, kind, expected in _kinds(styles):
            out = corrupt(pair, kind, seed, style=style)
            if out is None:
                not_applicable[kind] += style == "reference"
                continue
            infeasible = kind.startswith("infeasible")
            for form in forms:
                verdict = verify_maze_edit(b if infeasible else a, degrade(out, form), evidence[infeasible])
                table[form][(style, kind)][verdict.reason] += 1
                if verdict.reason != expected:
                    misses.append((pair.pair_id, pair.n, style, kind, form, verdict.reason,
                                   {k: v for k, v in verdict.details.items() if k != "coverage"}))
        if index % max(1, pairs // 10) == 0:
            print(f"  {index}/{pairs} pairs ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
    return {"table": table, "not_applicable": not_applicable, "misses": misses, "seconds": time.perf_counter() - t0}


def report(result: dict, forms=FORMS, styles=tuple(STYLES)) -> bool:
    all_ok = True
    short_right = short_total = 0
    for form in forms:
        rows = result["table"][form]
        print(f"\n== {form} ==")
        header = f"{'style / corruption':<34}{'must be':<11}" + "".join(f"{SHORT[r]:>10}" for r in REASONS) + f"{'correct':>10}"
        print(header)
        right = total = 0
        for style, kind, expected in _kinds(styles):
            counts = rows.get((style, kind), Counter())
            n = sum(counts.values())
            good = counts[expected]
            right += good
            total += n
            if kind in ONE_SHORT:
                short_right += good
                short_total += n
            print(f"{style + ' / ' + kind:<34}{SHORT[expected]:<11}" + "".join(f"{counts[r]:>10}" for r in REASONS)
                  + f"{(f'{good}/{n}') if n else '-':>10}")
        share = right / total if total else 0.0
        met = share >= TARGET[form]
        all_ok &= met
        print(f"correct: {right}/{total} = {100 * share:.2f} % (target {100 * TARGET[form]:.0f} %): {'met' if met else 'MISSED'}")
    met = short_total > 0 and short_right == short_total
    all_ok &= met
    print(f"\none cell short (either end, every form and style): {short_right}/{short_total} rejected"
          f" (target 100 %): {'met' if met else 'MISSED'}")
    if result["not_applicable"]:
        print("\nnot applicable (maze has no such edit):", dict(result["not_applicable"]))
    for miss in result["misses"][:15]:
        print("miss:", miss)
    print(f"\n{result['seconds']:.1f}s")
    return all_ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=300)
    p.add_argument("--sizes", default="7,9,11")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--forms", default=",".join(FORMS))
    p.add_argument("--styles", default=",".join(STYLES))
    args = p.parse_args(argv)
    forms = tuple(f for f in args.forms.split(",") if f)
    styles = tuple(st for st in args.styles.split(",") if st)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"maze verifier: {args.pairs} pairs, sizes {sizes}, seed {args.seed}, forms {forms}, styles {styles}")
    result = run(args.pairs, sizes, args.seed, forms, styles)
    return 0 if report(result, forms, styles) else 1


if __name__ == "__main__":
    sys.exit(main())
