"""#15.7: decoding an image costs bounded memory, whatever its mode, and the judges' images are
decoded small when the format allows it.

Memory is measured in a fresh subprocess (Linux peak RSS, VmHWM, reset after the imports through
/proc/self/clear_refs) so the numbers are the call's own; the bounds have wide margins (what they guard is a factor of
several: the old loader cost ~1.6 GB on the 16-bit file below).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

from lmms_plugins.utils.images import ImageTooLarge, decode_cost, load_rgb

MB = 1 << 20


def write_gray16_png(path: Path, width: int, height: int, value: int = 0x1234) -> Path:
    """A valid 16-bit greyscale PNG written row by row (small on disk, huge once decoded)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + struct.pack(">H", value) * width
    comp = zlib.compressobj(9)
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    header = struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


_PROBE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from PIL import Image
    from lmms_plugins.utils import images
    def status_kb(field):
        for line in open("/proc/self/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
    # reset the peak (VmHWM) to the current RSS, so the imports' own peak cannot hide the call's
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    before = status_kb("VmRSS")
    kwargs = json.loads(sys.argv[2])
    try:
        img = images.load_rgb(sys.argv[1], **kwargs)
        outcome = {"size": list(img.size), "mode": img.mode}
    except images.ImageError as exc:
        outcome = {"error": type(exc).__name__, "message": str(exc)}
    outcome["peak_mb"] = (status_kb("VmHWM") - before) / 1024.0
    print(json.dumps(outcome))
    """
)


def probe(path: Path, **kwargs) -> dict:
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(path), json.dumps(kwargs)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_image_memory_bound_refuses_a_16bit_bomb_before_decoding(tmp_path):
    path = write_gray16_png(tmp_path / "bomb16.png", 7999, 7999)
    assert path.stat().st_size < 2 * MB
    out = probe(path)
    assert out.get("error") == "ImageTooLarge", out
    assert "I;16" in out["message"] and "MB" in out["message"]
    assert out["peak_mb"] < 100, out  # refused from the header: nothing decoded (was +1.6 GB)


def test_image_memory_of_an_accepted_16bit_png_is_a_few_bytes_per_pixel(tmp_path):
    side = 3000  # 9 MP: 2 bytes/px decoded + ~5 bytes/px to 8-bit RGB; the old float64 path cost ~40
    path = write_gray16_png(tmp_path / "big16.png", side, side, value=0x8000)
    out = probe(path)
    assert out.get("size") == [side, side] and out["mode"] == "RGB", out
    assert out["peak_mb"] < 12 * side * side / MB, out
    assert load_rgb(path).getpixel((5, 5)) == (128, 128, 128)  # scaled, as before


def test_image_memory_decode_cost_is_mode_aware():
    from PIL import Image

    px = 1000 * 1000
    rgb = decode_cost("RGB", (1000, 1000))
    assert decode_cost("I;16", (1000, 1000)) > decode_cost("L", (1000, 1000))
    assert decode_cost("RGBA", (1000, 1000)) > rgb >= 4 * px
    assert decode_cost("F", (1000, 1000)) > decode_cost("I;16", (1000, 1000))
    assert Image.new("RGB", (1, 1))  # PIL available


def test_image_memory_bound_is_configurable(tmp_path, monkeypatch):
    from PIL import Image

    path = tmp_path / "rgb.png"
    Image.new("RGB", (1000, 1000), (1, 2, 3)).save(path)
    with pytest.raises(ImageTooLarge, match="MB"):
        load_rgb(path, max_bytes=2 * MB)
    monkeypatch.setenv("LMMS_PLUGINS_MAX_IMAGE_MB", "2")
    with pytest.raises(ImageTooLarge, match="LMMS_PLUGINS_MAX_IMAGE_MB"):
        load_rgb(path)
    monkeypatch.setenv("LMMS_PLUGINS_MAX_IMAGE_MB", "64")
    assert load_rgb(path).size == (1000, 1000)


def test_image_memory_max_side_decodes_jpeg_small(tmp_path):
    from PIL import Image

    path = tmp_path / "big.jpg"
    Image.effect_noise((4000, 3000), 40).convert("RGB").save(path, quality=85)
    full = probe(path)
    small = probe(path, max_side=1024)
    assert full["size"] == [4000, 3000]
    assert 1024 <= max(small["size"]) <= 2048, small  # JPEG draft: decoded at 1/2 scale, never below max_side
    assert small["peak_mb"] < full["peak_mb"] / 2, (small, full)


def test_image_memory_max_side_reduces_png_before_conversion(tmp_path):
    from PIL import Image

    path = tmp_path / "wide.png"
    Image.new("RGBA", (3000, 1000), (10, 200, 30, 128)).save(path)
    img = load_rgb(path, max_side=1000)
    assert img.mode == "RGB" and 1000 <= max(img.size) < 2000 and img.size[0] / img.size[1] == pytest.approx(3, rel=0.01)


def test_image_memory_bound_applies_to_images_in_memory(tmp_path):
    """Files a sandboxed program wrote arrive as bytes: the same header check refuses them."""
    from lmms_plugins.utils.images import load_rgb_bytes

    data = write_gray16_png(tmp_path / "bomb16.png", 7999, 7999).read_bytes()
    with pytest.raises(ImageTooLarge, match="plot.png.*I;16"):
        load_rgb_bytes(data, name="plot.png")
    ok = write_gray16_png(tmp_path / "small16.png", 64, 32, value=0xFFFF).read_bytes()
    assert load_rgb_bytes(ok).getpixel((3, 3)) == (255, 255, 255)
