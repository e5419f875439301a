"""Which published number a metric of an lmms-eval results file compares with.

lmms-eval names a value ``results[task]["<metric>,<filter>"]``; the published tables name it by
benchmark, setting and metric. :func:`map_metric` turns the first into the second, with the unit
of both sides, the direction (higher better or not) and what differs in protocol. Each benchmark
says how in its descriptor (``tasks/<bench>/benchmark.py``: ``metric_map``, ``settings``).
"""

from __future__ import annotations

from lmms_plugins.utils.benchmarks import MetricMap, of_task

__all__ = ["MetricMap", "benchmark_of", "map_metric", "settings_of"]


def benchmark_of(task: str) -> str | None:
    bench = of_task(task)
    return bench.name if bench else None


def settings_of(task: str) -> tuple[str, ...]:
    """The published settings a task's numbers compare with (most specific first)."""
    bench = of_task(task)
    return bench.settings(task) if bench else ()


def map_metric(task: str, metric: str) -> MetricMap | None:
    """The mapping of one ``<metric>`` of ``task`` (filter suffix already removed), or None."""
    bench = of_task(task)
    return bench.metric_map(task, metric) if bench else None
