"""CwI with code execution: the figures behind tasks/cwi/README.md's code-execution section.

    python benchmarks/cwi_code.py --part a [--n 20]
    python benchmarks/cwi_code.py --part all

(a) Sandbox overhead, four arms alternating in one run, each n times: the bare interpreter
    (``python -S -s -P -B main.py`` in a folder holding the image), the floor (the same command
    under ``bwrap`` with every namespace the sandbox unshares and nothing else: bubblewrap's own
    cost here, now), the bubblewrap sandbox (``run_python``, the same interpreter with the same
    flags) and the backend this replaced (the namespace container of commit 88032fa, loaded from
    git into a temporary folder; its own flags, ``-I -S`` and a bootstrap, are fixed in its code).
    Two scripts: one that only prints (goal: bwrap <= bare + 15 ms) and an analysis script
    (imports numpy, Pillow, OpenCV; reads a PNG; counts components; goal: bwrap <= 1.2 x bare).
    Each round runs every arm once, in turn in each place; reported: each arm's median, and the
    median over rounds of its time against the bare run of the same round (ratio, overhead), which
    the machine's drifting load moves less; and the load average: on a shared machine every process
    hand-off waits for a CPU, and the sandbox has more of them than the bare interpreter.
(b) Loop throughput: --items items (default 100) x 3 rounds through the cwi_code loop
    (code_hooks.doc_to_text, the real sandbox) and the batched runner (lmms_plugins/harness/batched_rounds.py),
    with lmms-eval's own ``openai`` chat wrapper (num_concurrent=8) against a loopback
    OpenAI-compatible server that answers every request after a fixed 0.5 s. Rounds 1 and 2 reply
    with code (it hashes image_1.png with the standard library and prints the digest), round 3
    answers with the digest it read in the stdout. Reports the loop's wall time next to the ideal
    3 x items x 0.5 / 8 s (goal: <= 1.3x), and checks every item went 3 rounds with 2 executions;
    with the bubblewrap sandbox and, in the same run, the backend it replaced (--old-too).
    ``--sequential`` also times lmms-eval's own one-request-at-a-time runner on the same requests.
(c) cwi_coder through the loop vs the direct solvers: --per-task items (default 8, 2 per tier)
    of each of the 30 tasks, generated with --seed; each item is answered by ``cwi_coder``
    through the same loop and runner (its program executed in the sandbox) and by the reference
    solver directly (``cwi_solver``'s code path); both scored with the task's YAML rule.
    Reports per-task and overall accuracy of both and the items where they differ (goal: none).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import site
import statistics
import subprocess
import sys
import tempfile
import time

ANALYSIS = """\
import numpy as np
from PIL import Image
import cv2
img = np.asarray(Image.open("image.png").convert("RGB"))
gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
n, _ = cv2.connectedComponents((gray > 128).astype(np.uint8))
print("components", n - 1, "mean", round(float(gray.mean()), 2))
"""

TRIVIAL = "print('hello')\n"


def _png() -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    arr = (rng.random((480, 640, 3)) * 80).astype("uint8")
    for k in range(12):  # a few bright blobs to count
        y, x = 40 + 35 * k, 50 + 45 * k
        arr[y : y + 20, x : x + 20] = 250
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "PNG")
    return buf.getvalue()


OLD_REV = "88032fa"  # the last commit with the namespace-container backend


def _old_backend(folder: str):
    """The sandbox package as of OLD_REV, imported from a copy (None where git cannot give it)."""
    import importlib

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pkg = os.path.join(folder, "old_sandbox")
    os.makedirs(pkg)
    try:
        names = subprocess.run(["git", "-C", root, "ls-tree", "--name-only", OLD_REV, "utils/sandbox/"], check=True,
                               capture_output=True, text=True).stdout.split()
        for name in names:
            data = subprocess.run(["git", "-C", root, "show", f"{OLD_REV}:{name}"], check=True, capture_output=True).stdout
            with open(os.path.join(pkg, os.path.basename(name)), "wb") as f:
                f.write(data)
    except (OSError, subprocess.CalledProcessError):
        return None
    sys.path.insert(0, folder)
    try:
        return importlib.import_module("old_sandbox")
    finally:
        sys.path.remove(folder)


def _env(folder: str) -> dict:
    """The sandbox's environment variables (one thread per library, ...), with PYTHONPATH the
    evaluator's site-packages."""
    from lmms_plugins.utils.sandbox.environment import env

    return env(folder, os.path.join(folder, ".cache"), os.pathsep.join(site.getsitepackages()))


def _bare(code: str, folder: str) -> tuple[float, str]:
    """The interpreter the sandbox runs, with its flags, without the sandbox; PYTHONPATH the
    evaluator's site-packages (the same package files the sandbox binds; without the site module
    its other entries cost nothing at start)."""
    from lmms_plugins.utils.sandbox.bwrap import PYTHON_FLAGS
    from lmms_plugins.utils.sandbox.view import view

    with open(os.path.join(folder, "main.py"), "w") as f:
        f.write(code)
    t = time.perf_counter()
    p = subprocess.run([view().python, *PYTHON_FLAGS, "main.py"], check=False, cwd=folder, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, env=_env(folder))
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"bare run failed: {p.stderr[-500:]}")
    return dt, p.stdout


def _floor(code: str, folder: str) -> tuple[float, str]:
    """bubblewrap's own fixed cost: the bare arm's command under ``bwrap`` with every namespace
    the sandbox unshares and nothing else (the host's root read-only, /proc and /dev of its own;
    no allow-list, seccomp, rlimits, cgroup, tmpfs or hand-shake)."""
    from lmms_plugins.utils.sandbox.bwrap import PYTHON_FLAGS, find_bwrap
    from lmms_plugins.utils.sandbox.view import view

    argv = [find_bwrap()[0], "--unshare-all", "--unshare-user", "--unshare-cgroup", "--new-session", "--die-with-parent",
            "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--chdir", folder,
            "--", view().python, *PYTHON_FLAGS, "main.py"]
    t = time.perf_counter()
    p = subprocess.run(argv, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       env=_env(folder))
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"floor run failed: {p.stderr[-500:]}")
    return dt, p.stdout


def _boxed(run_python, Limits, code: str, files: dict) -> tuple[float, str]:
    t = time.perf_counter()
    r = run_python(code, files, Limits(wall_s=60))
    dt = time.perf_counter() - t
    if r.status != "ok":
        raise RuntimeError(f"sandboxed run failed: {r.status} {r.reason} {r.stderr[-500:]}")
    return dt, r.stdout


def part_a(n: int) -> dict:
    from lmms_plugins.utils import sandbox

    png = _png()
    sandbox.require()  # probed once, outside the timings
    out: dict = {"capabilities": sandbox.capabilities(), "n": n}
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as old_dir:
        old = _old_backend(old_dir)
        arms = {"bare": lambda code: _bare(code, folder),
                "floor": lambda code: _floor(code, folder),
                "bwrap": lambda code: _boxed(sandbox.run_python, sandbox.Limits, code, {"image.png": png})}
        if old is not None:
            arms["old"] = lambda code: _boxed(old.run_python, old.Limits, code, {"image.png": png})
            out["old_backend"] = old.capabilities()["backend"]
        with open(os.path.join(folder, "image.png"), "wb") as f:
            f.write(png)
        sandbox.run_python(TRIVIAL, {}, sandbox.Limits())
        for label, code in (("analysis", ANALYSIS), ("print_only", TRIVIAL)):
            times: dict = {arm: [] for arm in arms}
            outputs: dict = {}
            for fn in arms.values():
                fn(code)  # warm the page cache
            names = list(arms)
            for i in range(n):
                for arm in names[i % len(names):] + names[: i % len(names)]:  # each arm in each place in turn
                    dt, outputs[arm] = arms[arm](code)
                    times[arm].append(dt)
            assert len(set(outputs.values())) == 1, outputs  # the same result every way
            # the machine's load drifts: each arm against the bare run of the same round
            out[label] = {f"{arm}_median_ms": round(statistics.median(v) * 1000, 1) for arm, v in times.items()}
            for arm, v in times.items():
                if arm != "bare":
                    pairs = list(zip(v, times["bare"]))
                    out[label][f"{arm}_ratio"] = round(statistics.median(t / b for t, b in pairs), 3)
                    out[label][f"{arm}_overhead_ms"] = round(statistics.median(t - b for t, b in pairs) * 1000, 1)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(f"(a) sandbox overhead, n={n} alternating runs of each arm (bare: python {' '.join(_flags())}; floor: the same "
          f"in bwrap with every namespace and nothing else; old: {out.get('old_backend', 'not available')}); "
          f"load average {out['load_average'][0]} on {os.cpu_count()} CPUs")
    for label in ("analysis", "print_only"):
        r = out[label]
        line = f"    {label:10s} bare {r['bare_median_ms']:7.1f} ms"
        for arm in ("floor", "bwrap", "old"):
            if f"{arm}_median_ms" in r:
                line += f"   {arm} {r[f'{arm}_median_ms']:7.1f} ms ({r[f'{arm}_ratio']:.2f}x, +{r[f'{arm}_overhead_ms']:.1f} ms)"
        print(line)
    ok_a = out["analysis"]["bwrap_ratio"] <= 1.2
    ok_p = out["print_only"]["bwrap_overhead_ms"] <= 15
    print(f"    goals: analysis bwrap <= 1.2x bare: {'met' if ok_a else 'NOT met'}; "
          f"print-only bwrap <= bare + 15 ms: {'met' if ok_p else 'NOT met'}")
    return out


def _flags() -> tuple:
    from lmms_plugins.utils.sandbox.bwrap import PYTHON_FLAGS

    return PYTHON_FLAGS


# ----------------------------------------------------------------------------- (b) throughput

PROBE = """I will hash the image.
```python
import hashlib
print("digest", hashlib.sha256(open("image_1.png", "rb").read()).hexdigest()[:16])
```"""


def _loopback_server(latency_s: float):
    """A threaded OpenAI-compatible chat server on 127.0.0.1: replies after ``latency_s``; the
    reply depends on how many execution results the conversation already holds."""
    import re
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            text = "\n".join(p.get("text", "") for m in body.get("messages", []) for p in
                              (m["content"] if isinstance(m.get("content"), list) else [{"text": m.get("content") or ""}])
                              if isinstance(p, dict))
            done = text.count("=== Result of running the code of reply")
            time.sleep(latency_s)
            if done < 2:
                reply = PROBE
            else:
                digests = re.findall(r"digest ([0-9a-f]{16})", text)
                reply = f"<answer>{digests[-1] if digests else 'none'}</answer>"
            out = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "loopback",
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                           "finish_reason": "stop"}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _synthetic_docs(n: int) -> list[dict]:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    return [{"id": f"bench_{i}", "image": Image.fromarray((rng.random((120, 160, 3)) * 255).astype("uint8")),
             "image_2": None, "prompt": "What is the digest? Answer inside <answer>…</answer>.",
             "answer": "0", "difficulty": "easy"} for i in range(n)]


def _requests(task: str, docs: list[dict], kwargs: dict):
    import functools

    from lmms_eval.api.instance import Instance
    from lmms_plugins.tasks.cwi import code_hooks

    gen = {"until": [], "max_new_tokens": 64, "temperature": 0, "max_agentic_steps": 64}
    reqs = []
    for i, doc in enumerate(docs):
        ctx = code_hooks.doc_to_text(doc, kwargs)
        args = (ctx, dict(gen), lambda d: [im for im in (d["image"], d.get("image_2")) if im is not None],
                functools.partial(code_hooks.doc_to_text, lmms_eval_specific_kwargs=kwargs), i, task, "test")
        reqs.append(Instance(request_type="generate_until_agentic", arguments=args, idx=0,
                             metadata={"task": task, "doc_id": i, "repeats": 1}))
    return reqs


def part_b(args) -> dict:
    import lmms_eval.evaluator as ev
    from lmms_eval.models.chat.openai import OpenAICompatible
    from lmms_plugins.tasks.cwi.code_hooks import read_response

    from lmms_plugins.harness.batched_rounds import run_batched

    n, latency, conc = args.items, 0.5, 8
    server = _loopback_server(latency)
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    lm = OpenAICompatible(model="loopback", base_url=base, api_key="none", num_concurrent=conc, max_retries=1, timeout=60)
    docs = _synthetic_docs(n)
    lm.task_dict = {"cwi_code_bench": {"test": docs}}
    kwargs = {"max_rounds": 8, "exec_wall_s": 30}
    out: dict = {"items": n, "latency_s": latency, "concurrency": conc, "ideal_s": 3 * n * latency / conc}

    def check(responses):
        traces = [read_response(r)[1] for r in responses]
        ok = all(t and t["rounds"] == 3 and [e["status"] for e in t["executions"]] == ["ok", "ok"] for t in traces)
        answered = sum(read_response(r)[0] == f"<answer>{t['executions'][-1]['stdout'].split()[1]}</answer>"
                       for r, t in zip(responses, traces) if t and t["executions"])
        return ok, answered

    from lmms_plugins.utils import sandbox

    sandbox.require()
    t = time.perf_counter()
    responses = run_batched(lm, _requests("cwi_code_bench", docs, kwargs), Instance=ev.Instance,
                            unwrap=ev.unwrap_generation_output)
    out["batched_s"] = round(time.perf_counter() - t, 2)
    out["all_three_rounds_two_ok_executions"], out["answers_from_stdout"] = check(responses)
    out["ratio_to_ideal"] = round(out["batched_s"] / out["ideal_s"], 3)
    if args.old_too:  # the same loop with the backend bwrap replaced (code_hooks looks run_python up per call)
        with tempfile.TemporaryDirectory() as old_dir:
            old = _old_backend(old_dir)
            saved = sandbox.run_python, sandbox.Limits
            sandbox.run_python, sandbox.Limits = old.run_python, old.Limits
            try:
                t = time.perf_counter()
                old_resp = run_batched(lm, _requests("cwi_code_bench", docs, kwargs), Instance=ev.Instance,
                                       unwrap=ev.unwrap_generation_output)
                out["old_s"] = round(time.perf_counter() - t, 2)
            finally:
                sandbox.run_python, sandbox.Limits = saved
            out["old_ratio_to_ideal"] = round(out["old_s"] / out["ideal_s"], 3)
            out["old_checks"] = check(old_resp)
    if args.sequential:
        original = ev._run_generate_until_agentic
        original = getattr(original, "__wrapped__", original)
        t = time.perf_counter()
        seq = original(lm, _requests("cwi_code_bench", docs, kwargs))
        out["sequential_s"] = round(time.perf_counter() - t, 2)
        out["sequential_identical_answers"] = [read_response(r)[0] for r in seq] == [read_response(r)[0] for r in responses]
    server.shutdown()
    print(f"(b) {n} items x 3 rounds, loopback model {latency} s per reply, openai chat wrapper num_concurrent={conc}")
    print(f"    batched runner {out['batched_s']:.1f} s   ideal 3x{n}x{latency}/{conc} = {out['ideal_s']:.2f} s   "
          f"ratio {out['ratio_to_ideal']:.2f}   goal <= 1.3: {'met' if out['ratio_to_ideal'] <= 1.3 else 'NOT met'}")
    if args.old_too:
        print(f"    the same with the backend bwrap replaced: {out['old_s']:.1f} s, ratio {out['old_ratio_to_ideal']:.2f}; "
              f"checks {out['old_checks']}")
    print(f"    every item 3 rounds with 2 ok executions: {out['all_three_rounds_two_ok_executions']}; "
          f"answers equal to the digest the execution printed: {out['answers_from_stdout']}/{n}")
    if args.sequential:
        print(f"    lmms-eval's sequential runner {out['sequential_s']:.1f} s "
              f"(same answers: {out['sequential_identical_answers']})")
    return out


# ----------------------------------------------------------------------------- (c) accuracy


def part_c(args) -> dict:
    import lmms_eval.evaluator as ev
    from datasets import load_dataset
    from lmms_plugins.tasks.cwi import code_hooks
    from lmms_plugins.tasks.cwi.catalog import TASKS
    from lmms_plugins.tasks.cwi.generate import main as make_data
    from lmms_plugins.tasks.cwi.hooks import doc_to_visual
    from lmms_plugins.tasks.cwi.rules import score
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task

    from lmms_plugins.harness.batched_rounds import run_batched
    from lmms_plugins.models.cwi_coder import CwiCoder
    from lmms_plugins.models.cwi_solver import answer_doc

    kwargs = dict(code_hooks.DEFAULTS)
    per_task, rows, differ = {}, [], []
    with tempfile.TemporaryDirectory() as root:
        if make_data(["--tasks", ",".join(TASKS), "--n", str(args.per_task), "--seed", str(args.seed), "--out", root]) != 0:
            raise RuntimeError("make-data failed")
        lm = CwiCoder()
        lm.task_dict = {}
        reqs, meta = [], []
        for task in TASKS:
            docs = list(load_dataset(root, task)["test"])
            name = f"cwi_code_{task}"
            lm.task_dict[name] = {"test": docs}
            reqs += _requests(name, docs, kwargs)
            meta += [(task, doc) for doc in docs]
        t = time.perf_counter()
        responses = run_batched(lm, reqs, Instance=ev.Instance, unwrap=ev.unwrap_generation_output)
        loop_s = time.perf_counter() - t
        for (task, doc), resp in zip(meta, responses):
            rule = rule_for_task(task)
            scored = code_hooks.process_results(doc, [resp], rule=rule)
            loop = scored["accuracy"]["value"]
            direct = score(rule, answer_doc(task, doc, doc_to_visual(doc), doc["prompt"])[0], doc["answer"]).value
            per_task.setdefault(task, []).append((loop, direct, scored["rounds_used"]["value"], scored["executions"]["value"],
                                                  scored["execution_errors"]["value"]))
            if loop != direct:
                differ.append({"task": task, "id": doc["id"], "loop": loop, "direct": direct})
    for task, pairs in per_task.items():
        k = len(pairs)
        rows.append({"task": task, "n": k, "loop": sum(p[0] for p in pairs) / k, "direct": sum(p[1] for p in pairs) / k,
                     "rounds": sum(p[2] for p in pairs) / k, "executions": sum(p[3] for p in pairs) / k,
                     "execution_errors": sum(p[4] for p in pairs) / k})
    n = sum(r["n"] for r in rows)
    out = {"per_task": rows, "items": n, "seed": args.seed, "loop_s": round(loop_s, 1), "differ": differ,
           "loop_accuracy": sum(r["loop"] * r["n"] for r in rows) / n,
           "direct_accuracy": sum(r["direct"] * r["n"] for r in rows) / n}
    print(f"(c) cwi_coder through the loop vs the direct solvers: {n} items ({args.per_task} per task, seed {args.seed}), "
          f"loop {out['loop_s']} s")
    for r in rows:
        print(f"    {r['task']:22s} n={r['n']:3d}  loop {100 * r['loop']:6.1f} %   direct {100 * r['direct']:6.1f} %   "
              f"rounds {r['rounds']:.2f}  executions {r['executions']:.2f}  errors {r['execution_errors']:.2f}")
    print(f"    overall: loop {100 * out['loop_accuracy']:.2f} %   direct {100 * out['direct_accuracy']:.2f} %   "
          f"items that differ: {len(differ)}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["a", "b", "c", "all"], default="all")
    ap.add_argument("--n", type=int, default=20, help="(a) runs of each kind")
    ap.add_argument("--items", type=int, default=100, help="(b) items through the loop")
    ap.add_argument("--sequential", action="store_true", help="(b) also time lmms-eval's sequential runner")
    ap.add_argument("--old-too", action="store_true", help="(b) also run the loop with the backend bwrap replaced")
    ap.add_argument("--per-task", type=int, default=8, help="(c) items per task")
    ap.add_argument("--seed", type=int, default=2024, help="(c) data seed")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    figures: dict = {}
    if args.part in ("a", "all"):
        figures["a"] = part_a(args.n)
    for part in ("b", "c"):
        if args.part in (part, "all"):
            fn = globals().get(f"part_{part}")
            if fn is None:
                print(f"({part}) not implemented yet")
            else:
                figures[part] = fn(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
