"""Aggregation as the ABACUS leaderboard reports it, with 95 % bootstrap intervals.

Per set of edits (one operation x tier, an operation, or everything):

* the mean of each factor (CF, SC, OC);
* the leaderboard Score = CF mean x SC mean x OC mean (the card's rows: 0.60 x 0.79 x 0.66 = 0.31),
  which is NOT the mean of per-edit scores; that mean is reported too (``edit_score``);
* the exact-count rate (delivered == requested);
* a 95 % percentile bootstrap interval for each (1000 resamples, seed 0, edits resampled whole so
  the Score's interval keeps the factors' correlation);
* the number of edits per status.

A sample that could not be scored (value None: unknown category, detector error, missing data)
counts as 0 in every mean and is counted by status, as everywhere in this package: a run with
problems shows a lower score and says why, never a silently smaller sample.

A sample whose generation failed (status ``generation_failed``: no edit came back) is left out of
every mean, as the official evaluator scores only the edits it finds (one folder per edit, with
its ``after.jpg``); ``n`` counts the edits scored, ``coverage`` = n / all samples says how many
that is, and ``status_counts`` counts every sample. With no edit at all every mean is NaN.
An edit the model did return but that is no usable image (``missing_image``, ``bad_image``...)
stays in, scored 0: that is the model's answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from lmms_plugins.utils.status import GENERATION_FAILED

COLUMNS = ("cf", "sc", "oc", "edit_score", "exact")
N_RESAMPLES = 1000


@dataclass(frozen=True)
class Leaderboard:
    n: int
    cf: float
    sc: float
    oc: float
    score: float  # product of the three factor means
    edit_score: float  # mean of per-edit CF.SC.OC
    exact_count: float  # share of edits with exactly K delivered
    ci95: dict  # name -> [lo, hi]
    status_counts: dict  # every sample, generation failures included
    coverage: float = 1.0  # n / all samples: the share whose generation did not fail (NaN without samples)

    def as_dict(self) -> dict:
        return asdict(self)


def _row(item: dict) -> list[float]:
    return [float(item.get(c) or 0.0) for c in COLUMNS]  # None (not scorable) counts as 0


def _ci(data, stat, n_resamples: int):
    try:
        from lmms_plugins.utils.stats import bootstrap_ci
    except ImportError:  # pragma: no cover - shipped with this package
        return (float("nan"), float("nan"))
    lo, hi = bootstrap_ci(data, stat=stat, n_resamples=n_resamples, seed=0, level=0.95)
    return [round(lo, 6), round(hi, 6)]


def leaderboard(items: list[dict], n_resamples: int = N_RESAMPLES) -> Leaderboard:
    """``items``: per-edit dicts with cf, sc, oc, edit_score, exact (bool) and status."""
    import numpy as np

    counts = dict(sorted(Counter(str(i.get("status", "ok")) for i in items).items()))
    everything = len(items)
    items = [i for i in items if i.get("status") != GENERATION_FAILED]  # the edits that came back
    nan = float("nan")
    coverage = len(items) / everything if everything else nan
    if not items:
        return Leaderboard(0, nan, nan, nan, nan, nan, nan, {}, counts, coverage)
    data = np.array([_row(i) for i in items], dtype=float)
    means = data.mean(axis=0)
    stats = {
        "cf": lambda d: float(d[:, 0].mean()),
        "sc": lambda d: float(d[:, 1].mean()),
        "oc": lambda d: float(d[:, 2].mean()),
        "score": lambda d: float(d[:, 0].mean() * d[:, 1].mean() * d[:, 2].mean()),
        "edit_score": lambda d: float(d[:, 3].mean()),
        "exact_count": lambda d: float(d[:, 4].mean()),
    }
    ci = {name: _ci(data, fn, n_resamples) for name, fn in stats.items()} if len(items) > 1 and n_resamples > 0 else {}
    return Leaderboard(
        n=len(items),
        cf=float(means[0]),
        sc=float(means[1]),
        oc=float(means[2]),
        score=float(means[0] * means[1] * means[2]),
        edit_score=float(means[3]),
        exact_count=float(means[4]),
        ci95=ci,
        status_counts=counts,
        coverage=coverage,
    )


def pool(parts: list[dict]) -> dict:
    """Exact pooled leaderboard of several sets from their ``Leaderboard.as_dict()`` alone.

    Means pool by the number of edits scored (``n``), so the pooled factor means and Score are exact; bootstrap intervals need
    the edits themselves and are left out here (``leaderboard.py`` computes them from samples).
    """
    parts = [p for p in parts if isinstance(p, dict)]
    counts: Counter = Counter()
    for p in parts:
        counts.update(p.get("status_counts") or {})
    everything = sum(counts.values())
    coverage = (everything - counts.get(GENERATION_FAILED, 0)) / everything if everything else float("nan")
    parts = [p for p in parts if p.get("n")]
    n = sum(p["n"] for p in parts)
    if not n:
        return {"n": 0, "status_counts": dict(sorted(counts.items())), "coverage": coverage}
    mean = {k: sum(p[k] * p["n"] for p in parts) / n for k in ("cf", "sc", "oc", "edit_score", "exact_count")}
    return {"n": n, **mean, "score": mean["cf"] * mean["sc"] * mean["oc"], "status_counts": dict(sorted(counts.items())),
            "coverage": coverage}
