"""GRADE as the shared code sees it (``lmms_plugins.utils.benchmarks``): data, metrics as the paper
names them, its report blocks."""

from __future__ import annotations

from lmms_plugins.utils.benchmarks import Benchmark, MetricMap

METRICS = {
    "grade_strict": MetricMap("grade", "strict", "strict accuracy", "percent", ci_name="strict", binary=True),
    "grade_lenient": MetricMap("grade", "lenient", "lenient score", "percent", ci_name="lenient"),
    "grade_reasoning": MetricMap("grade", "R", "R (discipline reasoning)", "percent", ci_name="reasoning"),
    "grade_consistency": MetricMap("grade", "C", "C (visual consistency)", "percent", ci_name="consistency"),
    "grade_readability": MetricMap("grade", "L", "L (logical readability)", "percent", ci_name="readability"),
}


def metric_map(task: str, metric: str) -> MetricMap | None:
    return METRICS.get(metric)


def settings(task: str) -> tuple[str, ...]:
    return ("explicit",) if "explicit" in task else ("implicit",)


BENCHMARK = Benchmark(
    name="grade",
    title="GRADE",
    hub_id="VisionXLab/GRADE",
    layout="data.json (a JSON list of records with image_path, gt, text, task_id, consistency, "
           "sub_task, questions) and the image files at the paths it names, relative to the folder",
    primary_metrics=("grade_strict",),
    display_unit="percent",
    protocol_note=(
        "this package's own judge prompts (the official ones are not copied) and whatever judge the run "
        "was configured with; the paper uses gemini-3-flash-preview with rubric questions from GPT-5."
    ),
    metric_map=metric_map,
    settings=settings,
    report="lmms_plugins.tasks.grade.report_blocks:GradeReport",
)
