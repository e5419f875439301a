"""``python -m lmms_plugins.tasks.grade.breakdown <output_path>``: GRADE's scores overall, per domain
and per sub-task, with 95 % bootstrap intervals, from a run's samples file (``--log_samples``).

lmms-eval prints every aggregated value in its results table, so the task's ``grade_breakdown`` row
holds only the run's size and status counts; this reads the per-sample records and prints the
whole breakdown as JSON (``scoring.breakdown``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lmms_plugins.utils.jsonl import iter_jsonl


def read_items(path: Path) -> list[dict]:
    """The ``grade_breakdown`` per-sample records of every GRADE samples file under ``path`` (or the file)."""
    files = [path] if path.is_file() else sorted(path.rglob("*_samples_grade*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no *_samples_grade*.jsonl under {path} (run lmms-eval with --log_samples)")
    items = []
    for f in files:
        for number, line in iter_jsonl(f, error=ValueError):
            if not isinstance(line, dict):
                raise ValueError(f"{f}:{number}: not a JSON object")
            item = line.get("grade_breakdown")
            if isinstance(item, dict):
                items.append(item)
    return items


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lmms_plugins.tasks.grade.breakdown", description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, help="lmms-eval's --output_path of the run, or one samples file")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval (0: none)")
    args = ap.parse_args(argv)
    from lmms_plugins.tasks.grade.hooks import sample_scores
    from lmms_plugins.tasks.grade.scoring import breakdown

    try:
        items = read_items(args.path)
    except (OSError, ValueError) as exc:
        print(f"grade breakdown: {exc}", file=sys.stderr)
        return 2
    json.dump(breakdown(sample_scores(items), n_resamples=args.resamples), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
