"""The Stderr column for this package's aggregations (wraps ``evaluator_utils.stderr_for_metric``).

lmms-eval 0.7.3 (and lm-eval 0.4.x, where the CwI tasks also run) finds a metric's standard error
with ``stderr_for_metric(metric, bootstrap_iters)``, which knows only the harness's own aggregation
functions and gives "N/A" for any other. An aggregation of this package declares its standard
error with ``lmms_plugins.utils.stderr.with_stderr(se)``; the wrapper answers with ``se`` for those
and defers to the harness for every other one. ``--bootstrap_iters 0`` still turns them off.
"""

from __future__ import annotations

from . import guard


def patch(module) -> None:
    original = guard.unpatched(module, "stderr_for_metric", "evaluator_utils.stderr_for_metric (standard errors)")
    if original is None:
        return
    from lmms_plugins.utils.stderr import ATTR, table_value

    def stderr_for_metric(metric, bootstrap_iters):
        se = getattr(metric, ATTR, None)
        if se is None:
            return original(metric=metric, bootstrap_iters=bootstrap_iters)
        if bootstrap_iters <= 0:  # both harnesses' switch for "no standard errors"
            return None
        return lambda items: table_value(se(items))

    guard.install(module, "stderr_for_metric", stderr_for_metric)


__all__ = ["patch"]
