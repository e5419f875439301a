"""Reading a judge's answers to GRADE's weighted yes/no questions, and its 0/1/2 scores.

Pure functions on plain values. Every parser raises ``ValueError`` on an answer it cannot use,
which makes the judge client ask again (a wrong number of answers is an error, never a silent 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from lmms_plugins.tasks.grade.records import Question

_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


@dataclass(frozen=True)
class Answer:
    id: str
    yes: bool
    reason: str = ""


@dataclass(frozen=True)
class RubricVerdict:
    score: float  # R = sum of the weights of the questions answered Yes
    answers: tuple[Answer, ...]  # one per question, in the questions' order
    matched_by: str  # "id", "question" or "position": how answers were paired with questions


@dataclass(frozen=True)
class ScaleVerdict:
    score: int  # 0, 1 or 2
    reason: str


def yes_no(value: Any) -> bool:
    """``Yes``/``No`` (any case, trailing punctuation, booleans); anything else is a ValueError."""
    if isinstance(value, bool):
        return value
    word = re.sub(r"[^a-z0-9]+", " ", str(value).lower()).strip()
    first = word.split(" ", 1)[0] if word else ""
    if first in _YES:
        return True
    if first in _NO:
        return False
    raise ValueError(f"answer is neither Yes nor No: {str(value)[:60]!r}")


def _norm_id(value: Any) -> str:
    """'Q1', 'q1', '1', ' Q 1 ' -> '1'; other ids lower-cased without spaces."""
    s = re.sub(r"\s+", "", str(value)).lower()
    m = re.fullmatch(r"(?:q|question)?[#_\-.]?(\d+)", s)
    return str(int(m.group(1))) if m else s


def _norm_text(value: Any) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(value).lower()).strip()


def _items(reply: Any) -> list[dict]:
    if isinstance(reply, dict):  # {"answers": [...]} or {"Q1": "Yes", ...}
        for key in ("answers", "results", "questions", "verdicts"):
            if isinstance(reply.get(key), list):
                reply = reply[key]
                break
        else:
            reply = [{"id": k, "answer": v} for k, v in reply.items()]
    if not isinstance(reply, list):
        raise ValueError(f"expected a JSON list of answers, got {type(reply).__name__}")
    items = []
    for i, item in enumerate(reply, 1):
        if not isinstance(item, dict):
            raise ValueError(f"answer {i} is not an object: {str(item)[:60]!r}")
        low = {str(k).lower(): v for k, v in item.items()}
        if "answer" not in low:
            raise ValueError(f"answer {i} has no 'answer' field: {str(item)[:80]!r}")
        items.append(low)
    return items


def match_answers(questions: Sequence[Question], reply: Any) -> RubricVerdict:
    """Pair the judge's answers with the questions: by id, else by repeated question text, else by position.

    By id when every answer carries an id and the ids are exactly the questions' ids; by question
    text when every answer repeats a distinct question; by position when the counts agree.
    A different number of answers is a ValueError (asked again).
    """
    items = _items(reply)
    n = len(questions)
    if len(items) != n:
        raise ValueError(f"the judge answered {len(items)} question(s), expected {n}")
    order: list[int] | None = None
    matched_by = "position"
    q_ids = [_norm_id(q.id) for q in questions]
    a_ids = [_norm_id(it["id"]) if it.get("id") not in (None, "") else None for it in items]
    if len(set(q_ids)) == n and all(a is not None for a in a_ids) and sorted(a_ids) == sorted(q_ids):
        index = {a: i for i, a in enumerate(a_ids)}
        order, matched_by = [index[q] for q in q_ids], "id"
    else:
        q_texts = [_norm_text(q.question) for q in questions]
        a_texts = [_norm_text(it.get("question", "")) for it in items]
        if len(set(q_texts)) == n and sorted(a_texts) == sorted(q_texts):
            index = {a: i for i, a in enumerate(a_texts)}
            order, matched_by = [index[q] for q in q_texts], "question"
    if order is None:
        order = list(range(n))
    answers = []
    for q, pos in zip(questions, order):
        item = items[pos]
        try:
            yes = yes_no(item["answer"])
        except ValueError as exc:
            raise ValueError(f"question {q.id}: {exc}") from None
        answers.append(Answer(id=q.id, yes=yes, reason=str(item.get("reason", ""))[:500]))
    score = sum(q.score for q, a in zip(questions, answers) if a.yes)
    return RubricVerdict(score=score, answers=tuple(answers), matched_by=matched_by)


def parse_scale(reply: Any) -> ScaleVerdict:
    """A 0/1/2 score from ``{"score": n, "reason": ...}`` (``Final Score`` accepted for official prompts)."""
    if isinstance(reply, list) and len(reply) == 1:
        reply = reply[0]
    if not isinstance(reply, dict):
        raise ValueError(f"expected a JSON object with a score, got {type(reply).__name__}")
    low = {re.sub(r"[\s_]+", "", str(k).lower()): v for k, v in reply.items()}
    for key in ("score", "finalscore", "rating"):
        if key in low:
            raw = low[key]
            break
    else:
        raise ValueError(f"no 'score' in the judge's object: {str(reply)[:80]!r}")
    if isinstance(raw, bool):
        raise ValueError(f"score must be 0, 1 or 2, got {raw!r}")
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValueError(f"score must be 0, 1 or 2, got {raw!r}") from None
    if value not in (0.0, 1.0, 2.0):
        raise ValueError(f"score must be 0, 1 or 2, got {raw!r}")
    reason = low.get("reason", "")
    return ScaleVerdict(score=int(value), reason=str(reason)[:500])
