"""Standard errors of this package's aggregations in lmms-eval's results table ("Stderr" column).

lmms-eval 0.7.3 finds a metric's standard error with ``evaluator_utils.stderr_for_metric(agg_fn,
bootstrap_iters)``, which knows only its own aggregation functions (``mean`` of plain numbers,
a few bootstrapped ones) by identity; for any task-defined aggregation it gives "N/A". Our
per-sample values are status dicts (utils/status.py), so lmms-eval's ``mean`` cannot be used, and
its CLT column (``score`` key) crashes on a pending ``None``.

So an aggregation declares its standard error itself::

    @with_stderr(lambda items: mean_se(values_of(items)))
    def aggregate_accuracy(items): ...

and the harness package (lmms_plugins/harness/stderr.py) wraps ``stderr_for_metric`` when
lmms-eval's (or lm-eval's) ``evaluator_utils`` is imported, so that it answers with the declared
function for these aggregations and defers to the harness for every other one. lmms-eval then
writes the value as ``<metric>_stderr`` in the results JSON, prints it in the table and pools it
for groups, as for its own metrics. ``--bootstrap_iters 0`` still turns standard errors off.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Sequence

ATTR = "lmms_plugins_stderr"


def with_stderr(se: Callable[[list], float | None]) -> Callable:
    """Decorator: ``se(items)`` is the standard error of the decorated aggregation (None: undefined)."""

    def wrap(agg: Callable) -> Callable:
        setattr(agg, ATTR, se)
        return agg

    return wrap


def mean_se(values: Sequence[float]) -> float | None:
    """Standard error of a mean: sample standard deviation (n - 1) / sqrt(n); None for n < 2.

    The same estimate as lmms-eval's ``mean_stderr``; for 0/1 values it is sqrt(p (1 - p) / (n - 1))."""
    vals = [float(v) for v in values]
    n = len(vals)
    if n < 2:
        return None
    mu = sum(vals) / n
    var = sum((v - mu) ** 2 for v in vals) / (n - 1)
    return math.sqrt(var / n)


def rate_se(success: int, total: int) -> float | None:
    """Standard error of a rate success / total (the mean of total 0/1 outcomes)."""
    if total < 2:
        return None
    p = success / total
    return math.sqrt(p * (1.0 - p) / (total - 1))


def values_of(items: Iterable[Any], scale: float = 1.0) -> list[float]:
    """Per-sample values as status.mean counts them: pending (None) as 0, every item in the denominator."""
    out = []
    for item in items:
        v = item.get("value") if isinstance(item, dict) else item
        out.append(scale * (0.0 if v is None else float(v)))
    return out


def table_value(se: float | None) -> Any:
    """A standard error as the harnesses' table takes it: a float, or "N/A" when undefined."""
    if se is None or not isinstance(se, (int, float)) or not math.isfinite(se):
        return "N/A"  # lmms-eval's own marker: printed as N/A, and a group then pools none
    return float(se)
