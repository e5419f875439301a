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


def wilson(success: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the rate ``success / total`` (scipy's; (nan, nan) when total is 0).

    scipy uses the exact normal quantile (1.959963984540054 at 95 %); this package's own formula
    before used 1.959964, so intervals moved by at most 4e-9 when it switched."""
    if total <= 0:
        return (math.nan, math.nan)
    from scipy.stats import binomtest

    ci = binomtest(int(success), int(total)).proportion_ci(confidence_level=level, method="wilson")
    return (float(ci.low), float(ci.high))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: scipy's binomial test of the discordant pairs against 1/2
    (1.0 when there is none). Exact for any count (a sum of binomial coefficients over 2**n, as
    this package computed it before, overflowed a float beyond 1023 discordant pairs)."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(a_only, b_only), n, 0.5).pvalue)
