"""Accuracy of the DoD maze verifier on generated pairs.

For every generated pair, the reference drawing and systematic wrong edits (see
``tasks/dod/maze_corrupt.py``: through a wall, a gap, a dead-end detour, stopping short, a
repainted wall, no path; on the infeasible map: the solution drawn anyway, nothing drawn) are
verified as PNG, as JPEG quality 75, and rescaled to 0.5x and 1.7x.  Prints one confusion table
per form (rows: the corruption and the reason it must get; columns: the reason given) and the
share of correct verdicts; exits 1 when a target is missed (100 % clean, >= 99 % otherwise).

    python benchmarks/dod_maze_verifier.py --pairs 300
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

from lmms_plugins.tasks.dod.maze_corrupt import EXPECTED, INFEASIBLE_EXPECTED, corrupt, degrade
from lmms_plugins.tasks.dod.maze_generate import make_pair, render_pair
from lmms_plugins.tasks.dod.maze_verify import REASONS, verify_maze_edit

FORMS = ("clean", "jpeg75", "scale0.5", "scale1.7")
TARGET = {"clean": 1.0, "jpeg75": 0.99, "scale0.5": 0.99, "scale1.7": 0.99}
SHORT = {"ok": "ok", "no_path_drawn": "no_path", "disconnected": "discon", "crosses_wall": "wall",
         "wrong_endpoint": "wrong_end", "maze_altered": "altered", "unreadable_grid": "unread"}


def run(pairs: int, sizes: list[int], seed: int, forms=FORMS) -> dict:
    kinds = {**EXPECTED, **INFEASIBLE_EXPECTED}
    table: dict[str, dict[str, Counter]] = {f: defaultdict(Counter) for f in forms}
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
        for kind, expected in kinds.items():
            out = corrupt(pair, kind, seed)
            if out is None:
                not_applicable[kind] += 1
                continue
            infeasible = kind.startswith("infeasible")
            for form in forms:
                verdict = verify_maze_edit(b if infeasible else a, degrade(out, form), evidence[infeasible])
                table[form][kind][verdict.reason] += 1
                if verdict.reason != expected:
                    misses.append((pair.pair_id, pair.n, kind, form, verdict.reason,
                                   {k: v for k, v in verdict.details.items() if k != "coverage"}))
        if index % max(1, pairs // 10) == 0:
            print(f"  {index}/{pairs} pairs ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
    return {"table": table, "not_applicable": not_applicable, "misses": misses, "seconds": time.perf_counter() - t0}


def report(result: dict, forms=FORMS) -> bool:
    kinds = {**EXPECTED, **INFEASIBLE_EXPECTED}
    all_ok = True
    for form in forms:
        rows = result["table"][form]
        print(f"\n== {form} ==")
        header = f"{'corruption':<22}{'must be':<11}" + "".join(f"{SHORT[r]:>10}" for r in REASONS) + f"{'correct':>10}"
        print(header)
        right = total = 0
        for kind, expected in kinds.items():
            counts = rows.get(kind, Counter())
            n = sum(counts.values())
            good = counts[expected]
            right += good
            total += n
            print(f"{kind:<22}{SHORT[expected]:<11}" + "".join(f"{counts[r]:>10}" for r in REASONS)
                  + f"{(f'{good}/{n}') if n else '-':>10}")
        share = right / total if total else 0.0
        met = share >= TARGET[form]
        all_ok &= met
        print(f"correct: {right}/{total} = {100 * share:.2f} % (target {100 * TARGET[form]:.0f} %): {'met' if met else 'MISSED'}")
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
    args = p.parse_args(argv)
    forms = tuple(f for f in args.forms.split(",") if f)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"maze verifier: {args.pairs} pairs, sizes {sizes}, seed {args.seed}, forms {forms}")
    result = run(args.pairs, sizes, args.seed, forms)
    return 0 if report(result, forms) else 1


if __name__ == "__main__":
    sys.exit(main())
