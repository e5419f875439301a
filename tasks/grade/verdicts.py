"""Pre-computed judge verdicts, so verdicts obtained elsewhere are not paid for twice.

The task setting ``verdicts`` (``metadata.verdicts: <file.jsonl>``, settings.py): one JSON object
per line, keyed by ``task_id``::

    {"task_id": "eco_macro_001", "R": 0.8, "C": 2, "L": 2}
    {"task_id": "chemistry_org_004", "answers": [{"id": "Q1", "answer": "Yes"}, ...], "C": "none", "L": 1}

* ``R`` (0..1), or ``answers`` (matched to the sample's questions like a judge reply);
* ``C`` 0/1/2 (``"none"`` or absent for samples whose consistency type is ``none``);
* ``L`` 0/1/2. Long names (``reasoning``, ``consistency``, ``readability``) are accepted too.

Lines of an lmms-eval ``--log_samples`` file of a previous ``grade`` run are accepted as they are
(the per-sample record is found inside), so a judged run can be re-scored offline.
A dimension absent from the file is asked from the judge when one is configured.

The official evaluator's result files are read as it writes them (see :func:`official_parts`):
its per-task result folders (``*_eval_1/``, ``*_consis_4/``, ``*_read_4/``), their merged JSON
arrays and ``full_result_*.json``. Several sources may be given, separated by ``os.pathsep``
(``:`` on Linux); their dimensions are merged per ``task_id``.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any


_KEPT_STATUSES = ("ok", "missing_image", "bad_image")  # verdicts of the model's output, not of the judge
_ALIASES = {"R": ("r", "reasoning"), "C": ("c", "consistency_score", "consistency"), "L": ("l", "readability")}


@dataclass(frozen=True)
class Verdict:
    task_id: str
    R: float | None = None
    answers: tuple | None = None  # raw answers, matched to questions by the hook
    C: int | None = None
    C_none: bool = False  # the file says consistency is not applicable
    L: int | None = None
    status: str = "ok"  # a re-scored samples log keeps missing_image / bad_image
    reason: str = ""

    def has(self, dim: str) -> bool:
        if dim == "R":
            return self.R is not None or self.answers is not None
        if dim == "C":
            return self.C is not None or self.C_none
        return self.L is not None


class VerdictFileError(ValueError):
    """A verdict file line is unusable; the message names the file and the line."""


def _record_of(row: dict) -> dict | None:
    if "task_id" in row:
        return row
    for value in row.values():  # an lmms-eval samples line: {"doc": ..., "grade_strict": {record}, ...}
        if isinstance(value, dict) and "task_id" in value and any(k in value for k in ("R", "L")):
            return value
    return None


def _pick(rec: dict, dim: str) -> Any:
    low = {str(k).lower(): v for k, v in rec.items()}
    for key in _ALIASES[dim]:
        if key in low:
            return low[key]
    return None


def _scale(value: Any, where: str, dim: str) -> int | None:
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise VerdictFileError(f"{where}: {dim} must be 0, 1 or 2, got {value!r}") from None
    if v not in (0.0, 1.0, 2.0):
        raise VerdictFileError(f"{where}: {dim} must be 0, 1 or 2, got {value!r}")
    return int(v)


_FAILED_MARK = "bad response"  # what the official read.py writes after 6 failed judge calls


def _final_score(result: Any, where: str, dim: str) -> Any:
    """The ``Final Score`` of an official consistency / readability result (None: no verdict)."""
    if not isinstance(result, dict):
        raise VerdictFileError(f"{where}: {dim} result must be an object with a 'Final Score'")
    score = result.get("Final Score")
    if isinstance(score, str) and score.strip().lower() == _FAILED_MARK:
        return None  # the official judge failed: not a verdict, so the dimension stays open
    return score


def official_parts(rec: dict, where: str, hint: str = "") -> dict | None:
    """The official evaluator's result shapes as this module's keys, or None when ``rec`` is not one.

    * reasoning (``reasoning.py``): ``{"vqa": [{question, answer, reason, id, score}], "score": R}``;
      the script overwrites every answer's ``id`` with the task id, so the task id is read there and
      R is its ``score`` (the answers cannot be matched to questions by id);
    * consistency (``consis.py``): ``{"Instruction", "Final Score": 0-2 | "none", "Reason", "task_id"}``;
    * readability (``read.py``): ``{"Final Score": 0-2, "Reason", "task_id"}``;
    * ``full_result_*.json`` (``sum.py``): ``{"task_id", "reasoning": {...}, "consis": {...}, "read": {...}}``.

    A bare ``Final Score`` is consistency when the source's name says ``consis`` or the record has
    ``Instruction`` (consis.py always writes it, read.py never), else readability.
    """
    out: dict = {}
    if isinstance(rec.get("vqa"), list):
        tid = rec.get("task_id") or next((a.get("id") for a in rec["vqa"] if isinstance(a, dict) and a.get("id")), None)
        return {"task_id": tid, "R": rec.get("score")}
    if any(isinstance(rec.get(k), dict) for k in ("reasoning", "consis", "read")):
        if isinstance(rec.get("reasoning"), dict):
            out["R"] = rec["reasoning"].get("score")
        if isinstance(rec.get("consis"), dict):
            out["C"] = _final_score(rec["consis"], where, "consis")
        if isinstance(rec.get("read"), dict):
            out["L"] = _final_score(rec["read"], where, "read")
        return {"task_id": rec.get("task_id"), **out}
    if "Final Score" in rec:
        words = set(re.split(r"[^a-z]+", hint.lower()))  # gemini_flash_consis_4 -> {gemini, flash, consis}
        is_c = bool(words & {"consis", "consistency"}) or (not words & {"read", "readability"} and "Instruction" in rec)
        return {"task_id": rec.get("task_id"), ("C" if is_c else "L"): _final_score(rec, where, "Final Score")}
    return None


def parse_line(row: Any, where: str, hint: str = "") -> Verdict:
    if isinstance(row, dict) and (parts := official_parts(row, where, hint)) is not None:
        if not parts.get("task_id"):
            raise VerdictFileError(f"{where}: not an object with a task_id")
        row = parts
    if not isinstance(row, dict) or (rec := _record_of(row)) is None:
        raise VerdictFileError(f"{where}: not an object with a task_id")
    task_id = str(rec["task_id"])
    r = _pick(rec, "R")
    R = None
    if isinstance(r, (int, float)) and not isinstance(r, bool):
        R = float(r)
        if not (math.isfinite(R) and -1e-9 <= R <= 1.0 + 1e-6):
            raise VerdictFileError(f"{where}: R must be between 0 and 1, got {r!r}")
    elif r is not None:
        raise VerdictFileError(f"{where}: R must be a number between 0 and 1, got {r!r}")
    answers = rec.get("answers")
    if answers is not None and not isinstance(answers, list):
        raise VerdictFileError(f"{where}: answers must be a list")
    c = _pick(rec, "C")
    c_none = isinstance(c, str) and c.strip().lower() == "none"
    if rec.get("consistency_type") == "none" and c is None:
        c_none = True
    C = None if c_none else _scale(c, where, "C")
    L = _scale(_pick(rec, "L"), where, "L")
    state = str(rec.get("status") or "ok")
    if state not in _KEPT_STATUSES:
        state = "ok"
    return Verdict(task_id=task_id, R=R, answers=tuple(answers) if answers is not None else None, C=C, C_none=c_none, L=L,
                   status=state, reason=str(rec.get("reason") or "") if state != "ok" else "")


def _rows(path: Path):
    """(where, row) of a JSONL file, a JSON file (an array or one object), or a folder of JSON files."""
    if path.is_dir():  # the official per-task result folder: <task_id>.json each
        for child in sorted(path.glob("*.json")):
            yield from _rows(child)
        return
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise VerdictFileError(f"{path}: not JSON ({exc})") from None
        for i, row in enumerate(data if isinstance(data, list) else [data], 1):
            yield f"{path}[{i}]", row
        return
    from lmms_plugins.utils.jsonl import iter_jsonl

    for number, row in iter_jsonl(path, error=VerdictFileError):
        yield f"{path}:{number}", row


def _merge(old: Verdict, new: Verdict) -> Verdict:
    """``new``'s dimensions where it has them, ``old``'s elsewhere (official results come one file per dimension)."""
    from dataclasses import replace

    keep = {}
    if not new.has("R"):
        keep.update(R=old.R, answers=old.answers)
    if not new.has("C"):
        keep.update(C=old.C, C_none=old.C_none)
    if not new.has("L"):
        keep.update(L=old.L)
    return replace(new, **keep)


def load_verdicts(path: str | Path) -> dict[str, Verdict]:
    """Verdicts of one or more sources (``os.pathsep``-separated), merged per task id."""
    import os

    out: dict[str, Verdict] = {}
    for part in [p for p in str(path).split(os.pathsep) if p.strip()] or [str(path)]:
        source = Path(part).expanduser()
        if not source.exists():
            raise VerdictFileError(f"metadata.verdicts: verdict file not found: {source}")
        hint = source.name
        for where, row in _rows(source):
            v = parse_line(row, where, hint=hint)
            # a later line wins per dimension (a re-judged sample appended; a second results file)
            out[v.task_id] = _merge(out[v.task_id], v) if v.task_id in out else v
    return out


_CACHE: dict[tuple, dict[str, Verdict]] = {}
_LOCK = threading.Lock()


def verdicts_for(value: str) -> dict[str, Verdict] | None:
    """The verdicts of the files named by the setting ``verdicts`` (read once per file version), or None."""
    import os

    value = (value or "").strip()
    if not value:
        return None
    key_parts = []
    for part in [p for p in value.split(os.pathsep) if p.strip()]:
        path = Path(part).expanduser()
        try:
            stamps = [path.stat().st_mtime] + ([c.stat().st_mtime for c in sorted(path.glob("*.json"))] if path.is_dir() else [])
        except OSError:
            raise VerdictFileError(f"metadata.verdicts: verdict file not found: {path}") from None
        key_parts.append((str(path.resolve()), max(stamps)))
    key = tuple(key_parts)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = load_verdicts(value)
        return _CACHE[key]
