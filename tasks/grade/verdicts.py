"""Pre-computed judge verdicts, so verdicts obtained elsewhere are not paid for twice.

``LMMS_PLUGINS_GRADE_VERDICTS=<file.jsonl>``: one JSON object per line, keyed by ``task_id``::

    {"task_id": "eco_macro_001", "R": 0.8, "C": 2, "L": 2}
    {"task_id": "chemistry_org_004", "answers": [{"id": "Q1", "answer": "Yes"}, ...], "C": "none", "L": 1}

* ``R`` (0..1), or ``answers`` (matched to the sample's questions like a judge reply);
* ``C`` 0/1/2 (``"none"`` or absent for samples whose consistency type is ``none``);
* ``L`` 0/1/2. Long names (``reasoning``, ``consistency``, ``readability``) are accepted too.

Lines of an lmms-eval ``--log_samples`` file of a previous ``grade`` run are accepted as they are
(the per-sample record is found inside), so a judged run can be re-scored offline.
A dimension absent from the file is asked from the judge when one is configured.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VERDICTS_ENV = "LMMS_PLUGINS_GRADE_VERDICTS"
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


def parse_line(row: Any, where: str) -> Verdict:
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


def load_verdicts(path: str | Path) -> dict[str, Verdict]:
    path = Path(path).expanduser()
    if not path.is_file():
        raise VerdictFileError(f"{VERDICTS_ENV}: verdict file not found: {path}")
    out: dict[str, Verdict] = {}
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise VerdictFileError(f"{where}: not JSON ({exc})") from None
            v = parse_line(row, where)
            out[v.task_id] = v  # a later line wins (a re-judged sample appended to the file)
    return out


_CACHE: dict[tuple[str, float], dict[str, Verdict]] = {}
_LOCK = threading.Lock()


def verdicts_from_env() -> dict[str, Verdict] | None:
    """The verdicts named by LMMS_PLUGINS_GRADE_VERDICTS (read once per file version), or None."""
    import os

    value = os.environ.get(VERDICTS_ENV, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    try:
        key = (str(path.resolve()), path.stat().st_mtime)
    except OSError:
        raise VerdictFileError(f"{VERDICTS_ENV}: verdict file not found: {path}") from None
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = load_verdicts(path)
        return _CACHE[key]
