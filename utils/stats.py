"""Confidence intervals shared by the benchmarks' aggregations."""

from __future__ import annotations

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
