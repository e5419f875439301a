"""Peak memory of cwi_code rounds when the model's code saves big images.

    python benchmarks/cwi_code_round_memory.py [--requests 8] [--side 4096] [--images 4]

Every request's code "saves" ``--images`` PNGs of ``--side``² pixels (one colour: about 50 KB
each at 4096²); the batched runner (lmms_plugins/harness/batched_rounds.py) drives the real
``code_hooks.doc_to_text`` over ``--requests`` requests, 2 rounds each, with a stand-in model
(reply 1: code, reply 2: an answer) and the sandbox replaced by a stand-in that returns those
files (this measures the evaluator's side only). Each arm runs in a fresh process; printed: the
peak resident memory above what the process held before the rounds, in MB, for the unbounded
arm and the bounded one at ``--requests``, and the bounded one at 4x as many requests (it should
not grow: memory follows the concurrency, not the number of requests).

Arms: ``bounded`` (the defaults: ``max_pixels_back`` 2048² per round, 2 chunks of requests under
way, chunk 2 x num_concurrent=1) and ``unbounded`` (no pixel budget beyond 4 images of 4096²,
every request under way at once: what the loop held before both bounds).
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import types
from typing import ClassVar


def _arm(bounded: bool, n: int, side: int, k: int) -> float:
    from lmms_eval.api.instance import Instance, unwrap_generation_output
    from lmms_plugins.tasks.cwi import code_hooks
    from PIL import Image

    from lmms_plugins.harness import batched_rounds as agentic_rounds

    buf = io.BytesIO()
    Image.new("RGB", (side, side), (30, 60, 90)).save(buf, format="PNG")
    png = buf.getvalue()
    result = types.SimpleNamespace(status="ok", exit_code=0, stdout="", stderr="", files={f"s{i}.png": png for i in range(k)},
                                   wall_s=0.0, reason="")
    code_hooks.run_code = lambda code, files, cfg: result
    cfg = {} if bounded else {"max_pixels_back": k * 4096 * 4096}

    class LM:
        num_concurrent = 1
        is_simple = True
        task_dict: ClassVar[dict] = {"t": {"test": [{"id": f"m{i}", "image": Image.new("RGB", (64, 64)), "image_2": None,
                                      "prompt": "How many?", "answer": "1", "difficulty": "easy"} for i in range(n)]}}

        def generate_until(self, reqs):
            return ["<answer>1</answer>" if "=== Result" in r.args[0] else "```python\nprint(1)\n```" for r in reqs]

    def doc_to_text(doc, **kw):
        return code_hooks.doc_to_text(doc, cfg, **kw)

    doc_to_text.lmms_plugins_batched_rounds = True
    reqs = [Instance(request_type="generate_until_agentic", idx=0, metadata={"task": "t", "doc_id": i, "repeats": 1},
                     arguments=("first turn", {"max_agentic_steps": 4}, lambda d: [], doc_to_text, i, "t", "test"))
            for i in range(n)]
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = agentic_rounds.run_batched(LM(), reqs, Instance=Instance, unwrap=unwrap_generation_output,
                                     in_flight=None if bounded else n)
    assert all(json.loads(o)["cwi_code"]["ended"] == "answer" for o in out)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--side", type=int, default=4096)
    ap.add_argument("--images", type=int, default=4)
    ap.add_argument("--arm", choices=["bounded", "unbounded"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.arm:
        print(json.dumps(_arm(args.arm == "bounded", args.requests, args.side, args.images)))
        return 0
    rows = []
    for arm, n in (("unbounded", args.requests), ("bounded", args.requests), ("bounded", 4 * args.requests)):
        cmd = [sys.executable, __file__, "--arm", arm, "--requests", str(n), "--side", str(args.side),
               "--images", str(args.images)]
        mb = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        rows.append(mb)
        print(f"{arm:10} peak +{mb:8.0f} MB  ({n} requests x {args.images} images of {args.side}²)", flush=True)
    print(f"unbounded/bounded at {args.requests} requests: {rows[0] / max(rows[1], 1):.1f}; "
          f"bounded at {4 * args.requests} / at {args.requests} requests: {rows[2] / max(rows[1], 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
