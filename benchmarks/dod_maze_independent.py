"""Audit of the DoD maze verifier on drawings by an independent renderer.

Pairs come from ``lmms-plugins make-data dod-maze``; the drawings from
``tests/dod/independent_maze_render.py`` (OpenCV / PIL anti-aliased lines of several widths,
shades of red, overlays, curves, lines hugging a side; and wrong edits drawn the same way), each
saved in several forms (PNG, JPEG q95/75/60, resized 0.9x / 1.1x, padded).  Prints, per case
kind, how many verdicts were right (correct drawings accepted, wrong ones rejected) and the
reasons given.

    python benchmarks/dod_maze_independent.py --pairs 6 --seed 4242
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "dod"))

import independent_maze_render as imr  # noqa: E402


def load_pairs(root: Path):
    recs = [json.loads(x) for x in (root / "ground_truth_criteria.jsonl").read_text().splitlines() if x.strip()]
    by_pair = defaultdict(dict)
    for r in recs:
        by_pair[r["pair_id"]]["A" if r["ground_truth"]["feasible"] else "B"] = r
    out = []
    for pid, d in sorted(by_pair.items()):
        a = root / "image" / f"{pid}-A.png"
        b = root / "image" / f"{pid}-B.png"
        out.append((pid, d["A"]["grid_evidence"], a, d["B"]["grid_evidence"], b))
    return out


def run(pairs, forms, styles=None, verify=None, progress=False):
    """(rows, per-kind Counter of reasons); each row = (pair, kind, style, form, expect_ok, ok, reason)."""
    from PIL import Image

    if verify is None:
        from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit as verify
    rows = []
    for idx, (pid, ev_a, path_a, ev_b, path_b) in enumerate(pairs):
        img_a, img_b = Image.open(path_a).convert("RGB"), Image.open(path_b).convert("RGB")
        for case in imr.cases(ev_a, img_a, ev_b, img_b, styles=styles, seed=idx):
            inp, ev = (img_a, ev_a) if case.on == "A" else (img_b, ev_b)
            for form in forms:
                v = verify(inp, imr.finish(case.image, form), ev)
                rows.append((pid, case.kind, case.style, form, case.expect_ok, v.ok, v.reason))
        if progress:
            print(f"  {pid}: {len(rows)} verdicts so far", file=sys.stderr)
    return rows


def table(rows) -> str:
    kinds = defaultdict(list)
    for row in rows:
        kinds[row[1]].append(row)
    lines = ["| case kind | expected | right | accuracy | verdicts |", "|---|---|---:|---:|---|"]
    for kind in sorted(kinds, key=lambda k: (not kinds[k][0][4], k)):
        rs = kinds[kind]
        right = sum(r[4] == r[5] for r in rs)
        reasons = Counter(r[6] for r in rs)
        lines.append(f"| {kind} | {'accept' if rs[0][4] else 'reject'} | {right}/{len(rs)} | "
                     f"{100 * right / len(rs):.1f} % | " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()) + " |")
    good = [r for r in rows if r[4]]
    bad = [r for r in rows if not r[4]]
    lines.append(f"| **all correct drawings** | accept | {sum(r[5] for r in good)}/{len(good)} | "
                 f"{100 * sum(r[5] for r in good) / max(1, len(good)):.1f} % | |")
    lines.append(f"| **all wrong drawings** | reject | {sum(not r[5] for r in bad)}/{len(bad)} | "
                 f"{100 * sum(not r[5] for r in bad) / max(1, len(bad)):.1f} % | |")
    return "\n".join(lines)


def failures(rows, limit=40) -> str:
    bad = Counter((r[1], r[2], r[3], r[6]) for r in rows if r[4] != r[5])
    return "\n".join(f"  {k[0]:24s} {k[1]:24s} {k[2]:10s} -> {k[3]} x{v}" for k, v in bad.most_common(limit))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--pitch", type=int, default=48, help="cell size of the generated maps (px)")
    ap.add_argument("--forms", default=",".join(imr.FORMS))
    ap.add_argument("--data", type=Path, help="an existing make-data dod-maze folder (else made in a temp dir)")
    args = ap.parse_args(argv)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.data
        if root is None:
            root = Path(tmp) / "maze"
            subprocess.run([sys.executable, "-m", "lmms_plugins.cli", "make-data", "dod-maze", "--pairs", str(args.pairs),
                            "--seed", str(args.seed), "--pitch", str(args.pitch), "--out", str(root)], check=True, stdout=subprocess.DEVNULL)
        rows = run(load_pairs(root)[: args.pairs], args.forms.split(","), progress=True)
    print(table(rows))
    print(f"\nwrong verdicts (kind, style, form -> reason):\n{failures(rows)}")
    print(f"\n{len(rows)} verdicts in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
