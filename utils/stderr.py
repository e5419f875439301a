"""Standard errors of this package's aggregations in lmms-eval's results table ("Stderr" column).

lmms-eval 0.7.3 finds a metric's standard error with ``evaluator_utils.stderr_for_metric(agg_fn,
bootstrap_iters)``, which knows only its own aggregation functions (``mean`` of plain numbers,
a few bootstrapped ones) by identity; for any task-defined aggregation it gives "N/A". Our
per-sample values are status dicts (utils/status.py), so lmms-eval's ``mean`` cannot be used, and
its CLT column (``score`` key) crashes on a pending ``None``.

So an aggregation declares its standard error itself::

    @with_stderr(lambda items: mean_se(values_of(items)))
    def aggregate_accuracy(items): ...

and the first call of such an aggregation (lmms-eval calls the aggregation just before it asks
for the standard error) wraps ``stderr_for_metric`` once, so that it answers with the declared
function for these aggregations and defers to lmms-eval for every other one. lmms-eval then
writes the value as ``<metric>_stderr`` in the results JSON, prints it in the table and pools it
for groups, as for its own metrics. ``--bootstrap_iters 0`` still turns standard errors off.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any, Callable, Iterable, Sequence

ATTR = "lmms_plugins_stderr"
_PATCHED = "_lmms_plugins_stderr_patched"
# lmms-eval's, and EleutherAI lm-eval's (the CwI tasks run there too, lmms_plugins/lm_eval_tasks):
# both ask ``stderr_for_metric(metric, bootstrap_iters)`` after the aggregation
_MODULES = ("lmms_eval.evaluator_utils", "lm_eval.evaluator_utils")


def with_stderr(se: Callable[[list], float | None]) -> Callable:
    """Decorator: ``se(items)`` is the standard error of the decorated aggregation (None: undefined)."""

    def wrap(agg: Callable) -> Callable:
        @functools.wraps(agg)
        def inner(items, *args, **kwargs):
            install()
            return agg(items, *args, **kwargs)

        setattr(inner, ATTR, se)
        return inner

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


def _as_table_value(se: float | None) -> Any:
    if se is None or not isinstance(se, (int, float)) or not math.isfinite(se):
        return "N/A"  # lmms-eval's own marker: printed as N/A, and a group then pools none
    return float(se)


def install() -> bool:
    """Make the harness's ``stderr_for_metric`` answer for aggregations decorated with :func:`with_stderr`.

    Patches lmms-eval's and lm-eval's evaluator utilities, whichever is loaded; idempotent and cheap;
    False when neither is loaded (e.g. a test calling an aggregation directly)."""
    return any([_install_in(name) for name in _MODULES])


def _install_in(module_name: str) -> bool:
    module = sys.modules.get(module_name)
    original = getattr(module, "stderr_for_metric", None) if module is not None else None
    if original is None:
        return False
    if getattr(original, _PATCHED, False):
        return True

    @functools.wraps(original)
    def stderr_for_metric(metric, bootstrap_iters):
        se = getattr(metric, ATTR, None)
        if se is None:
            return original(metric=metric, bootstrap_iters=bootstrap_iters)
        if bootstrap_iters <= 0:  # both harnesses' switch for "no standard errors"
            return None
        return lambda items: _as_table_value(se(items))

    setattr(stderr_for_metric, _PATCHED, True)
    module.stderr_for_metric = stderr_for_metric
    return True
