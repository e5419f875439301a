"""Per-sample status: how ``process_results`` reports a problem without raising.

Convention used by every task of this package:

* ``process_results`` never raises (lmms-eval 0.7.3 aborts the whole run on one exception).
  Wrap it with :func:`never_raises`.
* Every metric value it returns is a :func:`sample` dict ``{"value", "status", "reason", "id"}``.
  ``value`` is the sample's score (``None`` when the sample cannot be scored at all, e.g. a judge
  that failed: such a sample is *pending*, not a silent 0).
* Aggregations (:func:`mean`) average the values, count the statuses and print the counts, so a
  run with problems is visible in the log.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections import Counter
from typing import Any, Callable, Iterable

from lmms_plugins.utils.utf8 import valid_utf8

OK = "ok"
MISSING_IMAGE = "missing_image"  # the model returned no image, or a path that does not exist
BAD_IMAGE = "bad_image"  # an image exists but cannot be read (corrupt, too large, ...)
UNPARSABLE = "unparsable"  # the model's text could not be read (no answer span, junk, ...)
JUDGE_ERROR = "judge_error"  # the judge failed after its retries: the sample is pending
MISSING_DATA = "missing_data"  # the dataset lacks what the sample needs (label, image, ...)
ERROR = "error"  # an unexpected exception inside the scorer; the reason holds it
GENERATION_FAILED = "generation_failed"  # the model side failed (a wrapper's failure marker, an empty output): scored 0

log = logging.getLogger("lmms_plugins")


def sample(value: float | None, status: str = OK, reason: str = "", sample_id: Any = None, **extra: Any) -> dict:
    """One metric value of one sample, as ``process_results`` returns it."""
    out = {"value": None if value is None else float(value), "status": status, "reason": reason, "id": sample_id}
    out.update(extra)
    # lone surrogates from a model's text would make lmms-eval's --log_samples drop the line
    return valid_utf8(out)


def _value(item: Any) -> float | None:
    if isinstance(item, dict):
        return item.get("value")
    return None if item is None else float(item)


def _status(item: Any) -> str:
    return item.get("status", OK) if isinstance(item, dict) else OK


def status_counts(items: Iterable[Any]) -> Counter:
    return Counter(_status(i) for i in items)


def task_label(name: str) -> str:
    """``name`` with the task lmms-eval is aggregating (lmms_plugins/harness/end_of_run.py names it): ``dod E`` ->
    ``dod_no_hint E``, ``abacus_score`` -> ``abacus_add_easy: abacus_score``; ``name`` outside a run."""
    from lmms_plugins.utils.run_summary import current_task

    task = current_task()
    if not task or name.startswith(task):
        return name
    word, _, rest = name.partition(" ")
    if task.startswith(word):  # a benchmark's label ("dod E", "cwi accuracy"): the task in its place
        return f"{task} {rest}".rstrip()
    return f"{task}: {name}"


def generated(items: Iterable[Any]) -> list:
    """The items whose generation did not fail (status other than ``generation_failed``)."""
    return [i for i in items if _status(i) != GENERATION_FAILED]


def nothing_generated(items: list) -> bool:
    """True when there are items and every one failed on the model side: a metric over them has
    no sample to stand on (it is NaN, not its best or worst value)."""
    return bool(items) and not generated(items)


def report(name: str, items: list) -> str:
    """Log one line with the status counts of a metric's samples; return it."""
    counts = status_counts(items)
    parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (kv[0] != OK, kv[0])))
    line = f"[lmms_plugins] {task_label(name)}: {len(items)} samples: {parts}"
    # printed, not logged: lmms-eval's log level hides INFO, and these counts must be seen
    print(line, file=sys.stderr)
    for ex in [i for i in items if _status(i) != OK][:3]:
        print(f"[lmms_plugins]   e.g. id={ex.get('id')} status={ex.get('status')} reason={ex.get('reason')}", file=sys.stderr)
    return line


def mean(items: list, name: str = "metric") -> float:
    """Mean of the samples' values; samples with value None (pending) count in the denominator as 0.

    Pending samples are kept in the denominator on purpose (as the DoD paper does): a run whose
    judge failed shows a lower score *and* a status count, never a silently smaller sample.
    NaN when there are no items, or when every item's generation failed (nothing to stand on).
    """
    report(name, items)
    if not items or nothing_generated(items):
        return float("nan")
    return sum((_value(i) or 0.0) for i in items) / len(items)


def never_raises(metrics: Iterable[str]) -> Callable:
    """Decorator for ``process_results``: an exception becomes status ``error`` on every metric."""
    names = list(metrics)

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(doc, results, *args, **kwargs):
            try:
                return fn(doc, results, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the whole point is to catch everything
                log.exception("process_results failed; recorded as status 'error'")
                sid = doc.get("id", doc.get("case_id")) if isinstance(doc, dict) else None
                return {m: sample(0.0, ERROR, f"{type(exc).__name__}: {exc}", sid) for m in names}

        return inner

    return wrap
