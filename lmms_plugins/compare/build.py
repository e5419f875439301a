"""Building the comparison: for each task and metric of the runs that maps to a benchmark's
published metric, one :class:`Block` with the published rows and each run's :class:`Entry`
(value, interval, rank, deltas, pending samples), and the paired tests between runs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from lmms_plugins.baselines import Baseline, lookup
from lmms_plugins.baselines.mapping import MetricMap, benchmark_of, map_metric, settings_of
from lmms_plugins.compare.stats import PairedTest, interval_of, paired_test
from lmms_plugins.runs import Run, TaskResult, metric_count, pending_of, task_settings, task_version
from lmms_plugins.utils.benchmarks import find, names, of_task
from lmms_plugins.utils.settings import differences


@dataclass(frozen=True)
class Entry:
    """One value of one run, in display units."""

    run: str
    value: float
    ci: tuple[float, float] | None
    ci_method: str
    n: int | None
    rank: int | None  # among the community rows of the block (1 = best); None: not ranked
    deltas: dict[str, float]  # community model -> this value minus theirs
    pending: tuple[int, int] | None = None  # (pending, total) where the run reports it (DoD)
    unranked: str = ""  # why a value with published rows is not ranked

    def pending_text(self, unit: str, higher_is_better: bool = True) -> str:
        """'pending 900/1050 (85.7 %), ceiling 14.3' (the best value the run could show once the
        pending samples, kept in the denominator at 0, were decided)."""
        if self.pending is None:
            return "pending not reported"
        p, t = self.pending
        share = p / t if t else 0.0
        best = (t - p) / t if t else 0.0
        bound = fmt_value(100.0 * best if unit == "%" else best, unit)
        if higher_is_better:
            return f"pending {p}/{t} ({100 * share:.1f} %), ceiling {bound}"
        return f"pending {p}/{t} ({100 * share:.1f} %), up to {fmt_value(100.0 * share if unit == '%' else share, unit)} more once decided"


@dataclass
class Block:
    benchmark: str
    task: str
    metric: str  # the task's metric name
    mm: MetricMap
    settings: tuple[str, ...]
    community: list[Baseline]
    entries: list[Entry]
    notes: list[str] = field(default_factory=list)

    @property
    def unit_suffix(self) -> str:
        return "%" if self.mm.display_unit == "percent" else ""


@dataclass
class Comparison:
    runs: list[Run]
    blocks: list[Block]
    paired: list[PairedTest]
    protocol: dict[str, str]
    files: dict[str, Path] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        from lmms_plugins.compare.render import render_text  # render imports this module

        return render_text(self)

    @property
    def summary(self) -> str:
        from lmms_plugins.compare.render import render_summary

        return render_summary(self)

    @property
    def markdown(self) -> str:
        from lmms_plugins.compare.render import render_markdown

        return render_markdown(self)


def fmt_value(v: float | None, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.1f}" if unit == "%" else f"{v:.3f}"


def _rank(value: float, published: list[float], mm: MetricMap) -> int:
    """1 + the number of published values strictly better than ``value``."""
    return 1 + sum(1 for v in published if (v > value if mm.higher_is_better else v < value))


def community_value(r: Baseline, mm: MetricMap) -> float:
    """A published value in the block's display unit."""
    return r.value / r.scale * (100.0 if mm.display_unit == "percent" else 1.0)


# metadata keys that are not settings: the version has its own warning; the judge's concurrency changes speed only
NOT_SETTINGS = ("version", "judge_concurrency")
PENDING_RANK_LIMIT = 0.05  # a value with more of its samples pending is shown but not ranked


def _metric_n(tr: TaskResult, metric: str) -> int | None:
    """How many samples a metric is computed over (DoD's E counts only feasible requests, a
    per-tier metric its tier's items)."""
    return metric_count(tr, metric)


def task_values(task: str, tr: TaskResult) -> dict[str, float]:
    """A task's numeric metrics, plus a headline number a benchmark keeps only inside its summary dict
    (its descriptor's ``summary_values``: ABACUS groups report Score only in ``abacus_leaderboard``)."""
    out = {m: float(v) for m, v in tr.values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    # null: a metric over no sample, as a task may write it (NaN in lmms-eval's JSON is the same): not known
    out.update({m: math.nan for m, v in tr.values.items() if v is None})
    bench = of_task(task)
    if bench is not None and bench.summary_values is not None:
        out.update(bench.summary_values(task, out, tr.values))
    return out


def build(runs: list[Run]) -> Comparison:
    blocks: list[Block] = []
    warnings: list[str] = []
    protocol: dict[str, str] = {}
    order = names()
    tasks = sorted({t for r in runs for t in r.tasks},
                   key=lambda t: (order.index(benchmark_of(t)) if benchmark_of(t) in order else 99, t))
    for task in tasks:
        bench = benchmark_of(task)
        desc = find(bench)
        if bench is None:
            warnings.append(f"{task}: not a task of this package; skipped")
            continue
        settings = settings_of(task)
        versions = {r.label: task_version(r.tasks[task]) for r in runs if task in r.tasks}
        if len({v for v in versions.values() if v is not None}) > 1:  # the benchmark README's changelog says why
            warnings.append(f"{task}: the runs used different task versions ("
                            + ", ".join(f"{label} {v or '?'}" for label, v in versions.items())
                            + "); the same outputs can score differently across versions (Changelog in the benchmark's README)")
        present = {r.label: task_settings(r.tasks[task]) for r in runs if task in r.tasks}
        changed = differences(present, skip=NOT_SETTINGS) if len(present) > 1 else []
        if changed:  # a setting (refusal mode, detector, judge...) can change the score of the same outputs
            warnings.append(f"{task}: the runs used different settings ({'; '.join(changed)}); "
                            "the same outputs can score differently (the settings in the benchmark's README)")
        metrics = []
        for r in runs:
            tr = r.tasks.get(task)
            for m in (task_values(task, tr) if tr else {}):
                if m not in metrics:
                    metrics.append(m)
        for metric in metrics:
            mm = map_metric(task, metric)
            if mm is None:
                continue
            protocol[bench] = desc.protocol_note
            community = lookup(bench, mm.community_metric, settings) if settings else []
            scored = [c for c in community if c.kind == "score"]
            entries, notes = [], []
            for r in runs:
                tr = r.tasks.get(task)
                raw = task_values(task, tr).get(metric) if tr else None
                if raw is None:
                    continue
                if math.isnan(raw):
                    notes.append(f"{r.label}: no value (NaN: no sample the metric applies to)")
                    continue
                if mm.result_unit == "fraction" and raw > 1.0 + 1e-9:
                    notes.append(f"{r.label}: value {raw} is above 1 for a 0-1 metric; shown as it is")
                value = mm.to_display(raw)
                iv = interval_of(tr, metric, mm)
                ci = (mm.to_display(iv.lo), mm.to_display(iv.hi)) if iv else None
                deltas = {c.model: value - community_value(c, mm) for c in community}
                rank = _rank(value, [community_value(c, mm) for c in scored], mm) if scored else None
                n = iv.n if iv and iv.n else _metric_n(tr, metric)
                share = desc.scored_share(tr.values) if desc.scored_share else None
                if share is not None:
                    n = share[0]
                    if share[1] < 1.0:
                        notes.append(f"{r.label}: stands on the {n} {desc.sample_noun} that came back (coverage "
                                     f"{100 * share[1]:.1f} %); failed generations are not in it")
                pending = pending_of(tr, metric) if desc.reports_pending else None
                unranked = ""
                if pending and pending[1] and pending[0] / pending[1] > PENDING_RANK_LIMIT and rank is not None:
                    rank = None  # a rate whose undecided samples count as failures is not a result to rank
                    unranked = (f"{r.label}: not ranked: {pending[0]} of {pending[1]} samples are pending "
                                f"({100 * pending[0] / pending[1]:.1f} % > {100 * PENDING_RANK_LIMIT:.0f} %)")
                    notes.append(unranked)
                entries.append(Entry(r.label, value, ci, iv.method if iv else "", n, rank, deltas, pending, unranked))
                ns = {c.n for c in scored if c.n}
                if scored and n and ns and n < min(ns):
                    notes.append(f"{r.label}: {n} samples against {min(ns)} in the paper: a subset, the gap may be noise or selection")
            if not entries and not notes:  # a run whose value is NaN keeps its block, to say so
                continue
            if any(c.setting == "unstated" for c in community):
                notes.append("rows marked (setting?) do not state their prompt setting")
            if mm.note:
                notes.append(mm.note)
            if desc.run_protocol is not None:  # what the runs recorded of their protocol (DoD: refusal text)
                note = desc.run_protocol({r.label: r.tasks[task].values for r in runs if task in r.tasks})
                if note:
                    protocol[bench] = note
            blocks.append(Block(bench, task, metric, mm, settings, community, entries, notes))
    paired: list[PairedTest] = []
    for b in runs[1:]:
        for blk in blocks:
            if not blk.mm.headline:
                continue
            if blk.task in runs[0].tasks and blk.task in b.tasks:
                paired.append(paired_test(blk.task, blk.metric, blk.mm, runs[0], b))
    return Comparison(runs=runs, blocks=blocks, paired=paired, protocol=protocol, warnings=warnings)
