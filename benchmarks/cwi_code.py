"""CwI with code execution: the figures behind tasks/cwi/README.md's code-execution section.

    python benchmarks/cwi_code.py --part a [--n 20]
    python benchmarks/cwi_code.py --part all

(a) Sandbox overhead: the same analysis script (imports numpy, Pillow, OpenCV; reads a PNG;
    prints a number) run n times through ``lmms_plugins.utils.sandbox.run_python`` and n times
    as a bare ``python -c`` subprocess in a folder holding the image (the parent's environment,
    no limits), alternating, in one run. Reports the median wall time of each, the ratio
    (goal: <= 1.5x) and the fixed cost on a script that only prints.
(b) Loop throughput (100 items x 3 rounds against a loopback model): added by the loop's owner.
(c) cwi_coder accuracy through the loop vs direct solvers: added by the loop's owner.
"""

from __future__ import annotations

import argparse
import io
import json
import os
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


def _bare(code: str, folder: str) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"bare run failed: {p.stderr[-500:]}")
    return dt, p.stdout


def _sandboxed(code: str, files: dict) -> tuple[float, str]:
    from lmms_plugins.utils.sandbox import Limits, run_python

    t = time.perf_counter()
    r = run_python(code, files, Limits(wall_s=60))
    dt = time.perf_counter() - t
    if r.status != "ok":
        raise RuntimeError(f"sandboxed run failed: {r.status} {r.reason} {r.stderr[-500:]}")
    return dt, r.stdout


def part_a(n: int) -> dict:
    from lmms_plugins.utils.sandbox import capabilities

    png = _png()
    out: dict = {"capabilities": capabilities(), "n": n}
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "image.png"), "wb") as f:
            f.write(png)
        for label, code in (("analysis", ANALYSIS), ("trivial", TRIVIAL)):
            _bare(code, folder)  # warm the page cache for both
            _sandboxed(code, {"image.png": png})
            bare, boxed = [], []
            for _ in range(n):
                dt, so_bare = _bare(code, folder)
                bare.append(dt)
                dt, so_box = _sandboxed(code, {"image.png": png})
                boxed.append(dt)
                assert so_bare == so_box, (so_bare, so_box)  # same result both ways
            mb, ms = statistics.median(bare), statistics.median(boxed)
            out[label] = {
                "bare_median_ms": round(mb * 1000, 1),
                "sandbox_median_ms": round(ms * 1000, 1),
                "ratio": round(ms / mb, 3),
                "overhead_median_ms": round((ms - mb) * 1000, 1),
                "stdout": so_box.strip(),
            }
    a = out["analysis"]
    print(f"(a) sandbox overhead, n={n} alternating runs, backend={out['capabilities']['backend']}")
    for label in ("analysis", "trivial"):
        r = out[label]
        print(f"    {label:9s} bare python -c {r['bare_median_ms']:8.1f} ms   sandbox {r['sandbox_median_ms']:8.1f} ms"
              f"   ratio {r['ratio']:.3f}   (+{r['overhead_median_ms']:.1f} ms)")
    print(f"    goal ratio <= 1.5 on the analysis script: {'met' if a['ratio'] <= 1.5 else 'NOT met'}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["a", "b", "c", "all"], default="all")
    ap.add_argument("--n", type=int, default=20, help="(a) runs of each kind")
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
