"""Draw-or-Decline data in the official layout: requests, hidden labels, images, integrity.

Layout of a dataset root (the hub snapshot of ``visual-abstention/Draw-or-Decline`` or a local
copy with the same files)::

    instruction.jsonl            what the model sees (case_id, input_image, prompt_en, ...)
    ground_truth_criteria.jsonl  labels, witnesses, certificates, grid evidence: scoring only
    image/                       inputs and references; every path in the JSONL is relative to the root

The root is ``LMMS_PLUGINS_DOD_ROOT`` or ``LMMS_PLUGINS_DATA_ROOT/dod`` when set (see
``lmms_plugins.utils.data_roots``), otherwise a cached hub snapshot.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from lmms_plugins.tasks.dod.benchmark import BENCHMARK

HUB_REPO = BENCHMARK.hub_id
BENCH = BENCHMARK.name
INSTRUCTIONS = "instruction.jsonl"
LABELS = "ground_truth_criteria.jsonl"
MAZE_CATEGORY = "maze"


class DodDataError(ValueError):
    """A DoD data file is malformed; the message names the file and the line."""


# --- where the data is ---------------------------------------------------------------------------

_root_lock = threading.Lock()
_snapshot_root: Path | None = None


def dataset_root() -> Path:
    """The DoD root: the configured local copy, else a (cached) hub snapshot."""
    global _snapshot_root
    from lmms_plugins.utils.data_roots import local_root, require_file

    local = local_root(BENCH)
    if local is not None:
        require_file(BENCH, local / INSTRUCTIONS, INSTRUCTIONS)
        require_file(BENCH, local / LABELS, LABELS)
        return local.resolve()
    with _root_lock:
        if _snapshot_root is None:
            from huggingface_hub import snapshot_download

            try:
                _snapshot_root = Path(snapshot_download(HUB_REPO, repo_type="dataset"))
            except Exception as exc:  # offline, no cache, gated...
                from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide

                raise MissingDataError(
                    f"dod: could not get the hub dataset {HUB_REPO} ({type(exc).__name__}: {exc}).\n{how_to_provide(BENCH)}"
                ) from exc
        return _snapshot_root


# --- files -----------------------------------------------------------------------------------------


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Objects of a JSONL file; a bad line is an error naming the file and line number."""
    from lmms_plugins.utils.jsonl import iter_jsonl

    rows = []
    for number, row in iter_jsonl(path, error=DodDataError):
        if not isinstance(row, dict) or not row.get("case_id"):
            raise DodDataError(f"{path}:{number}: expected an object with a case_id")
        rows.append(row)
    return rows


@dataclass(frozen=True)
class Label:
    """The hidden ground truth of one request (from ground_truth_criteria.jsonl)."""

    case_id: str
    pair_id: str
    paired_case_id: str
    feasible: bool
    category: str
    reason: str = ""
    witness: Any = None
    certificate: Any = None
    reference_image: str | None = None
    grid_evidence: Mapping | None = None
    raw: Mapping = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_maze(self) -> bool:
        return self.category == MAZE_CATEGORY


def parse_label(row: Mapping) -> Label:
    gt = row.get("ground_truth") or {}
    if not isinstance(gt.get("feasible"), bool):
        raise DodDataError(f"label {row.get('case_id')!r}: ground_truth.feasible is missing or not a boolean")
    source = row.get("source") or {}
    case_id = str(row["case_id"])
    pair_id = str(row.get("pair_id") or case_id.rsplit("-", 1)[0])
    return Label(
        case_id=case_id,
        pair_id=pair_id,
        paired_case_id=str(row.get("paired_case_id") or ""),
        feasible=gt["feasible"],
        category=str(source.get("category_en") or source.get("category") or "unknown"),  # older rows: `category`
        reason=str(gt.get("reason") or ""),
        witness=gt.get("witness"),
        certificate=gt.get("certificate"),
        reference_image=row.get("reference_image"),
        grid_evidence=row.get("grid_evidence"),
        raw=row,
    )


_labels_lock = threading.Lock()
_labels_cache: dict[tuple[str, float], tuple[dict[str, Label], list[str]]] = {}


def load_labels(root: str | os.PathLike) -> dict[str, Label]:
    """case_id -> Label for the dataset at ``root`` (cached per file version; thread-safe)."""
    return _labels_and_errors(root)[0]


def _labels_and_errors(root: str | os.PathLike) -> tuple[dict[str, Label], list[str]]:
    path = Path(root) / LABELS
    key = (str(path.resolve()), path.stat().st_mtime)
    with _labels_lock:
        hit = _labels_cache.get(key)
        if hit is not None:
            return hit
        labels, errors = {}, []
        for row in read_jsonl(path):
            try:
                label = parse_label(row)
            except DodDataError as exc:
                errors.append(str(exc))
                continue
            if label.case_id in labels:
                errors.append(f"label {label.case_id!r} appears twice in {LABELS}")
            labels[label.case_id] = label
        _labels_cache[key] = (labels, errors)
        return labels, errors


# --- integrity -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntegrityReport:
    """What does not fit together in a DoD root, each problem with its case id."""

    requests: int
    labels: int
    request_without_label: tuple[str, ...] = ()
    label_without_request: tuple[str, ...] = ()
    missing_image: tuple[tuple[str, str], ...] = ()  # (case_id, relative path)
    broken_pair: tuple[tuple[str, str], ...] = ()  # (case_id, why)
    bad_label: tuple[str, ...] = ()  # unparsable label rows, in words

    @property
    def ok(self) -> bool:
        return not (self.request_without_label or self.label_without_request or self.missing_image
                    or self.broken_pair or self.bad_label)

    def lines(self) -> list[str]:
        out = [f"DoD data: {self.requests} requests, {self.labels} labels"]
        for cid in self.request_without_label:
            out.append(f"  request without label: {cid}")
        for cid in self.label_without_request:
            out.append(f"  label without request: {cid}")
        for cid, rel in self.missing_image:
            out.append(f"  missing image: {cid}: {rel}")
        for cid, why in self.broken_pair:
            out.append(f"  broken pair: {cid}: {why}")
        for why in self.bad_label:
            out.append(f"  bad label: {why}")
        if self.ok:
            out.append("  all requests have a label, an image and a paired counterpart")
        return out

    def as_dict(self) -> dict:
        return {
            "requests": self.requests,
            "labels": self.labels,
            "request_without_label": list(self.request_without_label),
            "label_without_request": list(self.label_without_request),
            "missing_image": [list(x) for x in self.missing_image],
            "broken_pair": [list(x) for x in self.broken_pair],
            "bad_label": list(self.bad_label),
        }


def check_integrity(requests: Iterable[Mapping], root: str | os.PathLike) -> IntegrityReport:
    """Cross-check requests against the labels and the image folder of ``root``."""
    from lmms_plugins.utils.images import PathEscapesRoot, resolve_under

    root = Path(root)
    labels, bad = _labels_and_errors(root)
    requests = list(requests)
    req_ids = [str(r.get("case_id")) for r in requests]
    req_set = set(req_ids)
    no_label = tuple(cid for cid in req_ids if cid not in labels)
    no_request = tuple(cid for cid in labels if cid not in req_set)
    missing = []
    for r in requests:
        many = r.get("input_images")
        rels = [p for p in many if p] if isinstance(many, (list, tuple)) and any(many) else [r.get("input_image")]
        cid = str(r.get("case_id"))
        if not rels[0]:
            missing.append((cid, "(no input_image field)"))
            continue
        for rel in rels:  # input_images or [input_image], as the official code reads them
            try:
                if not resolve_under(root, rel).is_file():
                    missing.append((cid, str(rel)))
            except PathEscapesRoot:
                missing.append((cid, f"{rel} (outside the dataset root)"))
    broken = []
    for cid, label in labels.items():
        other = labels.get(label.paired_case_id)
        if not label.paired_case_id:
            broken.append((cid, "no paired_case_id"))
        elif other is None:
            broken.append((cid, f"paired_case_id {label.paired_case_id!r} has no label"))
        elif other.paired_case_id != cid:
            broken.append((cid, f"{label.paired_case_id!r} points to {other.paired_case_id!r}, not back"))
        elif other.feasible == label.feasible:
            broken.append((cid, f"both {cid!r} and {other.case_id!r} are labelled feasible={label.feasible}"))
    return IntegrityReport(
        requests=len(requests),
        labels=len(labels),
        request_without_label=no_label,
        label_without_request=no_request,
        missing_image=tuple(missing),
        broken_pair=tuple(broken),
        bad_label=tuple(bad),
    )


def log_integrity(report: IntegrityReport) -> None:
    """Print the report to stderr: lmms-eval's log level hides INFO, and a run must show it."""
    import sys

    for line in report.lines():
        print(f"[lmms_plugins] {line}", file=sys.stderr)
