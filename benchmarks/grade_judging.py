"""GRADE judging cost and overhead: judge calls and images per full run, and the client's overhead.

    python benchmarks/grade_judging.py                 # synthetic 520-sample run against a local fake judge
    python benchmarks/grade_judging.py --root DIR      # also count calls/images for a real GRADE copy (no calls)

What it measures (numbers go to tasks/grade/README.md):
* calls and images a full run sends to the judge (R: 3 images, C: 2 images unless consistency is
  ``none``, L: 1 image), and the mean request size (JPEG, longest side <= 1024);
* wall time of scoring every sample through ``process_results`` in 4 threads (as lmms-eval does)
  against a judge that answers at once, with an empty cache and again from the cache: the ratio
  says how much of a re-run the cache saves (the judge's own latency is not modelled).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def count_cost(docs) -> dict:
    n = len(docs)
    n_c = sum(1 for d in docs if d["consistency"] != "none")
    return {"samples": n, "consistency_judged": n_c, "calls": 2 * n + n_c, "images": 3 * n + 2 * n_c + n}


def _diagram(size, rng, label):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, (255, 255, 255))
    d = ImageDraw.Draw(img)
    for _ in range(12):
        pts = [rng.randrange(size[0]), rng.randrange(size[1]), rng.randrange(size[0]), rng.randrange(size[1])]
        d.line(pts, fill=(rng.randrange(200), rng.randrange(200), rng.randrange(200)), width=3)
    d.text((20, 20), label, fill=(0, 0, 0))
    return img


def synthetic(root: Path, n: int, seed: int = 0, pool: int = 20) -> dict:
    """n GRADE-layout records over the ten domains. Inputs and references come from a pool of
    ``pool`` diagrams (1200x900); every sample has its own edited image (1024x768), as a model's
    outputs would, so no two judge requests are the same."""
    rng = random.Random(seed)
    prefixes = ["physics", "board", "chemistry", "math", "music", "eco", "his", "geography", "biology", "ComputerScience", "engineering"]
    for j in range(pool):
        for kind in ("input", "gt"):
            path = root / kind / f"{j:02d}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            _diagram((1200, 900), rng, f"{kind} {j}").save(path)
    records, outputs = [], {}
    (root / "edited").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        tid = f"{prefixes[i % len(prefixes)]}_sub{i % 4}_{i:03d}"
        edited = root / "edited" / f"{tid}.png"
        _diagram((1024, 768), rng, tid).save(edited)
        k = rng.randint(2, 6)
        records.append({
            "image_path": f"input/{i % pool:02d}.png", "gt": f"gt/{i % pool:02d}.png", "text": f"Edit {tid}.",
            "task_id": tid, "consistency": rng.choice(["overall", "overall", "style", "none"]), "sub_task": f"sub{i % 4}",
            "questions": [{"id": f"Q{j + 1}", "question": f"Check {j + 1} of {tid}?", "score": 1.0 / k} for j in range(k)],
        })
        outputs[tid] = json.dumps({"text": "", "images": [str(edited)]})
    (root / "data.json").write_text(json.dumps(records))
    return outputs


def judge(request: dict) -> str:
    from judge_server import message_text

    system = request["messages"][0]["content"]
    text = message_text(request)
    if "Checkpoints:" in text:
        ids = [line.split(":", 1)[0] for line in text.split("Checkpoints:\n", 1)[1].splitlines()]
        return json.dumps([{"id": q, "answer": "Yes" if hash(q) % 2 else "No", "reason": "-"} for q in ids])
    return json.dumps({"score": 2 if "readable" in system else 1, "reason": "-"})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", help="a real GRADE copy: print its call/image counts")
    ap.add_argument("-n", type=int, default=520)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args(argv)

    from judge_server import FakeJudgeServer

    from lmms_plugins.tasks.grade import hooks
    from lmms_plugins.tasks.grade.settings import SETTINGS
    from lmms_plugins.utils.judge_client import reset_shared_clients
    from lmms_plugins.tasks.grade.records import load_records
    from lmms_plugins.utils.settings import resolve

    if args.root:
        print("real data", args.root, count_cost(load_records(Path(args.root))))
    with tempfile.TemporaryDirectory() as tmp, FakeJudgeServer(judge) as server:
        root = Path(tmp) / "grade"
        t0 = time.perf_counter()
        outputs = synthetic(root, args.n)
        docs = load_records(root)
        print(f"synthetic data: {args.n} samples in {time.perf_counter() - t0:.1f}s; cost {count_cost(docs)}")
        os.environ.update({
            "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake",
            "LMMS_PLUGINS_JUDGE_CACHE": str(Path(tmp) / "cache"),
        })
        settings = resolve(SETTINGS, {}, task="grade")  # the defaults: every sample asks the judge

        def score_all():
            reset_shared_clients()
            with ThreadPoolExecutor(args.threads) as ex:
                return list(ex.map(lambda d: hooks.process_results(d, [outputs[d["task_id"]]], settings), docs))

        t0 = time.perf_counter()
        first = score_all()
        cold = time.perf_counter() - t0
        calls = server.calls
        sizes = [len(json.dumps(r)) for r in server.requests]
        t0 = time.perf_counter()
        second = score_all()
        warm = time.perf_counter() - t0
        assert server.calls == calls, "the re-run made judge calls"
        assert [r["grade_strict"]["R"] for r in first] == [r["grade_strict"]["R"] for r in second]
        statuses = {r["grade_strict"]["status"] for r in first}
        t0 = time.perf_counter()
        from lmms_plugins.tasks.grade.scoring import breakdown  # what the table row no longer carries

        b = breakdown(hooks.sample_scores([r["grade_breakdown"] for r in first]))
        agg = time.perf_counter() - t0
        print(f"judge calls: {calls} ({calls / args.n:.2f} per sample); statuses {statuses}")
        print(f"request size: mean {sum(sizes) / len(sizes) / 1024:.0f} KiB, max {max(sizes) / 1024:.0f} KiB, "
              f"total {sum(sizes) / 2**20:.1f} MiB per run")
        print(f"scoring, empty cache: {cold:.1f}s ({1000 * cold / args.n:.1f} ms/sample, {args.threads} threads)")
        print(f"scoring, from cache:  {warm:.1f}s ({1000 * warm / args.n:.1f} ms/sample); cached/empty = {warm / cold:.2f}")
        print(f"aggregation with bootstrap CIs (overall, {len(b['by_domain'])} domains, {len(b['by_sub_task'])} sub-tasks): {agg:.1f}s")
        print(f"lenient {b['overall']['lenient']:.1f}, CI {b['overall']['ci95']['lenient']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
