"""Charts of a comparison: one PNG per benchmark (matplotlib, imported only when drawing)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from lmms_plugins.compare.build import Block, Comparison, community_value
from lmms_plugins.compare.render import block_rows, runs_in
from lmms_plugins.utils.benchmarks import find

YOURS = ["#d9480f", "#1971c2", "#2f9e44", "#9c36b5"]
COMMUNITY = "#adb5bd"


def write_chart(cmp: Comparison, bench: str, path: Path) -> Path | None:
    """One PNG per benchmark: a horizontal bar panel per metric, your runs coloured, intervals drawn."""
    fig = chart_figure(cmp, bench)
    if fig is None:
        return None
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def chart_figure(cmp: Comparison, bench: str):
    """The matplotlib figure of ``write_chart`` (None when the benchmark has no headline metric)."""
    blks = [b for b in cmp.blocks if b.benchmark == bench and b.mm.headline]
    if not blks:
        return None
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    colours = {r.label: YOURS[i % len(YOURS)] for i, r in enumerate(cmp.runs)}
    if not any(b.community for b in blks):
        return _runs_only_chart(cmp, bench, blks, colours, plt)
    blks = [b for b in blks if b.community]
    ncols = min(3, len(blks))
    nrows = math.ceil(len(blks) / ncols)
    # a row's height follows its tallest panel, counting the lines of wrapped names
    heights = [max(sum(len(_wrap(r["who"])) for r in block_rows(b)) for b in blks[i * ncols:(i + 1) * ncols])
               for i in range(nrows)]
    # constrained layout keeps the suptitle, tick labels and panel titles apart (tight_layout let
    # the title overlap the top panels)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.6 * ncols, 0.9 + sum(0.22 * h + 0.9 for h in heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights}, layout="constrained")
    for ax in axes.flat[len(blks):]:
        ax.axis("off")
    for ax, blk in zip(axes.flat, blks):
        rows = [r for r in block_rows(blk) if r["kind"] != "upper_bound"][::-1]
        ys = list(range(len(rows)))
        names, vals, cols = [], [], []
        for y, r in zip(ys, rows):
            yours = r["kind"] == "yours"
            run = r["who"][2:] if yours else None
            names.append("\n".join(_wrap(r["who"])))
            vals.append(r["value"])
            cols.append(colours.get(run, YOURS[0]) if yours else COMMUNITY)
            e = next((e for e in blk.entries if e.run == run), None) if yours else None
            if e is not None and e.ci:  # intervals only where the run carries one
                ax.errorbar([r["value"]], [y], xerr=[[max(0.0, r["value"] - e.ci[0])], [max(0.0, e.ci[1] - r["value"])]],
                            fmt="none", ecolor="black", elinewidth=1, capsize=3, zorder=3)
        ax.barh(ys, vals, color=cols)
        ax.set_yticks(ys, names, fontsize=8)
        for tick, r in zip(ax.get_yticklabels(), rows):
            if r["kind"] == "yours":
                tick.set_fontweight("bold")
        for c in blk.community:
            if c.kind == "upper_bound":
                ax.axvline(community_value(c, blk.mm), color="black", linestyle="--", linewidth=1, label=f"bound stated for {c.model}")
                ax.legend(fontsize=7, loc="lower right")
        ax.set_xlim(0, 100 if blk.mm.display_unit == "percent" else 1.0)
        ax.set_title("\n".join(textwrap.wrap(f"{blk.task} · {blk.mm.label}", 48)), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle("\n".join(textwrap.wrap(f"{find(bench).title}: your runs (coloured) and published results (grey); "
                                         "bars show 95% CIs where known", int(16 * 5.6 * ncols / 1.4))), fontsize=10)
    return fig


def _wrap(name: str, width: int = 26) -> list[str]:
    """A chart label on at most three lines, whole words where possible (names are not cut short)."""
    lines = textwrap.wrap(name, width, break_long_words=True) or [""]
    return lines if len(lines) <= 3 else lines[:2] + [textwrap.shorten(" ".join(lines[2:]), width, placeholder="…")]


def _runs_only_chart(cmp: Comparison, bench: str, blks: list[Block], colours: dict, plt):
    """No published numbers (CwI): one panel, a row per task, a bar per run, for each task's first
    higher-is-better metric (accuracy)."""
    chosen: dict[str, Block] = {}
    for b in blks:
        if b.mm.higher_is_better and b.task not in chosen:
            chosen[b.task] = b
    tasks = list(chosen)[::-1]
    runs = runs_in(cmp, list(chosen.values()))
    height = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.28 * len(tasks) * max(1, len(runs))), layout="constrained")
    for j, run in enumerate(runs):
        ys, vals, whiskers = [], [], []
        for i, task in enumerate(tasks):
            e = next((e for e in chosen[task].entries if e.run == run), None)
            if e is None:
                continue
            ys.append(i + (j - (len(runs) - 1) / 2) * height)
            vals.append(e.value)
            if e.ci:  # a whisker only where the run has an interval (the tables' rule)
                whiskers.append((ys[-1], e.value, max(0.0, e.value - e.ci[0]), max(0.0, e.ci[1] - e.value)))
        ax.barh(ys, vals, height=height, color=colours[run], label=run)
        if whiskers:
            y, v, lo, hi = zip(*whiskers)
            ax.errorbar(v, y, xerr=[lo, hi], fmt="none", ecolor="black", elinewidth=1, capsize=2)
    ax.set_yticks(range(len(tasks)), [f"{t} · {chosen[t].mm.label}" for t in tasks], fontsize=8)
    unit = chosen[tasks[0]].mm.display_unit if tasks else "fraction"
    ax.set_xlim(0, 100 if unit == "percent" else 1.0)
    # the legend (full run names) below the panel: inside it, it covered the bars that reach 100 %
    fig.legend(loc="outside lower center", ncols=min(2, max(1, len(runs))), fontsize=8)
    ax.set_title(f"{find(bench).title}: your runs with 95% CIs (no published numbers)", fontsize=10)
    return fig
