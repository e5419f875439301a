"""The scoring rule of every CwI-Bench task: one Python table, the only source.

:data:`RULES` maps a card task (``alignment``) to its rule as data (the mapping
:func:`rules.rule_from_config` reads; keys in README.md, "Rules"). Everything else reads it from
here: the task class (task.py, which binds the scorer to the rule of its ``metadata.cwi_task``),
the YAML generator (make_yamls.py, which writes no rule into the leaves), the data writer's gold
check, the generators' shortcut screen, the benchmarks and the tests (:func:`rule_for_task`).

A task written in YAML alone (not in this table) carries its rule as ``metadata.cwi_rule``, which the
same class binds (README.md, "Adding a task: one YAML, no Python").
"""

from __future__ import annotations

import functools

from .rules import Rule, rule_from_config


def _xy(tol, names=("dx", "dy")):
    a, b = names
    return [
        {"name": a, "aliases": ["x", f"shift_{a[-1]}"] if a == "dx" else [], "tol": tol},
        {"name": b, "aliases": ["y", f"shift_{b[-1]}"] if b == "dy" else [], "tol": tol},
    ]


def _rgb(tol):
    return [
        {"name": "r", "aliases": ["red"], "tol": tol},
        {"name": "g", "aliases": ["green"], "tol": tol},
        {"name": "b", "aliases": ["blue"], "tol": tol},
    ]


_ANGLE = ["theta", "angle", "rotation", "rot", "deg"]

# The card's criteria, as data (comments quote the card).
RULES: dict[str, dict] = {
    # dx,dy each within ±2 px of the true shift
    "circular_shift": {"kind": "fields", "fields": _xy(2)},
    # the integer equals the true count
    "restore_then_count": {"kind": "int"},
    # dx,dy within ±2 px each and θ within ±1.875° (circular)
    "shift_rot_align": {
        "kind": "fields",
        "fields": _xy(2) + [{"name": "theta", "aliases": _ANGLE[1:], "tol": 1.875, "circular": 360}],
    },
    # dx,dy each within ±2 px
    "alignment": {"kind": "fields", "fields": _xy(2)},
    # angle within ±3° (circular) and scale within ±0.05
    "rot_scale": {
        "kind": "fields",
        "fields": [
            {"name": "angle", "aliases": ["theta", "rotation", "rot", "deg"], "tol": 3, "circular": 360},
            {"name": "scale", "aliases": ["s", "zoom"], "tol": 0.05},
        ],
    },
    # the (dx,dy,rot_k,fliph) tuple matches in every field
    "transform_chain": {
        "kind": "fields",
        "fields": [
            {"name": "dx", "type": "int"},
            {"name": "dy", "type": "int"},
            {"name": "rot_k", "aliases": ["rot", "k", "turns", "rotation"], "type": "int"},
            {"name": "fliph", "aliases": ["flip", "flip_h"], "type": "int"},
        ],
    },
    # both the row and column permutations match exactly
    "unshuffle2d": {
        "kind": "fields",
        "fields": [
            {"name": "rows", "aliases": ["row", "row_perm"], "type": "sequence"},
            {"name": "cols", "aliases": ["col", "columns", "col_perm"], "type": "sequence"},
        ],
    },
    # the full piece-order sequence matches exactly
    "jigsaw": {"kind": "sequence"},
    # the full tile-and-rotation assignment matches exactly
    "rotated_jigsaw": {
        "kind": "fields",
        "fields": [
            {"name": "tiles", "aliases": ["order", "pieces", "perm"], "type": "sequence"},
            {"name": "rots", "aliases": ["rotations", "rot_k", "k", "turns"], "type": "sequence"},
        ],
    },
    # the percentage is within ±1.5 pp
    "restore_then_measure": {
        "kind": "fields",
        "fields": [{"name": "percent", "aliases": ["pct", "percentage", "value", "area"], "tol": 1.5}],
    },
    # the ring index is exact and the angle within ±5°
    "ring_rotor": {
        "kind": "fields",
        "fields": [
            {"name": "ring", "aliases": ["ring_index", "index"], "type": "int"},
            {"name": "angle", "aliases": ["theta", "rotation", "deg"], "tol": 5, "circular": 360},
        ],
    },
    # every signed shift is within ±8 px (count and order match)
    "double_exposure": {"kind": "points", "dims": 1, "tol": 8, "metric": "per_component"},
    # the period is within ±1.5
    "grating_period": {"kind": "fields", "fields": [{"name": "period", "aliases": ["value", "p"], "tol": 1.5}]},
    # the reported cell set equals the true anomaly set
    "anomaly_v2": {"kind": "set", "item_size": 2},
    # the integer equals the true count
    "peak_count": {"kind": "int"},
    # the reported index pair equals the true congruent pair
    "congruent_pair": {"kind": "set", "item_size": 1},
    # length/200 is within ±0.3  (decision: the answer is the length in px; |L/200 - L*/200| <= 0.3)
    "trace_length": {
        "kind": "fields",
        "fields": [{"name": "length", "aliases": ["value", "l"], "tol": 0.3, "divide_by": 200}],
    },
    # the scale is within ±0.004
    "scan_moire": {"kind": "fields", "fields": [{"name": "scale", "aliases": ["value", "s"], "tol": 0.004}]},
    # the box reaches IoU ≥ 0.5 with the true crop (coords normalized 0–1000)
    "crop_provenance": {"kind": "boxes", "min_iou": 0.5},
    # the point is within ±2 px on the 480-px canvas
    "brightest_blob": {"kind": "points", "dims": 2, "tol": 2, "metric": "euclidean"},
    # both boxes reach IoU ≥ 0.5, order-free (coords normalized 0–1000)
    "sub_rect_swap": {"kind": "boxes", "min_iou": 0.5, "order_free": True},
    # the box reaches IoU ≥ 0.5 with the true region (coords normalized 0–1000)
    "retouch_region": {"kind": "boxes", "min_iou": 0.5},
    # the point is within ±4 px on the 480-px canvas
    "circle_fit": {"kind": "points", "dims": 2, "tol": 4, "metric": "euclidean"},
    # dx,dy are each within ±0.3 px
    "print_misreg": {"kind": "fields", "fields": _xy(0.3)},
    # every spotlight centre is within ±15 px (in strength order)
    "gain_center": {"kind": "points", "dims": 2, "tol": 15, "metric": "euclidean"},
    # R,G,B each within ±10
    "film_color": {"kind": "fields", "fields": _rgb(10)},
    "swatch_rgb": {"kind": "fields", "fields": _rgb(10)},
    "patch_mean_dots": {"kind": "fields", "fields": _rgb(10)},
    # the integer equals the true count
    "color_count": {"kind": "int"},
    # R,G,B each within ±8
    "channel_mix": {"kind": "fields", "fields": _rgb(8)},
}


@functools.cache
def rule_for_task(task: str) -> Rule:
    """The validated rule of ``task`` (card name, e.g. ``alignment``)."""
    try:
        raw = RULES[task]
    except KeyError:
        raise KeyError(f"no CwI rule for task {task!r}; known: {', '.join(RULES)}") from None
    return rule_from_config(raw)
