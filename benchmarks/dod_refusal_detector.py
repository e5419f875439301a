"""Accuracy of the rule-based DoD refusal detector on the labelled set shipped with the task.

    python benchmarks/dod_refusal_detector.py [--split dev|heldout|all] [--errors]

Prints accuracy, precision and recall (positive class = "concludes the request is infeasible"),
per split and per kind of response, and checks that every evidence span is an exact substring.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from lmms_plugins.tasks.dod.refusal_rules import detect_refusal

LABELLED = Path(__file__).resolve().parents[1] / "tasks" / "dod" / "refusal_labelled.jsonl"


def scores(rows: list[tuple[bool, bool]]) -> dict:
    tp = sum(1 for y, p in rows if y and p)
    fp = sum(1 for y, p in rows if not y and p)
    fn = sum(1 for y, p in rows if y and not p)
    tn = sum(1 for y, p in rows if not y and not p)
    n = len(rows)
    return {
        "n": n, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "accuracy": (tp + tn) / n if n else float("nan"),
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / (tp + fn) if tp + fn else float("nan"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(LABELLED))
    ap.add_argument("--errors", action="store_true", help="print every misclassified response")
    args = ap.parse_args(argv)
    items = [json.loads(line) for line in Path(args.file).read_text(encoding="utf-8").splitlines() if line.strip()]
    by_split, by_kind = defaultdict(list), defaultdict(list)
    bad_evidence = 0
    for item in items:
        decision = detect_refusal(item["text"])
        pair = (bool(item["label"]), decision.refused)
        by_split[item["split"]].append(pair)
        by_split["all"].append(pair)
        by_kind[item["kind"]].append(pair)
        if decision.refused and decision.evidence not in item["text"]:
            bad_evidence += 1
        if args.errors and pair[0] != pair[1]:
            print(f"  {item['id']} [{item['split']}/{item['kind']}] label={item['label']} got={decision.refused} {decision.why}")
            print(f"      {item['text'][:300]!r}")
    print(f"labelled set: {args.file} ({len(items)} responses)")
    for split in ("dev", "heldout", "post_freeze", "frozen_2", "frozen_3", "all"):
        s = scores(by_split[split])
        print(f"{split:8s} n={s['n']:3d} accuracy={s['accuracy']:.3f} precision={s['precision']:.3f} recall={s['recall']:.3f} (tp {s['tp']}, fp {s['fp']}, fn {s['fn']}, tn {s['tn']})")
    print("per kind (all splits): accuracy")
    for kind, rows in sorted(by_kind.items()):
        s = scores(rows)
        print(f"  {kind:18s} n={s['n']:3d} accuracy={s['accuracy']:.3f}")
    print(f"evidence not an exact substring: {bad_evidence}")
    return 1 if bad_evidence else 0


if __name__ == "__main__":
    sys.exit(main())
