"""Read a CwI answer: the last ``<answer>…</answer>`` span, tokenised into numbers, lists and
named fields.

The official answer spellings are not public, so gold answers and model predictions go through
this same parser, and the task's rule (``rules.py``) decides what shape it needs. Accepted
spellings include ``3,-2``, ``(3, -2)``, ``[3 -2]``, ``dx=3, dy=-2``, ``{"dx": 3, "dy": -2}``,
``45°``, ``12 px``, ``37.5%``, ``[[1,2,3,4],[5,6,7,8]]``, ``rows=[1,0]; cols=[0,1]``.

Linear time on any input: the span is found with ``rfind`` and tokenised by one regular
expression whose alternatives have no nested quantifiers; nesting is handled by an explicit
stack, not recursion. The scorer's direct route (``rules.score``) first tries
:func:`common_shape`, which reads the common spellings with one match and returns what the
tokeniser would.
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
_FINDALL_MAX_CHARS = 65_536  # longer spans are tokenised as a stream (bounded memory)

# Words that only qualify a number; they are dropped.
UNIT_WORDS = frozenset({"px", "pixel", "pixels", "deg", "degree", "degrees", "pp", "percent", "pct"})
# Words that stand for a number after ``name=``.
WORD_VALUES = {"true": 1, "false": 0, "yes": 1, "no": 0}

_MINUSES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe63": "-", "\uff0d": "-"})

# One token per match. Number: optional sign, digits, optional fraction, optional exponent;
# a leading-dot fraction (".5") too. Hex colour: "#7840c8" (three 0-255 channels). Name: an
# identifier. Punctuation: one character.
_TOKEN = re.compile(
    r"(?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<hex>#[0-9A-Fa-f]{6}(?![0-9A-Za-z_]))"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<punct>[\[\]\(\)\{\}=:,;%])"
)

Value = Union[int, float, tuple]  # a number, or a tuple of Values (a bracketed list)

_CLOSERS = {"]": "[", ")": "(", "}": "{"}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# "1. 120\n2. 64": list markers at line starts (a dot or parenthesis followed by a space)
_LIST_MARKER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)](?=[ \t])")
# "1,234" / "12,345.5": one number with thousands separators (the whole span, plus a unit)
_GROUPED = re.compile(r"\s*(?:[A-Za-z_]{1,20}\s*[:=]?\s*)?([-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?)\s*(?:%|px|pixels?)?\s*")


# Spellings read by rewriting the span before it is tokenised (README.md, "Accepted answer
# formats"): LaTeX markup, angles in radians, unit suffixes on names, markdown tables. A span
# without any of these hints is not touched (and is the only kind the fast paths read).
_SIGNED = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
# \frac{3}{4} is a number; \boxed{…}, \text{…}, \mathrm{…} only group (innermost first)
_TEX_FRAC = re.compile(rf"\\[dt]?frac\s*\{{\s*({_SIGNED})\s*\}}\s*\{{\s*({_SIGNED})\s*\}}")
_TEX_GROUP = re.compile(r"\\[A-Za-z]+\s*\{([^{}]*)\}")
_TEX_SIZING = re.compile(r"\\(?:left|right|big|Big)(?![A-Za-z])|\\[()\[\]]")  # and \( \) \[ \] math delimiters
_TEX_DEGREE = re.compile(r"\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))")
# "0.276 rad": an angle in radians; every angle the tasks ask for is in degrees
_RADIANS = re.compile(rf"(?<![\w.])({_SIGNED})\s*(?:rad|radians?)(?![A-Za-z])", re.I)
# "theta_deg", "length_px": the unit is not part of the name
_UNIT_SUFFIX = re.compile(r"(?<=[A-Za-z0-9])_(?:deg|degrees|px|pixels|pct|percent)\b", re.I)
_TABLE_RULE = re.compile(r"^[\s|:]*-[\s|:-]*$")  # "|---|---|", "|:--:|:--|"


def _unit_suffix(span: str) -> bool:
    return ("_d" in span or "_p" in span or "_D" in span or "_P" in span) and _UNIT_SUFFIX.search(span) is not None


def _rewritten(span: str) -> bool:
    """Whether :func:`_rewrite` may change ``span`` (substring tests first: this runs on every
    answer, and the common ones have none of these)."""
    return ("\\" in span or "|" in span or (("ad" in span or "AD" in span) and _RADIANS.search(span) is not None)
            or _unit_suffix(span))


def _rewrite(span: str) -> str:
    """The span with the spellings above written plainly (the README lists them)."""
    if "\\" in span:
        span = _TEX_FRAC.sub(lambda m: repr(_number(m.group(1)) / _number(m.group(2)))
                             if float(m.group(2)) != 0 else m.group(0), span)
        span = _TEX_SIZING.sub(" ", _TEX_DEGREE.sub("\u00b0", span.replace("\\%", "%")))
        for _ in range(MAX_DEPTH):
            span, n = _TEX_GROUP.subn(r" \1 ", span)
            if not n:
                break
    if "ad" in span or "AD" in span:
        span = _RADIANS.sub(lambda m: f"{round(math.degrees(float(m.group(1))), 6)!r}\u00b0", span)
    if "_" in span:
        span = _UNIT_SUFFIX.sub("", span)
    if "|" in span:
        span = _table(span)
    return span


def _table(span: str) -> str:
    """A markdown table ("| R | G | B |", "|---|---|---|", "| 19 | 225 | 120 |") as what it says:
    one data row is its header's named values ("R=19; G=225; B=120"), several rows one list per
    row in order. Text outside the table stays; a span without a rule line is not a table."""
    lines = span.split("\n")
    rows = [i for i, ln in enumerate(lines) if "|" in ln]
    if len(rows) < 3 or not any(_TABLE_RULE.match(lines[i]) for i in rows):
        return span
    cells = {i: [c.strip() for c in lines[i].strip().strip("|").split("|")] for i in rows}
    header, body = rows[0], [i for i in rows[1:] if not _TABLE_RULE.match(lines[i])]
    names = [re.sub(r"\W+", "_", c).strip("_") for c in cells[header]]
    keys = [re.sub(r"\W+", "_", cells[i][0]).strip("_") if len(cells[i]) == 2 else "" for i in body]
    if len(body) == 1 and len(cells[body[0]]) == len(names) and all(names):
        text = "; ".join(f"{n}={v}" for n, v in zip(names, cells[body[0]]))
    elif len(names) == 2 and all(k and not k[0].isdigit() for k in keys):  # "| field | value |" rows
        text = "; ".join(f"{k}={cells[i][1]}" for k, i in zip(keys, body))
    else:
        first = [cells[i][0] for i in body]
        if len(body) >= 2 and all(len(cells[i]) >= 2 for i in body) and first[0] in ("0", "1") \
                and first == [str(int(first[0]) + j) for j in range(len(body))]:
            body_cells = [cells[i][1:] for i in body]  # a row-number column, like list markers
        else:
            body_cells = [cells[i] for i in body]
        text = ", ".join("[" + ", ".join(c) + "]" for c in body_cells)
    out = [ln for i, ln in enumerate(lines) if i not in cells]
    out.insert(min(rows[0], len(out)), text)
    return "\n".join(out)


# Number words, read only when an answer has no digit at all ("twenty-four", "one hundred and
# five"); next to digits a word such as "one" is prose ("[-109] (one ghost)").
_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALES = {"hundred": 100, "thousand": 1000}
_WORD = "|".join(sorted([*_SMALL, *_TENS, *_SCALES], key=len, reverse=True))
_NUMBER_WORDS = re.compile(rf"(?<![A-Za-z])(?:{_WORD})(?:(?:[ \t]+(?:and[ \t]+)?|-)(?:{_WORD}))*(?![A-Za-z])", re.I)


def _words_value(words: str) -> int:
    total = current = 0
    for w in re.findall(r"[a-z]+", words.lower()):
        if w in _SMALL or w in _TENS:
            current += _SMALL.get(w, _TENS.get(w, 0))
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w == "thousand":
            total, current = total + max(current, 1) * 1000, 0
    return total + current


class Obj(tuple):
    """The values of a JSON object that is an item of a list, in order, with their names."""

    names: tuple = ()

    def __new__(cls, values, names):
        obj = tuple.__new__(cls, values)
        obj.names = tuple(names)
        return obj

    def get(self, name):
        return self[self.names.index(name)] if name in self.names else None


class Paren(tuple):
    """A list written in parentheses, ``(3, -2)``: a tuple such as one point, where the rule
    needs to tell it from a bracketed list of values."""


@dataclass(frozen=True)
class ParsedAnswer:
    """What the parser read. ``ok`` False means unreadable; ``reason`` says why.

    Besides positional ``items`` and named ``fields``: ``loose`` maps a name written right
    before a number without ``=``/``:`` (``scale 1.30``) to that number's index in ``items``;
    ``tails`` maps a named field to the indices of the positional numbers that follow its value
    after commas (``rows: 2, 0, 3``); ``clashes`` holds names given two different values;
    ``percent`` says a ``%`` sign was written."""

    ok: bool
    span: str | None  # the text inside the last <answer>…</answer>, or the whole gold string
    items: tuple = ()  # positional values in order (numbers and tuples)
    fields: dict = field(default_factory=dict)  # name (lower case) -> Value
    reason: str = ""
    loose: dict = field(default_factory=dict)
    tails: dict = field(default_factory=dict)
    clashes: set = field(default_factory=set)
    percent: bool = False

    @property
    def grouped(self) -> int | float | None:
        """The value of a span that is one number with thousands separators ("1,234",
        "length: 1,234 px"), else None."""
        if self.span is None or "," not in self.span or len(self.span) >= 40:
            return None
        m = _GROUPED.fullmatch(self.span)
        return _number(m.group(1).replace(",", "")) if m else None


def frozen_new(cls, **values):
    """An instance of the frozen dataclass ``cls``, every field given: what its generated
    ``__init__`` does (one ``object.__setattr__`` per field), in one dict update and ~3x faster.
    Used for the one result built per scored answer (issue 16.11); no ``__post_init__``, no slots
    (tests/cwi/test_answer_fast_path.py checks it equals the constructor)."""
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def find_span(text: str) -> str | None:
    """Text inside the last ``<answer>…</answer>`` (tags case-insensitive), or None.

    Only ASCII letters are lowered, so offsets in the lowered copy are offsets in ``text``
    (``str.lower`` turns "İ" into two characters).

    The common case is read without lowering a copy: when the exact-case tags are found and no
    '<' follows the close tag or lies between the two tags, no other-case tag can be the last."""
    close = text.rfind(CLOSE_TAG)
    if close >= 0 and text.find("<", close + 1) < 0:
        open_ = text.rfind(OPEN_TAG, 0, close)
        if open_ >= 0 and text.find("<", open_ + 1, close) < 0:
            return text[open_ + len(OPEN_TAG) : close]
    low = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
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


def parse_values(span: str, *, number_words: bool = False) -> ParsedAnswer:
    """Tokenise ``span`` into positional items and named fields. ``number_words``: read
    "twenty-four" where no digit is written (a model's spelling; gold strings are digits)."""
    try:
        items, fields, loose, tails, clashes, percent = _parse(span)
    except _Reject as exc:
        return ParsedAnswer(False, span, reason=str(exc))
    if number_words and not items and not fields and not any(c.isdigit() for c in span):
        words = _NUMBER_WORDS.sub(lambda m: f" {_words_value(m.group(0))} ", span)
        if words != span:  # "twenty-four": number words, where no digit is written
            try:
                items, fields, loose, tails, clashes, percent = _parse(words)
            except _Reject as exc:
                return ParsedAnswer(False, span, reason=str(exc))
    if not items and not fields:
        what = "empty answer" if not span.strip() else "no number in the answer"
        return ParsedAnswer(False, span, reason=what)
    return frozen_new(ParsedAnswer, ok=True, span=span, items=tuple(items), fields=fields, reason="",
                      loose=loose, tails=tails, clashes=clashes, percent=percent)


def _parse(span: str) -> tuple:
    if not span.isascii():
        span = span.translate(_MINUSES)
    if _rewritten(span):
        span = _rewrite(span)
    if "\n" in span and ("." in span or ")" in span):
        markers = _LIST_MARKER.findall(span)
        if len(markers) >= 2 and markers[0].strip()[:-1] in ("0", "1"):
            span = _LIST_MARKER.sub(" ", span)
    if len(span) <= FAST_MAX_CHARS:
        fast = _parse_fast(span)
        if fast is not None:
            return fast
    return _parse_tokens(span)


# Fast paths for the common shapes (issue 16.11): the token loop below costs ~1 us per token in
# Python. Each pattern admits only spans on which that loop provably takes one simple route, and
# the result is built as the loop would build it (tests/cwi/test_answer_fast_path.py checks that
# both agree on generated spans). Anything else goes to the loop.
FAST_MAX_CHARS = 2000  # far under MAX_NUMBERS numbers, so that limit cannot be reached here
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_NUM_RE = re.compile(_NUM)
# A unit word as the loop reads it: a whole name (no letter, digit or '_' after it, no letter or
# '_' before it) that it drops without touching any state. None starts with 'e', so no number
# before it can have read it as an exponent.
_UNIT = r"(?<![A-Za-z_])(?i:px|pixels?|deg|degrees?|pp|percent|pct)(?![A-Za-z_0-9])"
# Characters the loop skips or that change nothing when no name is pending: signs and dots that
# start no number, ',' (resets only name state), '%' (sets `percent` only), spaces, '°', units;
# written as character-class runs between units (a class run is what the regex engine does fast).
_FILL = rf"[-+.,%\s\u00b0]*(?:{_UNIT}[-+.,%\s\u00b0]*)*"
_LIST = r"[-+.,\s]*\d[-+.,\d\s]*"  # the inside of a bracket with at least one number
# 1. numbers only (no letter but unit words, so no exponent, name or hex; no '=', ':', ';', '{'),
#    inside at most one pair of [] or (): the loop appends every number to the current list.
#    Leading spaces belong to the bracket or to the fill, the part before the first digit has no
#    digit, and the fill after a bracket no digit: a failing match backtracks in linear time.
_FAST_NUMBERS = re.compile(
    rf"(?:\s*(\[)|\s*(\())?{_FILL}\d[-+.,%\d\s\u00b0]*(?:{_UNIT}[-+.,%\d\s\u00b0]*)*(?(1)\]{_FILL}|(?(2)\){_FILL}|))")
# 2. bracketed groups of numbers: "[[0,3],[2,1]]" (one item: a tuple of groups), "(1, 2), (3, 4)"
#    or "[1,2] [3,4]" (one item per group); a group in () is a Paren, in [] a tuple.
_GROUP = rf"(?:\[{_LIST}\]|\({_LIST}\))"
# (separators "\s*(?:,\s*)?" split a run of spaces one way only: no exponential backtracking)
_FAST_GROUPS = re.compile(rf"\s*(?:(\[)\s*{_GROUP}(?:\s*(?:,\s*)?{_GROUP})*\s*\]|{_GROUP}(?:\s*(?:,\s*)?{_GROUP})+)\s*")
_GROUP_RE = re.compile(r"([\[(])([^\[\]()]*)[\])]")
# 3. named values: "name=1, other: -2.5°; rows=[2, 0, 1]; cols: 1 2 0". Names are whole
#    (followed by = or :); a value is one number (whole: followed by a separator, a unit or the
#    end), a space-separated run of numbers (the loop extends the field into a tuple) or a
#    bracketed list of numbers (a tuple, also in parentheses), possibly empty.
_RUN = rf"{_NUM}(?:\s+{_NUM})*(?:\s*(?:[%\u00b0]|{_UNIT}))?"
_PAIR = rf"[A-Za-z_][A-Za-z_0-9]*\s*[=:]\s*(?:\[[-+.,\d\s]*\]|\([-+.,\d\s]*\)|{_RUN})"
_FAST_FIELDS = re.compile(rf"\s*{_PAIR}(?:\s*[,;]\s*{_PAIR})*\s*")
# 3b. the most common of them, one plain number per name ("dx=3, dy=-2"), with a plainer pattern
_SCALAR_PAIR = rf"[A-Za-z_][A-Za-z_0-9]*\s*[=:]\s*{_NUM}"
_FAST_SCALARS = re.compile(rf"\s*{_SCALAR_PAIR}(?:\s*[,;]\s*{_SCALAR_PAIR})*\s*")
_FAST_SCALAR = re.compile(rf"([A-Za-z_][A-Za-z_0-9]*)\s*[=:]\s*({_NUM})")
# the same pairs with groups, read once the whole span matched (so brackets are matched pairs)
_FAST_FIELD = re.compile(rf"([A-Za-z_][A-Za-z_0-9]*)\s*[=:]\s*(?:([\[(])([-+.,\d\s]*)[\])]|({_RUN}))")


def _parse_fast(span: str) -> tuple | None:
    """What :func:`_parse_tokens` returns for a span of one of the common shapes, else None."""
    if span.isdecimal() and len(span) <= MAX_NUMBER_CHARS:  # "7" (int() reads every Nd digit, as \d)
        return [int(span)], {}, {}, {}, set(), False
    m = _FAST_NUMBERS.fullmatch(span)
    if m is not None:
        values = [_number(t) for t in _NUM_RE.findall(span)]
        if m.group(1) is not None:
            items = [tuple(values)]
        elif m.group(2) is not None:
            items = [Paren(values)]
        else:
            items = values
        return items, {}, {}, {}, set(), "%" in span
    if "=" not in span and ":" not in span:
        m = _FAST_GROUPS.fullmatch(span)
        if m is None:
            return None
        groups = [Paren(vals) if opener == "(" else tuple(vals)
                  for opener, inner in _GROUP_RE.findall(span if m.group(1) is None else span[span.index("[") + 1:])
                  for vals in ([_number(t) for t in _NUM_RE.findall(inner)],)]
        return ([tuple(groups)] if m.group(1) is not None else groups), {}, {}, {}, set(), False
    if "[" not in span and "(" not in span:  # (the general pattern costs more than the loop here)
        return _parse_scalars(span) if _FAST_SCALARS.fullmatch(span) is not None else None
    if _FAST_FIELDS.fullmatch(span) is None:
        return None
    fields: dict = {}
    clashes: set = set()
    for name, opener, inner, run in _FAST_FIELD.findall(span):
        name = name.lower()
        if name in UNIT_WORDS:
            return None  # a unit word is not a name for the loop: its number is positional
        if opener:  # name=[...]: the list closes into the field, whole
            value = tuple(_number(t) for t in _NUM_RE.findall(inner))
            if name in fields and fields[name] != value:
                clashes.add(name)
            fields[name] = value
            continue
        first, *more = (_number(t) for t in _NUM_RE.findall(run))
        if name in fields and fields[name] != first:
            clashes.add(name)
        fields[name] = first
        for v in more:  # "rows: 2 0 3": the run extends the field
            old = fields[name]
            fields[name] = (old if isinstance(old, tuple) else (old,)) + (v,)
    return [], fields, {}, {}, clashes, "%" in span


def _parse_scalars(span: str) -> tuple | None:
    """_parse_fast for a span that matched _FAST_SCALARS."""
    fields: dict = {}
    clashes: set = set()
    for name, tok in _FAST_SCALAR.findall(span):
        name = name.lower()
        if name in UNIT_WORDS:
            return None  # a unit word is not a name for the loop: its number is positional
        value = _number(tok)
        if name in fields and fields[name] != value:
            clashes.add(name)
        fields[name] = value
    return [], fields, {}, {}, clashes, False


# Common shapes read in one regular-expression match (issue 16.11), for the scorer's direct route
# (rules.score): the same items and fields the tokeniser reads, built without its per-token loop.
# Each pattern admits only ASCII spans (plus '°') without a newline, so neither the minus
# translation nor the list-marker rewrite of _parse applies, and only spans on which the
# tokeniser provably takes one simple route: no exponent, name or hex colour next to a number,
# no loose name, no tail after a named value, no name given twice (those go to parse_values).
# Possessive quantifiers: a failing match is linear, and a number is cut where the tokeniser
# cuts it. tests/cwi/test_direct_route.py checks the readings against the tokeniser.
_S = r"[ \t]*+"
_N = r"[-+]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)"
_U = r"(?:[ \t]*+(?:%|\u00b0|(?:px|pixels?|deg(?:rees?)?)(?![A-Za-z0-9_])))?+"  # dropped, '%' noted
# numbers, each with its unit, apart by a comma, spaces or nothing before a sign ("70-2" is 70, -2)
_L = rf"{_N}{_U}(?:(?:{_S},{_S}|[ \t]++|(?=[-+])){_N}{_U})*+"
_W = r"(?:[A-Za-z]++[ \t]*+)?+"  # a word before a bracket ("RGB(1, 2, 3)", "to"): changes nothing
_G = rf"(?:\[{_S}{_L}{_S}\]|\({_S}{_L}{_S}\))"
_SHAPE_NUMBERS = re.compile(rf"{_S}(?:{_W}(?:(\[){_S}{_L}{_S}\]|(\(){_S}{_L}{_S}\)){_U}|{_L}){_S}")
_SHAPE_GROUPS = re.compile(
    rf"{_S}(?:{_W}(\[){_S}{_G}(?:{_S},?+{_S}{_W}{_G})*+{_S}\]|{_W}{_G}(?:{_S},?+{_S}{_W}{_G})++){_U}{_S}")
_PAIR_VALUE = rf"(?:{_N}(?:[ \t]++{_N})*+{_U}|\[{_S}(?:{_L}{_S})?\]|\({_S}(?:{_L}{_S})?\))"
_SHAPE_NAMED = re.compile(
    rf"{_S}[A-Za-z_][A-Za-z_0-9]*+{_S}[=:]{_S}{_PAIR_VALUE}(?:{_S}[,;]{_S}[A-Za-z_][A-Za-z_0-9]*+{_S}[=:]{_S}{_PAIR_VALUE})*+{_S}")
_NAMED_PAIR = re.compile(rf"([A-Za-z_][A-Za-z_0-9]*){_S}[=:]{_S}(?:[\[(]([^\])]*)[\])]|({_N})((?:[ \t]++{_N})*+))")
_KV = rf'"[A-Za-z_][A-Za-z_0-9]*+"{_S}:{_S}{_N}'
_OBJ = rf"\{{{_S}{_KV}(?:{_S},{_S}{_KV})*+{_S}\}}"
_SHAPE_OBJECTS = re.compile(rf"{_S}(?:\[{_S}{_OBJ}(?:{_S},{_S}{_OBJ})*+{_S}\]|({_OBJ})){_S}")
_KV_PAIR = re.compile(rf'"([A-Za-z_][A-Za-z_0-9]*)"{_S}:{_S}({_N})')
_OBJ_BODY = re.compile(r"\{([^{}]*)\}")


def _numbers(tokens: list, span: str) -> list:
    """``[_number(t) for t in tokens]`` for the tokens of a common shape (no exponent, so every
    float is finite)."""
    if len(span) > MAX_NUMBER_CHARS and any(len(t) > MAX_NUMBER_CHARS for t in tokens):
        raise _Reject(f"number with more than {MAX_NUMBER_CHARS} characters")
    if "." not in span:
        return list(map(int, tokens))
    return [float(t) if "." in t else int(t) for t in tokens]


_NO_LOOSE: dict = {}  # (never written: shared by the shapes without loose names)
_LOOSE_ONE = rf"[A-Za-z_][A-Za-z_0-9]*+[ \t]++{_N}{_U}"
_SHAPE_LOOSE = re.compile(rf"{_S}{_LOOSE_ONE}(?:{_S}[,;]{_S}{_LOOSE_ONE})*+{_S}")
_LOOSE_PAIR = re.compile(rf"([A-Za-z_][A-Za-z_0-9]*)[ \t]+({_N})")


def _read_numbers(text: str) -> list:
    """The numbers the tokeniser reads in ``text``, a piece of a common shape: integers apart by
    commas or by spaces are read by int() (which takes the spaces around them), anything else
    (a dot, a unit, a sign as separator) as _NUM_RE finds it."""
    if "." not in text and len(text) <= MAX_NUMBER_CHARS:
        try:
            return list(map(int, text.split(",") if "," in text else text.split()))
        except ValueError:
            pass
    return _numbers(_NUM_RE.findall(text), text)


def common_shape(span: str) -> tuple | None:
    """``(items, fields, percent, loose)`` as the tokeniser reads ``span`` when it is of a common
    shape (its ``tails`` and ``clashes`` are then empty), else None. Shapes: numbers, bare or
    in one bracket with a word before it (``3,-2``, ``[2 0 1]``, ``(240, 130) px``, ``45°``,
    ``RGB(1, 2, 3)``); bracketed groups (``[[0,3],[2,1]]``, ``(1,2) to (3,4)``); named values
    (``dx=3, dy=-2``, ``rows=[2,0,1]; cols: 1 2 0``); JSON objects of numbers, alone or listed;
    names before numbers (``scale 1.2, angle 45°``, the names loose). None for every span that
    _rewrite would change: no pattern admits a backslash, a '|' or a word after a number, and the
    shapes with names check for unit suffixes.
    May raise _Reject (a number too long), as the tokeniser would."""
    if len(span) > FAST_MAX_CHARS:
        return None
    if span.isdigit() and span.isascii() and len(span) <= MAX_NUMBER_CHARS:
        return [int(span)], {}, False, _NO_LOOSE
    # the first character rules out most shapes (a failed match costs as much as a good one)
    first = span.lstrip(" \t")[:1]
    if first in _STARTS_NUMBER:
        return _numbers_shape(span)
    if first == "[" or first == "(":
        return _numbers_shape(span) or _groups_shape(span) or (_objects_shape(span) if '"' in span else None)
    if first == "{":
        return _objects_shape(span) if '"' in span else None
    if not first or not (first.isascii() and (first.isalpha() or first == "_")):
        return None
    if "=" in span or ":" in span:
        return _named_shape(span)
    if "[" in span or "(" in span:  # "RGB(1, 2, 3)", "box (1,2) to (3,4)"
        return _numbers_shape(span) or _groups_shape(span)
    return _loose_shape(span)


_STARTS_NUMBER = frozenset("0123456789+-.")


# Spans of these characters only hold numbers for the tokeniser (',' resets nothing there, a sign
# or dot that starts no number is skipped, '%' is noted, '°' skipped): its numbers are what
# _NUM_RE finds, whatever the spacing ("3,-2", "1.2.3", "3 - 2"). One bracket pair may enclose them.
_PLAIN_CHARS = re.compile(r"[ \t]*+([\[(]?+)[-+0-9., \t%\u00b0]*+([\])]?+)[ \t]*+")


def _numbers_shape(span: str) -> tuple | None:
    m = _PLAIN_CHARS.fullmatch(span)
    if m is not None:
        opener, closer = m.groups()
        if (opener == "[") == (closer == "]") and (opener == "(") == (closer == ")"):
            values = _read_numbers(span[m.end(1):m.start(2)])
            if not values:
                return None  # no number: the general route says so
            if opener:
                values = [tuple(values) if opener == "[" else Paren(values)]
            return values, {}, "%" in span, _NO_LOOSE
    m = _SHAPE_NUMBERS.fullmatch(span)
    if m is None:
        return None
    values = _numbers(_NUM_RE.findall(span), span)
    if m.group(1) is not None:
        values = [tuple(values)]
    elif m.group(2) is not None:
        values = [Paren(values)]
    return values, {}, "%" in span, _NO_LOOSE


def _named_shape(span: str) -> tuple | None:
    if _unit_suffix(span):
        return None  # "theta_deg": rewritten first (_parse), then tokenised
    if _SHAPE_NAMED.fullmatch(span) is None:
        return None
    fields: dict = {}
    n = 0
    for name, inner, first, run in _NAMED_PAIR.findall(span):
        n += 1
        name = name.lower()
        if name in UNIT_WORDS:
            return None  # not a name for the tokeniser: its number is positional
        if not first:  # name=[...] or name=(...): the list, whole, as a tuple
            fields[name] = tuple(_read_numbers(inner))
        elif run:  # "rows: 2 0 3": a run of numbers extends the field into a tuple
            fields[name] = tuple(_read_numbers(first + run))
        else:
            fields[name] = int(first) if "." not in first and len(first) <= MAX_NUMBER_CHARS else _number(first)
    return None if len(fields) != n else ([], fields, "%" in span, _NO_LOOSE)  # a name twice: the loop


def _groups_shape(span: str) -> tuple | None:
    m = _SHAPE_GROUPS.fullmatch(span)
    if m is None:
        return None
    outer = m.group(1) is not None
    groups = [Paren(vals) if opener == "(" else tuple(vals)
              for opener, inner in _GROUP_RE.findall(span[span.index("[") + 1:] if outer else span)
              for vals in (_read_numbers(inner),)]
    return ([tuple(groups)] if outer else groups), {}, "%" in span, _NO_LOOSE


def _objects_shape(span: str) -> tuple | None:
    if _unit_suffix(span):
        return None  # "theta_deg": rewritten first (_parse), then tokenised
    m = _SHAPE_OBJECTS.fullmatch(span)
    if m is None:
        return None
    objs = []
    for body in _OBJ_BODY.findall(span):
        names: dict = {}
        for key, tok in _KV_PAIR.findall(body):
            key = key.lower()
            if key in UNIT_WORDS:
                return None  # not a name for the tokeniser: its number is positional
            # (a repeated name keeps its place and takes the last value)
            names[key] = int(tok) if "." not in tok and len(tok) <= MAX_NUMBER_CHARS else _number(tok)
        objs.append(names)
    if m.group(1) is not None:  # one object, not in a list: its names are the fields
        names = objs[0]
        return None if len(names) != m.group(1).count(":") else ([], names, False, _NO_LOOSE)
    return [tuple(Obj(tuple(d.values()), tuple(d)) for d in objs)], {}, False, _NO_LOOSE


def _loose_shape(span: str) -> tuple | None:
    """"scale 1.2, angle 45°": each number positional, its name loose."""
    if _unit_suffix(span):
        return None  # rewritten first (_parse), then tokenised
    if _SHAPE_LOOSE.fullmatch(span) is None:
        return None
    loose: dict = {}
    values = []
    for name, tok in _LOOSE_PAIR.findall(span):
        name = name.lower()
        if name in UNIT_WORDS:
            return None  # drops out for the tokeniser: its number is unnamed
        loose.setdefault(name, len(values))
        values.append(tok)
    return _numbers(values, span), {}, "%" in span, loose


def _parse_tokens(span: str) -> tuple:
    """The general tokeniser: any span (see the module docstring)."""
    # frame: [opening bracket, values, field name the list is assigned to, names of an object
    # inside a list (None elsewhere: a top-level object's names are the answer's fields),
    # whether any number was seen inside]
    root = ["", [], None, None, False]
    stack: list[list] = [root]
    frame = root  # stack[-1], kept in step with the stack
    fields: dict = {}
    loose: dict = {}
    tails: dict = {}
    clashes: set = set()
    percent = False
    pending: str | None = None  # a name followed by '=' or ':' waiting for its value
    last_name: str | None = None  # the previous token was this name
    run: str | None = None  # the field whose value the previous number was (space-separated runs)
    tail: str | None = None  # the top-level field that comma-separated numbers may continue
    n_numbers = 0

    # findall's group tuples (one group non-empty) cost less than Match objects per token; a long
    # span is streamed instead, so memory stays bounded (and MAX_NUMBERS stops it early)
    if len(span) <= _FINDALL_MAX_CHARS:
        tokens = _TOKEN.findall(span)
    else:
        tokens = (m.groups("") for m in _TOKEN.finditer(span))
    for num, hexcol, word, tok in tokens:
        if num:
            n_numbers += 1
            if n_numbers > MAX_NUMBERS:
                raise _Reject(f"more than {MAX_NUMBERS} numbers")
            value = _number(num)
            frame[4] = True
            if pending is not None:
                target = fields if frame[3] is None else frame[3]
                if pending in target and target is fields and fields[pending] != value:
                    clashes.add(pending)
                target[pending] = value
                run, tail = pending, (pending if frame is root else None)
                pending = None
            elif run is not None and run in (target := fields if frame[3] is None else frame[3]):
                old = target[run]  # "rows: 2 0 3 1": a space-separated run is one list
                target[run] = (old if isinstance(old, tuple) else (old,)) + (value,)
            else:
                # (``run``, ``last_name`` and ``tail`` are reset by every token that ends them, so
                # each being set says what came just before: a number, a name, a comma)
                if last_name is not None and frame is root:
                    loose.setdefault(last_name, len(frame[1]))
                if tail is not None and frame is root:
                    tails.setdefault(tail, []).append(len(frame[1]))
                else:
                    tail = None
                frame[1].append(value)
                run = None
            last_name = None
        elif word:
            low = word.lower()
            if pending is not None and low in WORD_VALUES:
                (fields if frame[3] is None else frame[3])[pending] = WORD_VALUES[low]
                pending = None
                last_name = None
            elif low in UNIT_WORDS:
                last_name = None  # "3 px -2 px" continues like "3 -2": run and tail kept
            else:
                last_name = low
                run = tail = None
        elif tok:  # punctuation
            if tok == "%":
                percent = True  # a unit: "37 %, 12" continues like "37, 12"
                continue
            if tok in "=:":
                if last_name is not None:
                    pending = last_name
                last_name = None
                run = tail = None
            elif tok in "[({":
                if len(stack) > MAX_DEPTH:
                    raise _Reject(f"brackets nested deeper than {MAX_DEPTH}")
                in_list = tok == "{" and any(f[0] in "[(" and f[0] for f in stack)
                frame = [tok, [], pending, {} if in_list else None, False]
                stack.append(frame)
                pending = last_name = run = tail = None
            elif tok in "])}":
                if frame is root or frame[0] != _CLOSERS[tok]:
                    raise _Reject(f"unbalanced bracket {tok!r}")
                opener, values, name, names, numeric = stack.pop()
                parent = frame = stack[-1]
                parent[4] = parent[4] or numeric
                target = parent[3] if parent[3] is not None else fields
                if names is not None:  # an object inside a list: one item, its names kept
                    if names or values:
                        parent[1].append(Obj(tuple(names.values()) + tuple(values), tuple(names)))
                elif name is not None:
                    if name in target and target is fields and fields[name] != tuple(values):
                        clashes.add(name)
                    target[name] = tuple(values)
                elif opener == "{" and not values:
                    pass  # a top-level JSON object: its content went into fields
                elif numeric:
                    parent[1].append(Paren(values) if opener == "(" else tuple(values))
                # else: a bracket with no number in it ("(see above)") is prose, not a value
                pending = last_name = run = tail = None
            else:  # , ;
                pending = None
                last_name = None
                run = None
                if tok == ";":
                    tail = None
        else:  # a hex colour
            frame[1].append(tuple(int(hexcol[i:i + 2], 16) for i in (1, 3, 5)))
            frame[4] = True
            pending = last_name = run = tail = None
    if len(stack) != 1:
        raise _Reject(f"unclosed bracket {stack[-1][0]!r}")
    return stack[0][1], fields, loose, ({k: tuple(v) for k, v in tails.items()} if tails else tails), clashes, percent


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
    return parse_values(span, number_words=require_span)
