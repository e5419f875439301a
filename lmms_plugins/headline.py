"""The answer first: one row per benchmark and task of a run, for the top of ``lmms-plugins report``.

Each row holds the benchmark's primary metrics (its descriptor's ``primary_metrics``: CwI accuracy,
ABACUS Score, GRADE strict accuracy, DoD E and D strict), its 95 % interval by the comparison's one rule
(:func:`lmms_plugins.compare.stats.interval_of`), the samples it stands on, the samples' statuses,
and the published models just above and below it (:mod:`lmms_plugins.baselines`). A group row says
that it is one and how many tasks it pools.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from dataclasses import dataclass, field

from lmms_plugins.baselines import lookup
from lmms_plugins.baselines.mapping import MetricMap, benchmark_of, map_metric, settings_of
from lmms_plugins.runs import Run, metric_count
from lmms_plugins.utils.benchmarks import all_benchmarks, find, names

FOLD_TASKS = 12  # a benchmark with more task rows shows its groups, the tasks folded below
ESC = html.escape


@dataclass
class Row:
    bench: str
    task: str
    metric: str
    label: str
    value: float | None  # display unit; None: not known
    unit: str  # "%" or ""
    ci: tuple[float, float] | None
    ci_method: str
    n: int | None
    statuses: Counter
    neighbours: str
    group_of: int = 0  # tasks a group pools (0: a task)
    why_unknown: str = ""
    outcomes: Counter = field(default_factory=Counter)


def subtasks(run: Run, task: str) -> list[str]:
    """The tasks a group pools, down to the tasks with samples."""
    from lmms_plugins.runs import leaves_of

    return leaves_of(run.groups, task)


def _fmt(v: float | None, unit: str) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    return f"{v:.1f}" if unit == "%" else f"{v:.3f}"


def neighbours(bench: str, task: str, mm: MetricMap, value: float | None) -> str:
    """'between GPT-Image-1 0.26 and Qwen-Image-Edit 0.16' (the published models nearest above and
    below), with a published ceiling where there is one."""
    settings = settings_of(task)
    rows = lookup(bench, mm.community_metric, settings) if settings else []
    unit = "%" if mm.display_unit == "percent" else ""
    show = lambda r: r.value / r.scale * (100.0 if unit else 1.0)  # noqa: E731
    scored = sorted((r for r in rows if r.kind == "score"), key=show, reverse=mm.higher_is_better)
    ceilings = [r for r in rows if r.kind == "upper_bound"]
    if not scored and not ceilings:
        return "no published numbers"
    parts = []
    if scored and value is not None:
        better = [r for r in scored if (show(r) > value if mm.higher_is_better else show(r) < value)]
        worse = [r for r in scored if r not in better]
        if better and worse:
            parts.append(f"below {better[-1].model} {_fmt(show(better[-1]), unit)}, above {worse[0].model} {_fmt(show(worse[0]), unit)}")
        elif better:
            parts.append(f"below all {len(scored)} published (lowest: {better[-1].model} {_fmt(show(better[-1]), unit)})")
        else:
            parts.append(f"above all {len(scored)} published (best: {worse[0].model} {_fmt(show(worse[0]), unit)})")
    elif scored:
        parts.append(f"{len(scored)} published (best: {scored[0].model} {_fmt(show(scored[0]), unit)})")
    for c in ceilings:
        parts.append(f"bound stated for {c.model}: {_fmt(show(c), unit)}")
    return "; ".join(parts)


def _statuses(run: Run, tasks: list[str], judge) -> tuple[Counter, Counter]:
    statuses, outcomes = Counter(), Counter()
    for t in tasks:
        tr = run.tasks.get(t)
        for line in (tr.samples or []) if tr else []:
            status, outcome = judge(t, line)
            statuses[status] += 1
            outcomes[outcome] += 1
    return statuses, outcomes


def rows_of(run: Run, judge) -> list[Row]:
    """The headline rows of a run, benchmark by benchmark, a group before its tasks. ``judge(task, line)``
    gives a sample's (status, verdict), as the gallery shows them."""
    from lmms_plugins.compare.build import task_values
    from lmms_plugins.compare.stats import interval_of

    out = []
    order = names()
    for task in sorted(run.tasks, key=lambda t: (order.index(benchmark_of(t)) if benchmark_of(t) in order else 99, t)):
        bench = benchmark_of(task)
        if bench is None:
            continue
        tr = run.tasks[task]
        values = task_values(task, tr)
        members = subtasks(run, task)
        statuses, outcomes = _statuses(run, members or [task], judge)
        for metric in find(bench).primary_metrics:
            mm = map_metric(task, metric)
            if mm is None or (metric not in values and metric not in tr.values):
                continue
            unit = "%" if mm.display_unit == "percent" else ""
            raw = values.get(metric)
            why = ""
            if raw is None or not math.isfinite(raw):
                value, why = None, "not known: no sample the metric applies to" if raw is not None else "not a number"
            else:
                value = mm.to_display(raw)
            iv = interval_of(tr, metric, mm) if value is not None else None
            ci = (mm.to_display(iv.lo), mm.to_display(iv.hi)) if iv else None
            n = iv.n if iv and iv.n else metric_count(tr, metric)
            out.append(Row(bench, task, metric, mm.label, value, unit, ci, iv.method if iv else "", n, statuses,
                           neighbours(bench, task, mm, value), len(members), why, outcomes))
    return out


def _row_html(r: Row) -> str:
    ci = f"[{_fmt(r.ci[0], r.unit)}, {_fmt(r.ci[1], r.unit)}]" if r.ci else "–"
    value = f"<b>{_fmt(r.value, r.unit)}{' %' if r.unit and r.value is not None else ''}</b>" if r.value is not None else \
        f'<span class="none">{ESC(r.why_unknown)}</span>'
    what = f' <span class="grp">group of {r.group_of} tasks</span>' if r.group_of else ""
    st = " · ".join(f"{n} {ESC(s)}" for s, n in sorted(r.statuses.items(), key=lambda kv: (kv[0] != "ok", kv[0])))
    if not st:
        st = '<span class="none">no samples file (run with --log_samples)</span>' if not r.group_of else '<span class="none">no samples</span>'
    else:
        order = ("pass", "partial", "fail", "pending", "problem")
        st += ' <span class="verdicts">(' + ", ".join(f"{r.outcomes[o]} {o}" for o in order if r.outcomes.get(o)) + ")</span>"
    return (f'<tr class="{"group" if r.group_of else "task"}"><td>{ESC(r.task)}{what}</td><td>{ESC(r.label)}</td>'
            f'<td class="num">{value}</td><td class="num" title="{ESC(r.ci_method)}">{ci}</td>'
            f'<td class="num">{"" if r.n is None else r.n}</td><td>{st}</td><td>{ESC(r.neighbours)}</td></tr>')


HEAD = ("<tr><th>task</th><th>metric</th><th>value</th><th>95% interval</th><th>n</th><th>samples by status</th>"
        "<th>published neighbours</th></tr>")


def render_headline(run: Run, judge) -> str:
    """The page's opening section: per benchmark, a table of its headline rows."""
    rows = rows_of(run, judge)
    if not rows:
        return '<p class="none">no metric of this package\'s benchmarks in these results</p>'
    blocks = []
    for bench in all_benchmarks():
        mine = [r for r in rows if r.bench == bench.name]
        if not mine:
            continue
        tasks = {r.task for r in mine if not r.group_of}
        methods = sorted({r.ci_method.split(" (")[0] for r in mine if r.ci_method})
        if len(tasks) > FOLD_TASKS and any(r.group_of for r in mine):
            top = "".join(_row_html(r) for r in mine if r.group_of)
            rest = "".join(_row_html(r) for r in mine if not r.group_of)
            body = (f"<table class=headline>{HEAD}{top}</table><details class=tasks><summary>the {len(tasks)} tasks "
                    f"(click to show)</summary><table class=headline>{HEAD}{rest}</table></details>")
        else:
            body = f"<table class=headline>{HEAD}{''.join(_row_html(r) for r in mine)}</table>"
        blocks.append(f'<h3>{bench.title}</h3>{body}<p class="legend">95% intervals: {ESC(", ".join(methods) or "none")} '
                      f'(hover a cell for its method and n; – : none, for a continuous metric over fewer than 10 samples or '
                      f'samples all equal; docs/COMPARE.md)</p>')
    return "".join(blocks)
