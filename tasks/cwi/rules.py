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
from dataclasses import dataclass
from typing import Any, Mapping

from .answer_parse import ParsedAnswer, parse_answer

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


class _Shape(Exception):
    """The parsed answer does not have the shape the rule needs."""


def _flat_numbers(items) -> list:
    """Positional numbers, unwrapping one enclosing list (``[3,-2]`` reads like ``3,-2``)."""
    if len(items) == 1 and isinstance(items[0], tuple):
        items = items[0]
    out = []
    for v in items:
        if isinstance(v, tuple):
            raise _Shape("expected plain numbers, found a nested list")
        out.append(v)
    return out


def _positional(parsed: ParsedAnswer) -> tuple:
    """Positional items; when there are none, the named values in order ('count: 7')."""
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


def _groups(items, size: int, what: str) -> list[tuple]:
    """A list of ``size``-tuples from nested (``[[1,2],[3,4]]``) or flat (``1,2,3,4``) input."""
    if len(items) == 1 and isinstance(items[0], tuple) and items[0] and isinstance(items[0][0], tuple):
        items = items[0]  # one enclosing list around the groups
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


def _read(rule: Rule, parsed: ParsedAnswer):
    """The parsed answer normalised to the rule's shape (raises _Shape)."""
    k = rule.kind
    if k == "int":
        flat = _flat_numbers(_positional(parsed))
        if len(flat) != 1:
            raise _Shape(f"expected one integer, got {len(flat)} numbers")
        return _as_int(flat[0])
    if k == "sequence":
        return tuple(_as_int(v, "item") for v in _flat_numbers(_positional(parsed)))
    if k == "set":
        groups = _groups(_positional(parsed), rule.item_size, "set")
        if rule.item_size == 1:
            return frozenset(_as_int(g[0], "item") for g in groups)
        return frozenset(tuple(_as_int(x, "item") for x in g) for g in groups)
    if k == "fields":
        return _read_fields(rule, parsed)
    if k == "points":
        return tuple(_groups(_positional(parsed), rule.dims, "points"))
    if k == "boxes":
        return tuple(_groups(_positional(parsed), 4, "boxes"))
    raise _Shape(f"unknown rule kind {k}")  # unreachable: rule_from_config validates


def _read_fields(rule: Rule, parsed: ParsedAnswer) -> dict:
    specs = rule.fields
    named = {}
    for spec in specs:
        for n in spec.names():
            if n in parsed.fields:
                named[spec.name] = parsed.fields[n]
                break
    if len(named) == len(specs):
        values = [named[s.name] for s in specs]
    elif named:
        missing = [s.name for s in specs if s.name not in named]
        if len(parsed.items) == len(missing):  # 'ring=2, 135' style mixes are read in order
            it = iter(parsed.items)
            values = [named[s.name] if s.name in named else next(it) for s in specs]
        else:
            raise _Shape(f"missing field(s): {', '.join(missing)}")
    else:
        items = _positional(parsed)
        if all(s.type != "sequence" for s in specs):
            values = _flat_numbers(items)
        else:
            values = list(items[0]) if len(items) == 1 and len(specs) > 1 and isinstance(items[0], tuple) and all(isinstance(v, tuple) for v in items[0]) else list(items)
        if len(values) != len(specs):
            raise _Shape(f"expected {len(specs)} values ({', '.join(s.name for s in specs)}), got {len(values)}")
    out = {}
    for spec, v in zip(specs, values):
        if spec.type == "sequence":
            if not isinstance(v, tuple):
                v = (v,)
            if any(isinstance(x, tuple) for x in v):
                raise _Shape(f"field {spec.name}: nested list")
            out[spec.name] = tuple(_as_int(x, spec.name) for x in v)
        elif spec.type == "int":
            out[spec.name] = _as_int(v, spec.name)
        else:
            if isinstance(v, tuple):
                raise _Shape(f"field {spec.name}: expected a number, found a list")
            out[spec.name] = v
    return out


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


def _compare(rule: Rule, pred, gold) -> tuple[bool, str]:
    k = rule.kind
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
            if rule.metric == "euclidean":
                d = math.sqrt(sum((float(a) - float(b)) ** 2 for a, b in zip(p, g)))
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
        ok = best >= rule.min_iou
        return ok, f"min IoU {best:.3f} {'>=' if ok else '<'} {rule.min_iou:g}"
    return False, f"unknown rule kind {k}"


def read_value(rule: Rule, text: str, *, require_span: bool):
    """Parse ``text`` and normalise it to the rule's shape: ``(value, None)`` or ``(None, reason)``."""
    parsed = parse_answer(text, require_span=require_span)
    if not parsed.ok:
        return None, parsed.reason, parsed.span
    try:
        return _read(rule, parsed), None, parsed.span
    except _Shape as exc:
        return None, str(exc), parsed.span


@functools.lru_cache(maxsize=8192)
def _read_gold(rule: Rule, gold: str):
    # a task has few distinct gold strings per run and each is scored many times
    return read_value(rule, gold, require_span=False)


def score(rule: Rule | Mapping, prediction: str, gold: str) -> Score:
    """Score one prediction (model output containing ``<answer>…</answer>``) against ``gold``."""
    rule = rule_from_config(rule)
    g, why, _ = _read_gold(rule, gold) if isinstance(gold, str) else read_value(rule, gold, require_span=False)
    if why is not None:
        return Score(False, BAD_GOLD, f"gold answer unreadable: {why}", None, None, None)
    p, why, span = read_value(rule, prediction, require_span=True)
    if why is not None:
        return Score(False, UNPARSABLE, why, None, g, span)
    ok, reason = _compare(rule, p, g)
    return Score(ok, OK, reason, p, g, span)
