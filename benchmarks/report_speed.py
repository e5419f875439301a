"""How long `compare` and `report` take on runs of the published size (DoD: 2,100 requests).

Writes two synthetic DoD-shaped runs (2,100 samples each, 0/1 E and D with pending and problem
statuses, one 512x512 PNG output per feasible request) to a temporary folder, then times:
loading + comparing the two runs (intervals, McNemar tests, Markdown/CSV, PNG chart), and the
HTML report of one run with the default cap of 200 samples per task.

    python benchmarks/report_speed.py [--n 2100]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _write_run(folder: Path, n: int, seed: int, image: str) -> None:
    from lmms_plugins.utils import status as st

    rnd = random.Random(seed)
    folder.mkdir(parents=True)
    lines, e_hits, d_hits = [], 0, 0
    for i in range(n):
        feasible = i % 2 == 0
        case = f"cat-{i // 2}-{'feasible' if feasible else 'infeasible'}"
        v = 1.0 if rnd.random() < 0.6 else 0.0
        status = st.OK if rnd.random() > 0.03 else st.JUDGE_ERROR
        value = None if status != st.OK else v
        rec = {"case_id": case, "category": f"cat{i % 7}", "feasible": feasible}
        e = st.sample(value if feasible else None, status, "r", case, applicable=feasible, record=rec)
        d = st.sample(value if not feasible else None, status, "r", case, applicable=not feasible, record=rec)
        e_hits += feasible and value == 1.0
        d_hits += (not feasible) and value == 1.0
        out = json.dumps({"text": "<think>reasoning</think>", "images": [image] if feasible else []})
        lines.append({"doc_id": i, "target": "", "filtered_resps": out, "input_media": [image], "E": e, "D_strict": d})
    half = n // 2
    res = {"results": {"dod_no_hint": {"alias": "dod_no_hint", "E,none": e_hits / half, "E_stderr,none": "N/A",
                                       "D_strict,none": d_hits / half, "D_strict_stderr,none": "N/A"}},
           "config": {"model": "synthetic"}, "n-samples": {"dod_no_hint": {"original": n, "effective": n}}}
    (folder / "20260101_000000_results.json").write_text(json.dumps(res))
    (folder / "20260101_000000_samples_dod_no_hint.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2100)
    args = p.parse_args(argv)
    from PIL import Image

    from lmms_plugins.compare import compare
    from lmms_plugins.report import write_report

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        img = tmp / "img.png"
        Image.effect_noise((512, 512), 60).convert("RGB").save(img)
        _write_run(tmp / "a", args.n, 1, str(img))
        _write_run(tmp / "b", args.n, 2, str(img))
        t0 = time.perf_counter()
        cmp = compare([tmp / "a", tmp / "b"], out_dir=tmp / "cmp")
        t1 = time.perf_counter()
        page = write_report(tmp / "a")
        t2 = time.perf_counter()
        print(f"samples per run: {args.n}")
        print(f"compare (2 runs, {len(cmp.blocks)} tables, {len(cmp.paired)} paired tests, md+csv+png): {t1 - t0:.2f} s")
        print(f"report (1 run, 200 cards shown): {t2 - t1:.2f} s, {page.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
