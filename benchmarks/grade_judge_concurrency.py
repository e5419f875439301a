"""GRADE scoring against a judge with a fixed latency, at several ``--process_docs_parallel`` values.

Runs ``hooks.process_results`` over N samples through lmms-eval's own scoring thread pool
(``lmms_eval.evaluator._thread_map_ordered``, as the evaluator does), against the loopback judge of
the tests (tests/judge_server.py) that waits ``--latency`` seconds before each answer. Each
configuration gets a fresh judge cache, so every call goes to the judge. ``--serial-threads`` rows
ask R, C and L one after another inside a sample (the behaviour before they were asked together;
with 20 threads, the official script's 20 workers each making one call at a time).

    .venv/bin/python benchmarks/grade_judge_concurrency.py --samples 520 --threads 4,8,16,32 --serial-threads 4,20
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
    ap.add_argument("--serial-threads", default="", help="thread counts to run with R, C, L asked one after another")
    args = ap.parse_args(argv)

    import grade_fixtures as gf
    from judge_server import FakeJudgeServer

    from lmms_eval.evaluator import _thread_map_ordered
    from lmms_plugins.tasks.grade import hooks, judging
    from lmms_plugins.utils.judge_client import reset_shared_clients
    from lmms_plugins.tasks.grade.records import load_records

    together = judging._run_together

    def one_after_another(jobs):
        return {dim: fn() for dim, fn in jobs.items()}

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

    expected = 2 * len(cases) + sum(1 for c in cases if c.consistency != "none")  # R and L each, C where it applies
    rows = []
    with FakeJudgeServer(handler) as server:
        os.environ.update({"LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
                           "LMMS_PLUGINS_JUDGE_API_KEY": "dummy", "LMMS_PLUGINS_JUDGE_TIMEOUT": "60"})
        reference = None
        plan = [(int(x), False) for x in args.serial_threads.split(",") if x] + [(int(x), True) for x in args.threads.split(",") if x]
        for n, at_once in plan:
            judging._run_together = together if at_once else one_after_another
            os.environ["LMMS_PLUGINS_JUDGE_CACHE"] = str(work / f"cache-{n}-{at_once}")
            reset_shared_clients()
            calls0 = server.calls
            t0 = time.perf_counter()
            out = _thread_map_ordered(lambda d: hooks.process_results(d, [answers[d["task_id"]]]), iter(docs), max_workers=n)
            wall = time.perf_counter() - t0
            calls = server.calls - calls0
            scores = [(o["grade_strict"]["R"], o["grade_strict"]["C"], o["grade_strict"]["L"], o["grade_strict"]["status"]) for o in out]
            same = reference is None or scores == reference
            reference = reference or scores
            mode = "together" if at_once else "one after another"
            rows.append((n, mode, calls, wall, calls / wall, same))
            print(f"threads {n:>3}, R/C/L {mode}: {calls} judge calls in {wall:6.1f} s = {calls / wall:6.1f} calls/s; "
                  f"results identical: {same}; retries seen by the server: {calls - expected}", flush=True)
        assert not server.handler_errors, server.handler_errors[0]
    print(f"\n{args.samples} samples, {expected} judge questions, judge latency {args.latency} s; "
          f"speed-up vs. the first row, measured in this run")
    print("| --process_docs_parallel | R, C, L | judge calls | wall (s) | calls/s | speed-up |")
    print("|---:|---|---:|---:|---:|---:|")
    for n, mode, calls, wall, rate, _ in rows:
        print(f"| {n} | {mode} | {calls} | {wall:.1f} | {rate:.1f} | {rows[0][3] / wall:.1f}× |")
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
