"""The benchmarks of this package, each described once in its own folder.

Each ``tasks/<bench>/benchmark.py`` defines ``BENCHMARK``, a :class:`Benchmark`: where its data
lives (hub id, local layout), how ``make-data`` writes a local copy, its metrics as the published
tables name them, its part of the HTML report, what ``compare`` shows for it. The shared code
(``data_roots``, the CLI, ``compare``, ``report``, the baselines' mapping) reads these descriptors
and knows no benchmark by name. Adding a benchmark: its folder with a ``benchmark.py``, and one
line in :data:`REGISTRY`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: the descriptor modules, in the order benchmarks appear in tables, reports and listings
REGISTRY = [
    "lmms_plugins.tasks.dod.benchmark",
    "lmms_plugins.tasks.abacus.benchmark",
    "lmms_plugins.tasks.grade.benchmark",
    "lmms_plugins.tasks.cwi.benchmark",
]

UNITS = {"fraction": 1.0, "percent": 100.0}


@dataclass(frozen=True)
class MetricMap:
    """How one metric of a task compares with the published tables: their name for it, its unit
    and direction, and what to know when comparing."""

    benchmark: str
    community_metric: str  # the metric name of the baselines CSV (or this package's own name)
    label: str  # shown in tables
    result_unit: str  # unit of the value lmms-eval writes: "fraction" or "percent"
    higher_is_better: bool = True
    note: str = ""  # what to know when comparing this one metric
    headline: bool = True  # shown in the printed tables (all metrics go to the CSV)
    ci_name: str = ""  # key of a bootstrap interval the task writes in a breakdown dict (``overall.ci95.<ci_name>``)
    binary: bool = False  # a rate of 0/1 outcomes (its interval: Wilson)

    @property
    def display_unit(self) -> str:
        bench = find(self.benchmark)
        return bench.display_unit if bench else self.result_unit

    def to_display(self, value: float | None) -> float | None:
        """A value in the result's unit -> the display unit."""
        if value is None:
            return None
        return value * UNITS[self.display_unit] / UNITS[self.result_unit]


def _no_metric(task: str, metric: str) -> MetricMap | None:
    return None


def _no_settings(task: str) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class Benchmark:
    """One benchmark, as the shared code needs to know it."""

    name: str  # its folder under tasks/, the prefix of its task names, its group
    title: str  # shown in report and compare headings
    hub_id: str | None  # the official Hugging Face dataset (None: none published)
    layout: str  # what a local copy must hold (said when the data is missing)
    #: ``lmms-plugins make-data <name>`` -> "module:function" taking argv and returning an exit code
    make_data: Mapping[str, str] = field(default_factory=dict, hash=False)
    primary_metrics: tuple[str, ...] = ()  # the headline metrics (report's first table, compare's summary)
    display_unit: str = "fraction"  # the unit of its published tables
    protocol_note: str = ""  # what this package does differently from the published protocol
    metric_map: Callable[[str, str], MetricMap | None] = _no_metric  # (task, metric) -> its published name
    settings: Callable[[str], tuple[str, ...]] = _no_settings  # task -> published settings, most specific first
    #: "module:Class" of its part of the report (a :class:`lmms_plugins.report.ReportBlocks`); "" for none
    report: str = ""
    #: compare: the run reports per-metric pending samples (a value with many is shown but not ranked)
    reports_pending: bool = False
    #: compare: headline values a task keeps only inside a summary row:
    #: (task, its numeric values, all its values) -> {metric: value} to add
    summary_values: Callable[[str, Mapping[str, float], Mapping[str, Any]], dict[str, float]] | None = None
    #: compare: (samples a value stands on, share of the requests) when fewer than all were scored
    scored_share: Callable[[Mapping[str, Any]], tuple[int, float] | None] | None = None
    sample_noun: str = "samples"  # what one sample is, in compare's notes ("edits")
    #: the results row holding {metric: [success, pending, total]} for every rate of a task ("" for none)
    counts_row: str = ""
    #: compare: the protocol note for runs that recorded a setting: ({run label: task values}) -> note or None
    run_protocol: Callable[[Mapping[str, Mapping[str, Any]]], str | None] | None = None

    def owns(self, task: str) -> bool:
        return task == self.name or task.startswith(self.name + "_")


_loaded: dict[tuple[str, ...], tuple[Benchmark, ...]] = {}


def all_benchmarks() -> tuple[Benchmark, ...]:
    """Every registered benchmark, in :data:`REGISTRY` order."""
    key = tuple(REGISTRY)
    if key not in _loaded:
        found = []
        for path in key:
            bench = importlib.import_module(path).BENCHMARK
            if not isinstance(bench, Benchmark):
                raise TypeError(f"{path}.BENCHMARK is a {type(bench).__name__}, not a Benchmark")
            found.append(bench)
        _loaded.clear()
        _loaded[key] = tuple(found)
    return _loaded[key]


def names() -> tuple[str, ...]:
    return tuple(b.name for b in all_benchmarks())


def find(name: str | None) -> Benchmark | None:
    """The benchmark called ``name``, or None."""
    return next((b for b in all_benchmarks() if b.name == name), None)


def of_task(task: str) -> Benchmark | None:
    """The benchmark a task or group belongs to (by its name's prefix), or None."""
    return next((b for b in all_benchmarks() if b.owns(task)), None)


def load(target: str):
    """The object a "module:name" string names (imported now)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
