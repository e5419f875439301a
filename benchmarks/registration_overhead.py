"""What registering lmms-plugins adds to lmms-eval's start-up (target: under 50 ms).

Measured in one run, side by side:
  * import cost of this package's modules during ``import lmms_eval.__main__`` (``-X importtime``,
    self time of every lmms_plugins module), against the whole import;
  * indexing this package's task folder, against indexing lmms-eval's own tasks (what every
    ``TaskManager()`` does);
  * what ``lmms_plugins_hook.pth`` adds to every interpreter start in the environment
    (``python -c pass`` with the hook, against the same with ``LMMS_PLUGINS_NO_STARTUP_HOOK=1``).

Run: python benchmarks/registration_overhead.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def import_costs(runs: int) -> tuple[list[float], list[float]]:
    ours, total = [], []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import lmms_eval.__main__"],
                              capture_output=True, text=True, check=True)
        self_us, whole_us = 0, 0
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            parts = [p.strip() for p in line[len("import time:"):].split("|")]
            if not parts[0].isdigit():
                continue
            name = parts[2]
            if name.strip().startswith("lmms_plugins"):
                self_us += int(parts[0])
            if name == "lmms_eval.__main__":
                whole_us = int(parts[1])
        ours.append(self_us / 1000)
        total.append(whole_us / 1000)
    return ours, total


def index_costs(repeats: int) -> tuple[float, float]:
    os.environ["LMMS_PLUGINS_NO_TASK_HOOK"] = "1"
    import lmms_eval.tasks as t
    from loguru import logger

    logger.remove()  # lmms-eval's indexer logs every skipped file at DEBUG

    from lmms_plugins import tasks_dir

    tm = t.TaskManager.__new__(t.TaskManager)
    tm.verbosity, tm.logger = "ERROR", t.eval_logger

    from lmms_plugins.harness.discovery import fast_index as _fast_index

    def best(fn, path):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn(path)
            times.append(time.perf_counter() - start)
        return min(times) * 1000

    slow_ours = best(tm._get_task_and_group, tasks_dir())
    print(f"(lmms-eval's own indexer on this package's folder would take {slow_ours:.1f} ms)")
    return best(_fast_index, tasks_dir()), best(tm._get_task_and_group, os.path.dirname(t.__file__) + "/")


def startup_costs(runs: int) -> tuple[float, float]:
    """Median wall time of ``python -c pass`` with and without the .pth hook, interleaved."""
    def once(extra: dict) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env={**os.environ, **extra})
        return (time.perf_counter() - start) * 1000

    on, off = [], []
    for _ in range(runs):
        on.append(once({}))
        off.append(once({"LMMS_PLUGINS_NO_STARTUP_HOOK": "1"}))
    return statistics.median(on), statistics.median(off)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    on, off = startup_costs(max(args.runs, 20))
    print(f"interpreter start (`python -c pass`), median: with the .pth hook {on:.1f} ms, without {off:.1f} ms "
          f"-> ratio {on / off:.3f} (+{on - off:.1f} ms)")
    ours, total = import_costs(args.runs)
    print(f"import of lmms_plugins modules at lmms-eval start-up: median {statistics.median(ours):.1f} ms "
          f"(runs: {', '.join(f'{x:.1f}' for x in ours)})")
    print(f"whole `import lmms_eval.__main__`: median {statistics.median(total):.0f} ms "
          f"-> ratio {statistics.median(ours) / statistics.median(total):.4f}")
    mine, builtin = index_costs(3)
    print(f"indexing this package's task folder (the hook's fast reader): {mine:.1f} ms; lmms-eval's own task folder: {builtin:.0f} ms "
          f"-> ratio {mine / builtin:.4f}")
    added = statistics.median(ours) + mine
    print(f"total added to start-up: {added:.1f} ms ({'within' if added < 50 else 'OVER'} the 50 ms target)")


if __name__ == "__main__":
    main()
