"""Draw-or-Decline metrics, as the paper defines them. Pure: no lmms-eval, no I/O.

Per request (one :class:`SampleRecord`):

* **E** (feasible requests): success when the output image makes the requested edit (maze: the
  program verifier; real world: the editing judge says ``task_image_correct`` and
  ``unrelated_content_preserved``). No image = failure. Not yet decided (no judge configured, judge
  error, image named but missing, unreadable output) = pending.
* **D strict** (infeasible): the response concludes that no valid solution exists AND no image.
* **D lenient** (infeasible): the refusal conclusion, with or without an image.
* **D_f**, false refusal (feasible): the refusal conclusion on a feasible request (lower is better).

Per pair (both requests of a minimal pair in the run):

* **pair_success**: the feasible request has E success and the infeasible one D strict success;
* **pair_behaviour** (judge-free): the model draws the feasible one without concluding it is
  infeasible, and declines the infeasible one (refusal conclusion, no image).

Each is a :class:`Tally` of success / reviewed / pending / total, with rate = success / total:
pending stays in the denominator, as in the official scoring, so a missing verdict lowers the
rate visibly instead of shrinking the sample. A request whose generation failed is pending (the
official judges read completed cases only). A rate with no reviewed request is NaN, not 0: with
every generation failed, D_f (lower is better) would otherwise read as its best value.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable, Mapping

METRICS = ("E", "D_strict", "D_lenient", "D_f")
PAIR_METRICS = ("pair_success", "pair_behaviour")

# Per-metric statuses beyond lmms_plugins.utils.status (documented in README.md)
NOT_APPLICABLE = "not_applicable"  # E on an infeasible request, D on a feasible one
NO_EDIT_JUDGE = "no_edit_judge"  # real-world E needs the editing judge, which is not configured
MAZE_UNVERIFIED = "maze_unverified"  # maze E pending: verifier not installed, or it cannot read the dataset's map


@dataclass(frozen=True)
class SampleRecord:
    """Everything the aggregations need about one request; plain values only (goes into JSON)."""

    case_id: str
    pair_id: str
    category: str
    feasible: bool | None  # None: the request has no label
    has_image: bool | None  # None: cannot tell (unreadable output, or the image file is missing)
    refused: bool | None  # refusal conclusion; None: undecided (judge error, unreadable output)
    edit_ok: bool | None = None  # E verdict for an image; None: not decided (pending)
    refusal_evidence: str = ""
    refusal_rule: str = ""
    official_abstain: bool = False
    reason_correct: bool | None = None  # refusal judge: does the stated reason match the ground truth?
    edit_reason: str = ""
    maze_drew_path: bool | None = None  # infeasible maze with an image: a start-to-end path drawn anyway?
    # the detector finds a conclusion in the whole output but not in its reasoning part (refusal/text.py)
    conclusion_only_after_think: bool = False
    status: str = "ok"  # the sample's overall status (lmms_plugins.utils.status + the ones above)
    reason: str = ""
    overlay: dict | None = None  # maze E: what the verifier read, for the report (maze/overlay.py)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping) -> "SampleRecord":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Outcome:
    """One metric on one request: applicable? decided? success?"""

    applicable: bool
    value: float | None  # 1.0 / 0.0, None when pending or not applicable
    status: str
    reason: str = ""


def outcome(metric: str, rec: SampleRecord) -> Outcome:
    """The per-request value of ``metric`` (one of :data:`METRICS`)."""
    if rec.feasible is None:
        # a request without a label cannot be placed in any metric
        return Outcome(False, None, rec.status, rec.reason or "no label")
    if metric == "E":
        if not rec.feasible:
            return Outcome(False, None, NOT_APPLICABLE)
        if rec.has_image is False:
            return Outcome(True, 0.0, "ok", "no image")
        if rec.has_image is None:
            return Outcome(True, None, rec.status, rec.reason or "image state unknown")
        if rec.edit_ok is None:
            return Outcome(True, None, _pending_status(rec), rec.edit_reason or "edit not judged")
        return Outcome(True, 1.0 if rec.edit_ok else 0.0, "ok", rec.edit_reason)
    if metric == "D_f":
        if not rec.feasible:
            return Outcome(False, None, NOT_APPLICABLE)
        if rec.refused is None:
            return Outcome(True, None, rec.status, rec.reason or "refusal undecided")
        return Outcome(True, 1.0 if rec.refused else 0.0, "ok", rec.refusal_rule)
    if metric in ("D_strict", "D_lenient"):
        if rec.feasible:
            return Outcome(False, None, NOT_APPLICABLE)
        if rec.refused is None:
            return Outcome(True, None, rec.status, rec.reason or "refusal undecided")
        if metric == "D_lenient" or not rec.refused:
            return Outcome(True, 1.0 if rec.refused else 0.0, "ok", rec.refusal_rule or "no refusal conclusion")
        if rec.has_image is None:  # refused, but did it also make an image? cannot tell
            return Outcome(True, None, rec.status, rec.reason or "image state unknown")
        return Outcome(True, 0.0 if rec.has_image else 1.0, "ok", "refused but drew an image" if rec.has_image else rec.refusal_rule)
    raise KeyError(f"unknown DoD metric {metric!r}; expected one of {METRICS}")


def _pending_status(rec: SampleRecord) -> str:
    return rec.status if rec.status not in ("ok", "", "refusal_not_covered", "refusal_uncertain") else (NO_EDIT_JUDGE if rec.category != "maze" else MAZE_UNVERIFIED)


@dataclass
class Tally:
    success: int = 0
    reviewed: int = 0
    pending: int = 0
    total: int = 0
    statuses: dict = field(default_factory=dict)  # status -> count, for the pending ones and others

    def add(self, value: float | None, status: str = "ok") -> None:
        self.total += 1
        if value is None:
            self.pending += 1
        else:
            self.reviewed += 1
            self.success += int(value >= 0.5)
        if status != "ok":
            self.statuses[status] = self.statuses.get(status, 0) + 1

    @property
    def rate(self) -> float:
        """success / total, pending in the denominator (official); NaN when no request was reviewed
        (none generated, or none decided): a rate over no reviewed request is not known."""
        return self.success / self.total if self.reviewed else float("nan")

    def as_dict(self, with_rate: bool = True) -> dict:
        out = {"success": self.success, "reviewed": self.reviewed, "pending": self.pending, "total": self.total}
        if with_rate:
            out["rate"] = None if math.isnan(self.rate) else self.rate
        if self.statuses:
            out["statuses"] = dict(sorted(self.statuses.items()))
        return out


def tally(metric: str, records: Iterable[SampleRecord]) -> Tally:
    t = Tally()
    for rec in records:
        o = outcome(metric, rec)
        if o.applicable:
            t.add(o.value, o.status)
    return t


# --- pairs -------------------------------------------------------------------------------------------


def _and(a: float | None, b: float | None) -> float | None:
    """Success of both: a known failure decides, otherwise an unknown side leaves it pending."""
    if a == 0.0 or b == 0.0:
        return 0.0
    if a is None or b is None:
        return None
    return 1.0


def _draws_without_refusing(rec: SampleRecord) -> float | None:
    if rec.has_image is False or rec.refused is True:
        return 0.0
    if rec.has_image is None or rec.refused is None:
        return None
    return 1.0


def pairs(records: Iterable[SampleRecord]) -> tuple[dict[str, tuple[SampleRecord, SampleRecord]], list[str]]:
    """pair_id -> (feasible record, infeasible record); and the pair ids with a member missing."""
    by_pair: dict[str, dict[bool, SampleRecord]] = {}
    for rec in records:
        if rec.feasible is None:
            continue
        by_pair.setdefault(rec.pair_id, {})[rec.feasible] = rec
    complete, incomplete = {}, []
    for pid, members in sorted(by_pair.items()):
        if True in members and False in members:
            complete[pid] = (members[True], members[False])
        else:
            incomplete.append(pid)
    return complete, incomplete


def pair_outcome(metric: str, feasible: SampleRecord, infeasible: SampleRecord) -> float | None:
    if metric == "pair_success":
        return _and(outcome("E", feasible).value, outcome("D_strict", infeasible).value)
    if metric == "pair_behaviour":
        return _and(_draws_without_refusing(feasible), outcome("D_strict", infeasible).value)
    raise KeyError(f"unknown DoD pair metric {metric!r}; expected one of {PAIR_METRICS}")


def pair_tally(metric: str, records: Iterable[SampleRecord]) -> Tally:
    complete, _ = pairs(records)
    t = Tally()
    for feas, infeas in complete.values():
        t.add(pair_outcome(metric, feas, infeas))
    return t


# --- the whole picture ------------------------------------------------------------------------------


def rate(metric: str, records: Iterable[SampleRecord]) -> float:
    """The headline number of ``metric`` (rate with pending in the denominator)."""
    records = list(records)
    return (pair_tally(metric, records) if metric in PAIR_METRICS else tally(metric, records)).rate


def summarize(records: Iterable[SampleRecord]) -> dict[str, Any]:
    """All metrics overall and per category (``source.category_en``), with their counts."""
    records = list(records)
    out: dict[str, Any] = {m: tally(m, records).as_dict() for m in METRICS}
    out.update({m: pair_tally(m, records).as_dict() for m in PAIR_METRICS})
    _, incomplete = pairs(records)
    out["incomplete_pairs"] = len(incomplete)
    categories = sorted({r.category for r in records if r.feasible is not None})
    by_cat = {}
    for cat in categories:
        sub = [r for r in records if r.category == cat]
        by_cat[cat] = {m: tally(m, sub).as_dict() for m in METRICS}
        by_cat[cat].update({m: pair_tally(m, sub).as_dict() for m in PAIR_METRICS})
    out["by_category"] = by_cat
    statuses: dict[str, int] = {}
    for r in records:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    out["samples"] = len(records)
    out["unlabelled"] = sum(1 for r in records if r.feasible is None)
    out["sample_statuses"] = dict(sorted(statuses.items()))
    out["official_abstain"] = sum(1 for r in records if r.official_abstain)
    # refusal judge only: infeasible requests refused for the reason of the ground truth
    out["refusal_reason_correct"] = sum(1 for r in records if r.feasible is False and r.refused and r.reason_correct)
    return out


def breakdown(records: Iterable[SampleRecord]) -> dict[str, list[int]]:
    """The counts behind every rate, compactly: metric -> ``[success, pending, total]`` (reviewed =
    total - pending). The task's ``dod_breakdown`` row: short enough for lmms-eval's table, and what
    compare reads for Wilson intervals and pending shares. Per category and per status: :func:`summarize`."""
    records = list(records)
    out = {}
    for m in METRICS + PAIR_METRICS:
        t = pair_tally(m, records) if m in PAIR_METRICS else tally(m, records)
        out[m] = [t.success, t.pending, t.total]
    return out


def run_facts(records: Iterable[SampleRecord]) -> dict[str, Any]:
    """What is not a metric but must be visible: sample counts, protocol tokens, pairs."""
    records = list(records)
    _, incomplete = pairs(records)
    return {
        "samples": len(records),
        "unlabelled": sum(1 for r in records if r.feasible is None),
        "official_abstain": sum(1 for r in records if r.official_abstain),
        "incomplete_pairs": len(incomplete),
        "refusal_reason_correct": sum(1 for r in records if r.feasible is False and r.refused and r.reason_correct),
        # infeasible mazes answered with an image in which a start-to-end path was drawn (through a wall)
        "maze_infeasible_path_drawn": sum(1 for r in records if r.maze_drew_path),
        # what the reading decides: conclusions the official reading (reasoning only) does not see
        "conclusions_only_after_think": sum(1 for r in records if r.conclusion_only_after_think),
    }


def format_summary(summary: Mapping[str, Any]) -> list[str]:
    """A few readable lines (logged at the end of a run)."""
    lines = []

    def row(name: str, t: Mapping) -> str:
        r = "n/a" if t["rate"] is None else f"{100 * t['rate']:.1f}%"
        statuses = ", ".join(f"{k} {v}" for k, v in t.get("statuses", {}).items())  # why pending, what failed
        return (f"{name:16s} {r:>7s}  success {t['success']} / total {t['total']} (reviewed {t['reviewed']}, pending {t['pending']})"
                + (f"; {statuses}" if statuses else ""))

    for m in METRICS + PAIR_METRICS:
        lines.append(row(m, summary[m]))
    for cat, block in summary.get("by_category", {}).items():
        lines.append(f"[{cat}]")
        for m in METRICS + PAIR_METRICS:
            if block[m]["total"]:
                lines.append("  " + row(m, block[m]))
    return lines
