"""lmms-eval's Hugging Face wrappers on a GPU, with the tiny checkpoints of the CPU tests.

    python benchmarks/stock_wrappers_gpu.py --out OUT            # CUDA, bf16; vllm too where it imports
    python benchmarks/stock_wrappers_gpu.py --out OUT --device cpu --wrappers llava_hf   # a smoke run here

For each wrapper (qwen2_5_vl, qwen3_vl, llava_hf) it builds the tiny random checkpoint of
tests/models/tiny_vlms.py, runs the real `lmms-eval` CLI on one item of every task type (CwI with
one and two images, the CwI code loop, DoD, GRADE with a loopback judge that must never be asked,
ABACUS), and, with two or more GPUs, the same under `torchrun --nproc_per_node 2`, comparing the
per-sample statuses and aggregates with the one-process run. Where `vllm` imports, lmms-eval's
`vllm` wrapper runs the Qwen2.5-VL checkpoint on the CwI tasks. Everything that ran, with its exit
status, the statuses per task and the tail of any failure, goes to OUT/stock_wrappers.json; a line
per run is printed. The checkpoints' replies are noise: this checks the path, not the scores.
Needs the [test] and [open-models] extras (the tests' fixtures build the data).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "models")]

TASKS = "cwi_alignment,cwi_color_count,cwi_code_color_count,dod_no_hint,grade,abacus_add_easy"
BUILDERS = {"qwen2_5_vl": "build_tiny_qwen2_5_vl", "qwen3_vl": "build_tiny_qwen3_vl", "llava_hf": "build_tiny_llava"}


def _statuses(run_dir: Path) -> dict:
    """{task: {status: count}} over every per-sample record, and {task: {metric: value}}."""
    from conftest import read_results

    res = read_results(run_dir)
    counts = {task: dict(Counter(v["status"] for s in samples for v in s.values() if isinstance(v, dict) and "status" in v))
              for task, samples in res["_samples"].items()}
    numbers = {task: {k: v for k, v in metrics.items() if isinstance(v, (int, float))} for task, metrics in res["results"].items()}
    return {"statuses": counts, "results": numbers}


def _run(cmd: list[str], out: Path, env: dict, timeout: float) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    try:
        proc = subprocess.run(cmd + ["--output_path", str(out), "--log_samples"], capture_output=True, text=True,
                              env=env, timeout=timeout, cwd=out)
        record = {"exit": proc.returncode, "tail": (proc.stdout + proc.stderr)[-1500:]}
    except subprocess.TimeoutExpired:
        record = {"exit": None, "tail": f"timed out after {timeout} s"}
    record["seconds"] = round(time.time() - start, 1)
    try:
        record.update(_statuses(out))
    except FileNotFoundError:  # no results written: the tail says why
        record["results"] = None
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--wrappers", default=",".join(BUILDERS))
    ap.add_argument("--timeout", type=float, default=240, help="seconds per lmms-eval run")
    args = ap.parse_args(argv)

    import tiny_vlms
    from judge_server import FakeJudgeServer

    from lmms_plugins.demo import OFFLINE_ENV

    out = args.out.resolve()
    data = tiny_vlms.local_benchmark_data(out / "data")
    lmms_eval = str(Path(sys.executable).with_name("lmms-eval"))
    gpus = 0
    if args.device == "cuda":
        import torch

        gpus = torch.cuda.device_count()
    report: dict = {"device": args.device, "gpus": gpus, "runs": {}}
    with FakeJudgeServer(lambda request: "{}") as judge:
        env = {**os.environ, **OFFLINE_ENV, **data, "HF_HOME": str(out / ".hf_home"), "OPENAI_API_KEY": "none",
               "LMMS_PLUGINS_JUDGE_BASE_URL": judge.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
               "LMMS_PLUGINS_JUDGE_CACHE": "off"}
        for wrapper in args.wrappers.split(","):
            ckpt = getattr(tiny_vlms, BUILDERS[wrapper])(out / "checkpoints" / wrapper)
            device = f"device={args.device},device_map={args.device}"
            common = ["--model", wrapper, "--tasks", TASKS, "--batch_size", "1", "--gen_kwargs", "max_new_tokens=12"]
            one = _run([lmms_eval, *common, "--model_args", f"pretrained={ckpt},{device}"], out / "runs" / wrapper, env, args.timeout)
            report["runs"][wrapper] = one
            print(f"{wrapper}: exit {one['exit']} in {one['seconds']} s, statuses {one.get('statuses')}", flush=True)
            if gpus >= 2:
                # rank r on cuda:r: the wrapper's own multi-process placement (no device_map)
                torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
                two = _run([torchrun, "--standalone", "--nproc_per_node", "2", lmms_eval, *common,
                            "--model_args", f"pretrained={ckpt}"], out / "runs" / f"{wrapper}_2proc", env, args.timeout)
                two["same_as_one_process"] = two.get("statuses") == one.get("statuses") and two.get("results") == one.get("results")
                report["runs"][f"{wrapper} torchrun 2"] = two
                print(f"{wrapper} torchrun 2: exit {two['exit']}, same as one process: {two['same_as_one_process']}", flush=True)
        try:
            import vllm  # noqa: F401
        except Exception as exc:  # not installed, or no CUDA build
            report["runs"]["vllm"] = {"skipped": f"vllm does not import: {exc!r}"[:300]}
        else:
            ckpt = out / "checkpoints" / "qwen2_5_vl"
            if not ckpt.exists():
                tiny_vlms.build_tiny_qwen2_5_vl(ckpt)
            report["runs"]["vllm"] = _run([lmms_eval, "--model", "vllm", "--tasks", "cwi_alignment,cwi_color_count",
                                           "--batch_size", "1", "--gen_kwargs", "max_new_tokens=12",
                                           "--model_args", f"model={ckpt},gpu_memory_utilization=0.3"],
                                          out / "runs" / "vllm", env, args.timeout)
            print(f"vllm: exit {report['runs']['vllm']['exit']}", flush=True)
    (out / "stock_wrappers.json").write_text(json.dumps(report, indent=1))
    print(f"wrote {out / 'stock_wrappers.json'}")
    return 0 if all(r.get("exit") == 0 or "skipped" in r for r in report["runs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
