"""CwI: how often does one fixed answer land within the tolerance, in expectation?

    python benchmarks/cwi_constant_shortcut.py [--n 500] [--seed 2024] [--tasks all]

cwi_solver_vs_shortcuts.py scores the train split's best constant on a 100-item test split;
that number moves by a few points from seed to seed. Here the constant is chosen on n train
items and scored on n other test items (both drawn as ``make-data cwi`` draws them, tiers
balanced), which estimates its expected hit rate; from it, the chance that a fresh 100-item
test split shows more than 5 % (binomial). Goal: expected <= 3 %, so that the 100-item check
passes on almost every seed. Only the generators run (no solver).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from lmms_plugins.tasks.cwi import generate
from lmms_plugins.tasks.cwi.catalog import TASKS
from lmms_plugins.tasks.cwi.rules import _compare, _read_gold
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

EXPECTED_GOAL = 0.03


def answers(task: str, split: str, n: int, seed: int) -> list[str]:
    gen = generate.load_generator(task)
    return [gen.generate(generate.item_rng(seed, task, split, i), generate.tier_of(i, n)).answer for i in range(n)]


def hits(rule, guess, golds) -> int:
    """Items whose gold the fixed (already parsed) answer ``guess`` matches under the rule."""
    return sum(_compare(rule, guess, g)[0] for g in golds)


def above_5_percent(p: float, n: int = 100) -> float:
    """P(X > 5 % of n) for X ~ Binomial(n, p)."""
    k0 = int(0.05 * n) + 1
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(k0, n + 1))


def run_task(task: str, n: int, seed: int) -> dict:
    rule = rule_for_task(task)
    train = [_read_gold(rule, a)[0] for a in answers(task, "train", n, seed)]
    test = [_read_gold(rule, a)[0] for a in answers(task, "test", n, seed)]
    candidates = list({repr(v): v for v in train}.values())
    best = max(candidates, key=lambda c: hits(rule, c, train))
    expected = hits(rule, best, test) / n
    hindsight = max(hits(rule, c, test) for c in list({repr(v): v for v in test}.values())) / n
    return {"task": task, "expected": expected, "hindsight": hindsight, "p_above_5": above_5_percent(expected)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--tasks", default="all")
    args = p.parse_args(argv)
    wanted = TASKS if args.tasks == "all" else [t.strip() for t in args.tasks.split(",")]
    print(f"constant shortcut, chosen on {args.n} train items, scored on {args.n} test items (seed {args.seed})\n")
    print("| task | constant (train -> test) | P(> 5 % on 100 items) | constant in hindsight |")
    print("|---|---|---|---|")
    missed, t0 = [], time.perf_counter()
    for task in wanted:
        r = run_task(task, args.n, args.seed)
        print(f"| {task} | {r['expected']:.1%} | {r['p_above_5']:.0%} | {r['hindsight']:.1%} |", flush=True)
        if r["expected"] > EXPECTED_GOAL:
            missed.append(task)
    print(f"\ngoal: expected <= {EXPECTED_GOAL:.0%}; missed: {', '.join(missed) or 'none'}; {time.perf_counter() - t0:.0f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
