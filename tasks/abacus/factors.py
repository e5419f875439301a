"""The three ABACUS factors and the per-edit score, as pure functions of counts and similarities.

Score = CF * SC * OC (ABACUS README). Every input a caller could get wrong (negative counts, a
similarity outside [0, 1]) raises ValueError; the edge cases the card leaves open are decided
here and documented in tasks/abacus/README.md:

* CF with d = K = 0 is 1 (nothing asked, nothing delivered). The benchmark has K >= 1.
* OC with N_GT = 0 is 1 (there was nothing to conserve).
* SC with both terms 0 is 0 (the harmonic mean's limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def count_fidelity(delivered: int, requested: int) -> float:
    """CF = 2 min(d, K) / (d + K)."""
    if delivered < 0 or requested < 0:
        raise ValueError(f"counts must be >= 0, got delivered={delivered}, requested={requested}")
    if delivered + requested == 0:
        return 1.0
    return 2.0 * min(delivered, requested) / (delivered + requested)


def object_conservation(n_destroyed: int, n_pre_existing: int) -> float:
    """OC = 1 - N_rem / N_GT: the share of pre-existing instances the edit did not destroy."""
    if n_destroyed < 0 or n_pre_existing < 0:
        raise ValueError(f"counts must be >= 0, got n_destroyed={n_destroyed}, n_pre_existing={n_pre_existing}")
    if n_destroyed > n_pre_existing:
        raise ValueError(f"cannot destroy {n_destroyed} of {n_pre_existing} pre-existing instances")
    if n_pre_existing == 0:
        return 1.0
    return 1.0 - n_destroyed / n_pre_existing


def _unit(name: str, x: float) -> float:
    if not (isinstance(x, (int, float)) and math.isfinite(x)) or x < -1e-9 or x > 1 + 1e-9:
        raise ValueError(f"{name} must be a number in [0, 1], got {x!r}")
    return min(1.0, max(0.0, float(x)))


def scene_consistency(flow_term: float, msssim: float) -> float:
    """SC = harmonic mean of the background flow term and the background MS-SSIM."""
    a, b = _unit("flow_term", flow_term), _unit("msssim", msssim)
    if a + b == 0:
        return 0.0
    return 2.0 * a * b / (a + b)


@dataclass(frozen=True)
class Factors:
    cf: float
    sc: float
    oc: float

    @property
    def score(self) -> float:
        return self.cf * self.sc * self.oc


def edit_factors(
    *, delivered: int, requested: int, n_destroyed: int, n_pre_existing: int, flow_term: float, msssim: float
) -> Factors:
    return Factors(
        cf=count_fidelity(delivered, requested),
        sc=scene_consistency(flow_term, msssim),
        oc=object_conservation(n_destroyed, n_pre_existing),
    )


def leaderboard_score(cf_mean: float, sc_mean: float, oc_mean: float) -> float:
    """The leaderboard's Score: the product of the factor *means* (not the mean of products)."""
    return cf_mean * sc_mean * oc_mean
