"""Draw-or-Decline as the shared code sees it (``lmms_plugins.utils.benchmarks``): data, make-data,
metrics as the paper names them, its report blocks and what ``compare`` shows for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lmms_plugins.utils.benchmarks import Benchmark, MetricMap

_D_NOTE = "published D: the specs do not say whether strict (no image) or lenient; compare both"
METRICS = {
    "E": MetricMap("dod", "E", "E (editing success)", "fraction", binary=True),
    "D_strict": MetricMap("dod", "D", "D strict (refusal, no image)", "fraction", note=_D_NOTE, binary=True),
    "D_lenient": MetricMap("dod", "D", "D lenient (refusal, image allowed)", "fraction", note=_D_NOTE, binary=True),
    "D_f": MetricMap("dod", "false_refusal", "false refusal", "fraction", higher_is_better=False, binary=True),
    "pair_success": MetricMap("dod", "pair_success", "pair success", "fraction", binary=True),
    "pair_behaviour": MetricMap("dod", "pair_behaviour", "pair behaviour", "fraction", binary=True),
}

PROTOCOL_NOTE = (
    "refusal: this package's judge-free rule detector by default (the setting refusal_mode: judge "
    "uses the configured judge); the paper uses a Kimi-K3 judge. E: maze edits verified by program, "
    "real-world edits by the configured editing judge or left pending; the paper judges every image "
    "with Kimi-K3."
)


def metric_map(task: str, metric: str) -> MetricMap | None:
    return METRICS.get(metric)


def settings(task: str) -> tuple[str, ...]:
    for s in ("no_hint", "decline_hint"):
        if task.endswith(s):
            return (s, "unstated")
    return ()


def run_protocol(values_by_run: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The protocol note naming the text each run's refusals were detected on, where the runs say."""
    modes = {}
    for label, values in values_by_run.items():
        for v in values.values():
            if isinstance(v, dict) and isinstance(v.get("refusal_mode"), str):
                # which text decided (README, "Which text decides a refusal"); runs made before the
                # key existed read the whole output
                modes[label] = v["refusal_mode"] + {
                    "reasoning": " on the reasoning (official)",
                    "all": " on the reasoning and final answer"}.get(v.get("refusal_text"), "")
    if not modes:
        return None
    return PROTOCOL_NOTE + " Refusal detection in these runs: " + ", ".join(
        f"{label}: {mode}" for label, mode in modes.items()) + "."


BENCHMARK = Benchmark(
    name="dod",
    title="Draw-or-Decline",
    hub_id="visual-abstention/Draw-or-Decline",
    layout="instruction.jsonl, ground_truth_criteria.jsonl and image/ (paths in the JSONL files "
           "are relative to the root); `lmms-plugins make-data dod-maze --out DIR` writes maze pairs",
    make_data={"dod-maze": "lmms_plugins.tasks.dod.maze.generate:main"},
    primary_metrics=("E", "D_strict"),
    display_unit="percent",
    protocol_note=PROTOCOL_NOTE,
    metric_map=metric_map,
    settings=settings,
    report="lmms_plugins.tasks.dod.report_blocks:DodReport",
    reports_pending=True,
    run_protocol=run_protocol,
    counts_row="dod_breakdown",
)
