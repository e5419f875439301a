"""CwI-Bench as the shared code sees it (``lmms_plugins.utils.benchmarks``): data, make-data, its
metrics, its report blocks."""

from __future__ import annotations

from lmms_plugins.utils.benchmarks import Benchmark, MetricMap

METRICS = {
    "accuracy": MetricMap("cwi", "accuracy", "accuracy", "fraction", binary=True),
    # unparsable: no <answer> span, or one whose content does not have the rule's shape
    "extraction_failure_rate": MetricMap("cwi", "extraction_failure_rate", "answer unparsable (no span or wrong shape)",
                                         "fraction", higher_is_better=False, binary=True),
    # the request failed on the model side (a wrapper's failure marker, an empty output); in the
    # CSV and the report, not in the printed tables (lmms-eval warns about failures at the end)
    "generation_failure_rate": MetricMap("cwi", "generation_failure_rate", "generation failed (no model output)",
                                         "fraction", higher_is_better=False, headline=False, binary=True),
}


def metric_map(task: str, metric: str) -> MetricMap | None:
    if metric in METRICS:
        return METRICS[metric]
    if metric.startswith("accuracy_"):
        return MetricMap("cwi", metric, metric.replace("_", " "), "fraction", headline=False, binary=True)
    return None


def settings(task: str) -> tuple[str, ...]:
    return ("all",)


BENCHMARK = Benchmark(
    name="cwi",
    title="CwI-Bench",
    hub_id="ytz009/image_pot_bench",
    layout="README.md with a `configs:` header and <task>/<split>-*.parquet per task "
           "(columns id, image, image_2, prompt, answer, difficulty, meta); "
           "`lmms-plugins make-data cwi --out DIR` writes one",
    make_data={"cwi": "lmms_plugins.tasks.cwi.generate:main"},
    primary_metrics=("accuracy",),
    display_unit="percent",
    protocol_note="scored by the card's per-task rules; the card publishes no model numbers.",
    metric_map=metric_map,
    settings=settings,
    report="lmms_plugins.tasks.cwi.report_blocks:CwiReport",
)
