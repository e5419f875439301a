"""Rendering a comparison: the printed text, Markdown and the long-format CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from lmms_plugins.baselines.mapping import benchmark_of, map_metric
from lmms_plugins.compare.build import Block, Comparison, Entry, community_value, fmt_value
from lmms_plugins.utils import benchmarks
from lmms_plugins.utils.benchmarks import find


def _ci_text(e: Entry, unit: str) -> str:
    return f"[{fmt_value(e.ci[0], unit)}, {fmt_value(e.ci[1], unit)}]" if e.ci else ""


def block_rows(blk: Block) -> list[dict]:
    """Rows of one block, best first: community rows and the runs' entries."""
    unit = blk.unit_suffix
    rows = []
    for c in blk.community:
        v = community_value(c, blk.mm)
        tag = " (ceiling)" if c.kind == "upper_bound" else (" (setting?)" if c.setting == "unstated" else "")
        rows.append(dict(kind=c.kind, who=c.model + tag, value=v, ci="", source=c.source, n=c.n,
                         deltas={e.run: e.value - v for e in blk.entries}))
    for e in blk.entries:
        source = f"your run; CI: {e.ci_method}" if e.ci_method else "your run"
        if _reports_pending(blk.benchmark):
            source += "; " + e.pending_text(unit, blk.mm.higher_is_better)
        rows.append(dict(kind="yours", who="▶ " + e.run, value=e.value, ci=_ci_text(e, unit),
                         source=source, n=e.n, deltas={}, rank=e.rank))
    sign = -1 if blk.mm.higher_is_better else 1
    rows.sort(key=lambda r: (sign * r["value"], r["kind"] != "yours"))
    return rows


def _title(blk: Block) -> str:
    direction = "higher is better" if blk.mm.higher_is_better else "lower is better"
    setting = f", setting {blk.settings[0]}" if blk.settings else ""
    return f"{blk.task} · {blk.mm.label} ({'%' if blk.unit_suffix else '0-1'}, {direction}{setting})"


def runs_in(cmp: Comparison, blocks: list[Block]) -> list[str]:
    """Labels of the runs with a value in any of ``blocks``, in run order (the columns of a compact table)."""
    have = {e.run for b in blocks for e in b.entries}
    return [r.label for r in cmp.runs if r.label in have]


COLUMN_WIDTH = 22  # a run's column header in the printed tables


def column_names(labels: list[str], width: int = COLUMN_WIDTH) -> dict[str, str]:
    """A unique header of at most ``width`` characters per run: the label itself when every label
    fits, else ``#i`` and the label's start (the 'Runs:' line spells each run out with its #i).
    Cutting labels alone made two runs 'replay (grade_...' read the same."""
    if all(len(label) <= width for label in labels):
        return {label: label for label in labels}
    out = {}
    for i, label in enumerate(labels, 1):
        tag = f"#{i} "
        room = width - len(tag)
        out[label] = tag + (label if len(label) <= room else label[: room - 1] + "…")
    return out


def bound_lines(blk: Block) -> list[str]:
    """What the table says about each stated bound (a ``kind=upper_bound`` row), written from the
    numbers of the table itself: each run above or within it, and the published rows above it."""
    unit, out = blk.unit_suffix, []
    for c in blk.community:
        if c.kind != "upper_bound":
            continue
        bound = community_value(c, blk.mm)
        for e in blk.entries:
            side = "above" if e.value > bound else "within"
            out.append(f"{e.run}: {fmt_value(e.value, unit)} is {side} the bound {fmt_value(bound, unit)} stated for "
                       f"{c.model} ({c.source})")
        over = [r for r in blk.community if r.kind == "score" and community_value(r, blk.mm) > bound]
        if over:
            out.append("published rows above that bound: " + ", ".join(
                f"{r.model} {fmt_value(community_value(r, blk.mm), unit)}" for r in over)
                + "; the sources do not say why")
    return out


def _reports_pending(bench: str) -> bool:
    known = find(bench)
    return bool(known and known.reports_pending)


def _primary(bench: str) -> tuple[str, ...]:
    """The benchmark's primary metrics, shown in the summary (as in the report's headline)."""
    known = find(bench)
    return known.primary_metrics if known else ()


def summary_blocks(cmp: Comparison) -> list[Block]:
    """The blocks of the summary: per benchmark, the primary metrics of its top-level tasks (a group
    that no other group holds, or a task outside every group)."""
    members = {t for r in cmp.runs for g, ts in r.groups.items() for t in ts if t != g}
    return [b for b in cmp.blocks if b.metric in _primary(b.benchmark) and b.task not in members]


def render_summary(cmp: Comparison) -> str:
    """The answer in about 20 lines: per benchmark, each run's primary metrics with interval, n and
    rank among the published rows; the paired tests of those metrics; where the full tables are."""
    out = io.StringIO()
    w = out.write
    w("Runs: " + "; ".join(f"#{i} {r.label} ({r.path})" for i, r in enumerate(cmp.runs, 1)) + "\n")
    blocks = summary_blocks(cmp)
    keys = {(b.task, b.metric) for b in blocks}
    for bench in benchmarks.names():
        mine = [b for b in blocks if b.benchmark == bench]
        if not mine:
            continue
        w(f"{find(bench).title}:\n")
        for blk in mine:
            unit = blk.unit_suffix
            scored = sorted((community_value(c, blk.mm) for c in blk.community if c.kind == "score"))
            pub = (f"published {fmt_value(scored[0], unit)}–{fmt_value(scored[-1], unit)} ({len(scored)} models)"
                   if len(scored) > 1 else f"published {fmt_value(scored[0], unit)}" if scored else "no published numbers")
            cells = []
            for e in blk.entries:
                rank = f", rank {e.rank}/{len(scored) + 1}" if e.rank else ""
                cells.append(f"{e.run} {fmt_value(e.value, unit)}{unit and ' %'} {_ci_text(e, unit)} n={e.n}{rank}".replace("  ", " "))
            w(f"  {blk.task} · {blk.mm.label}: " + "; ".join(cells) + f" | {pub}\n")
    tests = [p for p in cmp.paired if (p.task, p.metric) in keys]
    if tests:
        w(f"Paired on shared samples ({tests[0].run_b} − {tests[0].run_a}):\n" if len(cmp.runs) == 2 else "Paired tests:\n")
        for p in tests:
            unit = "%" if map_metric(p.task, p.metric).display_unit == "percent" else ""
            if p.test == "none":
                w(f"  {p.task} · {p.label}: no test ({p.note})\n")
                continue
            who = "" if len(cmp.runs) == 2 else f"{p.run_b} − {p.run_a}: "
            w(f"  {p.task} · {p.label}: {who}Δ {('%+.1f' if unit else '%+.3f') % p.diff} [{fmt_value(p.ci[0], unit)}, "
              f"{fmt_value(p.ci[1], unit)}], {p.test} p = {p.p_value:.3g}, n = {p.n_shared}\n")
    hidden = len(cmp.blocks) - len(blocks)
    where = ", ".join(str(p) for k, p in cmp.files.items() if k in ("markdown", "csv")) or "lmms-plugins compare --full"
    w(f"{hidden} more tables (every task and metric, published rows, notes, per-task tests): {where}"
      + ("; or --full" if cmp.files else "") + "\n")
    for warn in cmp.warnings:
        w(f"warning: {warn}\n")
    return out.getvalue()


def render_text(cmp: Comparison) -> str:
    out = io.StringIO()
    w = out.write
    names = column_names([r.label for r in cmp.runs])
    tagged = any(names[r.label] != r.label for r in cmp.runs)
    w("Runs: " + "; ".join(f"{f'#{i} ' if tagged else ''}{r.label} = {r.path}" for i, r in enumerate(cmp.runs, 1)) + "\n")
    for bench in benchmarks.names():
        blks = [b for b in cmp.blocks if b.benchmark == bench]
        if not blks:
            continue
        w(f"\n=== {find(bench).title} ===\n")
        if cmp.protocol.get(bench):
            w(f"Protocol differences: {cmp.protocol[bench]}\n")
        with_rows = [b for b in blks if b.community]
        for blk in with_rows:
            unit = blk.unit_suffix
            w(f"\n{_title(blk)}\n")
            runs = [e.run for e in blk.entries]
            heads = [f"Δ {names.get(r, r)}" for r in runs]
            rows = block_rows(blk)
            who_w = max([34] + [len(row["who"]) for row in rows])
            w(f"  {'rank':>5}  {'model':<{who_w}} {'value':>7} {'95% CI':<17}" + "".join(f" {h:>{max(9, len(h))}}" for h in heads) + "  source\n")
            n_sc = sum(1 for c in blk.community if c.kind == "score")
            for row in rows:
                rank = f"{row['rank']}/{n_sc + 1}" if row["kind"] == "yours" and row.get("rank") else ""
                deltas = "".join(f" {('%+.1f' if unit else '%+.3f') % row['deltas'][r] if r in row['deltas'] else '':>{max(9, len(h))}}"
                                 for r, h in zip(runs, heads))
                w(f"  {rank:>5}  {row['who']:<{who_w}} {fmt_value(row['value'], unit):>7} {row['ci']:<17}{deltas}  {row['source']}\n")
            for line in bound_lines(blk):
                w(f"  {line}\n")
            for note in dict.fromkeys(blk.notes):
                w(f"  note: {note}\n")
        rest = [b for b in blks if not b.community and b.mm.headline]
        if rest:
            w("\nNo published numbers for these metrics; your runs:\n")
            runs = runs_in(cmp, rest)
            mw = max([26] + [len(b.mm.label) for b in rest])
            w(f"  {'task':<28} {'metric':<{mw}}" + "".join(f" {names.get(r, r):>30}" for r in runs) + "\n")
            for blk in rest:
                unit = blk.unit_suffix
                cells = []
                for r in runs:
                    e = next((e for e in blk.entries if e.run == r), None)
                    cells.append(f"{fmt_value(e.value, unit)} {_ci_text(e, unit)}".strip() if e else "-")
                w(f"  {blk.task:<28} {blk.mm.label:<{mw}}" + "".join(f" {c:>30}" for c in cells) + "\n")
                if _reports_pending(bench):
                    for e in blk.entries:
                        w(f"  {'':<28} {'':<{mw}} {e.run}: {e.pending_text(unit, blk.mm.higher_is_better)}\n")
    if cmp.paired:
        w("\n=== Paired tests on shared samples (second run minus first) ===\n")
        for p in cmp.paired:
            unit = "%" if map_metric(p.task, p.metric).display_unit == "percent" else ""
            if p.test == "none":
                w(f"  {p.task} · {p.label}: {p.note}\n")
                continue
            disc = f", discordant {p.discordant[0]} vs {p.discordant[1]}" if p.discordant else ""
            w(f"  {p.task} · {p.label}: {p.run_b} {fmt_value(p.mean_b, unit)} vs {p.run_a} {fmt_value(p.mean_a, unit)}: "
              f"Δ {('%+.1f' if unit else '%+.3f') % p.diff} (95% CI [{fmt_value(p.ci[0], unit)}, {fmt_value(p.ci[1], unit)}]), "
              f"{p.test} p = {p.p_value:.3g}, n = {p.n_shared}{disc}{'; ' + p.note if p.note else ''}\n")
    for warn in cmp.warnings:
        w(f"\nwarning: {warn}\n")
    if cmp.files:
        w("\nWrote: " + ", ".join(str(p) for p in cmp.files.values()) + "\n")
    return out.getvalue()


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(cmp: Comparison) -> str:
    lines = ["# Comparison with published results", ""]
    lines += [f"- **{_md_escape(r.label)}**: `{r.path}`" for r in cmp.runs]
    for bench in benchmarks.names():
        blks = [b for b in cmp.blocks if b.benchmark == bench and b.mm.headline]
        if not blks:
            continue
        lines += ["", f"## {find(bench).title}", ""]
        if cmp.protocol.get(bench):
            lines += [f"> Protocol differences: {cmp.protocol[bench]}", ""]
        if "png_" + bench in cmp.files:
            lines += [f"![{bench} chart]({cmp.files['png_' + bench].name})", ""]
        for blk in [b for b in blks if b.community]:
            unit = blk.unit_suffix
            runs = [e.run for e in blk.entries]
            lines += [f"### {_md_escape(_title(blk))}", ""]
            lines.append("| rank | model | value | 95% CI | " + " | ".join(f"Δ {_md_escape(r)}" for r in runs) + " | source |")
            lines.append("|---:|---|---:|---|" + "---:|" * len(runs) + "---|")
            n_sc = sum(1 for c in blk.community if c.kind == "score")
            for row in block_rows(blk):
                rank = f"{row['rank']}/{n_sc + 1}" if row["kind"] == "yours" and row.get("rank") else ""
                who = f"**{_md_escape(row['who'])}**" if row["kind"] == "yours" else _md_escape(row["who"])
                deltas = " | ".join((('%+.1f' if unit else '%+.3f') % row["deltas"][r]) if r in row["deltas"] else "" for r in runs)
                lines.append(f"| {rank or ''} | {who} | {fmt_value(row['value'], unit)} | {row['ci']} | {deltas} | {_md_escape(row['source'])} |")
            for note in [*bound_lines(blk), *dict.fromkeys(blk.notes)]:
                lines.append(f"\n_note: {_md_escape(note)}_")
            lines.append("")
        rest = [b for b in blks if not b.community]
        if rest:
            runs = runs_in(cmp, rest)
            lines += ["### No published numbers for these metrics", "",
                      "| task | metric | " + " | ".join(_md_escape(r) for r in runs) + " |", "|---|---|" + "---:|" * len(runs)]
            for blk in rest:
                cells = []
                for r in runs:
                    e = next((e for e in blk.entries if e.run == r), None)
                    cell = f"{fmt_value(e.value, blk.unit_suffix)} {_ci_text(e, blk.unit_suffix)}".strip() if e else ""
                    if e and _reports_pending(bench):
                        cell += f" ({e.pending_text(blk.unit_suffix, blk.mm.higher_is_better)})"
                    cells.append(cell)
                lines.append(f"| {blk.task} | {_md_escape(blk.mm.label)} | " + " | ".join(cells) + " |")
            lines.append("")
    if cmp.paired:
        lines += ["## Paired tests (second run minus first, shared samples)", "",
                  "| task | metric | A | B | Δ (B−A) | 95% CI | test | p | n | note |", "|---|---|---:|---:|---:|---|---|---:|---:|---|"]
        for p in cmp.paired:
            unit = "%" if map_metric(p.task, p.metric).display_unit == "percent" else ""
            if p.test == "none":
                lines.append(f"| {p.task} | {_md_escape(p.label)} | | | | | none | | | {_md_escape(p.note)} |")
                continue
            lines.append(f"| {p.task} | {_md_escape(p.label)} | {fmt_value(p.mean_a, unit)} | {fmt_value(p.mean_b, unit)} | "
                         f"{('%+.1f' if unit else '%+.3f') % p.diff} | [{fmt_value(p.ci[0], unit)}, {fmt_value(p.ci[1], unit)}] | {p.test} | "
                         f"{p.p_value:.3g} | {p.n_shared} | {_md_escape(p.note)} |")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ["benchmark", "task", "setting", "metric", "community_metric", "unit", "higher_is_better", "row", "model",
               "value", "ci_lo", "ci_hi", "ci_method", "rank", "n", "pending", "pending_total", "delta_vs", "delta", "source",
               "protocol", "notes"]


def csv_rows(cmp: Comparison) -> list[dict]:
    rows = []
    for blk in cmp.blocks:
        common = dict(benchmark=blk.benchmark, task=blk.task, setting=blk.settings[0] if blk.settings else "",
                      metric=blk.metric, community_metric=blk.mm.community_metric, unit=blk.mm.display_unit,
                      higher_is_better=blk.mm.higher_is_better)
        for e in blk.entries:
            rows.append({**common, "row": "yours", "model": e.run, "value": e.value, "ci_lo": e.ci[0] if e.ci else "",
                         "ci_hi": e.ci[1] if e.ci else "", "ci_method": e.ci_method, "rank": e.rank or "", "n": e.n or "",
                         "pending": e.pending[0] if e.pending else "", "pending_total": e.pending[1] if e.pending else "",
                         "protocol": "this package",
                         "notes": "; ".join(dict.fromkeys([*(b for b in bound_lines(blk) if b.startswith(f"{e.run}: ")), *blk.notes]))})
        for c in blk.community:
            for e in blk.entries or [None]:
                rows.append({**common, "row": c.kind, "model": c.model, "value": community_value(c, blk.mm), "n": c.n or "",
                             "delta_vs": e.run if e else "", "delta": (e.value - community_value(c, blk.mm)) if e else "",
                             "source": c.source, "protocol": c.protocol, "notes": c.notes})
    for p in cmp.paired:
        rows.append(dict(benchmark=benchmark_of(p.task), task=p.task, metric=p.metric, row="paired_test",
                         model=f"{p.run_b} - {p.run_a}", value=p.diff if p.diff is not None else "",
                         ci_lo=p.ci[0] if p.ci else "", ci_hi=p.ci[1] if p.ci else "", ci_method=p.test,
                         n=p.n_shared, notes=(f"p={p.p_value:.4g}; " if p.p_value is not None else "") + p.note))
    return rows


def write_csv(cmp: Comparison, path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in csv_rows(cmp):
            writer.writerow({k: row.get(k, "") for k in CSV_COLUMNS})
    return path
