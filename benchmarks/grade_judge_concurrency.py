"""GRADE scoring against a judge with a fixed latency: with no flags, and at several
``--process_docs_parallel`` values.

Builds the real ``grade`` task (lmms-eval's TaskManager), gives its N requests their outputs, and
scores them as lmms-eval's evaluator does: ``task.apply_filters()`` then ``task.process_results``
over the docs in lmms-eval's own scoring thread pool (``lmms_eval.evaluator._thread_map_ordered``),
against the loopback judge of the tests (tests/judge_server.py) that waits ``--latency`` seconds
before each answer. Each row gets a fresh judge cache, so every call goes to the judge.

* ``no flags`` rows: what a user gets: 4 scoring threads (lmms-eval's default) and the task class
  scoring every sample ahead at the judge's concurrency (utils/scored_ahead.py;
  ``LMMS_PLUGINS_JUDGE_CONCURRENCY``, the shipped default or the values of ``--judge-concurrency``);
* ``--threads`` rows: that many scoring threads, nothing scored ahead (R, C and L of a sample asked
  together): the behaviour before scoring ahead;
* ``--serial-threads`` rows: as ``--threads`` with R, C and L asked one after another (with 20
  threads: the official script's 20 workers each making one call at a time).

The ratio is to the official script's ideal, ``calls * latency / 20``.

    .venv/bin/python benchmarks/grade_judge_concurrency.py --samples 520 --judge-concurrency default,20 --threads 4,16 --serial-threads 20
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


def build_task(root: Path):
    """The real grade task and its requests, as lmms-eval's evaluator builds them."""
    os.environ["LMMS_PLUGINS_GRADE_ROOT"] = str(root)
    from lmms_plugins import registration

    registration.register()
    from lmms_eval.tasks import TaskManager, get_task_dict

    from lmms_plugins.utils.scored_ahead import ScoredAhead

    task = get_task_dict(["grade"], TaskManager())["grade"]
    assert isinstance(task, ScoredAhead), type(task)  # the class grade.yaml names
    task.build_all_requests(rank=0, world_size=1)
    return task


def score(task, answers: dict, workers: int) -> list:
    """task.apply_filters() then process_results per doc in lmms-eval's scoring pool (evaluator.py)."""
    from lmms_eval.evaluator import _thread_map_ordered

    for inst in task.instances:
        inst.resps[:] = [answers[task.eval_docs_no_media[inst.doc_id]["task_id"]]]
        inst.filtered_resps.clear()
    task.apply_filters()
    docs = task.eval_docs_no_media
    by_doc = {inst.doc_id: inst for inst in task.instances}
    return _thread_map_ordered(lambda i: task.process_results(docs[i], [by_doc[i].filtered_resps["none"]]),
                               iter(range(len(docs))), max_workers=workers)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=520)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--judge-concurrency", default="", help="LMMS_PLUGINS_JUDGE_CONCURRENCY values of the no-flag rows "
                    "(`default`: the shipped default, the one row when not given)")
    ap.add_argument("--threads", default="4,16", help="--process_docs_parallel values, nothing scored ahead")
    ap.add_argument("--serial-threads", default="", help="as --threads, with R, C, L asked one after another")
    args = ap.parse_args(argv)

    import grade_fixtures as gf
    from judge_server import FakeJudgeServer

    from lmms_plugins.tasks.grade import judging
    from lmms_plugins.utils.judge_client import DEFAULT_CONCURRENCY, reset_shared_clients
    from lmms_plugins.utils.scored_ahead import judge_concurrency

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
    answers = {}
    for row in map(json.loads, outputs.read_text().splitlines()):
        answers[row["key"]] = json.dumps({"text": row["text"], "images": [str(outputs.parent / row["image"])]})

    def handler(request):
        time.sleep(args.latency)
        return gf.canned_judge(request, cases)

    expected = 2 * len(cases) + sum(1 for c in cases if c.consistency != "none")  # R and L each, C where it applies
    ideal = expected * args.latency / 20
    rows = []
    with FakeJudgeServer(handler) as server:
        os.environ.update({"LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
                           "LMMS_PLUGINS_JUDGE_API_KEY": "dummy", "LMMS_PLUGINS_JUDGE_TIMEOUT": "60", "LMMS_PLUGINS_PREFLIGHT": "off"})
        task = build_task(root)
        reference = None
        concurrencies = [None if x == "default" else int(x) for x in args.judge_concurrency.split(",") if x] or [None]
        plan = ([("default", 4, c, True) for c in concurrencies]
                + [("serial", int(x), None, False) for x in args.serial_threads.split(",") if x]
                + [("threads", int(x), None, True) for x in args.threads.split(",") if x])
        for kind, workers, concurrency, at_once in plan:
            judging._run_together = together if at_once else one_after_another
            os.environ["LMMS_PLUGINS_JUDGE_CACHE"] = str(work / f"cache-{len(rows)}")
            if concurrency is None:
                os.environ.pop("LMMS_PLUGINS_JUDGE_CONCURRENCY", None)
            else:
                os.environ["LMMS_PLUGINS_JUDGE_CONCURRENCY"] = str(concurrency)
            # as the task's construction would read it; None: nothing scored ahead
            task._judge_concurrency = judge_concurrency() if kind == "default" else None
            reset_shared_clients()
            calls0 = server.calls
            t0, c0 = time.perf_counter(), time.process_time()
            out = score(task, answers, workers)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            calls = server.calls - calls0
            served = task._ahead.served if task._ahead is not None else 0
            scores = [(o["grade_strict"]["R"], o["grade_strict"]["C"], o["grade_strict"]["L"], o["grade_strict"]["status"]) for o in out]
            same = reference is None or scores == reference
            reference = reference or scores
            if kind == "default":
                label = f"no flags: 4 threads, scored ahead at judge concurrency {concurrency or DEFAULT_CONCURRENCY}"
                label += " (the default)" if concurrency is None else ""
            else:
                label = f"--process_docs_parallel {workers}, R/C/L {'together' if at_once else 'one after another'}, not ahead"
            rows.append((label, calls, wall, same))
            print(f"{label}: {calls} judge calls in {wall:6.1f} s = {calls / wall:6.1f} calls/s, {wall / ideal:.2f}x the "
                  f"official 20-worker ideal ({ideal:.1f} s); results identical: {same}; retries: {calls - expected}; "
                  f"samples scored ahead: {served}; process CPU {cpu:.1f} s", flush=True)
        assert not server.handler_errors, server.handler_errors[0]
    print(f"\n{args.samples} samples, {expected} judge questions, judge latency {args.latency} s; official ideal "
          f"{expected} x {args.latency} / 20 = {ideal:.1f} s; measured in this run ({os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the end)")
    print("| scoring | judge calls | wall (s) | / official ideal |")
    print("|---|---:|---:|---:|")
    for label, calls, wall, _ in rows:
        print(f"| {label} | {calls} | {wall:.1f} | {wall / ideal:.2f}× |")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
