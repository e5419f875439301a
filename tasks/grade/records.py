"""GRADE records: reading ``data.json`` (the official layout) and naming each sample's domain.

The official dataset ``VisionXLab/GRADE`` is a folder: ``data.json`` (a JSON list of records) and
the images, whose paths in the records are relative to that folder. Each record has
``image_path`` (input), ``gt`` (reference image), ``text`` (instruction), ``task_id``
(e.g. ``eco_macro_001``), ``consistency`` (``overall`` | ``style`` | ``none``), ``sub_task`` and
``questions`` (``[{id, question, score}]``, scores summing to 1).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmms_plugins.tasks.grade.benchmark import BENCHMARK

log = logging.getLogger("lmms_plugins.grade")

HUB_DATASET = BENCHMARK.hub_id
DATA_FILE = "data.json"
CONSISTENCY_TYPES = ("overall", "style", "none")

#: The ten domains of the paper, in its order; task_id prefixes map onto them.
DOMAINS = ("physics", "sports", "chemistry", "math", "music", "eco", "his", "geography", "biology", "ComputerScience")
#: Official remapping of task_id prefixes that are not domain names themselves.
PREFIX_TO_DOMAIN = {"board": "sports", "engineering": "physics"}


class GradeDataError(ValueError):
    """A GRADE record is malformed; the message names the record and the field."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    score: float  # the question's weight; a record's weights sum to 1


def domain_of(task_id: str) -> str:
    """The domain of a task id: the prefix before the first ``_``, with the official remapping."""
    prefix = str(task_id).split("_", 1)[0]
    return PREFIX_TO_DOMAIN.get(prefix, prefix)


def parse_questions(raw: Any, task_id: str) -> tuple[Question, ...]:
    if isinstance(raw, str):  # the docs table stores them as a JSON string
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise GradeDataError(f"{task_id}: questions is not valid JSON ({exc})") from None
    if not isinstance(raw, list) or not raw:
        raise GradeDataError(f"{task_id}: questions must be a non-empty list, got {type(raw).__name__}")
    out = []
    for i, q in enumerate(raw, 1):
        if not isinstance(q, dict) or not str(q.get("question", "")).strip():
            raise GradeDataError(f"{task_id}: question {i} has no 'question' text: {str(q)[:80]}")
        try:
            score = float(q.get("score"))
        except (TypeError, ValueError):
            raise GradeDataError(f"{task_id}: question {i} has no numeric 'score': {q.get('score')!r}") from None
        if not math.isfinite(score) or score < 0:
            raise GradeDataError(f"{task_id}: question {i} has an invalid score {score}")
        qid = str(q.get("id") or f"Q{i}").strip()
        out.append(Question(id=qid, question=str(q["question"]).strip(), score=score))
    return tuple(out)


def normalise_record(rec: Any, root: Path, index: int) -> dict:
    """One data.json record as a flat doc for lmms-eval (absolute image paths, questions as JSON)."""
    if not isinstance(rec, dict):
        raise GradeDataError(f"record {index} of {DATA_FILE} is not an object")
    task_id = str(rec.get("task_id") or "").strip()
    if not task_id:
        raise GradeDataError(f"record {index} of {DATA_FILE} has no task_id")
    for field in ("image_path", "gt", "text"):
        if not isinstance(rec.get(field), str) or not rec[field].strip():
            raise GradeDataError(f"{task_id}: field {field!r} is missing or empty")
    consistency = str(rec.get("consistency", "")).strip().lower()
    if consistency not in CONSISTENCY_TYPES:
        raise GradeDataError(f"{task_id}: consistency must be one of {CONSISTENCY_TYPES}, got {rec.get('consistency')!r}")
    questions = parse_questions(rec.get("questions"), task_id)
    total = sum(q.score for q in questions)
    if abs(total - 1.0) > 1e-3:
        # Scored as published (sum of the weights answered Yes), so R may exceed or miss 1.
        log.warning("GRADE %s: question weights sum to %.4f, not 1", task_id, total)
    return {
        "task_id": task_id,
        "domain": domain_of(task_id),
        "sub_task": str(rec.get("sub_task") or ""),
        "text": rec["text"],
        "consistency": consistency,
        "questions": json.dumps([q.__dict__ for q in questions], ensure_ascii=False),
        "image_path": str(_resolve(root, rec["image_path"], f"{task_id}: field 'image_path'")),
        "gt": str(_resolve(root, rec["gt"], f"{task_id}: field 'gt'")),
    }


def _resolve(root: Path, path: str, where: str) -> Path:
    """``root/path``; a path that leaves the data root (``../``, absolute, a symlink out) is refused."""
    from lmms_plugins.utils.images import PathEscapesRoot, resolve_under

    try:
        return resolve_under(root, path)
    except PathEscapesRoot as exc:
        raise PathEscapesRoot(f"{where} of {DATA_FILE}: {exc}") from None


def read_data_json(root: Path) -> list:
    path = root / DATA_FILE
    if not path.is_file():
        from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide

        raise MissingDataError(f"grade: {DATA_FILE} not found at {path}.\n{how_to_provide('grade')}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise GradeDataError(f"{path} is not valid JSON: {exc}") from None
    if isinstance(data, dict):  # tolerate {"data": [...]} wrappers
        data = next((v for v in data.values() if isinstance(v, list)), None)
    if not isinstance(data, list):
        raise GradeDataError(f"{path} must hold a JSON list of records")
    return data


def load_records(root: Path) -> list[dict]:
    """All records of a GRADE-layout folder, validated; missing image files are one clear error."""
    root = Path(root)
    docs = [normalise_record(rec, root, i) for i, rec in enumerate(read_data_json(root), 1)]
    seen: set[str] = set()
    dupes = [d["task_id"] for d in docs if d["task_id"] in seen or seen.add(d["task_id"])]
    if dupes:
        raise GradeDataError(f"{root / DATA_FILE}: duplicate task_id(s): {', '.join(sorted(set(dupes))[:5])}")
    missing = [f"{d['task_id']}: {d[k]}" for d in docs for k in ("image_path", "gt") if not Path(d[k]).is_file()]
    if missing:
        from lmms_plugins.utils.data_roots import MissingDataError

        more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
        raise MissingDataError(f"grade: {len(missing)} image file(s) listed in {root / DATA_FILE} are missing: "
                               + "; ".join(missing[:5]) + more)
    return docs


def dataset_root() -> Path:
    """The local copy (LMMS_PLUGINS_GRADE_ROOT / LMMS_PLUGINS_DATA_ROOT/grade), else the hub snapshot."""
    from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide, local_root

    root = local_root("grade")
    if root is not None:
        return root
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=HUB_DATASET, repo_type="dataset"))
    except Exception as exc:  # offline, no access, ...: say what to do instead
        raise MissingDataError(
            f"grade: could not download the hub dataset {HUB_DATASET} ({type(exc).__name__}: {exc}).\n"
            + how_to_provide("grade")
        ) from exc
