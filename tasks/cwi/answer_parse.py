"""Read a CwI answer: the last ``<answer>…</answer>`` span, tokenised into numbers, lists and
named fields.

The official answer spellings are not public, so gold answers and model predictions go through
this same parser, and the task's rule (``rules.py``) decides what shape it needs. Accepted
spellings include ``3,-2``, ``(3, -2)``, ``[3 -2]``, ``dx=3, dy=-2``, ``{"dx": 3, "dy": -2}``,
``45°``, ``12 px``, ``37.5%``, ``[[1,2,3,4],[5,6,7,8]]``, ``rows=[1,0]; cols=[0,1]``.

Linear time on any input: the span is found with ``rfind`` and tokenised by one regular
expression whose alternatives have no nested quantifiers; nesting is handled by an explicit
stack, not recursion. This tokeniser is the only reader of an answer.
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
# A parenthesised remark that offers another value is a hedge, not commentary ("24 (or maybe 25)",
# "12 (13?)", "39 (38 / 39 depending on the threshold)"): words that mark an alternative or a doubt,
# and the tokens '?' and '/'
HEDGE_WORDS = frozenset({
    "or", "maybe", "perhaps", "possibly", "possible", "probably", "likely", "either", "alternatively",
    "alternative", "otherwise", "might", "could", "if", "unless", "else", "whether", "also", "instead",
    "rather", "versus", "vs", "between", "depending", "unsure", "uncertain", "sure", "guess", "ambiguous"})
# A flip said in words ("mirrored left-right", "flipped horizontally", "not mirrored"): a value for a
# field named flip given no other value, as "no flip" is zero; "flipped vertically" is no horizontal flip
FLIP_WORDS = frozenset({"mirrored", "flipped"})
VERTICAL_WORDS = frozenset({"vertically", "vertical", "upside"})
# Words that do not name the number after them: in "(262 of 360)" the 360 is not a quantity named "of"
FUNCTION_WORDS = frozenset({
    "a", "an", "the", "of", "from", "over", "out", "by", "in", "at", "as", "to", "about", "with", "than",
    "after", "before", "per", "for", "on", "into", "across", "around", "among", "under", "above", "below",
    "within", "and", "is", "are", "was", "were", "be", "i", "we", "it", "its", "this", "that"})

_MINUSES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe63": "-", "\uff0d": "-"})

# One token per match. Number: optional sign, digits, optional fraction, optional exponent;
# a leading-dot fraction (".5") too. Hex colour: "#7840c8" (three 0-255 channels). Name: an
# identifier. Punctuation: one character.
_TOKEN = re.compile(
    r"(?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<hex>#[0-9A-Fa-f]{6}(?![0-9A-Za-z_]))"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<punct>[\[\]\(\)\{\}=:,;%?/])"
)

Value = Union[int, float, tuple]  # a number, or a tuple of Values (a bracketed list)

_CLOSERS = {"]": "[", ")": "(", "}": "{"}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# "1. 120\n2. 64": list markers at line starts (a dot or parenthesis followed by a space)
_LIST_MARKER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)](?=[ \t])")
# "1,234" / "12,345.5": one number with thousands separators (the whole span, plus a unit)
# ("3 519" and "3\u2009519" too: SI-style groups apart by a space; "≈ 4 073 px": after an approximation sign)
_GROUPED = re.compile(r"\s*(?:[A-Za-z_]{1,20}\s*[:=]?\s*)?(?:[~\u2248\u223c]\s*)?([-+]?\d{1,3}(?:(?:,\d{3})+|(?:[ \u2009\u202f\u00a0]\d{3})+)(?:\.\d+)?)"
                      r"\s*(?:%|px|pixels?)?\s*")


# Spellings read by rewriting the span before it is tokenised (README.md, "Accepted answer
# formats"): LaTeX markup, angles in radians, unit suffixes on names, markdown tables. A span
# without any of these hints is not touched.
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
# true / false standing where a value stands (after a bracket, separator or '=' / ':', before a
# closing bracket or separator): the values 1 / 0 of a tuple such as (dx, dy, rot_k, fliph)
_BOOL = re.compile(r"([\[(,;=:]|^)([ \t]*+)(true|false)(?=[ \t]*+(?:[\])},;\n]|$))", re.IGNORECASE | re.MULTILINE)
_DIGIT = re.compile(r"\d")
# "161° clockwise" is -161 (angles are counter-clockwise); "counter-clockwise" and "CCW" are not matched
# (possessive quantifiers: a failed match does not retry shorter runs of spaces, so it stays linear)
_CLOCKWISE = re.compile(r"([-+]?)(\d++(?:\.\d*+)?|\.\d++)([ \t]*+(?:(?:\u00b0|deg(?:rees?)?)[ \t]*+)?(?:\([ \t]*+)?)"
                        r"(?:clockwise|cw)(?![A-Za-z])", re.IGNORECASE)
# "image 2" names an input, it is not a value
_IMAGE_REF = re.compile(r"(?<![A-Za-z])(?:image|img)[ _#]*+[12](?![\d.])", re.IGNORECASE)
# "26 px to the right and 39 px up": a shift in words (image axes: x to the right, y down); a
# word followed by '=', ':' or a number is a name ("left: 133", a box side)
_DIRECTION = re.compile(r"(?<![\w.])(\d++(?:\.\d*+)?)[ \t]*+(?:(?:px|pixels?)[ \t]*+)?(?:to[ \t]++the[ \t]++)?"
                        r"(left|right|up|down|upwards?|downwards?)(?![A-Za-z])(?![ \t]*+(?:[:=]|[-+]?\d))", re.IGNORECASE)
_DIRECTION_HINT = re.compile(r"(?i)(?<![A-Za-z])(?:left|right|up|down)")
_DIRECTIONS = {"left": "dx=-", "right": "dx=", "up": "dy=-", "down": "dy="}
_NUM = r"[-+]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][-+]?\d++)?"
# a printed repr: "np.float64(-24.24)", "array([148, 223, 133], dtype=uint8)", "tensor([...])": the type
# name and the dtype are not values, the number or list inside is
_REPR_SCALAR = re.compile(rf"(?<![\w.])(?:(?:np|numpy|torch)\.)?(?:float|int|uint|bool_|complex)(?:8|16|32|64|128)?"
                          rf"\([ \t]*+({_NUM})[ \t]*+\)")
_REPR_ARRAY = re.compile(r"(?<![\w.])(?:(?:np|numpy|torch)\.)?(?:array|tensor)\(\s*+(\[[^()]*\])\s*+"
                         r"(?:,\s*+dtype\s*+=\s*+[\w.]++\s*+)?\)")
# "R,G,B = 89, 95, 103", "(dx, dy): (-5, 7)": names listed before '=' / ':' take the values listed after it,
# one each in order (a Python-style unpacking); another count of values is left as written
_NAME_LIST = re.compile(rf"(?<![\w.])(\(?[ \t]*+[A-Za-z_]\w*+(?:[ \t]*+,[ \t]*+[A-Za-z_]\w*+)++[ \t]*+\)?)[ \t]*+[=:][ \t]*+"
                        rf"(\(?[ \t]*+{_NUM}(?:[ \t]*+,[ \t]*+{_NUM})++[ \t]*+\)?)")
# "24.07 ± 0.15 px", "31.5 +/- 0.4": an error bar, not a value (the value before it is the answer)
_ERROR_BAR = re.compile(r"(?:\u00b1|\+/-)[ \t]*+(?:\d++(?:\.\d*+)?|\.\d++)(?:[ \t]*+(?:%|\u00b0|px|pixels?|deg(?:rees?)?)(?![A-Za-z]))?")
# "2.29 \times 10^{3}", "3.05 × 10^3": a number in scientific notation
_POWER_OF_TEN = re.compile(rf"({_NUM})[ \t]*+(?:\\times|\\cdot|\u00d7|\u22c5|\*)[ \t]*+10[ \t]*+\^[ \t]*+(\{{)?[ \t]*+([-+]?\d{{1,3}})[ \t]*+(?(2)\}})")


def _name_list(m: re.Match) -> str:
    names, values = m.group(1), m.group(2)
    if (names[0] == "(") != (names[-1] == ")") or (values[0] == "(") != (values[-1] == ")"):
        return m.group(0)
    names, values = names.strip("() \t").split(","), values.strip("() \t").split(",")
    if len(names) != len(values) or len({n.strip().lower() for n in names}) != len(names) \
            or any(n.strip().lower() in UNIT_WORDS for n in names):  # "80 deg, b=83,000": a unit, not a name
        return m.group(0)
    return ", ".join(f"{n.strip()}={v.strip()}" for n, v in zip(names, values))


def _rewrite(span: str) -> str:
    """The span with the spellings above written plainly (the README lists them)."""
    if "(" in span and ("rray(" in span or "ensor(" in span or "int" in span or "float" in span or "bool_(" in span):
        span = _REPR_ARRAY.sub(r"\1", _REPR_SCALAR.sub(r"\1", span))
    if "^" in span:
        span = _POWER_OF_TEN.sub(lambda m: repr(float(f"{m.group(1)}e{m.group(3)}")), span)
    if "\u00b1" in span or "+/-" in span:
        span = _ERROR_BAR.sub(" ", span)
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
    if "lockwise" in span or "LOCKWISE" in span or "CW" in span or "cw" in span:
        span = _CLOCKWISE.sub(lambda m: ("" if m.group(1) == "-" else "-") + m.group(2) + m.group(3), span)
    if "mage" in span or "MAGE" in span:
        span = _IMAGE_REF.sub(" image ", span)
    if _DIRECTION_HINT.search(span):
        span = _DIRECTION.sub(lambda m: _DIRECTIONS[m.group(2).lower().rstrip("s").replace("ward", "")] + m.group(1), span)
    if ("rue" in span or "RUE" in span or "alse" in span or "ALSE" in span) and _DIGIT.search(span):
        span = _BOOL.sub(lambda m: m.group(1) + m.group(2) + ("1" if m.group(3).lower() == "true" else "0"), span)  # "(-0, -15, 3, True)"
    if "=" in span or ":" in span:
        if "," in span:
            span = _NAME_LIST.sub(_name_list, span)
        if _WORD_HINT.search(span):  # "dx = minus 5", "dy = zero", "fliph=one"
            span = _NAMED_WORDS.sub(_named_words, span)
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


# a number in words, or 'minus' before a number, right after '=' / ':' where a value stands
_WORD_HINT = re.compile(r"[=:][ \t]*+[A-Za-z]")
_NAMED_WORDS = re.compile(rf"([=:][ \t]*+)(?:(minus|negative)[ \t]++)?(?:((?:{_WORD})(?:(?:[ \t]+(?:and[ \t]+)?|-)(?:{_WORD}))*)(?![A-Za-z])|(?(2)(?=[\d.])|(?!)))", re.I)


def _named_words(m: re.Match) -> str:
    sign = "-" if m.group(2) else ""
    return m.group(1) + sign + (str(_words_value(m.group(3))) if m.group(3) else "")


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
    ``percent`` says a ``%`` sign was written, ``percent_of`` after which named values.
    ``phrases``: the words before a loose name's number, when more than one (``the original row
    order is 3, …``); ``asides``: values said in passing, for a rule that asks for that name and
    finds it nowhere else: the named numbers of a parenthesised remark (``(B's period ≈ 11.1 px)``,
    whose unnamed numbers are dropped), and zero for what ``no`` / ``: none`` precede (``no flip``).
    ``alternative``: a word that marks an alternative or a doubt stands between two values outside
    brackets (``(80, 163) or, if the arc is the other one, (310, 140)``)."""

    ok: bool
    span: str | None  # the text inside the last <answer>…</answer>, or the whole gold string
    items: tuple = ()  # positional values in order (numbers and tuples)
    fields: dict = field(default_factory=dict)  # name (lower case) -> Value
    reason: str = ""
    loose: dict = field(default_factory=dict)
    tails: dict = field(default_factory=dict)
    clashes: set = field(default_factory=set)
    percent: bool = False
    percent_of: frozenset = frozenset()
    phrases: dict = field(default_factory=dict)
    asides: dict = field(default_factory=dict)
    alternative: bool = False

    @property
    def grouped(self) -> int | float | None:
        """The value of a span that is one number with thousands separators ("1,234",
        "length: 1,234 px"), else None."""
        if self.span is None or len(self.span) >= 40:
            return None
        m = _GROUPED.fullmatch(self.span)
        return _number(re.sub(r"[, \u2009\u202f\u00a0]", "", m.group(1))) if m else None


def find_span(text: str) -> str | None:
    """Text inside the last ``<answer>…</answer>`` (tags case-insensitive), or None.

    Only ASCII letters are lowered, so offsets in the lowered copy are offsets in ``text``
    (``str.lower`` turns "İ" into two characters)."""
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
        items, fields, loose, tails, clashes, percent, percent_of, phrases, asides, alternative = _parse(span)
    except _Reject as exc:
        return ParsedAnswer(False, span, reason=str(exc))
    if number_words and not items and not fields and not any(c.isdigit() for c in span):
        words = _NUMBER_WORDS.sub(lambda m: f" {_words_value(m.group(0))} ", span)
        if words != span:  # "twenty-four": number words, where no digit is written
            try:
                items, fields, loose, tails, clashes, percent, percent_of, phrases, asides, alternative = _parse(words)
            except _Reject as exc:
                return ParsedAnswer(False, span, reason=str(exc))
    if not items and not fields:
        what = "empty answer" if not span.strip() else "no number in the answer"
        return ParsedAnswer(False, span, reason=what)
    return ParsedAnswer(True, span, tuple(items), fields, "", loose, tails, clashes, percent, frozenset(percent_of),
                        phrases, asides, alternative)


def plain(span: str) -> str:
    """``span`` as the tokeniser reads it: minus signs, the rewrites above, list markers dropped."""
    if not span.isascii():
        span = span.translate(_MINUSES)
    span = _rewrite(span)
    if "\n" in span and ("." in span or ")" in span):
        markers = _LIST_MARKER.findall(span)
        if len(markers) >= 2 and markers[0].strip()[:-1] in ("0", "1"):
            span = _LIST_MARKER.sub(" ", span)
    return span


# "[15, 25, 3, ..., 26, 7]": values left out of a list; not a full answer
_ELIDED = re.compile(r"[,\[(][ \t]*+(?:\.\.\.|\u2026)[ \t]*+[,\])]")


def _parse(span: str) -> tuple:
    if ("..." in span or "\u2026" in span) and _ELIDED.search(span):
        raise _Reject("a list with values left out ('...')")
    return _parse_tokens(plain(span))


def _parse_tokens(span: str) -> tuple:
    """The general tokeniser: any span (see the module docstring)."""
    # frame: [opening bracket, values, field name the list is assigned to, names of an object
    # inside a list (None elsewhere: a top-level object's names are the answer's fields),
    # whether any number was seen inside, remark state of a top-level parenthesis (None elsewhere):
    # [a word that names no number seen, an alternative marker seen, its named values, its labels,
    # whether a number stood right before it]]
    root = ["", [], None, None, False, None]
    stack: list[list] = [root]
    frame = root  # stack[-1], kept in step with the stack
    fields: dict = {}
    loose: dict = {}
    tails: dict = {}
    clashes: set = set()
    percent = False
    percent_of: set = set()  # names whose value a '%' follows ("scale: 95.7%")
    phrases: dict = {}
    asides: dict = {}
    remarks: list = []  # (values, named values) of each remark dropped, in order
    pending: str | None = None  # a name followed by '=' or ':' waiting for its value
    last_name: str | None = None  # the previous token was this name
    run: str | None = None  # the field whose value the previous number was (space-separated runs)
    tail: str | None = None  # the top-level field that comma-separated numbers may continue
    phrase: list = []  # the words since the last number or punctuation (the last 12)
    negated = 0  # words left that a "no" makes zero ("no flip", "no horizontal flip")
    after_number = False  # the previous token was a number that a name stood before ("tile 3")
    number_before = False  # a number came after the last punctuation ("-179 to 180": a range)
    flip_said = False  # the previous word said a flip (and set it)
    hedged = alternative = False  # a hedge word after a top-level value; then another value after it
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
            if hedged and frame is root:
                alternative = True
            box = frame[5]
            if pending is not None:
                target = box[2] if box is not None else fields if frame[3] is None else frame[3]
                if pending in target and target is fields and fields[pending] != value:
                    clashes.add(pending)
                target[pending] = value
                run, tail = pending, (pending if frame is root else None)
                pending = None
            elif run is not None and run in (target := box[2] if box is not None else fields if frame[3] is None else frame[3]):
                old = target[run]  # "rows: 2 0 3 1": a space-separated run is one list
                target[run] = (old if isinstance(old, tuple) else (old,)) + (value,)
            else:
                # (``run``, ``last_name`` and ``tail`` are reset by every token that ends them, so
                # each being set says what came just before: a number, a name, a comma)
                if frame is not root:
                    tail = None
                    if box is not None and last_name is not None:  # "(index 1)": a label, "(of 31)": not
                        if last_name in FUNCTION_WORDS:
                            box[0] = True
                        else:
                            box[3].append((last_name, len(frame[1])))
                elif last_name is not None and last_name not in HEDGE_WORDS \
                        and not (last_name == "to" and number_before and len(phrase) == 1):
                    # ("either -18 or -24" names nothing, nor does "to" between two numbers: a range)
                    key = last_name
                    if key in loose and len(phrase) > 1:  # "the row order is 3 … the column order is 2": the phrase
                        key = "_".join(phrase)
                    if key not in loose:  # "rows 2, 0, 1": the numbers that follow may continue it
                        loose[key] = len(frame[1])
                        tail = key
                        if len(phrase) > 1:
                            phrases[key] = tuple(phrase)
                elif tail is not None:
                    tails.setdefault(tail, []).append(len(frame[1]))
                frame[1].append(value)
                run = None
            after_number = last_name is not None and frame is root
            number_before = True
            last_name = None
            if phrase:
                phrase = []
            negated = 0
            continue
        after_number_before, after_number = after_number, False
        if word:
            low = word.lower()
            if pending is not None and low in WORD_VALUES:
                (fields if frame[3] is None else frame[3])[pending] = WORD_VALUES[low]
                pending = None
                last_name = None
            elif pending is not None and low == "none":  # "rotation: none"
                asides.setdefault(pending, 0)
                pending = last_name = None
            elif low in UNIT_WORDS:
                last_name = None  # "3 px -2 px" continues like "3 -2": run and tail kept
            else:
                box = frame[5]
                if frame is root and low in HEDGE_WORDS and (root[1] or fields):
                    hedged = True
                if box is not None:
                    if low in HEDGE_WORDS:
                        box[1] = True
                    if last_name is not None:  # the word before names no number
                        box[0] = True
                if flip_said and low in VERTICAL_WORDS:
                    asides.pop("flip", None)
                flip_said = False
                if low in FLIP_WORDS and "flip" not in asides:
                    asides["flip"] = 0 if negated or last_name == "not" else 1
                    flip_said = True
                if negated:
                    asides.setdefault(low, 0)
                    negated -= 1
                elif low == "no":
                    negated = 2
                last_name = low
                run = tail = None
                if len(phrase) >= 12:
                    del phrase[0]
                phrase.append(low)
        elif tok:  # punctuation
            if tok == "%":
                percent = True  # a unit: "37 %, 12" continues like "37, 12"
                if run is not None:
                    percent_of.add(run)
                continue
            if tok == "?" or tok == "/":  # read only as an alternative inside a parenthesis
                if frame[5] is not None:
                    frame[5][1] = True
                continue
            if phrase:
                phrase = []
            negated = 0
            number_before = False
            if flip_said:
                if tok in "=:":  # "mirrored: false": the word is a name here
                    asides.pop("flip", None)
                flip_said = False
            if tok in "=:":
                if last_name is not None:
                    pending = last_name
                last_name = None
                run = tail = None
                continue
            if last_name is not None and frame[5] is not None:
                frame[5][0] = True  # a word before ',', ';', ')' names no number
            if tok in "[({":
                if len(stack) > MAX_DEPTH:
                    raise _Reject(f"brackets nested deeper than {MAX_DEPTH}")
                if hedged and frame is root:
                    alternative = True
                in_list = tok == "{" and any(f[0] in "[(" and f[0] for f in stack)
                frame = [tok, [], pending, {} if in_list else None, False,
                         [False, False, {}, [], after_number_before] if tok == "(" and frame is root else None]
                stack.append(frame)
                pending = last_name = run = tail = None
            elif tok in "])}":
                if frame is root or frame[0] != _CLOSERS[tok]:
                    raise _Reject(f"unbalanced bracket {tok!r}")
                opener, values, name, names, numeric, box = stack.pop()
                parent = frame = stack[-1]
                parent[4] = parent[4] or numeric
                target = parent[3] if parent[3] is not None else fields
                if box is not None and not box[1] and name is None and numeric and (
                        box[0] or (not box[4] and not box[2] and len(values) == len(box[3]) == 1)):
                    # a remark: its words say what its numbers are ("24 (of 31 local maxima)"), so
                    # they are not the answer; a name it gives may still be one the rule asks for
                    # ("The middle ring (index 1)"; "tile 3 (rot 270)" pairs with the named number before)
                    remarks.append((values, box[2]))
                    for k, v in box[2].items():
                        asides.setdefault(k, v)
                    for k, i in box[3]:
                        asides.setdefault(k, values[i])
                    pending = last_name = run = tail = None
                    continue
                if box is not None:
                    for k, v in box[2].items():  # "(rot_k=1)", "centre = (x=3, y=4)": named as anywhere
                        if k in fields and fields[k] != v:
                            clashes.add(k)
                        fields[k] = v
                if names is not None:  # an object inside a list: one item, its names kept
                    if names or values:
                        parent[1].append(Obj(tuple(names.values()) + tuple(values), tuple(names)))
                elif name is not None:
                    if name in target and target is fields and fields[name] != tuple(values):
                        clashes.add(name)
                    target[name] = Paren(values) if opener == "(" else tuple(values)
                elif opener == "{" and not values:
                    pass  # a top-level JSON object: its content went into fields
                elif numeric and (values or box is None or box[1] or not box[2]):
                    parent[1].append(Paren(values) if opener == "(" else tuple(values))
                # else: a bracket with no number in it ("(see above)") is prose, not a value, and
                # "(fliph=0)" gave its value a name
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
            if phrase:
                phrase = []
            negated = 0
    if len(stack) != 1:
        raise _Reject(f"unclosed bracket {stack[-1][0]!r}")
    if remarks and not root[1] and not fields:  # "(about 24 peaks)": the remark is all there is
        for values, named in remarks:
            if values:
                root[1].append(Paren(values))
            fields.update(named)
    return (root[1], fields, loose, ({k: tuple(v) for k, v in tails.items()} if tails else tails), clashes, percent,
            percent_of, phrases, asides, alternative)


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
