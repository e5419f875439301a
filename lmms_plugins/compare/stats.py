"""The statistics of a comparison: a 95 % interval for each run's value (from what the run
carries), and a paired test of a later run against the first on their shared samples (exact
McNemar for 0/1 metrics, paired bootstrap otherwise). The primitives are in
:mod:`lmms_plugins.utils.stats`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lmms_plugins.baselines.mapping import MetricMap
from lmms_plugins.compare.pairing import pair_samples
from lmms_plugins.runs import Run, TaskResult, counts_of, metric_values, sample_values
from lmms_plugins.utils.stats import mcnemar_exact, wilson

N_BOOT = 2000
SEED = 0
MIN_N = 10  # a continuous metric over fewer samples gets no interval (Wilson covers 0/1 metrics at any n)


def _is_sample_mean(values: dict[str, float] | None, reported: Any) -> bool:
    """True when the reported number is the plain mean of the per-sample values (so a bootstrap or a
    paired test over samples is about the reported number)."""
    if not values or not isinstance(reported, (int, float)) or isinstance(reported, bool):
        return False
    mean = sum(values.values()) / len(values)
    return math.isclose(mean, float(reported), rel_tol=1e-6, abs_tol=1e-9)


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float
    method: str
    n: int | None = None  # the samples it is computed over


WILSON = "Wilson"


def _binary(values: list[float]) -> float | None:
    """The success value when every value is 0 or one same positive value, else None."""
    positive = {v for v in values if v != 0.0}
    if len(positive) > 1:
        return None
    return positive.pop() if positive else 1.0


def _wilson(k: int, n: int, scale: float, how: str) -> Interval:
    lo, hi = wilson(k, n)
    return Interval(lo * scale, hi * scale, f"{WILSON} ({k}/{n}{how})", n)


def interval_of(tr: TaskResult, metric: str, mm: MetricMap) -> Interval | None:
    """A 95 % interval of the reported value, in the result's unit, by one rule for every table,
    CSV row and chart (docs/COMPARE.md, "Intervals"):

    1. a 0/1 metric: Wilson on success/total, from the counts the task reports (DoD), else from the
       per-sample values when the reported value is their mean, else (a 0/1 metric known to be one,
       without samples) from the value and the task's sample count;
    2. a continuous metric: the task's own bootstrap interval where it writes one (ABACUS Score, a
       product of means; GRADE lenient), else a percentile bootstrap over the samples
       (:data:`N_BOOT` resamples, seed :data:`SEED`) when the reported value is their mean;
    3. else lmms-eval's standard error (±1.96 SE, cut at [0, 1] for a 0-1 value).

    Never a zero-width interval: a continuous metric over fewer than :data:`MIN_N` samples, a
    degenerate bootstrap or a zero standard error gives None (no interval)."""
    scale = 100.0 if mm.result_unit == "percent" else 1.0
    reported = tr.values.get(metric)
    vals = metric_values(tr, metric)
    c = counts_of(tr, metric)
    if c is not None and c[1] > 0:
        return _wilson(int(c[0]), c[1], scale, "")
    if vals and _is_sample_mean(vals, reported):
        one = _binary(list(vals.values()))
        if one is not None and math.isclose(one, scale):
            k = sum(1 for v in vals.values() if v != 0.0)
            return _wilson(k, len(vals), scale, "")
    if mm.binary and isinstance(reported, (int, float)) and not isinstance(reported, bool) and tr.n and not vals:
        k = float(reported) / scale * tr.n
        if abs(k - round(k)) < 1e-6 and 0 <= round(k) <= tr.n:
            return _wilson(int(round(k)), tr.n, scale, ", from the value and n")
    if mm.ci_name:
        for v in tr.values.values():
            if not isinstance(v, dict):
                continue
            scope = v["overall"] if isinstance(v.get("overall"), dict) else v  # GRADE nests it, ABACUS does not
            table = scope.get("ci95")
            ci = table.get(mm.ci_name) if isinstance(table, dict) else None
            if (isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                                        and math.isfinite(x) for x in ci) and ci[1] > ci[0]):
                n = scope.get("n") if isinstance(scope.get("n"), int) else None
                return Interval(float(ci[0]), float(ci[1]), "the task's bootstrap" + (f" (n={n})" if n else ""), n)
    n_known = len(vals) if vals else tr.n
    if n_known is not None and n_known < MIN_N:
        return None  # a bootstrap or standard error of 2 samples is no interval worth printing
    if vals and _is_sample_mean(vals, reported) and len(vals) > 1:
        from lmms_plugins.utils.stats import bootstrap_ci

        lo, hi = bootstrap_ci(list(vals.values()), n_resamples=N_BOOT, seed=SEED)
        if hi > lo:
            return Interval(lo, hi, f"bootstrap ({N_BOOT} resamples, seed {SEED}, n={len(vals)})", len(vals))
        return None  # every sample the same value: a bootstrap says nothing about the spread
    se = tr.stderr.get(metric)
    if se is not None and se > 0 and math.isfinite(se) and isinstance(reported, (int, float)) and math.isfinite(reported):
        lo, hi = reported - 1.96 * se, reported + 1.96 * se
        if mm.result_unit == "fraction" and (lo < 0.0 or hi > 1.0):  # a rate's interval stays inside [0, 1]
            return Interval(max(lo, 0.0), min(hi, 1.0), "±1.96 SE (lmms-eval), cut at [0, 1]", tr.n)
        return Interval(lo, hi, "±1.96 SE (lmms-eval)", tr.n)
    return None


@dataclass(frozen=True)
class PairedTest:
    task: str
    metric: str
    label: str
    run_a: str
    run_b: str
    n_shared: int
    mean_a: float | None  # display unit
    mean_b: float | None
    diff: float | None  # b - a, display unit
    ci: tuple[float, float] | None  # of diff, display unit
    test: str
    p_value: float | None
    discordant: tuple[int, int] | None = None  # (a wins, b wins) for McNemar
    note: str = ""
    dropped: int = 0  # samples with the same id in both runs but different inputs (not tested)



def pooled(run: Run, task: str) -> TaskResult:
    """A task as it is; a group without samples of its own with the samples of its tasks, each
    sample's id prefixed by its task (ids of two tasks may coincide). Its value is tested over
    samples only where it is their plain mean (a pooled accuracy, not a product of means)."""
    from dataclasses import replace

    from lmms_plugins.runs import leaves_of

    tr = run.tasks[task]
    leaves = leaves_of(run.groups, task) if tr.samples is None else []
    if not leaves or any(run.tasks.get(t) is None or run.tasks[t].samples is None for t in leaves):
        return tr
    lines = []
    for t in leaves:
        for line in run.tasks[t].samples:
            copy = dict(line)
            for k, v in line.items():
                if isinstance(v, dict) and v.get("id") is not None and "value" in v:
                    copy[k] = {**v, "id": f"{t}/{v['id']}"}
            if not any(isinstance(v, dict) and v.get("id") is not None and "value" in v for v in line.values()):
                copy["doc_id"] = f"{t}/{line.get('doc_id')}"
            lines.append(copy)
    return replace(tr, samples=lines, inputs=None)


def paired_test(task: str, metric: str, mm: MetricMap, a: Run, b: Run) -> PairedTest:
    ta, tb = pooled(a, task), pooled(b, task)
    va, vb = sample_values(ta.samples, metric), sample_values(tb.samples, metric)
    base = dict(task=task, metric=metric, label=mm.label, run_a=a.label, run_b=b.label)
    if ta.samples is None or tb.samples is None:
        missing = " and ".join(r.label for r, t in ((a, ta), (b, tb)) if t.samples is None)
        harness = " or ".join(sorted({t.harness for t in (ta, tb) if t.samples is None}, reverse=True))  # lmms-eval first
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note=f"no samples file for {missing} (a group has none; for a task, run {harness} with --log_samples)")
    if va is None or vb is None:
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="the metric has no per-sample values (it is computed over pairs or groups)")
    if not (_is_sample_mean(va, ta.values.get(metric)) and _is_sample_mean(vb, tb.values.get(metric))):
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="the reported value is not a mean over samples; no per-sample test")
    pairing = pair_samples(ta, tb, va, vb)
    keys = pairing.keys
    notes = []
    if pairing.shared_ids < max(len(va), len(vb)):
        notes.append(f"{len(va)} vs {len(vb)} scored samples, {pairing.shared_ids} with the same id")
    if pairing.dropped:
        notes.append(f"{pairing.dropped} of {pairing.shared_ids} samples with the same id dropped: their inputs differ "
                     f"(doc_hash; differing: {', '.join(pairing.differing)}): the runs used different data")
    if pairing.unchecked:
        notes.append(f"{pairing.unchecked} samples paired by id only (their doc_hash names no content: "
                     f"a run logged by plain lmms-eval or before this package fingerprinted its docs)")
    if pairing.cross_harness:
        notes.append(f"{pairing.cross_harness} samples of an lm-eval and an lmms-eval run paired by id and target "
                     f"(the two harnesses hash different texts of a doc)")
    if not keys:
        why = "the runs share no sample" if not pairing.shared_ids else "the runs share no sample with the same inputs"
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="; ".join([why] + notes), dropped=pairing.dropped)
    import numpy as np

    xa = np.array([va[k] for k in keys], dtype=float)
    xb = np.array([vb[k] for k in keys], dtype=float)
    d = xb - xa
    rng = np.random.default_rng(SEED)
    boot = d[rng.integers(0, len(d), size=(N_BOOT, len(d)))].mean(axis=1)
    lo, hi = (float(q) for q in np.quantile(boot, [0.025, 0.975]))
    show = mm.to_display
    if notes:
        notes.append(f"tested on the {len(keys)} paired")
    note = "; ".join(notes)
    one = _binary(list(xa) + list(xb))
    if one is not None:
        a_only = int(np.sum((xa == one) & (xb == 0)))
        b_only = int(np.sum((xb == one) & (xa == 0)))
        test, p, disc = "McNemar exact", mcnemar_exact(a_only, b_only), (a_only, b_only)
    else:
        # two-sided percentile-bootstrap p-value of "mean difference = 0"
        p = min(1.0, 2.0 * min(float(np.mean(boot <= 0)), float(np.mean(boot >= 0))))
        p = max(p, 1.0 / N_BOOT) if np.any(d != 0) else 1.0
        test, disc = f"paired bootstrap ({N_BOOT})", None
    return PairedTest(**base, n_shared=len(keys), mean_a=show(float(xa.mean())), mean_b=show(float(xb.mean())),
                      diff=show(float(d.mean())), ci=(show(lo), show(hi)), test=test, p_value=p, discordant=disc, note=note,
                      dropped=pairing.dropped)
