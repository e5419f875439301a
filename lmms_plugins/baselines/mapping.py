"""Which published number a metric of an lmms-eval results file compares with.

lmms-eval names a value ``results[task]["<metric>,<filter>"]``; the published tables name it by
benchmark, setting and metric. :func:`map_metric` turns the first into the second, with the unit
of both sides, the direction (higher better or not) and what differs in protocol. Names that do
not exist yet (e.g. ABACUS metrics while its task is being written) are matched tolerantly
(case, an ``abacus_`` prefix, long names such as ``count_fidelity``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: benchmark -> unit the comparison is shown in (that of its published tables).
DISPLAY_UNIT = {"dod": "percent", "grade": "percent", "abacus": "fraction", "cwi": "percent"}

#: benchmark -> what this package does differently from the published protocol (shown with every table).
PROTOCOL_NOTES = {
    "dod": (
        "refusal: this package's judge-free rule detector by default (LMMS_PLUGINS_DOD_REFUSAL=judge "
        "uses the configured judge); the paper uses a Kimi-K3 judge. E: maze edits verified by program, "
        "real-world edits by the configured editing judge or left pending; the paper judges every image "
        "with Kimi-K3."
    ),
    "abacus": (
        "scene consistency uses OpenCV DIS optical flow (RAFT optional) with this package's flow term; "
        "detection by the configured backend (official: SAM 3 + RF-DETR/Co-DETR consensus, super-resolved "
        "VLM check on rare crops)."
    ),
    "grade": (
        "this package's own judge prompts (the official ones are not copied) and whatever judge the run "
        "was configured with; the paper uses gemini-3-flash-preview with rubric questions from GPT-5."
    ),
    "cwi": "scored by the card's per-task rules; the card publishes no model numbers.",
}


@dataclass(frozen=True)
class MetricMap:
    benchmark: str
    community_metric: str  # the metric name of the baselines CSV (or this package's own name)
    label: str  # shown in tables
    result_unit: str  # unit of the value lmms-eval writes: "fraction" or "percent"
    higher_is_better: bool = True
    note: str = ""  # what to know when comparing this one metric
    headline: bool = True  # shown in the printed tables (all metrics go to the CSV)
    ci_name: str = ""  # key of a bootstrap interval the task writes in a breakdown dict (``overall.ci95.<ci_name>``)
    binary: bool = False  # a rate of 0/1 outcomes (its interval: Wilson)

    @property
    def display_unit(self) -> str:
        return DISPLAY_UNIT.get(self.benchmark, self.result_unit)

    def to_display(self, value: float | None) -> float | None:
        """A value in the result's unit -> the display unit."""
        if value is None:
            return None
        factor = {"fraction": 1.0, "percent": 100.0}
        return value * factor[self.display_unit] / factor[self.result_unit]


_D_NOTE = "published D: the specs do not say whether strict (no image) or lenient; compare both"
_DOD = {
    "E": MetricMap("dod", "E", "E (editing success)", "fraction", binary=True),
    "D_strict": MetricMap("dod", "D", "D strict (refusal, no image)", "fraction", note=_D_NOTE, binary=True),
    "D_lenient": MetricMap("dod", "D", "D lenient (refusal, image allowed)", "fraction", note=_D_NOTE, binary=True),
    "D_f": MetricMap("dod", "false_refusal", "false refusal", "fraction", higher_is_better=False, binary=True),
    "pair_success": MetricMap("dod", "pair_success", "pair success", "fraction", binary=True),
    "pair_behaviour": MetricMap("dod", "pair_behaviour", "pair behaviour", "fraction", binary=True),
}
_GRADE = {
    "grade_strict": MetricMap("grade", "strict", "strict accuracy", "percent", ci_name="strict", binary=True),
    "grade_lenient": MetricMap("grade", "lenient", "lenient score", "percent", ci_name="lenient"),
    "grade_reasoning": MetricMap("grade", "R", "R (discipline reasoning)", "percent", ci_name="reasoning"),
    "grade_consistency": MetricMap("grade", "C", "C (visual consistency)", "percent", ci_name="consistency"),
    "grade_readability": MetricMap("grade", "L", "L (logical readability)", "percent", ci_name="readability"),
}
_ABACUS_ALIASES = {
    "CF": ("cf", "count_fidelity"),
    "SC": ("sc", "scene_consistency"),
    "OC": ("oc", "conservation", "category_conservation", "original_category_conservation"),
    "Score": ("score", "abacus_score"),
}
_ABACUS_LABELS = {"CF": "CF (count fidelity)", "SC": "SC (scene consistency)", "OC": "OC (conservation)", "Score": "Score = CF·SC·OC"}
_CWI = {"accuracy": MetricMap("cwi", "accuracy", "accuracy", "fraction", binary=True),
        # unparsable: no <answer> span, or one whose content does not have the rule's shape
        "extraction_failure_rate": MetricMap("cwi", "extraction_failure_rate", "answer unparsable (no span or wrong shape)",
                                             "fraction", higher_is_better=False, binary=True),
        # the request failed on the model side (a wrapper's failure marker, an empty output); in the
        # CSV and the report, not in the printed tables (lmms-eval warns about failures at the end)
        "generation_failure_rate": MetricMap("cwi", "generation_failure_rate", "generation failed (no model output)",
                                             "fraction", higher_is_better=False, headline=False, binary=True)}

ABACUS_TASK = _ABACUS_TASK = re.compile(r"^abacus(?:_(add|remove|change))?(?:_(easy|medium|hard))?$")


def benchmark_of(task: str) -> str | None:
    for bench in ("dod", "abacus", "grade", "cwi"):
        if task == bench or task.startswith(bench + "_"):
            return bench
    return None


def settings_of(task: str) -> tuple[str, ...]:
    """The published settings a task's numbers compare with (most specific first)."""
    bench = benchmark_of(task)
    if bench == "dod":
        for s in ("no_hint", "decline_hint"):
            if task.endswith(s):
                return (s, "unstated")
        return ()
    if bench == "grade":
        return ("explicit",) if "explicit" in task else ("implicit",)
    if bench == "abacus":
        m = _ABACUS_TASK.match(task)
        if not m:
            return ()
        op, tier = m.group(1), m.group(2)
        if op is None and tier is None:
            return ("all",)
        return (f"{op or 'all'}/{tier or 'all'}",)
    if bench == "cwi":
        return ("all",)
    return ()


def map_metric(task: str, metric: str) -> MetricMap | None:
    """The mapping of one ``<metric>`` of ``task`` (filter suffix already removed), or None."""
    bench = benchmark_of(task)
    if bench == "dod":
        return _DOD.get(metric)
    if bench == "grade":
        return _GRADE.get(metric)
    if bench == "abacus":
        name = metric.lower()
        name = name[len("abacus_"):] if name.startswith("abacus_") and name != "abacus_score" else name
        for community, aliases in _ABACUS_ALIASES.items():
            if name in aliases:
                return MetricMap("abacus", community, _ABACUS_LABELS[community], "fraction", ci_name=community.lower())
        if name in ("exact_count", "edit_score"):
            label = "exact count rate" if name == "exact_count" else "mean per-edit score"
            return MetricMap("abacus", name, label, "fraction", headline=name == "exact_count", ci_name=name,
                             binary=name == "exact_count")
        return None
    if bench == "cwi":
        if metric in _CWI:
            return _CWI[metric]
        if metric.startswith("accuracy_"):
            return MetricMap("cwi", metric, metric.replace("_", " "), "fraction", headline=False, binary=True)
        return None
    return None
