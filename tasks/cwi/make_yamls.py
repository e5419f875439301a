"""Write the CwI task YAMLs: one leaf per task (its rule) and the five groups, for both
settings: ``cwi_<task>`` (one reply, answer only) and ``cwi_code_<task>`` (the model's code is run
between rounds; template ``_code_template_yaml``). Both read the same data and the same rule.

The leaves are generated so that the 30 of them cannot drift apart; each one is still plain
data that can be edited by hand (a test checks that running this script changes nothing, so
edit the RULES table here and re-run)::

    python -m lmms_plugins.tasks.cwi.make_yamls          # rewrite tasks/cwi/*.yaml
    python -m lmms_plugins.tasks.cwi.make_yamls --check  # exit 1 if a file would change
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .catalog import FAMILIES, TASKS, task_name

HERE = Path(__file__).resolve().parent


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
            {"name": "rot_k", "aliases": ["rot", "k"], "type": "int"},
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
            {"name": "rots", "aliases": ["rotations", "rot_k", "k"], "type": "sequence"},
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

HEADER = "# Generated by tasks/cwi/make_yamls.py; edit RULES there and re-run (a test checks this).\n"

GROUP_AGG = """aggregate_metric_list:
  # substring match: also aggregates accuracy_easy ... accuracy_expert
  - metric: accuracy
    aggregation: mean
    weight_by_size: true
  - metric: extraction_failure_rate
    aggregation: mean
    weight_by_size: true
  - metric: generation_failure_rate
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


def _flow(value) -> str:
    """YAML flow style via JSON (JSON is valid YAML), so a leaf is one readable block."""
    return json.dumps(value, ensure_ascii=False)


CODE_GROUP_AGG = GROUP_AGG.replace("metadata:", """  # the loop's counts, per item
  - metric: rounds_used
    aggregation: mean
    weight_by_size: true
  - metric: executions
    aggregation: mean
    weight_by_size: true
  - metric: execution_errors
    aggregation: mean
    weight_by_size: true
  - metric: timeouts
    aggregation: mean
    weight_by_size: true
  - metric: answered_without_code
    aggregation: mean
    weight_by_size: true
metadata:""")


def code_task_name(task: str) -> str:
    """lmms-eval task name of a CwI task with code execution (``alignment`` -> ``cwi_code_alignment``)."""
    return f"cwi_code_{task}"


def leaf(task: str, code: bool = False) -> str:
    rule = RULES[task]
    lines = [
        HEADER.rstrip("\n"),
        f"task: {code_task_name(task) if code else task_name(task)}",
        f"include: {'_code_template_yaml' if code else '_default_template_yaml'}",
        f"dataset_name: {task}",
        "metadata:",
        "  version: 1.0",
        "  lmms_plugins_benchmark: cwi",
        f"  cwi_task: {task}",
        f"  cwi_rule: {_flow(rule)}",
    ]
    return "\n".join(lines) + "\n"


def group(name: str, tasks, alias: str, code: bool = False) -> str:
    body = "\n".join(f"  - {code_task_name(t) if code else task_name(t)}" for t in tasks)
    return f"{HEADER}group: {name}\ngroup_alias: {alias}\ntask:\n{body}\n{CODE_GROUP_AGG if code else GROUP_AGG}"


def files() -> dict[str, str]:
    missing = set(TASKS) ^ set(RULES)
    if missing:
        raise RuntimeError(f"RULES and catalog disagree on: {sorted(missing)}")
    out = {f"cwi_{t}.yaml": leaf(t) for t in TASKS}
    out["cwi.yaml"] = group("cwi", TASKS, "CwI-Bench (all 30 tasks)")
    for fam, tasks in FAMILIES.items():
        out[f"cwi_{fam}.yaml"] = group(f"cwi_{fam}", tasks, f"CwI-Bench {fam}")
    out.update({f"{code_task_name(t)}.yaml": leaf(t, code=True) for t in TASKS})
    out["cwi_code.yaml"] = group("cwi_code", TASKS, "CwI-Bench with code execution (all 30 tasks)", code=True)
    for fam, tasks in FAMILIES.items():
        out[f"cwi_code_{fam}.yaml"] = group(f"cwi_code_{fam}", tasks, f"CwI-Bench {fam}, with code execution", code=True)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in argv
    changed = []
    for name, text in files().items():
        path = HERE / name
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            changed.append(name)
            if not check:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if check else "wrote"
    print(f"{verb} {len(changed)} file(s)" + (": " + ", ".join(changed) if changed else ""))
    return 1 if (check and changed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
