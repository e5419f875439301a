"""``python -m lmms_plugins.tasks.dod.breakdown <output_path>``: every DoD metric of a run with its
counts, per status and per category, from the run's samples files (``--log_samples``).

lmms-eval prints every aggregated value in its results table, so a DoD task's results hold the
rates and one short ``dod_breakdown`` row (metric -> [success, pending, total]); this reads each
sample's full record (on ``dod_run``) and prints ``metrics.summarize`` of each task as JSON:
success / reviewed / pending / total / rate and the non-ok statuses of every metric, overall and
per category (``source.category_en``), and the run's facts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PATTERN = "*_samples_dod*.jsonl"


def samples_files(path: Path) -> dict[str, Path]:
    """task -> its samples file under ``path`` (the newest, when the folder holds several runs), or ``path`` itself."""
    files = [path] if path.is_file() else sorted(path.rglob(PATTERN), key=lambda p: p.name)  # names start with the time
    if not files:
        raise FileNotFoundError(f"no {PATTERN} under {path} (run lmms-eval with --log_samples)")
    out = {}
    for f in files:
        task = f.name.split("_samples_", 1)[1].rsplit(".", 1)[0] if "_samples_" in f.name else f.stem
        out[task] = f
    return out


def read_records(path: Path) -> list:
    """The samples' full records (``dod_run``) of one samples file, as ``metrics.SampleRecord``."""
    from lmms_plugins.utils.jsonl import iter_jsonl

    lines = []
    for number, line in iter_jsonl(path, error=ValueError):
        if not isinstance(line, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        lines.append(line)
    return records_of(lines)


def records_of(lines: list[dict]) -> list:
    """The full records (``dod_run``) of logged sample lines, as ``metrics.SampleRecord`` (lines without one are skipped)."""
    from lmms_plugins.tasks.dod.hooks import FULL_RECORD_METRIC, sample_records

    return sample_records([line[FULL_RECORD_METRIC] for line in lines if isinstance(line.get(FULL_RECORD_METRIC), dict)])


def summaries(path: Path) -> dict[str, dict]:
    """task -> ``metrics.summarize`` of its samples (every DoD task under ``path``)."""
    from lmms_plugins.tasks.dod.metrics import summarize

    return {task: summarize(read_records(f)) for task, f in sorted(samples_files(path).items())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lmms_plugins.tasks.dod.breakdown", description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, help="lmms-eval's --output_path of the run, or one DoD samples file")
    args = ap.parse_args(argv)
    try:
        out = summaries(args.path)
    except (OSError, ValueError) as exc:
        print(f"dod breakdown: {exc}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
