"""GRADE scoring against a judge with a fixed latency, at several ``--process_docs_parallel`` values.

Runs ``hooks.process_results`` over N samples through lmms-eval's own scoring thread pool
(``lmms_eval.evaluator._thread_map_ordered``, as the evaluator does), against the loopback judge of
the tests (tests/judge_server.py) that waits ``--latency`` seconds before each answer. Each
configuration gets a fresh judge cache, so every call goes to the judge. ``--serial-dims`` asks R,
C and L one after another inside a sample (the behaviour before they were asked together).

    .venv/bin/python benchmarks/grade_judge_concurrency.py --samples 520 --threads 4,8,16,32
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "tests" / "grade"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=520)
    ap.add_argument("--threads", default="4,8,16,32")
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--serial-dims", action="store_true", help="ask R, C, L one after another (old behaviour)")
    args = ap.parse_args(argv)

    import grade_fixtures as gf
    from judge_server import FakeJudgeServer

    from lmms_eval.evaluator import _thread_map_ordered
    from lmms_plugins.tasks.grade import hooks, judging
    from lmms_plugins.tasks.grade.records import load_records

    if args.serial_dims:
        judging._run_together = lambda jobs: {dim: fn() for dim, fn in jobs.items()}

    base = [c for c in gf.CASES if c.colour is not None]  # every sample has an edited image
    cases = tuple(replace(c, task_id=f"{c.task_id.rsplit('_', 1)[0]}_{i:03d}") for i, c in
                  enumerate(base[i % len(base)] for i in range(args.samples)))
    work = Path(tempfile.mkdtemp(prefix="grade_conc_"))
    root = gf.make_dataset(work / "GRADE", cases)
    outputs = gf.make_outputs(work / "run", cases)
    from PIL import Image

    for i, c in enumerate(cases):  # a distinct edited file per sample: no judge answer is shared via the cache
        path = work / "run" / "edited" / f"{c.task_id}.png"
        img = Image.open(path).convert("RGB")
        img.putpixel((0, 0), (i % 256, i // 256, 7))
        img.save(path)
    docs = load_records(root)
    answers = {}
    for row in map(json.loads, outputs.read_text().splitlines()):
        answers[row["key"]] = json.dumps({"text": row["text"], "images": [str(outputs.parent / row["image"])]})

    def handler(request):
        time.sleep(args.latency)
        return gf.canned_judge(request, cases)

    rows = []
    with FakeJudgeServer(handler) as server:
        os.environ.update({"LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
                           "LMMS_PLUGINS_JUDGE_API_KEY": "dummy", "LMMS_PLUGINS_JUDGE_TIMEOUT": "60"})
        reference = None
        for n in [int(x) for x in args.threads.split(",")]:
            os.environ["LMMS_PLUGINS_JUDGE_CACHE"] = str(work / f"cache-{n}")
            judging._CLIENTS.clear()
            calls0 = server.calls
            t0 = time.perf_counter()
            out = _thread_map_ordered(lambda d: hooks.process_results(d, [answers[d["task_id"]]]), iter(docs), max_workers=n)
            wall = time.perf_counter() - t0
            calls = server.calls - calls0
            scores = [(o["grade_strict"]["R"], o["grade_strict"]["C"], o["grade_strict"]["L"], o["grade_strict"]["status"]) for o in out]
            same = reference is None or scores == reference
            reference = reference or scores
            rows.append((n, calls, wall, calls / wall, same))
            print(f"threads {n:>3}: {calls} judge calls in {wall:6.1f} s = {calls / wall:6.1f} calls/s; results identical: {same}", flush=True)
        assert not server.handler_errors, server.handler_errors[0]
    mode = "R, C, L one after another" if args.serial_dims else "R, C, L together"
    print(f"\n{args.samples} samples, judge latency {args.latency} s, {mode}")
    print("| --process_docs_parallel | judge calls | wall (s) | calls/s |")
    print("|---:|---:|---:|---:|")
    for n, calls, wall, rate, _ in rows:
        print(f"| {n} | {calls} | {wall:.1f} | {rate:.1f} |")
    return 0 if all(r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
