"""The two places where this package reaches into lmms-eval's end of a run (written for 0.7.3).

lmms-eval has no hook after its results table, and it hands an aggregation only its items. So,
installed by the harness package when the modules are imported, both guarded (a missing name warns
and leaves lmms-eval as it is):

* ``evaluator_utils.TaskOutput.calculate_aggregate_metric``: while a task's aggregations run,
  :data:`lmms_plugins.utils.run_summary.CURRENT_TASK` names the task (the summary lines of the
  aggregations name it without reading the stack); afterwards the task's failed / pending / error /
  unconfined samples are counted from the same per-sample values (utils/run_summary.py), and the
  metrics of this package whose value is not a number (the breakdown rows: ``dod_breakdown``,
  ``abacus_leaderboard``...) are noted.
* ``utils.make_table`` (bound by ``lmms_eval.__main__`` when it is imported): the printed table
  leaves out those non-number rows (they stay in the results JSON, where compare and report read
  them, and in the log), so it fits a terminal; and the last table printed is followed by one
  line per task whose samples were not all generated and scored (utils/run_summary.end_lines).

Nothing here changes a number in the results or samples files.
"""

from __future__ import annotations

import functools
import numbers
import sys
from typing import Any

from . import guard

#: names of this package's metrics whose aggregated value is not a number (kept out of the printed table)
_NON_NUMBER_METRICS: set[str] = set()


def _ours(fn: Any) -> bool:
    return str(getattr(fn, "__module__", "") or "").startswith("lmms_plugins")


def _unpatched(owner, name: str, what: str):
    return guard.unpatched(owner, name, f"{what} (end-of-run lines)")


def _install(owner, name: str, wrapper) -> None:
    guard.install(owner, name, wrapper)


def patch_evaluator_utils(module) -> None:
    cls = getattr(module, "TaskOutput", None)
    original = _unpatched(cls, "calculate_aggregate_metric", "TaskOutput.calculate_aggregate_metric")
    if original is None:
        return

    @functools.wraps(original)
    def calculate_aggregate_metric(self, *args, **kwargs):
        from lmms_plugins.utils import run_summary

        token = run_summary.CURRENT_TASK.set(getattr(self, "task_name", None))
        try:
            return original(self, *args, **kwargs)
        finally:
            run_summary.CURRENT_TASK.reset(token)
            _after_aggregation(self)

    _install(cls, "calculate_aggregate_metric", calculate_aggregate_metric)


def _after_aggregation(task_output) -> None:
    """Count the task's samples and note its non-number rows; never raises (lmms-eval must finish)."""
    try:
        from lmms_plugins.utils import run_summary

        task = getattr(task_output, "task_name", None) or "?"
        per_metric = {metric: items for (metric, _filter), items in dict(task_output.sample_metrics).items()}
        counts = run_summary.from_metric_lists(task, per_metric)
        if counts is not None:
            run_summary.record(counts)
        aggregations = task_output.task.aggregation() if task_output.task is not None else {}
        for key, value in dict(task_output.agg_metrics).items():
            metric = key.partition(",")[0]
            if _ours(aggregations.get(metric)) and not _is_number(value):
                _NON_NUMBER_METRICS.add(metric)
    except Exception:  # noqa: BLE001 - a report only
        pass


def _is_number(value: Any) -> bool:
    """A value lmms-eval prints as a number (or as N/A)."""
    if value is None or isinstance(value, str):
        return value in (None, "N/A", "")
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def table_view(result_dict: dict, column: str) -> dict:
    """``result_dict`` with this package's non-number rows left out of ``column`` (a shallow copy). In
    the groups table, a row that carries a headline number under ``score`` (ABACUS's leaderboard, the
    only place a group's Score exists: lmms-eval can only average its tasks' Scores) is printed as
    ``<metric>.score``; a task has its own Score row."""
    rows = result_dict.get(column)
    if not _NON_NUMBER_METRICS or not isinstance(rows, dict):
        return result_dict
    kept = {}
    for name, entries in rows.items():
        if isinstance(entries, dict):
            view = {}
            for key, value in entries.items():
                metric, _, filt = key.partition(",")
                if metric not in _NON_NUMBER_METRICS or _is_number(value):
                    view[key] = value
                elif column == "groups" and isinstance(value, dict) and isinstance(value.get("score"), numbers.Real):
                    view[f"{metric}.score,{filt}"] = value["score"]
            entries = view
        kept[name] = entries
    return {**result_dict, column: kept}


def with_end_lines(table: str, column: str, has_groups: bool) -> str:
    """``table`` followed by the end-of-run lines when it is the last table lmms-eval prints (the
    groups table comes after the tasks' when the results have groups); the lines are printed once."""
    from lmms_plugins.utils import run_summary

    if column != "groups" and has_groups:
        return table
    lines = run_summary.end_lines()
    run_summary.clear()  # a second evaluation in the same process reports its own tasks
    return f"{table}\n" + "\n".join(lines) + "\n" if lines else table


def patch_utils(module) -> None:
    original = _unpatched(module, "make_table", "utils.make_table")
    if original is None:
        return

    @functools.wraps(original)
    def make_table(result_dict, column: str = "results", sort_results: bool = False):
        try:
            view = table_view(result_dict, column)
        except Exception:  # noqa: BLE001 - print lmms-eval's own table then
            view = result_dict
        table = original(view, column, sort_results)
        try:
            if isinstance(result_dict, dict) and isinstance(result_dict.get("results"), dict):
                table = with_end_lines(table, column, "groups" in result_dict)
        except Exception:  # noqa: BLE001 - the table is printed whatever happens here
            pass
        return table

    _install(module, "make_table", make_table)
    # the modules that bound the original by name before this patch ran (a late install)
    for name in ("lmms_eval.__main__", "lmms_eval.evaluator", "__main__"):
        bound = sys.modules.get(name)
        if bound is not None and getattr(bound, "make_table", None) is original:
            bound.make_table = make_table


__all__ = ["patch_evaluator_utils", "patch_utils", "table_view", "with_end_lines"]
