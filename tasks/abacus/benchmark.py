"""ABACUS as the shared code sees it (``lmms_plugins.utils.benchmarks``): data, make-data, metrics
as its README names them, its report blocks and what ``compare`` shows for it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lmms_plugins.utils.benchmarks import Benchmark, MetricMap

#: abacus, abacus_<operation>, abacus_<tier>, abacus_<operation>_<tier>
TASK = re.compile(r"^abacus(?:_(add|remove|change))?(?:_(easy|medium|hard))?$")

_ALIASES = {
    "CF": ("cf", "count_fidelity"),
    "SC": ("sc", "scene_consistency"),
    "OC": ("oc", "conservation", "category_conservation", "original_category_conservation"),
    "Score": ("score", "abacus_score"),
}
_LABELS = {"CF": "CF (count fidelity)", "SC": "SC (scene consistency)", "OC": "OC (conservation)", "Score": "Score = CF·SC·OC"}


def metric_map(task: str, metric: str) -> MetricMap | None:
    """Names are matched tolerantly (case, an ``abacus_`` prefix, long names such as ``count_fidelity``)."""
    name = metric.lower()
    name = name[len("abacus_"):] if name.startswith("abacus_") and name != "abacus_score" else name
    for community, aliases in _ALIASES.items():
        if name in aliases:
            return MetricMap("abacus", community, _LABELS[community], "fraction", ci_name=community.lower())
    if name in ("exact_count", "edit_score"):
        label = "exact count rate" if name == "exact_count" else "mean per-edit score"
        return MetricMap("abacus", name, label, "fraction", headline=name == "exact_count", ci_name=name,
                         binary=name == "exact_count")
    return None


def settings(task: str) -> tuple[str, ...]:
    m = TASK.match(task)
    if not m:
        return ()
    op, tier = m.group(1), m.group(2)
    if op is None and tier is None:
        return ("all",)
    return (f"{op or 'all'}/{tier or 'all'}",)


def summary_values(task: str, numbers: Mapping[str, float], values: Mapping[str, Any]) -> dict[str, float]:
    """ABACUS groups report Score (a product of pooled means, not a mean) only in ``abacus_leaderboard``."""
    if any((metric_map(task, m) or MetricMap("", "", "", "")).community_metric == "Score" for m in numbers):
        return {}
    for v in values.values():
        if isinstance(v, dict) and isinstance(v.get("score"), (int, float)) and not isinstance(v.get("score"), bool):
            return {"abacus_score": float(v["score"])}
    return {}


def scored_share(values: Mapping[str, Any]) -> tuple[int, float] | None:
    """(edits scored, coverage) from the leaderboard row: its means and Score stand on the edits
    that came back (failed generations are left out, README "Failed generations")."""
    for v in values.values():
        if isinstance(v, dict) and "score" in v and isinstance(v.get("n"), int) and isinstance(v.get("coverage"), (int, float)):
            return v["n"], float(v["coverage"])
    return None


BENCHMARK = Benchmark(
    name="abacus",
    title="ABACUS",
    hub_id="Aymen-Lassoued/ABACUS_Bench",
    layout="README.md with a `configs:` header (add, remove, change) and <operation>/<tier>-*.parquet "
           "(splits easy, medium, hard); `lmms-plugins make-data abacus --out DIR` writes a synthetic one",
    make_data={"abacus": "lmms_plugins.tasks.abacus.synthetic:main"},
    primary_metrics=("abacus_score",),
    display_unit="fraction",
    protocol_note=(
        "scene consistency uses OpenCV DIS optical flow (RAFT optional) with this package's flow term; "
        "detection by the configured backend (official: SAM 3 + RF-DETR/Co-DETR consensus, super-resolved "
        "VLM check on rare crops)."
    ),
    metric_map=metric_map,
    settings=settings,
    report="lmms_plugins.tasks.abacus.report_blocks:AbacusReport",
    summary_values=summary_values,
    scored_share=scored_share,
    sample_noun="edits",
)
