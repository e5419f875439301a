"""DoD's part of ``lmms-plugins report``: its rates per category, computed from the logged samples'
full records (the results file keeps only the compact ``dod_breakdown`` row; README, "How they
appear")."""

from __future__ import annotations

from html import escape as ESC

from lmms_plugins.report import ReportBlocks
from lmms_plugins.runs import TaskResult


def _tally_cell(tally: dict) -> str:
    if not tally.get("total"):
        return "–"
    pending = f", {tally['pending']} pending" if tally.get("pending") else ""
    return f"{100 * tally['success'] / tally['total']:.1f} % ({tally['success']}/{tally['total']}{pending})"


class DodReport(ReportBlocks):
    verdict_metrics = ("E", "D_strict", "D_f")
    lower_is_better = frozenset({"D_f"})  # a false refusal

    def breakdown(self, task: str, tr: TaskResult) -> str:
        from lmms_plugins.tasks.dod.breakdown import records_of
        from lmms_plugins.tasks.dod.metrics import METRICS, PAIR_METRICS, summarize

        if not tr.samples:
            return ""
        try:
            records = records_of(tr.samples)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a record this version cannot read: say so, show the rest
            return f"<p class=notes>{ESC(task)}: no per-category table ({ESC(type(exc).__name__)}: {ESC(str(exc))})</p>"
        if not records:
            return ""
        summary = summarize(records)
        names = METRICS + PAIR_METRICS
        rows = "".join(f"<tr><td>{ESC(category)}</td>" + "".join(f'<td class="num">{_tally_cell(t[m])}</td>' for m in names) + "</tr>"
                       for category, t in [("all", summary), *sorted(summary["by_category"].items())])
        return (f"<h4>{ESC(task)} per category (from the samples)</h4><table class=dodcat><tr><th>category</th>"
                + "".join(f"<th>{ESC(m)}</th>" for m in names) + f"</tr>{rows}</table>")
