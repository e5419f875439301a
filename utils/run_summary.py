"""What a run's samples say about themselves, per task: how many failed on the model side, are
pending (not scored: no judge verdict, no detector, a missing dataset file...), ended in an
unexpected error, or ran model code unconfined.

One reading for the two places that report it: the last lines of an lmms-eval run
(lmms_plugins/harness/end_of_run.py, from the per-sample values the aggregations get) and
``lmms-plugins check`` (lmms_plugins/check.py, from the samples files). A sample is what
``process_results`` returned for it: metric -> :func:`lmms_plugins.utils.status.sample` dict.

* failed: a metric's status is ``generation_failed``;
* error: a metric's status is ``error`` (an exception inside the scorer);
* pending: a metric that applies to the sample has no value (None) and a status other than
  ``ok`` (a value None with status ``ok`` is a dimension that does not apply, e.g. GRADE's
  consistency of a ``none`` sample);
* unconfined: a metric's record says ``unconfined: true`` (model code run without the sandbox's
  confinement) or its status is ``unconfined``.

The task being aggregated is :data:`CURRENT_TASK`, set by the harness around lmms-eval's
aggregation of each task (no stack reading); None outside it.
"""

from __future__ import annotations

import contextvars
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from lmms_plugins.utils.status import ERROR, GENERATION_FAILED, OK

#: The lmms-eval task whose aggregations run now (set by lmms_plugins/harness/end_of_run.py), or None.
CURRENT_TASK: contextvars.ContextVar[str | None] = contextvars.ContextVar("lmms_plugins_task", default=None)
UNCONFINED = "unconfined"
NOT_APPLICABLE = "not_applicable"
KINDS = ("failed", "pending", "error", "unconfined")


def current_task(default: str | None = None) -> str | None:
    """The task being aggregated (set by the harness), else ``default``."""
    return CURRENT_TASK.get() or default


def is_record(value: Any) -> bool:
    """A per-sample metric value of this package (``status.sample``)."""
    return isinstance(value, Mapping) and "status" in value and "value" in value


def sample_kinds(metrics: Mapping[str, Any]) -> set[str]:
    """Which of :data:`KINDS` one sample (metric -> value) falls in; empty: generated and scored."""
    kinds: set[str] = set()
    for value in metrics.values():
        if not is_record(value):
            continue
        state = str(value.get("status") or OK)
        if state == GENERATION_FAILED:
            kinds.add("failed")
        elif state == ERROR:
            kinds.add("error")
        elif (value.get("value") is None and value.get("applicable", True) is not False
              and state not in (OK, NOT_APPLICABLE, UNCONFINED)):
            kinds.add("pending")
        if value.get(UNCONFINED) is True or state == UNCONFINED:
            kinds.add("unconfined")
    return kinds


def _sample_status(metrics: Mapping[str, Any]) -> str:
    """The sample's status for the counts: its first non-ok status (ok when there is none)."""
    for value in metrics.values():
        if is_record(value) and value.get("status") not in (None, OK, NOT_APPLICABLE):
            return str(value["status"])
    return OK


@dataclass
class TaskCounts:
    task: str
    samples: int = 0
    failed: int = 0
    pending: int = 0
    error: int = 0
    unconfined: int = 0
    statuses: Counter = field(default_factory=Counter)  # sample status -> samples
    first_reason: dict = field(default_factory=dict)  # kind -> the first sample's reason

    @property
    def clean(self) -> bool:
        """Every sample generated and scored (and confined)."""
        return not (self.failed or self.pending or self.error or self.unconfined)

    def add(self, metrics: Mapping[str, Any]) -> None:
        self.samples += 1
        kinds = sample_kinds(metrics)
        for kind in kinds:
            setattr(self, kind, getattr(self, kind) + 1)
            if kind not in self.first_reason:
                self.first_reason[kind] = _reason(metrics, kind)
        self.statuses[_sample_status(metrics)] += 1

    def line(self) -> str:
        """One line: ``<task>: 12 samples: 9 generation failed, 3 pending (judge_error 3); first failure: ...``."""
        parts = []
        for kind, label in (("failed", "generation failed"), ("pending", "pending (not scored)"),
                            ("error", "scorer error"), ("unconfined", "ran model code unconfined")):
            n = getattr(self, kind)
            if n:
                parts.append(f"{n} {label}")
        if not parts:
            return f"{self.task}: all {self.samples} samples generated and scored"
        others = {k: v for k, v in sorted(self.statuses.items()) if k != OK}
        statuses = ", ".join(f"{k} {v}" for k, v in others.items())
        first = self.first_reason.get("failed") or self.first_reason.get("error") or self.first_reason.get("pending") or ""
        return (f"{self.task}: {', '.join(parts)} of {self.samples} samples"
                + (f" (statuses: {statuses})" if statuses else "")
                + (f"; e.g. {first[:160]}" if first else ""))

    def as_dict(self) -> dict:
        return {"task": self.task, "samples": self.samples, "failed": self.failed, "pending": self.pending,
                "error": self.error, "unconfined": self.unconfined, "statuses": dict(sorted(self.statuses.items()))}


def _reason(metrics: Mapping[str, Any], kind: str) -> str:
    for value in metrics.values():
        if is_record(value) and value.get("reason") and kind in sample_kinds({"m": value}):
            return " ".join(str(value["reason"]).split())
    return ""


def count(task: str, samples: Iterable[Mapping[str, Any]]) -> TaskCounts:
    """The counts of one task from its samples (each: metric -> value, as a samples-file line)."""
    counts = TaskCounts(task)
    for sample in samples:
        if isinstance(sample, Mapping):
            counts.add(sample)
    return counts


def from_metric_lists(task: str, per_metric: Mapping[str, list]) -> TaskCounts | None:
    """The counts of one task from lmms-eval's per-metric value lists (item i of every list is
    sample i); None when none of them holds this package's records."""
    lists = {m: v for m, v in per_metric.items() if isinstance(v, list) and any(is_record(x) for x in v)}
    if not lists:
        return None
    n = max(len(v) for v in lists.values())
    return count(task, ({m: v[i] for m, v in lists.items() if i < len(v)} for i in range(n)))


# ------------------------------------------------------------------------ what this process saw
_seen: dict[str, TaskCounts] = {}
_lock = threading.Lock()


def record(counts: TaskCounts) -> None:
    with _lock:
        _seen[counts.task] = counts


def recorded() -> list[TaskCounts]:
    with _lock:
        return list(_seen.values())


def clear() -> None:
    with _lock:
        _seen.clear()


def end_lines(all_counts: Iterable[TaskCounts] | None = None) -> list[str]:
    """The last lines of a run: one per task with failed, pending, error or unconfined samples."""
    bad = [c for c in (recorded() if all_counts is None else all_counts) if not c.clean]
    if not bad:
        return []
    total = sum(c.samples for c in bad)
    lines = [f"[lmms_plugins] WARNING: {len(bad)} task(s) have samples that were not generated or not scored "
             f"({total} samples in those tasks); how each metric counts them: the benchmark's README. "
             f"`lmms-plugins check <output_path>` exits non-zero on such a run."]
    lines += [f"[lmms_plugins]   {c.line()}" for c in bad]
    return lines


__all__ = ["CURRENT_TASK", "KINDS", "TaskCounts", "clear", "count", "current_task", "end_lines",
           "from_metric_lists", "is_record", "record", "recorded", "sample_kinds"]
