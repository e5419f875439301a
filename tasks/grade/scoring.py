"""GRADE's scores, exactly as published, from per-sample verdicts (pure; no lmms-eval, no judge).

Per sample: R in [0, 1] (sum of the weights of the questions judged Yes), C in {0, 1, 2} or not
applicable (consistency type ``none``), L in {0, 1, 2}.

* strict accuracy = 100 * share of samples with R > 0.99 and (C = 2 or C not applicable) and L = 2;
* reasoning = 100 * mean R; readability = 50 * mean L (all samples);
* consistency = 50 * mean C over the samples whose consistency type is not ``none``;
* lenient = 0.6 * reasoning + 0.3 * consistency + 0.1 * readability.

A sample whose verdict is pending (judge failed: value ``None``) stays in every denominator and
counts as 0, so a run with judge failures scores lower *and* shows the failures in its status counts.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable, Mapping, Sequence

STRICT_R_THRESHOLD = 0.99  # the official code's "R = 1" (floating-point weight sums)
WEIGHTS = (0.6, 0.3, 0.1)  # reasoning, consistency, readability


@dataclass(frozen=True)
class SampleScore:
    task_id: str
    domain: str
    sub_task: str
    consistency_type: str  # overall | style | none
    R: float | None  # None: pending
    C: int | None  # None: pending, or not applicable when consistency_type == "none"
    L: int | None
    status: str = "ok"
    reason: str = ""

    @property
    def c_applicable(self) -> bool:
        return self.consistency_type != "none"

    @property
    def strict(self) -> bool:
        c_ok = (not self.c_applicable) or self.C == 2
        return self.R is not None and self.R > STRICT_R_THRESHOLD and c_ok and self.L == 2


def lenient(reasoning: float, consistency: float | None, readability: float) -> float | None:
    """The published lenient score from the three normalised (0-100) dimension means."""
    if consistency is None:
        return None
    return WEIGHTS[0] * reasoning + WEIGHTS[1] * consistency + WEIGHTS[2] * readability


@dataclass(frozen=True)
class GroupScore:
    n: int
    n_consistency: int  # samples whose consistency type is not "none"
    strict: float
    lenient: float | None
    reasoning: float
    consistency: float | None  # None when no sample of the group has a consistency type
    readability: float
    ci95: Mapping[str, tuple[float | None, float | None]] = field(default_factory=dict)
    status_counts: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci95"] = {k: list(v) for k, v in self.ci95.items()}
        d["status_counts"] = dict(self.status_counts)
        return d


def _rows(samples: Sequence[SampleScore]) -> list[list[float]]:
    """Per-sample [R, C or NaN when not applicable, L, strict] with pending values as 0."""
    return [
        [s.R or 0.0, (s.C or 0) if s.c_applicable else math.nan, s.L or 0, 1.0 if s.strict else 0.0]
        for s in samples
    ]


def _means(rows) -> dict[str, float | None]:
    import numpy as np

    a = np.asarray(rows, dtype=float).reshape(-1, 4)
    n = a.shape[0]
    c_col = a[:, 1][~np.isnan(a[:, 1])]
    reasoning = 100.0 * float(a[:, 0].mean()) if n else math.nan
    consistency = 50.0 * float(c_col.mean()) if c_col.size else None
    readability = 50.0 * float(a[:, 2].mean()) if n else math.nan
    return {
        "strict": 100.0 * float(a[:, 3].mean()) if n else math.nan,
        "lenient": lenient(reasoning, consistency, readability),
        "reasoning": reasoning,
        "consistency": consistency,
        "readability": readability,
    }


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def score_group(samples: Sequence[SampleScore], *, n_resamples: int = 1000, seed: int = 0) -> GroupScore:
    """Every published score of a set of samples, with percentile-bootstrap 95 % intervals."""
    from lmms_plugins.utils.stats import bootstrap_ci

    rows = _rows(samples)
    means = _means(rows)
    ci: dict[str, tuple[float | None, float | None]] = {}
    if len(rows) > 1 and n_resamples > 0:
        for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
            def stat(resample, _name=name):
                v = _means(resample)[_name]
                return math.nan if v is None else v

            lo, hi = bootstrap_ci(rows, stat=stat, n_resamples=n_resamples, seed=seed)
            ci[name] = (_finite(lo), _finite(hi))
    return GroupScore(
        n=len(samples),
        n_consistency=sum(1 for s in samples if s.c_applicable),
        strict=means["strict"],
        lenient=means["lenient"],
        reasoning=means["reasoning"],
        consistency=means["consistency"],
        readability=means["readability"],
        ci95=ci,
        status_counts=dict(sorted(Counter(s.status for s in samples).items())),
    )


def breakdown(samples: Iterable[SampleScore], *, n_resamples: int = 1000, seed: int = 0) -> dict:
    """Overall, per domain and per sub_task scores, and the status counts, as plain JSON-able data."""
    samples = sorted(samples, key=lambda s: s.task_id)  # the order of ranks/threads never matters
    by_domain: dict[str, list[SampleScore]] = {}
    by_sub: dict[str, list[SampleScore]] = {}
    for s in samples:
        by_domain.setdefault(s.domain, []).append(s)
        by_sub.setdefault(s.sub_task or "(none)", []).append(s)
    overall = score_group(samples, n_resamples=n_resamples, seed=seed)
    return {
        "overall": overall.to_dict(),
        "by_domain": {k: score_group(v, n_resamples=n_resamples, seed=seed).to_dict() for k, v in sorted(by_domain.items())},
        "by_sub_task": {k: score_group(v, n_resamples=n_resamples, seed=seed).to_dict() for k, v in sorted(by_sub.items())},
        "status_counts": dict(overall.status_counts),
        "problems": [
            {"task_id": s.task_id, "status": s.status, "reason": s.reason} for s in samples if s.status != "ok"
        ][:50],
    }


def standard_error(samples: Sequence[SampleScore], name: str) -> float | None:
    """Standard error of one published score (``strict``, ``lenient``, ``reasoning``, ``consistency``,
    ``readability``) in its unit (0-100), as lmms-eval computes it for a mean (sd with n - 1, / sqrt n).

    Each score is a mean of per-sample values (pending as 0); lenient is a weighted sum of three means
    over two denominators, so it is written as the mean of z_i = 0.6 * 100 R_i + 0.1 * 50 L_i
    + 0.3 * 50 C_i * n / n_c (C_i only where consistency applies), whose mean is exactly lenient."""
    from lmms_plugins.utils.stderr import mean_se

    rows = _rows(samples)
    n = len(rows)
    n_c = sum(1 for r in rows if not math.isnan(r[1]))
    if name == "strict":
        return mean_se([100.0 * r[3] for r in rows])
    if name == "reasoning":
        return mean_se([100.0 * r[0] for r in rows])
    if name == "readability":
        return mean_se([50.0 * r[2] for r in rows])
    if name == "consistency":
        return mean_se([50.0 * r[1] for r in rows if not math.isnan(r[1])])
    if name == "lenient":
        if not n_c:
            return None
        w_r, w_c, w_l = WEIGHTS
        return mean_se([w_r * 100.0 * r[0] + w_l * 50.0 * r[2] + (0.0 if math.isnan(r[1]) else w_c * 50.0 * r[1] * n / n_c)
                        for r in rows])
    raise KeyError(f"unknown GRADE score {name!r}")


def breakdown_lines(samples: Iterable[SampleScore]) -> list[str]:
    """Short readable lines: each domain and sub-task with its size, strict and lenient score."""
    samples = sorted(samples, key=lambda s: s.task_id)
    groups: dict[str, dict[str, list[SampleScore]]] = {"domain": {}, "sub_task": {}}
    for s in samples:
        groups["domain"].setdefault(s.domain, []).append(s)
        groups["sub_task"].setdefault(s.sub_task or "(none)", []).append(s)
    lines = []
    for kind, by in groups.items():
        for key, members in sorted(by.items()):
            g = score_group(members, n_resamples=0)
            lenient_txt = "n/a" if g.lenient is None else f"{g.lenient:.1f}"
            lines.append(f"{kind} {key}: n {g.n}, strict {g.strict:.1f}, lenient {lenient_txt}")
    return lines
