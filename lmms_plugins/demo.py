"""``lmms-plugins demo``: the whole package on this machine, offline, on the CPU, in a few minutes.

1. builds small local datasets with the package's own generators (CwI tasks, DoD maze pairs,
   synthetic ABACUS scenes), in the official layouts;
2. runs the real lmms-eval CLI on them with the program baselines (``cwi_solver``,
   ``maze_solver``, ``abacus_synthetic_editor``);
3. prints the comparison with the published community numbers and writes the HTML report.

Everything goes under ``--out`` (default ``./lmms-plugins-demo``); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "HF_HUB_DISABLE_TELEMETRY": "1", "WANDB_MODE": "disabled", "TOKENIZERS_PARALLELISM": "false"}


@dataclass(frozen=True)
class Run:
    """One lmms-eval run of the demo: a benchmark's tasks with its program baseline."""

    name: str
    tasks: str
    model: str
    model_args: str
    data_env: str  # the local-root variable of the benchmark
    data_dir: str  # under out/data
    env: tuple = ()


RUNS = (
    Run("cwi", "cwi", "cwi_solver", "", "LMMS_PLUGINS_CWI_ROOT", "cwi"),
    Run("dod", "dod_no_hint", "maze_solver", "", "LMMS_PLUGINS_DOD_ROOT", "dod"),
    Run("abacus", "abacus", "abacus_synthetic_editor", "fault=none", "LMMS_PLUGINS_ABACUS_ROOT", "abacus",
        env=(("LMMS_PLUGINS_ABACUS_DETECTOR", "synthetic_test"),)),
)


class Progress:
    def __init__(self, total: int) -> None:
        self.total, self.step, self.start = total, 0, time.perf_counter()

    def __call__(self, message: str) -> None:
        self.step += 1
        print(f"[{self.step}/{self.total} {time.perf_counter() - self.start:5.1f}s] {message}", flush=True)


def _run(cmd: list[str], log: Path, env: dict) -> None:
    """Run a step, its output to ``log``; on failure show the log's tail and stop."""
    with log.open("w") as handle:
        proc = subprocess.run(cmd, stdout=handle, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"demo step failed (exit {proc.returncode}): {' '.join(cmd)}\n--- {log} ---\n{tail}")


def _lmms_eval() -> list[str]:
    script = Path(sys.executable).with_name("lmms-eval")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lmms_eval"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lmms-plugins demo", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="lmms-plugins-demo", help="folder for data, results and the report")
    parser.add_argument("--cwi-n", type=int, default=4, help="CwI items per task (balanced over tiers; default 4)")
    parser.add_argument("--cwi-tasks", default="all", help="CwI tasks or families (default all 30)")
    parser.add_argument("--maze-pairs", type=int, default=6, help="DoD maze pairs (default 6)")
    parser.add_argument("--abacus-n", type=int, default=2, help="ABACUS scenes per operation x tier (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    out = Path(args.out).resolve()
    data, results, logs = out / "data", out / "results", out / "logs"
    for folder in (data, results, logs):
        folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **OFFLINE_ENV, "HF_HOME": str(out / ".hf_home")}
    cli = [sys.executable, "-m", "lmms_plugins"]
    progress = Progress(total=2 * len(RUNS) + 2)

    generators = {
        "cwi": ["make-data", "cwi", "--tasks", args.cwi_tasks, "--split", "test", "--n", str(args.cwi_n),
                "--seed", str(args.seed), "--out", str(data / "cwi"), "--overwrite"],
        "dod": ["make-data", "dod-maze", "--pairs", str(args.maze_pairs), "--sizes", "7,9,11",
                "--seed", str(args.seed), "--out", str(data / "dod")],
        "abacus": ["make-data", "abacus", "--n", str(args.abacus_n), "--seed", str(args.seed),
                   "--out", str(data / "abacus")],
    }
    for run in RUNS:
        progress(f"generating {run.name} data -> {data / run.data_dir}")
        _run(cli + generators[run.name], logs / f"make-data-{run.name}.log", env)

    run_dirs = []
    cwi_tasks = ",".join("cwi" if t.strip() == "all" else f"cwi_{t.strip()}" for t in args.cwi_tasks.split(","))
    for run in RUNS:
        if run.name == "cwi":  # the task names follow --cwi-tasks (all, families or tasks)
            run = Run(run.name, cwi_tasks, run.model, run.model_args, run.data_env, run.data_dir, run.env)
        progress(f"lmms-eval --model {run.model} --tasks {run.tasks} (log: {logs / (run.name + '.log')})")
        run_dir = results / run.name
        cmd = _lmms_eval() + ["--model", run.model, "--tasks", run.tasks, "--batch_size", "1",
                              "--output_path", str(run_dir), "--log_samples"]
        if run.model_args:
            cmd += ["--model_args", run.model_args]
        run_env = {**env, run.data_env: str(data / run.data_dir), **dict(run.env)}
        _run(cmd, logs / f"{run.name}.log", run_env)
        if not list(run_dir.rglob("*_results.json")):  # lmms-eval exits 0 even when it failed
            tail = (logs / f"{run.name}.log").read_text(errors="replace")[-3000:]
            raise SystemExit(f"lmms-eval wrote no results for {run.name}; see {logs / (run.name + '.log')}\n{tail}")
        run_dirs.append(run_dir)

    from lmms_plugins import compare, report

    progress("comparing with the community baselines")
    code = compare.main([*map(str, run_dirs), "--out", str(out / "compare")])
    if code != 0:
        return code
    progress("writing the HTML reports")
    for run_dir in run_dirs:  # --media-root: samples name their input images relative to the data root
        code = report.main([str(run_dir), "--out", str(out / f"report-{run_dir.name}.html"), "--label",
                            f"demo {run_dir.name}", "--media-root", str(data / run_dir.name)])
        if code != 0:
            return code
    print(f"\nDone in {time.perf_counter() - progress.start:.0f}s. Results: {results}; comparison: "
          f"{out / 'compare'}; reports: {', '.join(str(out / f'report-{d.name}.html') for d in run_dirs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
