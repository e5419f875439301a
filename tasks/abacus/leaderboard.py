"""The ABACUS leaderboard from lmms-eval's logged samples: operation x tier, operation, overall.

    python -m lmms_plugins.tasks.abacus.leaderboard <output_path of a run with --log_samples> [--json]

lmms-eval's group rows give exact pooled means and Score but no intervals (a group sees only its
subtasks' aggregates); this reads the per-edit records and computes every row with its 95 %
bootstrap intervals, as the card's leaderboard reports them.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from lmms_plugins.tasks.abacus.aggregate import leaderboard
from lmms_plugins.utils.jsonl import read_jsonl

_TASK = re.compile(r"_samples_(abacus_(add|remove|change)_(easy|medium|hard))\.jsonl$")


def read_samples(folder: Path) -> dict[str, list[dict]]:
    """task -> per-edit leaderboard items, from the newest samples file of each task."""
    newest: dict[str, Path] = {}
    for path in sorted(Path(folder).rglob("*_samples_abacus_*.jsonl"), key=lambda p: p.stat().st_mtime):
        m = _TASK.search(path.name)
        if m:
            newest[m.group(1)] = path
    out = {}
    for task, path in sorted(newest.items()):
        rows = read_jsonl(path)
        out[task] = [r["abacus_leaderboard"] for r in rows if isinstance(r.get("abacus_leaderboard"), dict)]
    return out


def table(samples: dict[str, list[dict]]) -> list[tuple[str, dict]]:
    rows = []
    for op in ("add", "remove", "change"):
        for tier in ("easy", "medium", "hard"):
            task = f"abacus_{op}_{tier}"
            if task in samples:
                rows.append((task, leaderboard(samples[task]).as_dict()))
        items = [i for t, v in samples.items() if t.startswith(f"abacus_{op}_") for i in v]
        if items:
            rows.append((f"abacus_{op}", leaderboard(items).as_dict()))
    everything = [i for v in samples.values() for i in v]
    if everything:
        rows.append(("abacus (overall)", leaderboard(everything).as_dict()))
    return rows


def _fmt(d: dict, name: str) -> str:
    ci = d.get("ci95", {}).get(name)
    return f"{d[name]:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="the --output_path of an lmms-eval run made with --log_samples")
    p.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    args = p.parse_args(argv)
    samples = read_samples(Path(args.folder))
    if not samples:
        print(f"no *_samples_abacus_<op>_<tier>.jsonl under {args.folder} (run lmms-eval with --log_samples)")
        return 1
    rows = table(samples)
    if args.json:
        print(json.dumps(dict(rows), indent=1))
        return 0
    names = ("cf", "sc", "oc", "score", "edit_score", "exact_count")
    # n: the edits scored; coverage: their share of the samples (failed generations are left out)
    print("| set | n | coverage | CF | SC | OC | Score (product of means) | mean per-edit score | exact count | statuses |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, d in rows:
        statuses = ", ".join(f"{k} {v}" for k, v in d["status_counts"].items())
        print(f"| {name} | {d['n']} | {d['coverage']:.3f} | " + " | ".join(_fmt(d, n) for n in names) + f" | {statuses} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
