"""One generic CwI scorer: a task's rule is data (declared in its YAML under
``metadata.cwi_rule``), and :func:`score` applies it to a prediction and a gold answer.

Rule kinds (all-or-nothing, as the card says):

* ``int``      -- the integer equals the gold integer.
* ``sequence`` -- the list of integers equals the gold list, in order (permutations, orders).
* ``set``      -- the set of items equals the gold set; ``item_size`` numbers per item
                  (``item_size: 2`` for grid cells ``[[r,c],...]``, 1 for index pairs ``[i,j]``).
* ``fields``   -- a tuple of named fields, each exact or within a tolerance: ``tol`` (absolute),
                  ``rel_tol`` (relative to gold), ``circular`` (period, e.g. 360 for angles),
                  ``divide_by`` (compare value/divide_by), ``type: int`` (exact integer) or
                  ``type: sequence`` (exact integer list). Fields are read by name (or alias)
                  or, when the answer has no names, by position.
* ``points``   -- a list of points (``dims`` numbers each), same count and order as gold, each
                  within ``tol``: ``metric: euclidean`` (distance) or ``per_component``.
* ``boxes``    -- boxes ``[x1,y1,x2,y2]`` (0-1000), same count as gold, each matched box with
                  IoU >= ``min_iou``; ``order_free`` matches them in the best order.

Pure: no lmms-eval, no numpy. Every result is a :class:`Score` that says what was read and why.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from .answer_parse import CLOSE_TAG, HEDGE_WORDS, OPEN_TAG, Obj, Paren, ParsedAnswer, parse_answer, plain

KINDS = ("int", "sequence", "set", "fields", "points", "boxes")
FIELD_TYPES = ("number", "int", "sequence")

# Score statuses (lmms_plugins.utils.status names where they exist).
OK = "ok"
UNPARSABLE = "unparsable"  # the prediction has no span or does not fit the rule's shape
BAD_GOLD = "missing_data"  # the gold answer does not fit the rule: a data problem, not the model's


class RuleError(ValueError):
    """A rule declared in a task YAML is malformed."""


@dataclass(frozen=True)
class FieldSpec:
    name: str
    aliases: tuple[str, ...] = ()
    type: str = "number"
    tol: float = 0.0
    rel_tol: float = 0.0
    circular: float | None = None
    divide_by: float | None = None

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Rule:
    kind: str
    fields: tuple[FieldSpec, ...] = ()
    item_size: int = 1
    dims: int = 2
    tol: float = 0.0
    metric: str = "euclidean"
    min_iou: float = 0.5
    order_free: bool = True


@dataclass(frozen=True)
class Score:
    """Outcome of one item: ``correct`` is the 0/1 score; ``status`` says whether it was read."""

    correct: bool
    status: str
    reason: str
    predicted: Any = None  # the value read from the prediction, normalised to the rule's shape
    gold: Any = None
    span: str | None = None

    @property
    def value(self) -> float:
        return 1.0 if self.correct else 0.0


# ---------------------------------------------------------------------------- rule from YAML


def _num(d: Mapping, key: str, default, *, positive=False):
    v = d.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise RuleError(f"rule key {key!r} must be a finite number, got {v!r}")
    if positive and v <= 0:
        raise RuleError(f"rule key {key!r} must be > 0, got {v!r}")
    if v < 0:
        raise RuleError(f"rule key {key!r} must be >= 0, got {v!r}")
    return v


def rule_from_config(cfg: Mapping) -> Rule:
    """Build and validate a :class:`Rule` from the ``cwi_rule`` mapping of a task YAML."""
    if isinstance(cfg, Rule):
        return cfg
    if not isinstance(cfg, Mapping):
        raise RuleError(f"cwi_rule must be a mapping, got {type(cfg).__name__}")
    kind = cfg.get("kind")
    if kind not in KINDS:
        raise RuleError(f"cwi_rule.kind must be one of {', '.join(KINDS)}; got {kind!r}")
    known = {"kind", "fields", "item_size", "dims", "tol", "metric", "min_iou", "order_free", "note"}
    extra = set(cfg) - known
    if extra:
        raise RuleError(f"unknown cwi_rule keys: {', '.join(sorted(extra))}")
    specs = []
    if kind == "fields":
        raw = cfg.get("fields")
        if not isinstance(raw, list) or not raw:
            raise RuleError("cwi_rule.fields must be a non-empty list for kind 'fields'")
        for f in raw:
            if isinstance(f, str):
                f = {"name": f}
            if not isinstance(f, Mapping) or not isinstance(f.get("name"), str):
                raise RuleError(f"each field needs a name: {f!r}")
            bad = set(f) - {"name", "aliases", "type", "tol", "rel_tol", "circular", "divide_by"}
            if bad:
                raise RuleError(f"unknown keys in field {f['name']!r}: {', '.join(sorted(bad))}")
            ftype = f.get("type", "number")
            if ftype not in FIELD_TYPES:
                raise RuleError(f"field {f['name']!r}: type must be one of {FIELD_TYPES}")
            aliases = f.get("aliases", [])
            if isinstance(aliases, str):
                aliases = [aliases]
            specs.append(
                FieldSpec(
                    name=f["name"].lower(),
                    aliases=tuple(a.lower() for a in aliases),
                    type=ftype,
                    tol=float(_num(f, "tol", 0.0)),
                    rel_tol=float(_num(f, "rel_tol", 0.0)),
                    circular=_num(f, "circular", None, positive=True),
                    divide_by=_num(f, "divide_by", None, positive=True),
                )
            )
    metric = cfg.get("metric", "euclidean")
    if metric not in ("euclidean", "per_component"):
        raise RuleError(f"cwi_rule.metric must be euclidean or per_component, got {metric!r}")
    item_size = cfg.get("item_size", 1)
    dims = cfg.get("dims", 2)
    for key, v in (("item_size", item_size), ("dims", dims)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise RuleError(f"cwi_rule.{key} must be a positive integer, got {v!r}")
    min_iou = float(_num(cfg, "min_iou", 0.5))
    if min_iou > 1:
        raise RuleError(f"cwi_rule.min_iou must be in [0, 1], got {min_iou}")
    return Rule(
        kind=kind,
        fields=tuple(specs),
        item_size=item_size,
        dims=dims,
        tol=float(_num(cfg, "tol", 0.0)),
        metric=metric,
        min_iou=min_iou,
        order_free=bool(cfg.get("order_free", True)),
    )


# ---------------------------------------------------------------------------- shape coercion

# Readings fixed by a field's name where the card is silent (documented in the README):
QUARTER_TURN_FIELDS = frozenset({"rots", "rot_k"})  # quarter turns, compared modulo 4
PERCENT_FIELDS = frozenset({"percent"})  # percentage points; a bare fraction 0 < |v| < 1 is x100
RATIO_FIELDS = frozenset({"scale"})  # a ratio; over 2 with '%' under its name it is a share ("95.7%" = 0.957)
# names that place the numbers of a point / box / cell, first match wins
POINT_NAMES = (("x", "y"), ("cx", "cy"), ("dx", "dy"), ("col", "row"), ("column", "row"))
COORDINATES = frozenset(n for names in POINT_NAMES for n in names)
BOX_NAMES = (("x1", "y1", "x2", "y2"), ("xmin", "ymin", "xmax", "ymax"), ("left", "top", "right", "bottom"),
             ("x0", "y0", "x1", "y1"))
BOX_SIZE_NAMES = (("x", "y", "w", "h"), ("x", "y", "width", "height"), ("left", "top", "width", "height"))
CELL_NAMES = (("row", "col"), ("r", "c"), ("row", "column"), ("y", "x"), ("i", "j"))
# words of a name that say it holds the answer of a points / boxes rule, among other named values
# ({"shifts_px": [98, -135], "weights": [0.19, 0.09]}: the weights are another quantity)
POINT_WORDS = frozenset({"shift", "offset", "displacement", "point", "position", "location", "center", "centre",
                         "coordinate", "peak"})
BOX_WORDS = frozenset({"box", "bbox", "rect", "rectangle", "region", "crop"})
SEQUENCE_PAIR_NAMES = (("tile", "rot"), ("tile", "rotation"), ("piece", "rot"), ("piece", "rotation"),
                       ("tile", "rot_k"), ("index", "rot"))


# a sum or product written out ("42 + 1 (background) = 43"): an operator between numbers before
# the last '=', and one number after it
# the last '=', and one number after it; also a call written out before it ("len(np.unique(px, axis=0)) = 35")
_OPERATOR = re.compile(r"[ \t][+\u00d7*][ \t]*+\d")
_RESULT = re.compile(r"[ \t]*+([-+]?\d++(?:\.\d++)?)[^\d=]*+")
_CALL = re.compile(r"[A-Za-z_][\w.]*+\(")


def _sum_result(span: str | None) -> float | None:
    head, eq, tail = (span or "").rpartition("=")
    m = _RESULT.fullmatch(tail) if eq else None
    if m and head.rstrip().endswith(")") and _CALL.match(head.lstrip()):
        return float(m.group(1))  # the expression is one call: its value is the result
    op = _OPERATOR.search(head) if m else None
    return float(m.group(1)) if op and any(c.isdigit() for c in head[:op.start() + 1]) else None


class _Shape(Exception):
    """The parsed answer does not have the shape the rule needs."""


class _Ambiguous(_Shape):
    """The answer reads two ways (README: two candidate readings are a wrong answer)."""


def _by_names(source, orders):
    """Values of the first name tuple in ``orders`` that ``source`` (dict or Obj) has in full."""
    get = source.get
    for names in orders:
        vals = [get(n) for n in names]
        if all(v is not None and not isinstance(v, tuple) for v in vals):
            return names, vals
    return None, None


def _unobj(v, orders, what):
    """A JSON object item as its numbers in the order ``orders`` name (else in written order)."""
    if isinstance(v, Obj):
        names, vals = _by_names(v, orders)
        if names is None:
            if len(v.names) > 1:
                raise _Shape(f"{what}: object with unknown names {', '.join(v.names)}")
            return tuple(v)
        return tuple(vals)
    return v


def _unobjs(items, orders, what):
    """``items`` with JSON objects placed by their names (most answers have none: no copy)."""
    for v in items:
        if type(v) is Obj:
            return [_unobj(x, orders, what) for x in items]
    return items


def _flat_numbers(items) -> list:
    """Positional numbers, unwrapping the lists that enclose one list (``[3,-2]`` and ``[[3,-2]]``
    read like ``3,-2``)."""
    if len(items) == 1 and isinstance(items[0], tuple) and not isinstance(items[0], Obj):
        items = items[0]
        while len(items) == 1 and type(items[0]) is tuple and type(items) is tuple:
            items = items[0]  # brackets in brackets (a parenthesis is a call's or a tuple's: "mean([…])")
    out = []
    for v in items:
        if isinstance(v, tuple):
            raise _Shape("expected plain numbers, found a nested list")
        out.append(v)
    return out


def _said_answer(parsed: ParsedAnswer, words: frozenset) -> tuple | None:
    """The one named value, among two or more and no unnamed one, whose name's words say what the
    rule asks for (``words``), as the answer's items; None when no name or more than one says it."""
    if parsed.items or len(parsed.fields) < 2:
        return None
    said = [v for k, v in parsed.fields.items() if not words.isdisjoint(_words(k))]
    return (said[0],) if len(said) == 1 else None


def _positional(parsed: ParsedAnswer) -> tuple:
    """Positional items; when there are none, the named values in order ('count: 7'); both
    together are two candidate answers, kept together so that a count of them fails."""
    if parsed.items and parsed.fields:
        return tuple(parsed.fields.values()) + parsed.items
    if parsed.items:
        return parsed.items
    return tuple(parsed.fields.values())


def _as_int(v, what="value") -> int:
    if isinstance(v, tuple):
        raise _Shape(f"expected an integer {what}, found a list")
    if isinstance(v, float):
        if not v.is_integer():
            raise _Shape(f"expected an integer {what}, found {v}")
        return int(v)
    return v


def _groups(items, size: int, what: str, orders=()) -> list[tuple]:
    """A list of ``size``-tuples from nested (``[[1,2],[3,4]]``) or flat (``1,2,3,4``) input;
    JSON objects are placed by their names (``orders``)."""
    items = _unobjs(items, orders, what)
    if len(items) == 1 and isinstance(items[0], tuple) and items[0] and isinstance(items[0][0], tuple):
        items = _unobjs(items[0], orders, what)  # one enclosing list around the groups
    single_flat = len(items) == 1 and isinstance(items[0], tuple) and not any(isinstance(x, tuple) for x in items[0])
    if items and not single_flat and all(isinstance(v, tuple) for v in items):
        groups = []
        for g in items:
            if any(isinstance(x, tuple) for x in g):
                raise _Shape(f"{what}: nested too deep")
            if len(g) != size:
                raise _Shape(f"{what}: expected {size} numbers per item, got {len(g)}")
            groups.append(tuple(g))
        return groups
    flat = _flat_numbers(items)
    if len(flat) % size:
        raise _Shape(f"{what}: {len(flat)} numbers do not split into items of {size}")
    return [tuple(flat[i : i + size]) for i in range(0, len(flat), size)]


def _nested_groups(items, orders=(), what="list") -> list[tuple] | None:
    """Items as a list of equal-length groups when they are written nested (``[[1,2],[3,4]]``,
    ``(1,2), (3,4)``, ``[[1,2]]``), else None (a single flat list is not nested)."""
    items = _unobjs(items, orders, what)
    if len(items) == 1 and isinstance(items[0], tuple) and items[0] and all(isinstance(v, tuple) for v in items[0]):
        items = _unobjs(items[0], orders, what)
    elif len(items) < 2:
        return None
    if all(isinstance(v, tuple) and v and not any(isinstance(x, tuple) for x in v) for v in items) \
            and len({len(v) for v in items}) == 1:
        return [tuple(v) for v in items]
    return None


def _no_extras(parsed: ParsedAnswer, used: set, what: str, named=()) -> None:
    extra = [v for i, v in enumerate(parsed.items) if i not in used]
    if extra and named and _flat_all(extra) == _flat_all(named):
        return  # "dx=3, dy=-2 (3, -2)": the same values again, not another reading
    # a number after a name that is none of the rule's ("radius 142") is another quantity
    extra = [v for i, v in enumerate(parsed.items) if i not in used and i not in parsed.loose.values()]
    if extra:
        raise _Ambiguous(f"ambiguous: unnamed value(s) {_short(extra)} next to the named {what}")


def _flat_all(values) -> list:
    out = []
    for v in values:
        out.extend(_flat_all(v) if isinstance(v, tuple) else [v])
    return out


def _short(v) -> str:
    text = repr(tuple(v) if isinstance(v, list) else v)
    return text if len(text) <= 40 else text[:37] + "..."


def _named_point(parsed: ParsedAnswer, dims: int):
    if not parsed.fields:
        return None
    if dims == 1:
        for name in ("dx", "x", "shift", "offset"):
            if name in parsed.fields and not isinstance(parsed.fields[name], tuple):
                dy = parsed.fields.get("dy", parsed.fields.get("y"))
                if dy is not None and not isinstance(dy, tuple):
                    return (parsed.fields[name], dy)
                return (parsed.fields[name],)
        return None
    names, vals = _by_names(parsed.fields, POINT_NAMES)
    if names is None:
        return None
    return tuple(vals)


def _per_part(parsed: ParsedAnswer, read) -> tuple | None:
    """``read`` of each line (or ';' / ',' part) of the answer by itself, joined: a list written
    one labelled item per part ("strongest at x=74, y=280; second at x=354, y=284"). None when
    the answer is not written so or a part does not read."""
    rows = _rows(parsed.span)
    if rows is None:
        return None
    out: list = []
    for text, _ in rows:
        try:
            out.extend(read(parse_answer(text, require_span=False)))
        except _Shape:
            return None
    return tuple(out)


def _one_named_point(parsed: ParsedAnswer) -> list:
    point = _named_point(parsed, 2)
    if point is None:
        raise _Shape("no named point")
    return [point]


def _read_points(rule: Rule, parsed: ParsedAnswer, like=None) -> tuple:
    points = _read_points_as_written(rule, parsed, like)
    if like is not None and len(points) != len(like) and parsed.alternative:
        raise _Ambiguous(f"ambiguous: {len(points)} points for {len(like)}, with a word that offers an alternative")
    return points


def _read_points_as_written(rule: Rule, parsed: ParsedAnswer, like=None) -> tuple:
    if rule.dims == 2 and parsed.clashes:  # the point's names given again: one point per part
        points = _per_part(parsed, _one_named_point)
        if points:
            return points
    point = _named_point(parsed, rule.dims)
    if point is not None:
        _no_extras(parsed, set(), "point", point)
        return (point,)
    items = _said_answer(parsed, POINT_WORDS) or _positional(parsed)
    if rule.dims == 2 and (like is None or len(like) == 1) and (point := _tuple_beside_quantities(parsed)):
        return (point,)
    if rule.dims == 1:  # 1-D shifts, or (dx, dy) pairs: compared in the gold's shape
        nested = _nested_groups(items, POINT_NAMES, "points")
        if nested is not None and len(nested[0]) == 2:
            return tuple(nested)
        if len(items) == 1 and isinstance(items[0], Paren) and len(items[0]) == 2 and (like is None or len(like) == 1) \
                and not any(isinstance(x, tuple) for x in items[0]):  # ("([97], [0])" raised TypeError in the comparison)
            return (tuple(items[0]),)  # "(-31, 0)" for one ghost: parentheses write one (dx, dy)
    return tuple(_groups(items, rule.dims, "points", POINT_NAMES))


def _tuple_beside_quantities(parsed: ParsedAnswer):
    """The one (x, y) tuple of an answer whose other numbers each stand under a name
    (``centre (87.7, 175.1) with radius 61.5``, ``center: (232.3, 176.2); r = 88``): those name other
    quantities. None when any other number is unnamed, named by a hedge (``maybe 240``) or by a
    coordinate (``x=332``), or the pair is not written in parentheses."""
    tuples = [v for v in (*parsed.fields.values(), *parsed.items) if isinstance(v, tuple)]
    if len(tuples) != 1 or type(tuples[0]) is not Paren or len(tuples[0]) != 2 \
            or any(isinstance(x, tuple) for x in tuples[0]) or not COORDINATES.isdisjoint(parsed.fields):
        return None
    labelled = {i for k, i in parsed.loose.items() if k not in HEDGE_WORDS and k not in COORDINATES}
    others = [i for i, v in enumerate(parsed.items) if not isinstance(v, tuple)]
    beside = len(others) + sum(not isinstance(v, tuple) for v in parsed.fields.values())
    if not beside or any(i not in labelled for i in others):
        return None  # nothing beside the tuple (the plain reading has it), or an unnamed number
    return tuple(tuples[0])


def _box_from(names, vals) -> tuple:
    if names is None:
        return None
    if names in BOX_SIZE_NAMES:
        x, y, w, h = vals
        return (x, y, x + w, y + h)
    return tuple(vals)


def _box_obj(v):
    """A JSON object as a box (corner or size names) or a corner (point names)."""
    if type(v) is not Obj:
        return v
    box = _box_from(*_by_names(v, BOX_NAMES)) or _box_from(*_by_names(v, BOX_SIZE_NAMES))
    if box:
        return box
    names, vals = _by_names(v, POINT_NAMES)
    if names is None:
        raise _Shape(f"boxes: object with unknown names {', '.join(v.names)}")
    return tuple(vals)


def _is_corner_pair(v) -> bool:
    return isinstance(v, tuple) and len(v) == 2 and all(
        isinstance(p, tuple) and len(p) == 2 and not any(isinstance(x, tuple) for x in p) for p in v)


def _corners(v):
    """``[[x1,y1],[x2,y2]]`` as one box ``(x1,y1,x2,y2)``; anything else unchanged."""
    return v[0] + v[1] if _is_corner_pair(v) else v


# "x: 199–527, y: 234–503", "x from 199 to 527, y from 234 to 503": a box as a range per axis (box
# coordinates are never negative, so a dash between two of them is a range, not a minus)
_AXIS_RANGE = re.compile(r"(?<![A-Za-z_])([xy])[ \t]*+[:=]?[ \t]*+(?:from[ \t]++)?(\d++(?:\.\d++)?)[ \t]*+"
                         r"(?:[-\u2010-\u2014\u2212]|to(?![A-Za-z])|\.\.)[ \t]*+(\d++(?:\.\d++)?)(?![\d.])", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def _axis_ranges(span: str | None) -> tuple | None:
    """The box of an answer that is one range per axis and no other number, else None."""
    if not span or len(span) > 200 or ("x" not in span and "X" not in span):
        return None
    found = _AXIS_RANGE.findall(span)
    axes = {a.lower(): (float(lo), float(hi)) for a, lo, hi in found}
    if len(found) != 2 or set(axes) != {"x", "y"} or _DIGIT.search(_AXIS_RANGE.sub(" ", span)):
        return None
    return ((axes["x"][0], axes["y"][0], axes["x"][1], axes["y"][1]),)


def _restatement(items):
    """The first items of a list that says its values again written another way (``[215, 648, 359,
    831] — top-left (215, 648), bottom-right (359, 831)``); None when it does not. The same values
    written the same way are a list (two equal boxes)."""
    shape = [len(v) if isinstance(v, tuple) else 0 for v in items]
    for k in range(1, len(items)):
        if shape[:k] != shape[k:] and _flat_all(items[:k]) == _flat_all(items[k:]):
            return items[:k]
    return None


def _read_boxes(rule: Rule, parsed: ParsedAnswer) -> tuple:
    box = _axis_ranges(parsed.span)
    if box:
        return box
    if parsed.clashes:  # the box's names given again: one box per part ("box 1: x=…, y=…, w=…, h=…; box 2: …")
        boxes = _per_part(parsed, lambda p: _read_boxes(rule, p))
        if boxes:
            return boxes
    if parsed.items and any(type(v) is tuple or type(v) is Paren for v in parsed.fields.values()):
        # "box A: (705,469)-(777,581); box B: ...": labels before groups, one box per part
        boxes = _per_part(parsed, lambda p: _boxes_of(_positional(p)))
        if boxes:
            return boxes
    box = parsed.fields and (_box_from(*_by_names(parsed.fields, BOX_NAMES))
                             or _box_from(*_by_names(parsed.fields, BOX_SIZE_NAMES)))
    if box:
        _no_extras(parsed, set(), "box", box)
        return (box,)
    items = _said_answer(parsed, BOX_WORDS) or _positional(parsed)
    return _boxes_of(len(items) > 1 and _restatement(items) or items)


def _boxes_of(items) -> tuple:
    """Boxes from positional items: corner pairs, JSON objects, groups of 4 or flat numbers."""
    items = [tuple(_corners(_box_obj(x)) for x in v) if type(v) is tuple and any(type(x) is Obj or _is_corner_pair(x) for x in v)
             else _corners(_box_obj(v)) for v in items]
    nested = _nested_groups(items, POINT_NAMES, "boxes")
    if nested is not None and len(nested[0]) == 2 and len(nested) % 2 == 0:
        # corner pairs: "(x1,y1) to (x2,y2)", [[x1,y1],[x2,y2]]
        return tuple(nested[i] + nested[i + 1] for i in range(0, len(nested), 2))
    return tuple(_groups(items, 4, "boxes", BOX_NAMES))


def _multiset(values) -> tuple:
    """Order-free but count-sensitive: ``[2,5,2]`` is not the pair ``[2,5]``."""
    return tuple(sorted(values))


def _read_set(rule: Rule, parsed: ParsedAnswer, like=None, context=None):
    items = _positional(parsed)
    if rule.item_size == 1:
        return _multiset(_as_int(g[0], "item") for g in _groups(items, 1, "set"))
    if rule.item_size == 2:
        if "row" in parsed.fields and ("col" in parsed.fields or "column" in parsed.fields):
            _no_extras(parsed, set(), "cell")
            return ("cells", _multiset([(_as_int(parsed.fields["row"]),
                                         _as_int(parsed.fields.get("col", parsed.fields.get("column"))))]))
        nested = _nested_groups(items, CELL_NAMES, "cells")
        if len(items) == 1 and isinstance(items[0], Paren) and len(items[0]) == 2:
            nested = [items[0]]  # "(0, 3)": one (row, col) cell
        if nested is not None:
            if len(nested[0]) != 2:
                raise _Shape(f"cells: expected 2 numbers per item, got {len(nested[0])}")
            return ("cells", _multiset(tuple(_as_int(x, "cell") for x in g) for g in nested))
        flat = [_as_int(v, "cell index") for v in _flat_numbers(items)]
        if like is None or like[0] == "flat":  # a gold (or a gold of flat indices): flat cell indices
            return ("flat", _multiset(flat))
        rows, cols = (context or {}).get("rows"), (context or {}).get("cols")
        pairs = [tuple(flat[i:i + 2]) for i in range(0, len(flat), 2)] if len(flat) % 2 == 0 else None
        if pairs is not None and cols and not all((not rows or 0 <= r < rows) and 0 <= c < cols for r, c in pairs):
            pairs = None  # not cells of this grid: flat indices
        if pairs is not None:  # the gold lists (row, col): "0,3, 2,1" is written unbracketed pairs
            return ("cells", _multiset(pairs))
        return ("flat", _multiset(flat))
    groups = _groups(items, rule.item_size, "set")
    return _multiset(tuple(_as_int(x, "item") for x in g) for g in groups)


def _read_sequence(parsed: ParsedAnswer, like=None) -> tuple:
    items = _positional(parsed)
    nested = _nested_groups(items)
    if nested is not None and len(nested) > 1:  # a grid written row by row: read row-major
        return tuple(_as_int(x, "item") for g in nested for x in g)
    flat = tuple(_as_int(v, "item") for v in _flat_numbers(items))
    if like is not None and len(flat) != len(like):  # "Position 0: piece 12" on each line
        rows = _drop_counter(_rows(parsed.span), 1)
        if rows is not None:
            return tuple(_as_int(r[0], "item") for r in rows)
    return flat


MAX_PARTS = 256


def _rows(span: str | None) -> list | None:
    """``(text, numbers)`` of each line of ``span`` that holds a number (on one line: of each
    ';'-separated part, else each ','-separated one); None for fewer than two, or for a part that
    does not read by itself."""
    span = plain(span or "")
    for sep in ("\n", ";", ","):
        parts = span.split(sep, MAX_PARTS)
        if len(parts) > MAX_PARTS:
            return None  # no answer lists that many items: not read part by part
        rows = []
        for text in parts:
            p = parse_answer(text, require_span=False)
            if p.ok:
                rows.append((text, _flat_all(_positional(p))))
            elif any(c.isdigit() for c in text):
                return None
        if len(rows) >= 2:
            return rows
    return None


def _drop_counter(rows: list | None, width: int) -> list | None:
    """The numbers of ``rows`` after a first column that counts them (0, 1, 2, ... or 1, 2, 3, ...),
    when each row holds that count and ``width`` more; else None."""
    if not rows or any(len(nums) != width + 1 for _, nums in rows):
        return None
    first = [nums[0] for _, nums in rows]
    if first not in (list(range(len(rows))), list(range(1, len(rows) + 1))):
        return None
    return [nums[1:] for _, nums in rows]


def _read(rule: Rule, parsed: ParsedAnswer, like=None, context=None):
    """The parsed answer normalised to the rule's shape (raises _Shape). ``like``: the gold's
    value, for readings that follow the gold's shape; ``context``: what the item says (grid)."""
    k = rule.kind
    if k == "int":
        flat = _flat_all(_positional(parsed))
        if len(flat) > 1 and isinstance(parsed.grouped, int):
            flat = [parsed.grouped]  # "1,234"
        elif len(flat) > 1 and all(v == flat[0] for v in flat):
            flat = flat[:1]  # "7 (7 peaks)": one value, said twice
        elif len(flat) > 1 and (total := _sum_result(parsed.span)) is not None:
            flat = [total]  # "42 + 1 (background) = 43": the sum's result
        if len(flat) != 1:
            raise _Shape(f"expected one integer, got {len(flat)} numbers")
        return _as_int(flat[0])
    if k == "sequence":
        return _read_sequence(parsed, like)
    if k == "set":
        return _read_set(rule, parsed, like, context)
    if k == "fields":
        return _read_fields(rule, parsed)
    if k == "points":
        return _read_points(rule, parsed, like)
    if k == "boxes":
        return _read_boxes(rule, parsed)
    raise _Shape(f"unknown rule kind {k}")  # unreachable: rule_from_config validates


def _named_value(key: str, spec: FieldSpec, parsed: ParsedAnswer, used: set):
    """The value written under ``key`` (``name=v``, ``name: v``, ``name v``), with the numbers
    that continue it when the field is a list."""
    if key in parsed.clashes:
        raise _Ambiguous(f"ambiguous: {key} is given two different values")
    if key in parsed.fields:
        v = parsed.fields[key]
    else:
        i = parsed.loose[key]
        used.add(i)
        v = parsed.items[i]
    if spec.type == "sequence" and not isinstance(v, tuple) and key in parsed.tails:
        idx = parsed.tails[key]
        used.update(idx)
        v = (v, *(parsed.items[i] for i in idx))
    return v


def _words(name: str) -> tuple:
    """The words of a name, singular: ``rotated_ring_index`` -> (rotated, ring, index), ``rows`` -> (row,)."""
    return tuple(w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in name.split("_") if w)


def _says(words: tuple, spec: FieldSpec) -> int:
    """How many words of the longest of the field's names ``words`` holds in a row (0: none)."""
    best = 0
    for n in spec.names():
        nw = _words(n)
        if len(nw) > best and any(words[i:i + len(nw)] == nw for i in range(len(words) - len(nw) + 1)):
            best = len(nw)
    return best


def _field_keys(specs, parsed: ParsedAnswer) -> dict:
    """The written name of each field: one of its names or aliases; else the one written name
    whose words say this field's name and no other field's (``rotated_ring_index`` is ``ring``,
    ``scale_factor`` is ``scale``; ``dx_dy`` names neither)."""
    written = [*parsed.fields, *(k for k in parsed.loose if k not in parsed.fields)]
    keys = {}
    for spec in specs:
        k = next((n for n in spec.names() if n in parsed.fields or n in parsed.loose), None)
        if k is not None:
            keys[spec.name] = k
    free = [k for k in written if k not in keys.values()]
    if len(keys) == len(specs) or not free:
        return keys
    words = {k: _words(k) for k in free}
    for k in parsed.phrases.keys() & words.keys():  # "the original row order is 3, …": the name is the phrase's
        if not any(_says(words[k], spec) for spec in specs):
            words[k] = tuple(w for p in parsed.phrases[k] for w in _words(p))
    _add_said(specs, words, keys)
    return keys


def _add_said(specs, words: dict, keys: dict) -> None:
    """Into ``keys``, for each field not in it, the one written name (of ``words``: name -> its
    words) that says this field's name more than any other field's."""
    says = {k: [_says(w, spec) for spec in specs] for k, w in words.items()}
    for j, spec in enumerate(specs):
        if spec.name in keys:
            continue
        mine = [(said[j], k) for k, said in says.items() if said[j] > max(said[:j] + said[j + 1:], default=0)]
        best = [k for n, k in mine if n == max(mine)[0]] if mine else []
        if len(best) == 1:
            keys[spec.name] = best[0]


def _aside_values(specs, parsed: ParsedAnswer, named: dict) -> dict:
    """The values said in passing (``no flip``, a remark's ``(ring index 2, …)``) for the number
    fields no other value was given for, by their names (README, "Accepted answer formats")."""
    keys: dict = {}
    for spec in specs:
        if spec.name not in named and spec.type != "sequence":
            k = next((n for n in spec.names() if n in parsed.asides), None)
            if k is not None:
                keys[spec.name] = k
    left = [s for s in specs if s.name not in named and s.name not in keys and s.type != "sequence"]
    if left:
        taken = set(keys.values())
        _add_said(specs, {k: _words(k) for k in parsed.asides if k not in taken}, keys)
    return {name: parsed.asides[k] for name, k in keys.items() if name not in named}


def _letters_named(specs, parsed: ParsedAnswer, used: set) -> dict:
    """Fields with one-letter names written under a name that spells them in another order
    (``BGR = (139, 203, 81)``, ``GRB: 164, 126, 56``): each value is the field its letter names."""
    letters = [s.name for s in specs]
    if len(letters) < 2 or any(len(n) != 1 for n in letters):
        return {}
    for k in (*parsed.fields, *parsed.loose):
        if len(k) == len(letters) and sorted(k) == sorted(letters) and k != "".join(letters):
            v = _named_value(k, FieldSpec(k, type="sequence"), parsed, used)
            if isinstance(v, tuple) and len(v) == len(letters) and not any(isinstance(x, tuple) for x in v):
                return dict(zip(k, v))
    return {}


def _read_fields(rule: Rule, parsed: ParsedAnswer) -> dict:
    specs = rule.fields
    if len(specs) == 1 and specs[0].type == "number" and parsed.grouped is not None:
        return {specs[0].name: parsed.grouped}  # "1,234" / "length: 1,234 px": one number
    named = {}
    used: set = set()
    keys: dict = {}
    if parsed.fields or parsed.loose:
        keys = _field_keys(specs, parsed)
        named = {spec.name: _named_value(keys[spec.name], spec, parsed, used) for spec in specs if spec.name in keys}
        if not named:
            named = _letters_named(specs, parsed, used)
        _restated(specs, parsed, keys, named, used)
        for name in RATIO_FIELDS & named.keys():
            v = named[name]
            if keys[name] in parsed.percent_of and not isinstance(v, tuple) and abs(v) > 2:
                named[name] = v / 100  # (no ratio asked is over 2: "1.05 %" is 1.05 with a stray unit)
    if not named and len(parsed.items) == 1 and isinstance(parsed.items[0], tuple) and len(parsed.items[0]) == 1 \
            and isinstance(parsed.items[0][0], Obj):  # [{"dx": 3, "dy": -2}]
        obj = parsed.items[0][0]
        named = {s.name: obj.get(n) for s in specs for n in s.names() if obj.get(n) is not None}
        used = {0}
    if parsed.asides and len(named) < len(specs):
        named.update(_aside_values(specs, parsed, named))
    try:
        values = _field_values(specs, parsed, named, used, set(keys.values()))
    except _Ambiguous:
        raise
    except _Shape:
        values = _segment_fields(specs, parsed)
        if values is None:
            raise
    return _typed_fields(specs, values, parsed)


def _field_values(specs, parsed: ParsedAnswer, named: dict, used: set, named_keys=()) -> list:
    """The value of each field in order: named, or by position."""
    if len(named) == len(specs):
        _no_extras(parsed, used, "fields", [named[s.name] for s in specs])
        values = [named[s.name] for s in specs]
    elif named:
        missing = [s.name for s in specs if s.name not in named]
        rest = [v for i, v in enumerate(parsed.items) if i not in used]
        if len(rest) != len(missing):  # then the values under names the rule does not know
            rest = [v for k, v in parsed.fields.items() if k not in named_keys] + rest
        if len(rest) != len(missing) and any(type(v) is Paren for v in rest) \
                and not any(s.type == "sequence" for s in specs if s.name in missing):
            rest = _flat_all(rest)  # "translation (-24, -49), rot_k=1": a tuple of the fields left
        if len(rest) == len(missing):  # 'ring=2, 135' style mixes are read in order
            it = iter(rest)
            values = [named[s.name] if s.name in named else next(it) for s in specs]
        else:
            raise _Shape(f"missing field(s): {', '.join(missing)}")
    else:
        items = _positional(parsed)
        seqs = [s for s in specs if s.type == "sequence"]
        if not seqs:
            values = _flat_numbers(items)
            if len(values) != len(specs) and len(specs) == 1 and parsed.grouped is not None:
                values = [parsed.grouped]
        else:
            values = _sequence_fields(specs, items)
        if len(values) != len(specs):
            raise _Shape(f"expected {len(specs)} values ({', '.join(s.name for s in specs)}), got {len(values)}")
    return values


def _restated(specs, parsed: ParsedAnswer, keys: dict, named: dict, used: set) -> None:
    """A field's value said again under another of its names (``rotation 90° CCW (rot_k=1)``) is
    the same reading when it is the same value in the field's type."""
    for spec in specs:
        if spec.name not in named:
            continue
        for n in spec.names():
            i = parsed.loose.get(n)
            if n == keys.get(spec.name) or i is None or i in used or n in parsed.fields:
                continue
            try:
                same = _typed_fields([spec], [parsed.items[i]], parsed) == _typed_fields([spec], [named[spec.name]], parsed)
            except _Shape:
                same = False
            if same:  # (another value stays a value left over, as before)
                used.add(i)


def _segment_fields(specs, parsed: ParsedAnswer) -> list | None:
    """Two list fields written one item per line or part: three or more (tile, rotation) pairs
    (``tile 3 rotated 180°`` on each line, ``2:90, 0:0, 3:270``; a first column counting the rows
    is dropped), or two lists (``row order: 0 2 1`` / ``column order: 1 0 2``), placed by the
    field each line names, else in order. None when the span is not written so."""
    if len(specs) != 2 or any(s.type != "sequence" for s in specs):
        return None
    rows = _rows(parsed.span)
    if rows is None:
        return None
    pairs = _drop_counter(rows, 2) or [nums for _, nums in rows]
    if len(pairs) >= 3 and all(len(p) == 2 for p in pairs):
        return [tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)]
    if len(rows) != 2:
        return None
    said = [[_says(_words("_".join(re.findall(r"[a-z]+", text.lower()))), spec) > 0 for spec in specs] for text, _ in rows]
    if said == [[False, True], [True, False]]:  # the second field's list written first
        rows = rows[::-1]
    return [tuple(nums) for _, nums in rows]


def _typed_fields(specs, values: list, parsed: ParsedAnswer) -> dict:
    """The values as each field's type: integers, lists, quarter turns, percentages."""
    out = {}
    for spec, v in zip(specs, values):
        if spec.type == "sequence":
            if not isinstance(v, tuple):
                v = (v,)
            if any(isinstance(x, tuple) for x in v):
                raise _Shape(f"field {spec.name}: nested list")
            v = tuple(_as_int(x, spec.name) for x in v)
            out[spec.name] = _quarter_turns(v) if spec.name in QUARTER_TURN_FIELDS else v
        elif spec.type == "int":
            v = _as_int(v, spec.name)
            out[spec.name] = _quarter_turns((v,))[0] if spec.name in QUARTER_TURN_FIELDS else v
        else:
            if isinstance(v, tuple):
                raise _Shape(f"field {spec.name}: expected a number, found a list")
            if spec.name in PERCENT_FIELDS and not parsed.percent and 0 < abs(v) < 1:
                v = v * 100  # "0.375" is a share; "37.5" and "37.5%" are percentages
            out[spec.name] = v
    return out


def _sequence_fields(specs, items) -> list:
    """Unnamed values of fields that include lists: ``[[2,0,1],[1,2,0]]``, or for two list
    fields, one pair per position: ``[[tile, rot], ...]`` (transposed)."""
    seq_pairs = len(specs) == 2 and all(s.type == "sequence" for s in specs)
    if seq_pairs:
        nested = _nested_groups(items, SEQUENCE_PAIR_NAMES, "pairs")
        if nested is not None and len(nested[0]) == 2 and len(nested) > 2:
            return [tuple(g[0] for g in nested), tuple(g[1] for g in nested)]
    if len(items) == 1 and len(specs) > 1 and isinstance(items[0], tuple) and all(isinstance(v, tuple) for v in items[0]):
        return list(items[0])
    return list(items)


def _quarter_turns(values: tuple) -> tuple:
    """Quarter turns modulo 4; degrees (every value a multiple of 90, one of them nonzero) / 90."""
    if any(v % 90 == 0 and v != 0 for v in values) and all(v % 90 == 0 for v in values):
        values = tuple(v // 90 for v in values)
    return tuple(v % 4 for v in values)


# ---------------------------------------------------------------------------- comparison


def _close(spec: FieldSpec, p: float, g: float) -> bool:
    if spec.divide_by:
        p, g = p / spec.divide_by, g / spec.divide_by
    diff = abs(p - g)
    if spec.circular:
        diff = math.fmod(diff, spec.circular)
        diff = min(diff, spec.circular - diff)
    limit = max(spec.tol, spec.rel_tol * abs(g))
    return diff <= limit + 1e-9


def _iou(a, b) -> float:
    ax1, ax2 = sorted((a[0], a[2]))
    ay1, ay2 = sorted((a[1], a[3]))
    bx1, bx2 = sorted((b[0], b[2]))
    by1, by2 = sorted((b[1], b[3]))
    iw = min(ax2, bx2) - max(ax1, bx1)
    ih = min(ay2, by2) - max(ay1, by1)
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return inter / union if union > 0 else 0.0


IOU_EPS = 1e-9  # an IoU of exactly min_iou computed in floating point (0.49999999...) passes


def _same_cells(rule: Rule, pred, gold, context) -> tuple[bool, str]:
    (pk, pv), (gk, gv) = pred, gold
    if pk != gk:
        cols = (context or {}).get("cols")
        if not cols:
            return False, "cannot compare (row, col) cells with flat cell indices: the grid size is unknown"
        to_flat = lambda cells: _multiset(r * cols + c for r, c in cells)  # noqa: E731
        pv, gv = (to_flat(pv) if pk == "cells" else pv), (to_flat(gv) if gk == "cells" else gv)
    return (pv == gv), ("exact match" if pv == gv else "differs from gold")


def _compare(rule: Rule, pred, gold, context=None) -> tuple[bool, str]:
    k = rule.kind
    if k == "set" and rule.item_size == 2:
        return _same_cells(rule, pred, gold, context)
    if k in ("int", "sequence", "set"):
        return (pred == gold), ("exact match" if pred == gold else "differs from gold")
    if k == "fields":
        bad = []
        for spec in rule.fields:
            p, g = pred[spec.name], gold[spec.name]
            if spec.type in ("int", "sequence"):
                ok = p == g
            else:
                ok = _close(spec, float(p), float(g))
            if not ok:
                bad.append(spec.name)
        return (not bad), ("all fields match" if not bad else f"outside rule: {', '.join(bad)}")
    if k == "points":
        if len(pred) != len(gold):
            return False, f"expected {len(gold)} points, got {len(pred)}"
        for i, (p, g) in enumerate(zip(pred, gold)):
            if len(p) != len(g):  # a 1-D shift is (dx, 0): compared in the gold's shape
                p, g = tuple(p) + (0,) * (len(g) - len(p)), tuple(g) + (0,) * (len(p) - len(g))
            if rule.metric == "euclidean":
                d = math.dist([float(a) for a in p], [float(b) for b in g])
            else:
                d = max(abs(float(a) - float(b)) for a, b in zip(p, g))
            if not d <= rule.tol + 1e-9:
                return False, f"point {i} off by {d:.3g} > {rule.tol:g}"
        return True, "all points within tolerance"
    if k == "boxes":
        if len(pred) != len(gold):
            return False, f"expected {len(gold)} boxes, got {len(pred)}"
        orders = itertools.permutations(range(len(pred))) if rule.order_free and len(pred) <= 6 else [range(len(pred))]
        best = -1.0
        for order in orders:
            worst = min((_iou(pred[j], g) for j, g in zip(order, gold)), default=1.0)
            best = max(best, worst)
        ok = best >= rule.min_iou - IOU_EPS
        return ok, f"min IoU {best:.3f} {'>=' if ok else '<'} {rule.min_iou:g}"
    return False, f"unknown rule kind {k}"


def read_value(rule: Rule, text: str, *, require_span: bool, like=None, context=None):
    """Parse ``text`` and normalise it to the rule's shape: ``(value, None, span)`` or
    ``(None, reason, span)``."""
    parsed = parse_answer(text, require_span=require_span)
    if not parsed.ok:
        if rule.kind == "set" and parsed.span is not None and _EMPTY_LIST.fullmatch(parsed.span):
            # "[]": the empty set, a definite answer ("no tile differs"), compared as one
            return (((like[0] if like else "flat"), ()) if rule.item_size == 2 else ()), None, parsed.span
        return None, parsed.reason, parsed.span
    try:
        return _read(rule, parsed, like, context), None, parsed.span
    except _Shape as exc:
        return None, str(exc), parsed.span


_EMPTY_LIST = re.compile(r"\s*\[\s*\]\s*")


@functools.lru_cache(maxsize=8192)
def _read_gold(rule: Rule, gold: str):
    """read_value of a gold string, cached: a task has few distinct gold strings per run and each
    is scored many times (reading it again would cost as much as the prediction)."""
    return read_value(rule, gold, require_span=False)


def grid_of(doc: Mapping | None) -> dict | None:
    """``{"rows", "cols"}`` of a grid task's item, from its ``meta`` (dict or JSON) or its
    prompt ("4 rows and 6 columns", "4x6 grid"); None when it says nothing."""
    import json
    import re

    if not isinstance(doc, Mapping):
        return None
    meta = doc.get("meta")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    if isinstance(meta, Mapping) and isinstance(meta.get("cols"), int) and meta.get("cols", 0) > 0:
        return {"rows": meta.get("rows"), "cols": meta["cols"]}
    prompt = doc.get("prompt")
    if isinstance(prompt, str):
        m = re.search(r"(\d{1,3})\s*rows?\s*(?:and|,|x|×|by)\s*(\d{1,3})\s*col", prompt[:4000], re.I) or \
            re.search(r"(\d{1,3})\s*[x×]\s*(\d{1,3})\s*grid", prompt[:4000], re.I)
        if m and int(m.group(2)) > 0:
            return {"rows": int(m.group(1)), "cols": int(m.group(2))}
    return None


# a comma between two digit runs, each not part of a longer comma or dot run: a decimal comma
# when the answer read with commas between values does not fit the rule's shape ("10,62")
_DECIMAL_COMMA = re.compile(r"(?<![\d.,+\-\u2212])([-+\u2212]?\d+),(\d+)(?![\d.]|,\d)")


_COUNTED = ("points", "boxes")  # kinds whose reading may have another count than the gold


def _fits(rule: Rule, value, gold) -> bool:
    """Whether a reading has the shape the rule asks for: it was read, and a list of points or
    boxes has the gold's count (other kinds check their shape while reading)."""
    if value is None:
        return False
    if rule.kind in _COUNTED:
        return len(value) == len(gold)
    return True


def score(rule: Rule | Mapping, prediction: str, gold: str, context: Mapping | None = None) -> Score:
    """Score one prediction (model output containing ``<answer>…</answer>``) against ``gold``.
    ``context``: what the item tells about its shape (``grid_of(doc)``), for flat cell indices."""
    if type(rule) is not Rule:
        rule = rule_from_config(rule)
    g, why, _ = _read_gold(rule, gold) if isinstance(gold, str) else read_value(rule, gold, require_span=False)
    if why is not None:
        return Score(False, BAD_GOLD, f"gold answer unreadable: {why}")
    p, why, span = read_value(rule, prediction, require_span=True, like=g, context=context)
    if (why is not None or (rule.kind in _COUNTED and len(p) != len(g))) and span is not None and "," in span \
            and ", " not in span and (rule.kind in ("fields", "int") or ";" in span):
        # "21,7", "1,77; 1,11": European decimals, when every comma is one and the values are
        # apart by ';' or the rule reads a fixed number of values (a list's count is the answer's)
        alt, n = _DECIMAL_COMMA.subn(r"\1.\2", span)
        if n == span.count(","):
            q, alt_why, _ = read_value(rule, OPEN_TAG + alt + CLOSE_TAG, require_span=True, like=g, context=context)
            if alt_why is None and _fits(rule, q, g):  # only that reading fits the asked shape
                p, why = q, None
    if why is not None:
        return Score(False, UNPARSABLE, why, None, g, span)
    try:
        ok, reason = _compare(rule, p, g, context)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:  # 1e200-sized numbers: a wrong answer
        ok, reason = False, f"cannot compare with the gold: {type(exc).__name__}: {exc}"
    return Score(ok, OK, reason, p, g, span)
