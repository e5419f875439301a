"""Confidence intervals and tests shared by the benchmarks' aggregations and ``lmms-plugins compare``."""

from __future__ import annotations

import math
from typing import Callable, Sequence


def bootstrap_ci(
    values: Sequence[float],
    stat: Callable | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat`` (default: mean) over samples.

    ``values`` may be a 1-D sequence, or a 2-D array of per-sample rows when ``stat`` combines
    columns (e.g. the product of three factor means): rows are resampled together. Fixed seed, so
    the same run gives the same interval in 1 or N processes.
    """
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.shape[0] == 0:
        return (float("nan"), float("nan"))
    fn = stat or (lambda x: float(np.mean(x, axis=0)))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.shape[0], size=(n_resamples, data.shape[0]))
    stats = np.array([fn(data[i]) for i in idx], dtype=float)
    alpha = (1.0 - level) / 2.0
    return (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1.0 - alpha)))


def wilson(success: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    if total <= 0:
        return (math.nan, math.nan)
    p = success / total
    den = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / den
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: binomial test of the discordant pairs against 1/2."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)
