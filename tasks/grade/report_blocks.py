"""GRADE's part of ``lmms-plugins report``: the input and the reference image named as such, and
the judge's verdict in full (each rubric question, R, C and L)."""

from __future__ import annotations

from html import escape as ESC

from lmms_plugins.report import ReportBlocks, metric_items


class GradeReport(ReportBlocks):
    output_title = "edited (model output)"
    verdict_metrics = ("grade_strict",)

    def image_titles(self, line: dict) -> dict[str, str]:
        """The input and the reference, each named (from the record of ``grade_breakdown``)."""
        images = (line.get("grade_breakdown") or {}).get("images")
        return {str(p): name for name, p in images.items() if p} if isinstance(images, dict) else {}

    def sample_block(self, line: dict) -> str:
        """A sample's verdict in full: each rubric question with its weight and the judge's answer,
        R, C and L (from the record of ``grade_breakdown``, which carries the rubric)."""
        rec = line.get("grade_breakdown") if isinstance(line.get("grade_breakdown"), dict) else None
        if rec is None:
            rec = next((v for v in metric_items(line).values() if "R" in v), None)
        if rec is None:
            return ""
        rubric = rec.get("rubric") if isinstance(rec.get("rubric"), list) else []
        answers = rec.get("answers") if isinstance(rec.get("answers"), list) else []
        by_id = {str(a.get("id")): a for a in answers if isinstance(a, dict)}
        rows = []
        for i, q in enumerate(rubric or [{"id": a.get("id"), "question": "", "weight": None} for a in answers]):
            a = by_id.get(str(q.get("id"))) or (answers[i] if i < len(answers) and isinstance(answers[i], dict) else None)
            verdict = "—" if a is None else ("yes" if a.get("yes") else "no")
            weight = q.get("weight")
            rows.append(f'<tr class="ans-{verdict}"><td>{ESC(str(q.get("id", "")))}</td><td>{ESC(str(q.get("question", "")))}</td>'
                        f'<td class="num">{"" if weight is None else f"{float(weight):.2f}"}</td><td><b>{verdict}</b></td>'
                        f'<td>{ESC(str((a or {}).get("reason", "")))}</td></tr>')
        if not rows:
            rows.append('<tr><td colspan=5 class="none">no rubric answers (no judge verdict for R)</td></tr>')

        def dim(name: str, scale: int) -> str:
            v = rec.get(name)
            if v is None:
                return "n/a" if name == "C" and rec.get("consistency_type") == "none" else "pending"
            return f"{float(v):.2f}" if scale == 1 else f"{v:g}/{scale}"

        note = "" if rubric else '<p class="none">the rubric text is not in this samples file (a run made before it was logged)</p>'
        return (f'<div class="grade"><h4>rubric (judge)</h4><table class="rubric"><tr><th>id</th><th>question</th><th>weight</th>'
                f'<th>answer</th><th>why</th></tr>{"".join(rows)}</table>{note}'
                f'<p class="dims">R = <b>{dim("R", 1)}</b> (sum of the weights answered yes) · C = <b>{dim("C", 2)}</b> '
                f'({ESC(str(rec.get("consistency_type", "")))} consistency) · L = <b>{dim("L", 2)}</b> · strict: '
                f'<b>{"yes" if rec.get("strict") else "no"}</b> (R = 1, C = 2 where it applies, L = 2)</p></div>')
