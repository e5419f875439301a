"""``lmms-plugins check RESULTS...``: did every sample of a run get generated and scored?

For each run (an lmms-eval ``--output_path`` folder or ``*_results.json``, or lm-eval's; read by
lmms_plugins/runs.py) and each task with a samples file (``--log_samples``), the samples whose
generation failed, that are pending (not scored: judge, detector or data missing), that ended in a
scorer error, or that ran model code unconfined (utils/run_summary.py), and the metrics that are
not a number. A task of another package (no per-sample status) is checked for lmms-eval's failure
markers in its logged outputs only (utils/generation_failure.py). The exit status is for scripts and CI:

* 0: every sample of every task was generated and scored;
* 1: some were not (the lines say which, per task);
* 2: it cannot tell: a path holds no readable results, or a task has no samples file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from lmms_plugins.utils import run_summary

CLEAN, NOT_CLEAN, UNKNOWN = 0, 1, 2


def _groups(run) -> set[str]:
    """Names of the groups in the run's results files (they hold no samples of their own)."""
    names: set[str] = set()
    for tr in run.tasks.values():
        try:
            data = json.loads(Path(tr.results_file).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in ("group_subtasks", "groups"):
            block = data.get(key) if isinstance(data, dict) else None
            if isinstance(block, dict):
                names.update(g for g, sub in block.items() if key == "groups" or sub)
    return names


def _not_numbers(values: dict) -> list[str]:
    return sorted(m for m, v in values.items() if isinstance(v, float) and math.isnan(v))


def _failed_output(sample: dict) -> bool:
    """Whether a samples-file line's logged output (``filtered_resps``, else ``resps``: a text or
    nested lists of them) is a failure: a wrapper's marker or nothing at all."""
    from lmms_plugins.utils.generation_failure import detect

    stack, seen = [sample.get("filtered_resps", sample.get("resps"))], 0
    while stack:
        out = stack.pop()
        if isinstance(out, list):
            stack.extend(out)
            continue
        seen += 1
        if (out is None or isinstance(out, (str, dict))) and detect(out) is not None:
            return True
    return seen == 0


def check_run(path: str) -> tuple[int, list[str], list[dict]]:
    """(exit status, lines, per-task summaries) of one run."""
    from lmms_plugins.runs import ResultsError, load_run

    try:
        run = load_run(path)
    except (ResultsError, OSError, ValueError) as exc:
        return UNKNOWN, [f"{path}: {exc}"], []
    except Exception as exc:  # noqa: BLE001 - a hand-edited file of another shape: one clear line, no traceback
        return UNKNOWN, [f"{path}: not a results folder this command can read ({type(exc).__name__}: {exc})"], []
    groups = _groups(run)
    code, lines, rows = CLEAN, [f"{run.label}:"], []
    for name in sorted(run.tasks):
        tr = run.tasks[name]
        if name in groups:
            continue
        nan = _not_numbers(tr.values if isinstance(tr.values, dict) else {})
        unknown = f"; not a number (no sample to stand on): {', '.join(nan)}" if nan else ""
        if tr.samples is None:
            code = max(code, UNKNOWN)
            lines.append(f"  {name}: no samples file: cannot tell (run lmms-eval with --log_samples){unknown}")
            rows.append({"task": name, "samples": None})
            continue
        samples = [s for s in tr.samples if isinstance(s, dict)]
        if samples and not any(run_summary.is_record(v) for s in samples for v in s.values()):
            # another package's task (lmms-eval's own metrics): no per-sample status to read, but a
            # wrapper's failure marker in the logged output is still a failed generation
            failed = [s for s in samples if _failed_output(s)]
            code = max(code, NOT_CLEAN if failed else CLEAN)
            lines.append(f"  {name}: {len(failed)} generation failed of {len(samples)} samples (not a task of this package: "
                         f"only lmms-eval's failure markers in its outputs are checked){unknown}")
            rows.append({"task": name, "samples": len(samples), "failed": len(failed), "status_checked": False})
            continue
        counts = run_summary.count(name, samples)
        if not counts.clean:
            code = max(code, NOT_CLEAN)
        lines.append(f"  {counts.line()}{unknown}")
        rows.append(counts.as_dict())
    if len(lines) == 1:
        code = UNKNOWN
        lines.append("  no task results in it")
    return code, lines, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lmms-plugins check",
        description="Per task: samples whose generation failed, that are pending (not scored), that ended in a "
                    "scorer error or ran model code unconfined. Exit 0 only when every sample was generated and "
                    "scored; 1 when some were not; 2 when it cannot tell (no results, or no samples file).")
    parser.add_argument("results", nargs="+", help="an lmms-eval --output_path folder or *_results.json (lm-eval's too)")
    parser.add_argument("--json", action="store_true", help="print the per-task counts as JSON instead of lines")
    args = parser.parse_args(argv)
    code, report = CLEAN, {}
    for path in args.results:
        run_code, lines, rows = check_run(path)
        code = max(code, run_code)
        report[path] = rows
        if not args.json:
            print("\n".join(lines))
    if args.json:
        print(json.dumps(report, indent=2))
    verdict = {CLEAN: "every sample was generated and scored", NOT_CLEAN: "some samples were not generated or not scored",
               UNKNOWN: "cannot tell for every task"}[code]
    print(f"lmms-plugins check: {verdict} (exit {code})", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
