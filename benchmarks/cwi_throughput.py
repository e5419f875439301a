"""CwI throughput: scoring (parser + rule) vs reading the answers; generation vs PNG encoding.

    python benchmarks/cwi_throughput.py [--n 100000] [--gen-items 20] [--baseline DIR]

``--baseline DIR``: a folder with the ``answer_parse.py`` and ``rules.py`` of another version
(e.g. ``git show REV:tasks/cwi/rules.py``) and an empty ``__init__.py``; the same predictions are
scored with both in one run, alternating in rounds, and the ratio of their speeds is printed;
the scoring table (part 1) then has a row for each version.

1. Scoring: n model outputs in mixed spellings across the rule kinds, each scored against its
   gold with the task's rule (goal: at least 20k answers/s with the one answer reader); next to it, the floor: reading the same n outputs from a
   samples JSONL file (one json.loads per line), as a run's logged samples are read. Scored in
   the file's order (tasks mixed) and task by task (as lmms-eval scores: one task after another).
2. Generation: items per second of each generator, next to the time spent PNG-encoding the same
   images (what writing the parquet costs anyway). Each generator first makes one untimed item:
   its imports (scipy.signal alone takes ~0.6 s) are paid once per run, not per item; that
   first item's time is printed in its own column.

Times are CPU time of this process (time.process_time): on a shared machine wall time measures
the neighbours' load, CPU time the work.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time

from lmms_plugins.tasks.cwi import generate
from lmms_plugins.tasks.cwi.rules import score
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

# (task, gold, prediction templates) covering every rule kind
CASES = [
    ("alignment", "3,-2", ["<answer>{a},{b}</answer>", "Reasoning... <answer>dx={a}, dy={b}</answer>", "<answer>({a}, {b})</answer>"]),
    ("peak_count", "7", ["<answer>{a}</answer>", "count is <answer>count: {a}</answer>"]),
    ("jigsaw", "[2,0,1,3]", ["<answer>[{a},0,1,3]</answer>", "<answer>{a} 0 1 3</answer>"]),
    ("anomaly_v2", "[[0,3],[2,1]]", ["<answer>[[0,{a}],[2,1]]</answer>"]),
    ("transform_chain", "dx=3, dy=-2, rot_k=1, fliph=0", ["<answer>dx={a}, dy={b}, rot_k=1, fliph=0</answer>"]),
    ("unshuffle2d", "rows=[2,0,1]; cols=[1,2,0]", ["<answer>rows=[2,0,1]; cols=[1,{a},0]</answer>"]),
    ("ring_rotor", "ring=2, angle=135.0", ["<answer>ring=2, angle={a}.5</answer>"]),
    ("rot_scale", "angle=45.0, scale=1.2", ["<answer>angle={a}°, scale=1.2</answer>"]),
    ("double_exposure", "[30,-50]", ["<answer>[{a},{b}]</answer>"]),
    ("brightest_blob", "240,130", ["<answer>({a}, {b}) px</answer>"]),
    ("sub_rect_swap", "[[0,0,100,100],[500,500,700,700]]", ["<answer>[[0,0,10{a},100],[500,500,700,70{b}]]</answer>"]),
    ("restore_then_measure", "37.5", ["<answer>3{a}.5%</answer>"]),
    ("swatch_rgb", "120,64,200", ["<answer>RGB(12{a}, 6{b}, 200)</answer>"]),
    # the shapes of issue 14.3: pairs, 2-D shifts, flat cells, corner pairs, names in any order
    ("rotated_jigsaw", "tiles=[1,0,2,3]; rots=[3,0,1,2]", ["<answer>[[1,3],[0,0],[2,{a}],[3,2]]</answer>",
                                                        '<answer>[{{"tile": 1, "rot": 270}}, {{"tile": 0, "rot": 0}}, {{"tile": 2, "rot": 9{a}}}, {{"tile": 3, "rot": 180}}]</answer>']),
    ("double_exposure", "[[30,0],[-50,0]]", ["<answer>[[{a},0],[{b},0]]</answer>"]),
    ("anomaly_v2", "[3, 9]", ["<answer>[{a}, 9]</answer>"]),
    ("crop_provenance", "[100,100,500,500]", ["<answer>(10{a},100) to (500,50{a})</answer>", "<answer>x=100, y=100, w=40{a}, h=400</answer>"]),
    ("brightest_blob", "x=240, y=130", ["<answer>y=13{a}, x=240</answer>"]),
    ("rot_scale", "scale=1.2, angle=45", ["<answer>scale 1.2, angle 4{a}°</answer>"]),
    ("unshuffle2d", "rows: 2 0 1; cols: 1 2 0", ["<answer>rows: 2 0 1; cols: 1 {a} 0</answer>"]),
]
ORIGINAL = 13  # CASES[:13] are the spellings both versions read; the rest are issue 14.3's


def make_predictions(n: int, seed: int = 0):
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        task, gold, templates = CASES[rnd.randrange(len(CASES))]
        text = rnd.choice(templates).format(a=rnd.randint(0, 9), b=-rnd.randint(0, 9))
        if rnd.random() < 0.3:
            text = "Let me write some code to measure this. " * rnd.randint(1, 20) + text
        out.append((task, gold, text))
    return out


def _load_baseline(folder: str):
    """``score`` and ``rule_from_config`` of the rules.py in ``folder`` (a package of its own)."""
    import importlib
    import sys

    folder = os.path.abspath(folder)
    parent, name = os.path.dirname(folder), os.path.basename(folder)
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        raise SystemExit(f"--baseline {folder}: needs __init__.py, answer_parse.py and rules.py")
    sys.path.insert(0, parent)
    mod = importlib.import_module(f"{name}.rules")
    return mod.score, mod.rule_from_config


def bench_baseline(n: int, folder: str, rounds: int = 40) -> dict:
    """This version's scorer against the one in ``folder`` on the same predictions, alternating."""
    import dataclasses

    old_score, old_rule = _load_baseline(folder)
    preds = make_predictions(n)
    new_rules = {t: rule_for_task(t) for t, _, _ in CASES}
    old_rules = {t: old_rule(dataclasses.asdict(r) | {"fields": [dataclasses.asdict(f) for f in r.fields]})
                 for t, r in new_rules.items()}
    original = {(t, g) for t, g, _ in CASES[:ORIGINAL]}
    times = {(v, sub): 0.0 for v in ("new", "old") for sub in ("original", "new_shapes")}
    correct = {k: 0 for k in times}
    count = {"original": 0, "new_shapes": 0}
    ratios: dict[str, list[float]] = {"original": [], "new_shapes": []}  # per round: robust to load bursts
    chunk = max(1, n // rounds)
    for i in range(0, n, chunk):
        part = preds[i:i + chunk]
        for sub in ("original", "new_shapes"):
            subset = [p for p in part if ((p[0], p[1]) in original) == (sub == "original")]
            count[sub] += len(subset)
            took = {}
            for label, fn, rules in (("old", old_score, old_rules), ("new", score, new_rules)):
                t0 = time.process_time()
                got = sum(fn(rules[task], text, gold).correct for task, gold, text in subset)
                took[label] = time.process_time() - t0
                times[(label, sub)] += took[label]
                correct[(label, sub)] += got
            if subset:
                ratios[sub].append(took["new"] / took["old"])
    return {"count": count, "times": times, "correct": correct,
            "median_ratio": {k: sorted(v)[len(v) // 2] for k, v in ratios.items() if v}}


def bench_scoring(n: int, baseline: str | None = None, repeats: int = 3) -> dict:
    """Reading n outputs from a samples JSONL against scoring them, in the file's (mixed) order
    and task by task (as lmms-eval calls process_results: one task's documents after another);
    with ``baseline``, that version's scorer too. Every timing is the least of ``repeats`` runs
    taken in rotation (a burst of load on the shared machine lands in one run, not in one column)."""
    import dataclasses

    preds = make_predictions(n)
    rules = {t: rule_for_task(t) for t, _, _ in CASES}
    scorers = {"this version": (score, rules)}
    if baseline:
        old_score, old_rule = _load_baseline(baseline)
        scorers["baseline"] = (old_score, {t: old_rule(dataclasses.asdict(r) | {"fields": [dataclasses.asdict(f) for f in r.fields]})
                                           for t, r in rules.items()})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "samples.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            for i, (task, gold, text) in enumerate(preds):
                fh.write(json.dumps({"doc_id": i, "task": task, "target": gold, "resps": [[text]], "filtered_resps": [text]}) + "\n")

        def read_file():
            with open(path, encoding="utf-8") as fh:
                return [(r["task"], r["target"], r["filtered_resps"][0]) for r in map(json.loads, fh)]

        read = read_file()
        orders = {"mixed": read, "by task": sorted(read, key=lambda r: r[0])}
        best: dict = {}
        correct: dict = {}
        for _ in range(repeats):
            t0 = time.process_time()
            read_file()
            best["read"] = min(best.get("read", float("inf")), time.process_time() - t0)
            for label, (fn, task_rules) in scorers.items():
                for order, items in orders.items():
                    t0 = time.process_time()
                    got = sum(fn(task_rules[task], text, gold).correct for task, gold, text in items)
                    took = time.process_time() - t0
                    best[(label, order)] = min(best.get((label, order), float("inf")), took)
                    correct[(label, order)] = got
    return {"n": n, "read_per_s": n / best["read"], "t_read": best["read"],
            "rows": [{"version": label, "order": order, "per_s": n / best[(label, order)],
                      "ratio": best[(label, order)] / best["read"], "correct": correct[(label, order)]}
                     for label in scorers for order in orders]}


def bench_generation(items: int) -> list[dict]:
    rows = []
    for task in generate.available_tasks():
        mod = generate.load_generator(task)
        t0 = time.process_time()
        mod.generate(generate.item_rng(99, task, "train", 0), generate.tier_of(0, items))  # imports
        t_first = time.process_time() - t0
        t_gen = t_png = 0.0
        for i in range(items):
            t0 = time.process_time()
            it = mod.generate(generate.item_rng(99, task, "test", i), generate.tier_of(i, items))
            t1 = time.process_time()
            generate.png_bytes(it.image)
            if it.image_2 is not None:
                generate.png_bytes(it.image_2)
            t_png += time.process_time() - t1
            t_gen += t1 - t0
        rows.append({"task": task, "items_per_s": items / t_gen, "png_ms": 1000 * t_png / items,
                     "gen_ms": 1000 * t_gen / items, "first_ms": 1000 * t_first})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--gen-items", type=int, default=20)
    p.add_argument("--baseline", help="folder with another version's answer_parse.py + rules.py")
    p.add_argument("--scoring-only", action="store_true", help="skip the generation table")
    args = p.parse_args(argv)
    if args.baseline:
        b = bench_baseline(args.n, args.baseline)
        for sub, what in (("original", "spellings both versions read"), ("new_shapes", "issue 14.3 shapes")):
            k, t_old, t_new = b["count"][sub], b["times"][("old", sub)], b["times"][("new", sub)]
            print(f"scoring {k} predictions ({what}), same run, alternating: baseline {k / t_old:,.0f}/s, "
                  f"this version {k / t_new:,.0f}/s; time ratio this/baseline {t_new / t_old:.2f} overall, "
                  f"{b['median_ratio'][sub]:.2f} median of {len(range(0, args.n, max(1, args.n // 40)))} rounds "
                  f"(correct: baseline {b['correct'][('old', sub)]}, this version {b['correct'][('new', sub)]})")
    s = bench_scoring(args.n, args.baseline)
    print(f"scoring {s['n']} predictions (least of 3 runs each, in rotation); reading them from a samples JSONL: "
          f"{s['read_per_s']:,.0f}/s\n\n| version | order | parser+rule answers/s | time / read | correct |\n|---|---|---:|---:|---:|")
    for r in s["rows"]:
        print(f"| {r['version']} | {r['order']} | {r['per_s']:,.0f} | {r['ratio']:.2f}x | {r['correct']} |")
    if args.scoring_only:
        return 0
    print("\n| task | items/s | generate ms/item | PNG encode ms/item | generate / PNG | first item (imports), ms |"
          "\n|---|---|---|---|---|---|")
    for r in bench_generation(args.gen_items):
        print(f"| {r['task']} | {r['items_per_s']:.1f} | {r['gen_ms']:.1f} | {r['png_ms']:.1f} | {r['gen_ms'] / r['png_ms']:.1f}x "
              f"| {r['first_ms']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
