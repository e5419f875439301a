"""Read a CwI answer: the last ``<answer>…</answer>`` span, tokenised into numbers, lists and
named fields.

The official answer spellings are not public, so gold answers and model predictions go through
this same parser, and the task's rule (``rules.py``) decides what shape it needs. Accepted
spellings include ``3,-2``, ``(3, -2)``, ``[3 -2]``, ``dx=3, dy=-2``, ``{"dx": 3, "dy": -2}``,
``45°``, ``12 px``, ``37.5%``, ``[[1,2,3,4],[5,6,7,8]]``, ``rows=[1,0]; cols=[0,1]``.

Linear time on any input: the span is found with ``rfind`` and tokenised by one regular
expression whose alternatives have no nested quantifiers; nesting is handled by an explicit
stack, not recursion.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Union

OPEN_TAG = "<answer>"
CLOSE_TAG = "</answer>"

MAX_DEPTH = 8  # deeper brackets are not an answer any task asks for
MAX_NUMBER_CHARS = 64  # longer digit runs are junk (and int() of 1 MB of digits is slow)
MAX_NUMBERS = 100_000

# Words that only qualify a number; they are dropped.
UNIT_WORDS = frozenset({"px", "pixel", "pixels", "deg", "degree", "degrees", "pp", "percent", "pct"})
# Words that stand for a number after ``name=``.
WORD_VALUES = {"true": 1, "false": 0, "yes": 1, "no": 0}

_MINUSES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe63": "-", "\uff0d": "-"})

# One token per match. Number: optional sign, digits, optional fraction, optional exponent;
# a leading-dot fraction (".5") too. Name: an identifier. Punctuation: one character.
_TOKEN = re.compile(
    r"(?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<punct>[\[\]\(\)\{\}=:,;])"
)

Value = Union[int, float, tuple]  # a number, or a tuple of Values (a bracketed list)

_CLOSERS = {"]": "[", ")": "(", "}": "{"}


@dataclass(frozen=True)
class ParsedAnswer:
    """What the parser read. ``ok`` False means unreadable; ``reason`` says why."""

    ok: bool
    span: str | None  # the text inside the last <answer>…</answer>, or the whole gold string
    items: tuple = ()  # positional values in order (numbers and tuples)
    fields: dict = field(default_factory=dict)  # name (lower case) -> Value
    reason: str = ""


def find_span(text: str) -> str | None:
    """Text inside the last ``<answer>…</answer>`` (tags case-insensitive), or None."""
    low = text.lower()
    close = low.rfind(CLOSE_TAG)
    if close < 0:
        return None
    open_ = low.rfind(OPEN_TAG, 0, close)
    if open_ < 0:
        return None
    return text[open_ + len(OPEN_TAG) : close]


def _number(tok: str) -> int | float:
    if len(tok) > MAX_NUMBER_CHARS:
        raise _Reject(f"number with more than {MAX_NUMBER_CHARS} characters")
    if "." in tok or "e" in tok or "E" in tok:
        v = float(tok)
        if not math.isfinite(v):
            raise _Reject(f"number {tok[:20]!r} is not finite")
        return v
    return int(tok)


class _Reject(Exception):
    pass


def parse_values(span: str) -> ParsedAnswer:
    """Tokenise ``span`` into positional items and named fields."""
    try:
        items, fields = _parse(span)
    except _Reject as exc:
        return ParsedAnswer(False, span, reason=str(exc))
    if not items and not fields:
        what = "empty answer" if not span.strip() else "no number in the answer"
        return ParsedAnswer(False, span, reason=what)
    return ParsedAnswer(True, span, tuple(items), fields)


def _parse(span: str):
    span = span.translate(_MINUSES)
    # stack of [opening bracket, values, field name the list is assigned to]
    stack: list[list] = [["", [], None]]
    fields: dict = {}
    pending: str | None = None  # a name followed by '=' or ':' waiting for its value
    last_name: str | None = None  # the previous token was this name
    n_numbers = 0
    for m in _TOKEN.finditer(span):
        kind = m.lastgroup
        tok = m.group()
        if kind == "num":
            n_numbers += 1
            if n_numbers > MAX_NUMBERS:
                raise _Reject(f"more than {MAX_NUMBERS} numbers")
            value = _number(tok)
            if pending is not None:
                fields[pending] = value
                pending = None
            else:
                stack[-1][1].append(value)
            last_name = None
        elif kind == "name":
            low = tok.lower()
            if pending is not None and low in WORD_VALUES:
                fields[pending] = WORD_VALUES[low]
                pending = None
                last_name = None
            else:
                last_name = None if low in UNIT_WORDS else low
        else:  # punctuation
            if tok in "=:":
                if last_name is not None:
                    pending = last_name
                last_name = None
            elif tok in "[({":
                if len(stack) > MAX_DEPTH:
                    raise _Reject(f"brackets nested deeper than {MAX_DEPTH}")
                stack.append([tok, [], pending])
                pending = None
                last_name = None
            elif tok in "])}":
                if len(stack) == 1 or stack[-1][0] != _CLOSERS[tok]:
                    raise _Reject(f"unbalanced bracket {tok!r}")
                opener, values, name = stack.pop()
                if name is not None:
                    fields[name] = tuple(values)
                elif opener == "{" and not values:
                    pass  # a JSON object: its content went into fields
                else:
                    stack[-1][1].append(tuple(values))
                pending = None
                last_name = None
            else:  # , ;
                pending = None
                last_name = None
    if len(stack) != 1:
        raise _Reject(f"unclosed bracket {stack[-1][0]!r}")
    return stack[0][1], fields


def parse_answer(text: str, *, require_span: bool = True) -> ParsedAnswer:
    """Parse a model output (``require_span``) or a gold string (tags optional).

    A prediction must contain an ``<answer>…</answer>`` span; gold strings are read whole
    when they have none (the official answer column is a bare value).
    """
    if not isinstance(text, str):
        return ParsedAnswer(False, None, reason=f"answer is {type(text).__name__}, not text")
    span = find_span(text)
    if span is None:
        if require_span:
            return ParsedAnswer(False, None, reason="no <answer>…</answer> span")
        span = text
    return parse_values(span)
