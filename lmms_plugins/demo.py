"""``lmms-plugins demo``: the whole package on this machine, offline, on the CPU, in a few minutes.

1. builds small local datasets with the package's own generators (CwI tasks, DoD maze pairs,
   synthetic ABACUS scenes), in the official layouts;
2. runs the real lmms-eval CLI on them with the program baselines (``cwi_solver``,
   ``maze_solver``, ``abacus_synthetic_editor``);
3. runs a second, imperfect model on the same data (``--no-flawed`` skips it): the baselines'
   answers with known flaws, replayed (CwI answers wrong or unparsable, maze paths stopping
   short or crossing walls, paths drawn for infeasible mazes; demo_flawed.py), and the ABACUS
   editor with its fault injection on (``fault=touch``);
4. prints the comparison with the published community numbers and the paired tests of the
   second run against the first, and writes one HTML report per run.

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
    settings: tuple = ()  # (key, value) task settings: a YAML `lmms-plugins settings` writes, on --include_path


RUNS = (
    Run("cwi", "cwi", "cwi_solver", "", "LMMS_PLUGINS_CWI_ROOT", "cwi"),
    Run("dod", "dod_no_hint", "maze_solver", "output_dir={images}/maze_solver", "LMMS_PLUGINS_DOD_ROOT", "dod"),
    Run("abacus", "abacus", "abacus_synthetic_editor", "fault=none,output_dir={images}/abacus", "LMMS_PLUGINS_ABACUS_ROOT",
        "abacus", settings=(("detector", "synthetic_test"),)),
)
#: the second run's ABACUS editor: each edit also touches one instance that should stay (OC < 1)
ABACUS_FAULT = "touch"


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


def _lmms_eval_run(name: str, tasks: str, model: str, model_args: str, run_dir: Path, logs: Path, env: dict,
                   include_path: str = "") -> Path:
    cmd = _lmms_eval() + ["--model", model, "--tasks", tasks, "--batch_size", "1", "--output_path", str(run_dir), "--log_samples"]
    if include_path:
        cmd += ["--include_path", include_path]
    if model_args:
        cmd += ["--model_args", model_args]
    _run(cmd, logs / f"{name}.log", env)
    if not list(run_dir.rglob("*_results.json")):  # lmms-eval exits 0 even when it failed
        tail = (logs / f"{name}.log").read_text(errors="replace")[-3000:]
        raise SystemExit(f"lmms-eval wrote no results for {name}; see {logs / (name + '.log')}\n{tail}")
    return run_dir


def _with_settings(run: Run, out: Path) -> str:
    """The ``--include_path`` folder holding the run's tasks with its settings ('' when it has none)."""
    if not run.settings:
        return ""
    from lmms_plugins.settings_yaml import write_yaml

    folder = out / "settings" / run.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{run.tasks}.yaml").write_text(write_yaml(run.tasks, dict(run.settings)), encoding="utf-8")
    return str(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lmms-plugins demo", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="lmms-plugins-demo", help="folder for data, results and the report")
    parser.add_argument("--cwi-n", type=int, default=4, help="CwI items per task (balanced over tiers; default 4)")
    parser.add_argument("--cwi-tasks", default="all", help="CwI tasks or families (default all 30)")
    parser.add_argument("--maze-pairs", type=int, default=6, help="DoD maze pairs (default 6)")
    parser.add_argument("--abacus-n", type=int, default=2, help="ABACUS scenes per operation x tier (default 2)")
    parser.add_argument("--no-flawed", action="store_true", help="skip the second, imperfect run (two lmms-eval calls less)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    out = Path(args.out).resolve()
    data, results, logs, images = out / "data", out / "results", out / "logs", out / "images"
    for folder in (data, results, logs):
        folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **OFFLINE_ENV, "HF_HOME": str(out / ".hf_home"), "LMMS_PLUGINS_CACHE_DIR": str(out / ".cache")}
    cli = [sys.executable, "-m", "lmms_plugins"]
    flawed = not args.no_flawed
    progress = Progress(total=2 * len(RUNS) + 2 + (3 if flawed else 0))

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

    baseline = results / "baseline"
    cwi_tasks = ",".join("cwi" if t.strip() == "all" else f"cwi_{t.strip()}" for t in args.cwi_tasks.split(","))
    roots = {run.data_env: str(data / run.data_dir) for run in RUNS}
    settings_of = {run.name: _with_settings(run, out) for run in RUNS}
    for run in RUNS:
        tasks = cwi_tasks if run.name == "cwi" else run.tasks  # the CwI tasks follow --cwi-tasks
        progress(f"lmms-eval --model {run.model} --tasks {tasks} (log: {logs / (run.name + '.log')})")
        _lmms_eval_run(run.name, tasks, run.model, run.model_args.format(images=images), baseline / run.name, logs,
                       {**env, run.data_env: roots[run.data_env]}, settings_of[run.name])
    run_dirs = [baseline]
    labels = ["program baselines"]

    if flawed:
        from lmms_plugins.demo_flawed import write_outputs

        progress("the second run: the baselines' answers with known flaws")
        outputs, counts = write_outputs(baseline, data / "dod", images / "flawed")
        second = results / "flawed"
        dod_task = next(r.tasks for r in RUNS if r.name == "dod")
        progress(f"lmms-eval --model replay --tasks {cwi_tasks},{dod_task} ({counts['cwi']} CwI and {counts['dod']} DoD answers)")
        _lmms_eval_run("flawed-replay", f"{cwi_tasks},{dod_task}", "replay", f"outputs={outputs}", second / "replay", logs,
                       {**env, **roots})
        ab = next(r for r in RUNS if r.name == "abacus")
        progress(f"lmms-eval --model {ab.model} --model_args fault={ABACUS_FAULT} --tasks {ab.tasks}")
        _lmms_eval_run("flawed-abacus", ab.tasks, ab.model, f"fault={ABACUS_FAULT},output_dir={images}/abacus_{ABACUS_FAULT}",
                       second / "abacus", logs, {**env, ab.data_env: roots[ab.data_env]}, settings_of[ab.name])
        run_dirs.append(second)
        labels.append("flawed baselines")

    from lmms_plugins import compare, report

    progress("comparing with the community baselines" + (" and the two runs with each other" if flawed else ""))
    code = compare.main([*map(str, run_dirs), *[a for label in labels for a in ("--label", label)], "--out", str(out / "compare")])
    if code != 0:
        return code
    progress("writing the HTML reports")
    pages = []
    for run_dir, label in zip(run_dirs, labels):  # --media-root: the inputs live in the data folders, the outputs in images/
        page = out / f"report-{run_dir.name}.html"
        code = report.main([str(run_dir), "--out", str(page), "--label", f"demo: {label}",
                            *[a for folder in [*(data / run.data_dir for run in RUNS), images] for a in ("--media-root", str(folder))]])
        if code != 0:
            return code
        pages.append(str(page))
    print(f"\nDone in {time.perf_counter() - progress.start:.0f}s. Results: {results}; comparison: "
          f"{out / 'compare'}; reports: {', '.join(pages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
