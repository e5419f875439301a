"""openai_image_edit throughput against a loopback Images server with a fixed latency.

    python benchmarks/editor_throughput.py                      # 200 requests, 0.5 s latency, concurrency 8 and 32
    python benchmarks/editor_throughput.py --concurrency 1 4 8 16 --requests 200 --latency 0.5

What it measures (figures go to the top README, section "Image editors"):

* wall time of ``generate_until`` on N requests (512x512 RGB inputs, 512x512 PNG replies) against a
  server that holds every reply ``latency`` seconds, as a ratio to the ideal
  ``N * latency / concurrency`` (goal: <= 1.2 at concurrency 8 and 32);
* the package's own overhead per request: the same N requests with no latency and concurrency 1,
  minus the server's own time per request (it reports the time it spends parsing and answering),
  and the CPU time of the client process per request (what a busy machine cannot hide).
  This is what the model class, the openai client and HTTP on 127.0.0.1 cost: encoding the input
  PNG, the multipart upload, decoding the b64 reply and writing the edited image (goal: under 5 %
  of a 0.5 s call, 25 ms).

The server runs in its own process so that it does not share the client's interpreter lock.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def _serve(latency: float, reply: bytes, port_queue, stop_event) -> None:
    from images_server import FakeImagesServer

    with FakeImagesServer(lambda _req: reply, latency=latency, decode_images=False, parse=False) as server:
        port_queue.put(server.base_url)
        stop_event.wait()


class ServerProcess:
    def __init__(self, latency: float, reply: bytes) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.queue, self.stop = ctx.Queue(), ctx.Event()
        self.process = ctx.Process(target=_serve, args=(latency, reply, self.queue, self.stop), daemon=True)

    def __enter__(self) -> str:
        self.process.start()
        self.base_url = self.queue.get(timeout=60)
        return self.base_url

    def stats(self) -> dict:
        with urllib.request.urlopen(self.base_url.rsplit("/v1", 1)[0] + "/stats", timeout=10) as r:
            return json.load(r)

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.process.join(timeout=10)


def test_image(size: int, content: str, seed: int):
    """``photo``: smooth gradients, shapes and mild sensor noise (compresses like a photo);
    ``noise``: uniform random pixels (PNG's worst case)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    if content == "noise":
        return Image.fromarray(rng.integers(0, 255, (size, size, 3), dtype=np.uint8))
    y, x = np.mgrid[0:size, 0:size] / size
    base = np.stack([120 + 100 * x, 80 + 120 * y, 160 - 80 * x * y], axis=-1)
    for _ in range(6):
        cx, cy, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.03, 0.15)
        base[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = rng.uniform(0, 255, 3)
    base += rng.normal(0, 3, base.shape)
    return Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))


def make_requests(model, n: int, size: int, content: str):
    from lmms_eval.api.instance import Instance

    images = [test_image(size, content, seed) for seed in range(4)]
    model.task_dict = {"bench": {"test": [{"i": i} for i in range(n)]}}
    return [Instance("generate_until", (f"edit {i}", {}, lambda doc: [images[doc["i"] % 4]], i, "bench", "test"), 0,
                     {"task": "bench", "doc_id": i, "repeats": 1}) for i in range(n)]


def run(n: int, latency: float, concurrency: int, size: int, content: str, reply: bytes) -> dict:
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    with ServerProcess(latency, reply) as base_url, tempfile.TemporaryDirectory() as out:
        model = OpenAIImageEdit(base_url=base_url, api_key="bench", concurrency=concurrency, output_dir=out, progress="false")
        requests = make_requests(model, n, size, content)
        model.generate_until(requests[:2])  # warm-up: connections, imports
        started, cpu = time.perf_counter(), time.process_time()
        answers = model.generate_until(requests)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        failed = sum(a.startswith("[LMMS_EVAL_REQUEST_FAILED") for a in answers)
    return {"wall_s": wall, "cpu_s": cpu, "failed": failed}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--latency", type=float, default=0.5)
    p.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    p.add_argument("--size", type=int, default=512, help="input and output side in pixels")
    p.add_argument("--content", choices=("photo", "noise"), default="photo", help="what the test images hold")
    p.add_argument("--overhead-requests", type=int, default=100)
    args = p.parse_args(argv)

    import io

    buffer = io.BytesIO()
    test_image(args.size, args.content, 99).save(buffer, format="PNG")
    reply = buffer.getvalue()
    print(f"{args.size}x{args.size} {args.content} images ({len(reply) // 1024} KiB PNG reply); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")

    for c in args.concurrency:
        r = run(args.requests, args.latency, c, args.size, args.content, reply)
        ideal = args.requests * args.latency / c
        print(f"concurrency {c:3d}: {args.requests} requests x {args.latency} s latency: wall {r['wall_s']:.2f} s, "
              f"ideal {ideal:.2f} s, ratio {r['wall_s'] / ideal:.3f}, failed {r['failed']}; "
              f"client CPU {1000 * r['cpu_s'] / args.requests:.1f} ms per request")

    # overhead: no latency, one request at a time; the server says how long it spent itself
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    n = args.overhead_requests
    sp = ServerProcess(0.0, reply)
    with sp as base_url, tempfile.TemporaryDirectory() as out:
        model = OpenAIImageEdit(base_url=base_url, api_key="bench", concurrency=1, output_dir=out, progress="false")
        requests = make_requests(model, n, args.size, args.content)
        model.generate_until(requests[:2])
        before = sp.stats()
        started, cpu = time.perf_counter(), time.process_time()
        model.generate_until(requests)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        after = sp.stats()
    server_ms = 1000 * (after["busy_s"] - before["busy_s"]) / n
    total_ms = 1000 * wall / n
    print(f"overhead ({args.size}x{args.size} {args.content} PNG in and out, concurrency 1, no latency, {n} requests): "
          f"{total_ms:.1f} ms per request round trip, of which the server {server_ms:.1f} ms; "
          f"package + openai client + loopback HTTP: {total_ms - server_ms:.1f} ms per request "
          f"({1000 * cpu / n:.1f} ms of CPU in the client process); load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
