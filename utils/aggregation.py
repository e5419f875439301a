"""How every benchmark of this package builds the aggregation functions its task YAMLs name.

lmms-eval calls a metric's ``aggregation`` with the list of the values ``process_results``
returned for that metric, one per sample. Each aggregation a YAML names is a module-level name of
the benchmark's hooks, assigned (or defined) under that very name, so that grep finds it from the
YAML (``aggregation: !function lmms_plugins.tasks.dod.hooks.aggregate_E``)::

    aggregate_accuracy = aggregation.mean("aggregate_accuracy", "cwi accuracy")
    aggregate_E = _rate("E")                 # a benchmark's own factory, built on aggregation.named

* :func:`named` gives a computation its name (tracebacks, the task config in the results JSON)
  and, with ``se``, its standard error in lmms-eval's table (utils/stderr.py);
* :func:`mean` is the common case: the mean of the samples' values as ``status.mean`` counts them
  (pending as 0, kept in the denominator; status counts printed), with its standard error; a
  sample whose generation failed counts 0 or is left out (``failed=``), and a mean over no
  generated sample is NaN;
* :func:`failure_rate` is every task's ``generation_failure_rate``;
* an aggregation with a body of its own (a breakdown row, a group's pooling) is a plain
  ``def aggregate_<metric>(items)``.

Names: ``aggregate_<metric>``, the benchmark prefix of the metric left out (``abacus_leaderboard``
-> ``aggregate_leaderboard``). tests/foundation/test_aggregation.py checks that every aggregation
a task YAML names is defined under its own name in its module.
"""

from __future__ import annotations

from typing import Any, Callable

from lmms_plugins.utils import status
from lmms_plugins.utils.stderr import mean_se, rate_se, values_of, with_stderr

Aggregation = Callable[[list], Any]


def named(name: str, compute: Aggregation, *, se: Callable[[list], float | None] | None = None,
          doc: str | None = None) -> Aggregation:
    """``compute`` as the aggregation called ``name`` (assign it to a module-level variable of that name).

    ``se(items)``: its standard error (None: undefined), shown in lmms-eval's Stderr column and
    written as ``<metric>_stderr``; leave it out for a value that is not a mean or a rate."""
    if not name.isidentifier():
        raise ValueError(f"an aggregation's name must be a Python identifier, got {name!r}")

    def aggregate(items: list) -> Any:
        return compute(items)

    aggregate.__name__ = aggregate.__qualname__ = name
    aggregate.__doc__ = doc if doc is not None else getattr(compute, "__doc__", None)
    return with_stderr(se)(aggregate) if se is not None else aggregate


def mean(name: str, label: str | None = None, *, keep: Callable[[Any], bool] | None = None,
         failed: str = "zero", doc: str | None = None) -> Aggregation:
    """The mean of the values of the items that ``keep`` accepts (all by default).

    ``failed`` says how a sample whose generation failed enters it, as the benchmark's protocol
    counts a missing output: ``"zero"`` (its value, 0, in the denominator) or ``"exclude"`` (left
    out of the denominator; the task's ``generation_failure_rate`` says how many). Either way the
    mean is NaN when no item is left, or when every item failed: a mean over no generated sample
    is not a number. Pending values (None) count as 0 and stay in the denominator
    (``status.mean``), whose status counts are printed under ``label`` (default: ``name``); the
    standard error is ``mean_se`` over the same items (None where the mean is NaN)."""
    if failed not in ("zero", "exclude"):
        raise ValueError(f"failed must be 'zero' or 'exclude', got {failed!r}")
    label = label or name

    def select(items: list) -> list:
        chosen = items if keep is None else [i for i in items if keep(i)]
        return status.generated(chosen) if failed == "exclude" else chosen

    def se(items: list) -> float | None:
        chosen = select(items)
        return None if not chosen or status.nothing_generated(chosen) else mean_se(values_of(chosen))

    return named(name, lambda items: status.mean(select(items), label), se=se,
                 doc=doc or f"{label}: mean of the samples' values (pending counts 0), with its standard error.")


def failure_rate(name: str, *, generated: bool = False, doc: str | None = None) -> Aggregation:
    """``generation_failure_rate``: the share of the items whose generation failed (status
    ``generation_failed``), NaN without items, with its standard error. Every benchmark shows it
    beside its metrics: it says how many samples they do not stand on. ``generated=True``: the
    complement, the share that was generated (ABACUS's ``abacus_coverage``)."""

    def counts(items: list) -> tuple[int, int]:
        failed = sum(1 for i in items if status._status(i) == status.GENERATION_FAILED)
        return (len(items) - failed if generated else failed), len(items)

    def compute(items: list) -> float:
        hits, total = counts(items)
        return hits / total if total else float("nan")

    return named(name, compute, se=lambda items: rate_se(*counts(items)),
                 doc=doc or ("Share of the samples that were generated." if generated
                             else "Share of the samples whose generation failed (lower is better)."))
