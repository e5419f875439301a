"""``lmms-plugins compare RESULTS...``: your runs next to the published numbers.

Reads lmms-eval output (a results folder or a ``*_results.json``; the ``*_samples_<task>.jsonl``
beside it when the run used ``--log_samples``) or lm-eval 0.4.x output (``results_*.json``,
``samples_<task>_*.jsonl``), maps each task's metrics to the benchmarks'
published metrics (:mod:`lmms_plugins.baselines.mapping`), and writes, per benchmark, a table with
the community rows (rank among them, deltas), the protocol differences, confidence intervals where
the results or samples allow one, a PNG bar chart and Markdown/CSV copies. With two or more runs,
each later run is tested against the first on the samples they share (McNemar exact test for 0/1
metrics, paired bootstrap otherwise).

Use from Python: ``compare([path1, path2], out_dir=...)`` returns a :class:`Comparison`.

The work is split by job: :mod:`lmms_plugins.runs` reads the runs (shared with ``report``),
:mod:`.pairing` decides which samples two runs share, :mod:`.stats` gives intervals and paired
tests, :mod:`.build` assembles the tables, :mod:`.render` writes text/Markdown/CSV and
:mod:`.chart` the PNGs. This module is the entry point and re-exports their public names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lmms_plugins.compare.build import PENDING_RANK_LIMIT, Block, Comparison, Entry, build, task_values
from lmms_plugins.compare.chart import chart_figure, write_chart
from lmms_plugins.compare.pairing import (HIDDEN_DIFFERENCE, NULL_DOC_HASH, Pairing, SampleInputs, inputs_of, pair_samples,
                                          sample_inputs)
from lmms_plugins.compare.render import CSV_COLUMNS, column_names, csv_rows, render_markdown, render_text, write_csv
from lmms_plugins.compare.stats import N_BOOT, SEED, Interval, PairedTest, interval_of, paired_test
from lmms_plugins.runs import (ResultsError, Run, TaskResult, counts_of, load_run, metric_count, pending_of, sample_key,
                               sample_values)
from lmms_plugins.utils.benchmarks import names
from lmms_plugins.utils.stats import mcnemar_exact, wilson

__all__ = [  # the names earlier code imported from the single-module lmms_plugins.compare
    "CSV_COLUMNS", "HIDDEN_DIFFERENCE", "N_BOOT", "NULL_DOC_HASH", "PENDING_RANK_LIMIT", "SEED",
    "Block", "Comparison", "Entry", "Interval", "PairedTest", "Pairing", "ResultsError", "Run", "SampleInputs", "TaskResult",
    "build", "build_parser", "chart_figure", "column_names", "compare", "counts_of", "csv_rows", "inputs_of", "interval_of",
    "load_run", "main", "mcnemar_exact", "metric_count", "pair_samples", "paired_test", "pending_of", "render_markdown",
    "render_text", "sample_inputs", "sample_key", "sample_values", "task_values", "wilson", "write_chart", "write_csv",
]

def compare(paths: list[str | Path], *, labels: list[str] | None = None, out_dir: str | Path | None = None,
            chart: bool = True) -> Comparison:
    """Load the runs, build the comparison, and (with ``out_dir``) write Markdown, CSV and PNG files."""
    labels = list(labels or [])
    runs = [load_run(p, labels[i] if i < len(labels) else None) for i, p in enumerate(paths)]
    seen: dict[str, int] = {}
    for r in runs:  # labels must be unique: they key the columns and the paired tests
        if r.label in seen:
            seen[r.label] += 1
            r.label = f"{r.label} #{seen[r.label]}"
        else:
            seen[r.label] = 1
    cmp = build(runs)
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        if chart:
            for bench in names():
                png = write_chart(cmp, bench, out / f"compare_{bench}.png")
                if png:
                    cmp.files["png_" + bench] = png
        cmp.files["csv"] = write_csv(cmp, out / "compare.csv")
        md = out / "compare.md"
        md.write_text(render_markdown(cmp), encoding="utf-8")
        cmp.files["markdown"] = md
    return cmp


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lmms-plugins compare",
        description="Compare lmms-eval (or lm-eval) runs of this package's tasks with the published numbers "
                    "(and with each other: paired tests on shared samples).")
    p.add_argument("results", nargs="+", help="lmms-eval or lm-eval output folders, or results files "
                                              "(*_results.json, results_*.json); the first is the reference run")
    p.add_argument("--label", action="append", default=[], help="a name for each run, in order (default: model and folder)")
    p.add_argument("--out", default="lmms-plugins-compare", help="folder for compare.md, compare.csv and the PNG charts")
    p.add_argument("--no-chart", action="store_true", help="do not draw the PNG charts (no matplotlib needed)")
    p.add_argument("--full", action="store_true", help="print every table (default: a short summary; the full "
                                                         "tables are in compare.md and compare.csv either way)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        cmp = compare(args.results, labels=args.label, out_dir=args.out, chart=not args.no_chart)
    except ResultsError as exc:
        print(f"lmms-plugins compare: {exc}", file=sys.stderr)
        return 2
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        # last resort: a shape no check names; one line, not a traceback
        print(f"lmms-plugins compare: {', '.join(args.results)}: unexpected content in the results or samples files "
              f"({type(exc).__name__}: {str(exc)[:200]})", file=sys.stderr)
        return 2
    if not cmp.blocks:
        print("lmms-plugins compare: the results hold no metric of this package's tasks "
              f"({', '.join(sorted({t for r in cmp.runs for t in r.tasks})) or 'no task'})", file=sys.stderr)
        return 1
    print(cmp.text if args.full else cmp.summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
