"""openai_image_edit throughput against a loopback Images server with a fixed latency.

    python benchmarks/editor_throughput.py                      # 640 requests, 0.5 s latency, concurrency 8 and 32
    python benchmarks/editor_throughput.py --concurrency 1 4 8 16 --requests 640 --latency 0.5 --inputs files abacus

What it measures (figures go to the top README, section "Image editors"):

* wall time of ``generate_until`` on N requests (512x512 RGB inputs, 512x512 PNG replies) against a
  server that holds every reply ``latency`` seconds, as a ratio to the ideal
  ``N * latency / concurrency`` (goal: <= 1.2 at concurrency 8 and 32). N defaults to 640: a multiple of
  both, so a perfect client reaches the ideal (200 requests at 32 are 7 rounds where the ideal counts
  6.25, 1.12x before any client work) and a run at 32 lasts 10 s, not 3-4 s of noise;
* inputs (``--inputs``): ``files``, PNG files loaded as DoD's and GRADE's ``doc_to_visual`` load
  them (``load_rgb(..., keep_source=True)``: the client sends the file itself); ``abacus``, the
  same PNGs in an ABACUS parquet (the hub's columns) read through ABACUS's own ``process_docs`` and
  ``doc_to_visual`` (the stored bytes are sent as they are); and ``pil``, in-memory PIL images that
  the client must encode as PNG for every request;
* the machine's floor: the same requests from a client that does nothing but send one pre-built
  multipart body and read the reply (``http.client``, one connection per thread, no image work),
  so a ratio over the goal can be told apart from a machine whose cores are busy;
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


def png_of(image) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def abacus_dataset(images, folder: Path):
    """The images as an ABACUS parquet (written by `datasets`, read back from the file)."""
    import datasets

    features = datasets.Features({"image": datasets.Image(), "image_id": datasets.Value("int64"), "prompt": datasets.Value("string"),
                                  "count": datasets.Value("int64"), "category": datasets.Value("string")})
    rows = {"image": [{"bytes": png_of(image), "path": None} for image in images], "image_id": list(range(len(images))),
            "prompt": ["Add 2 cups."] * len(images), "count": [2] * len(images), "category": ["cup"] * len(images)}
    path = folder / "add-easy.parquet"
    datasets.disable_progress_bars()
    datasets.Dataset.from_dict(rows, features=features).to_parquet(str(path))
    return datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(folder / "hf-cache"))


def make_requests(model, n: int, size: int, content: str, inputs: str = "pil", folder: Path | None = None):
    from lmms_eval.api.instance import Instance

    from lmms_plugins.utils.images import load_rgb

    images = [test_image(size, content, seed) for seed in range(4)]
    if inputs == "files":  # as a task's doc_to_visual loads its input files (DoD, GRADE)
        for k, image in enumerate(images):
            image.save(folder / f"input-{k}.png")

        def visuals(doc):
            return [load_rgb(folder / f"input-{doc['i'] % 4}.png", keep_source=True)]
    elif inputs == "abacus":  # as ABACUS reads its parquet (the hub layout's columns)
        from lmms_plugins.tasks.abacus import hooks

        docs = hooks.process_docs_add(abacus_dataset(images, folder))

        def visuals(doc):
            return hooks.doc_to_visual(docs[doc["i"] % 4])
    else:
        def visuals(doc):
            return [images[doc["i"] % 4]]
    model.task_dict = {"bench": {"test": [{"i": i} for i in range(n)]}}
    return [Instance("generate_until", (f"edit {i}", {}, visuals, i, "bench", "test"), 0,
                     {"task": "bench", "doc_id": i, "repeats": 1}) for i in range(n)]


def run(n: int, latency: float, concurrency: int, size: int, content: str, reply: bytes, inputs: str) -> dict:
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    with ServerProcess(latency, reply) as base_url, tempfile.TemporaryDirectory() as out:
        model = OpenAIImageEdit(base_url=base_url, api_key="bench", concurrency=concurrency, output_dir=out, progress="false")
        requests = make_requests(model, n, size, content, inputs, Path(out))
        model.generate_until(requests[:2])  # warm-up: connections, imports
        started, cpu = time.perf_counter(), time.process_time()
        answers = model.generate_until(requests)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        failed = sum(a.startswith("[LMMS_EVAL_REQUEST_FAILED") for a in answers)
    return {"wall_s": wall, "cpu_s": cpu, "failed": failed}


def run_floor(n: int, latency: float, concurrency: int, body: bytes, reply: bytes) -> dict:
    """The same requests from a client that does no work of its own: one pre-built multipart body
    POSTed per request and the reply read, one keep-alive connection per thread."""
    import http.client
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import urlsplit

    local = threading.local()
    headers = {"Content-Type": "multipart/form-data; boundary=bench", "Authorization": "Bearer bench"}

    def one(_i):
        if not hasattr(local, "conn"):
            url = urlsplit(base_url)
            local.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        local.conn.request("POST", "/v1/images/edits", body=body, headers=headers)
        response = local.conn.getresponse()
        return response.status == 200 and len(response.read()) > len(reply)

    with ServerProcess(latency, reply) as base_url, ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(2)))  # warm-up
        started, cpu = time.perf_counter(), time.process_time()
        ok = list(pool.map(one, range(n)))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"wall_s": wall, "cpu_s": cpu, "failed": ok.count(False)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=640)
    p.add_argument("--latency", type=float, default=0.5)
    p.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    p.add_argument("--size", type=int, default=512, help="input and output side in pixels")
    p.add_argument("--content", choices=("photo", "noise"), default="photo", help="what the test images hold")
    p.add_argument("--inputs", nargs="+", choices=("files", "abacus", "pil"), default=["files", "abacus", "pil"],
                   help="files: PNG files as DoD and GRADE load them, abacus: PNGs in an ABACUS parquet through its doc_to_visual "
                        "(both sent as they are); pil: PIL images (encoded per request)")
    p.add_argument("--no-floor", action="store_true", help="skip the do-nothing client's rows")
    p.add_argument("--overhead-requests", type=int, default=100)
    args = p.parse_args(argv)

    reply = png_of(test_image(args.size, args.content, 99))
    print(f"{args.size}x{args.size} {args.content} images ({len(reply) // 1024} KiB PNG reply); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")

    body = b"--bench\r\nContent-Disposition: form-data; name=\"image\"; filename=\"image_0.png\"\r\n" \
           b"Content-Type: image/png\r\n\r\n" + png_of(test_image(args.size, args.content, 0)) + b"\r\n--bench--\r\n"
    rows = []
    for c in args.concurrency:
        ideal = args.requests * args.latency / c
        arms = [(f"openai_image_edit, {inputs} inputs", lambda inputs=inputs: run(args.requests, args.latency, c, args.size,
                                                                                   args.content, reply, inputs))
                for inputs in args.inputs]
        if not args.no_floor:
            arms.append(("floor: a client doing nothing", lambda: run_floor(args.requests, args.latency, c, body, reply)))
        for label, arm in arms:
            r = arm()
            rows.append((c, label, r["wall_s"], ideal, 1000 * r["cpu_s"] / args.requests))
            print(f"concurrency {c:3d}, {label}: {args.requests} requests x {args.latency} s latency: wall {r['wall_s']:.2f} s, "
                  f"ideal {ideal:.2f} s, ratio {r['wall_s'] / ideal:.3f}, failed {r['failed']}; "
                  f"client CPU {1000 * r['cpu_s'] / args.requests:.1f} ms per request", flush=True)

    # overhead: no latency, one request at a time; the server says how long it spent itself
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    n = args.overhead_requests
    sp = ServerProcess(0.0, reply)
    with sp as base_url, tempfile.TemporaryDirectory() as out:
        model = OpenAIImageEdit(base_url=base_url, api_key="bench", concurrency=1, output_dir=out, progress="false")
        requests = make_requests(model, n, args.size, args.content, args.inputs[0], Path(out))
        model.generate_until(requests[:2])
        before = sp.stats()
        started, cpu = time.perf_counter(), time.process_time()
        model.generate_until(requests)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        after = sp.stats()
    server_ms = 1000 * (after["busy_s"] - before["busy_s"]) / n
    total_ms = 1000 * wall / n
    print(f"overhead ({args.size}x{args.size} {args.content} PNG in and out, {args.inputs[0]} inputs, concurrency 1, no latency, {n} requests): "
          f"{total_ms:.1f} ms per request round trip, of which the server {server_ms:.1f} ms; "
          f"package + openai client + loopback HTTP: {total_ms - server_ms:.1f} ms per request "
          f"({1000 * cpu / n:.1f} ms of CPU in the client process); load average {os.getloadavg()[0]:.1f} at the end")
    print("\n| concurrency | client | wall (s) | / ideal | client CPU per request |")
    print("|---:|---|---:|---:|---:|")
    for c, label, wall, ideal, cpu_ms in rows:
        print(f"| {c} | {label} | {wall:.2f} | {wall / ideal:.2f}× (ideal {ideal:.2f} s) | {cpu_ms:.1f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
