"""Bad images give a verdict with a reason, never an exception."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from lmms_plugins.tasks.dod.maze import render as mr
from lmms_plugins.tasks.dod.maze.generate import make_pair, render_pair
from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit

PAIR = make_pair(1, 9, 5)


@pytest.fixture(scope="module")
def maze():
    a, b, ref, _ = render_pair(PAIR)
    return a, ref


def _photo(w=640, h=480) -> Image.Image:
    """A smooth 'photo': sky gradient, ground, a sun and noise (blue and green regions included)."""
    rng = np.random.default_rng(0)
    y = np.linspace(0, 1, h)[:, None, None]
    sky = np.array([120, 170, 235]) * (1 - y) + np.array([200, 225, 250]) * y
    img = np.broadcast_to(sky, (h, w, 3)).copy()
    img[h // 2:] = [70, 140, 60]
    img += rng.normal(0, 8, img.shape)
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    ImageDraw.Draw(pil).ellipse([450, 40, 540, 130], fill=(250, 200, 60))
    return pil


def _huge_png_header(path: Path, w: int, h: int) -> Path:
    """A PNG whose header claims w x h pixels (no need to hold them in memory)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 10)) + chunk(b"IEND", b""))
    return path


def _outputs(maze, tmp_path: Path) -> dict:
    a, ref = maze
    truncated = tmp_path / "truncated.png"
    full = tmp_path / "full.png"
    ref.save(full)
    truncated.write_bytes(full.read_bytes()[:2000])
    not_image = tmp_path / "notes.png"
    not_image.write_text("this is not an image")
    transparent = Image.new("RGBA", ref.size, (0, 0, 0, 0))
    return {
        "blank white": Image.new("RGB", (600, 600), "white"),
        "blank black": Image.new("RGB", (600, 600), "black"),
        "photo": _photo(),
        "tiny 16px": Image.new("RGB", (16, 16), (173, 216, 230)),
        "tiny 4px": Image.new("RGB", (4, 4), "white"),
        "grayscale maze": ref.convert("L"),
        "1-bit": ref.convert("1"),
        "transparent": transparent,
        "huge header": _huge_png_header(tmp_path / "huge.png", 9000, 9000),
        "truncated file": truncated,
        "text file": not_image,
        "missing file": tmp_path / "nope.png",
        "directory": tmp_path,
        "not an image object": 42,
        "16-bit": Image.fromarray(np.full((300, 300), 40000, dtype=np.uint16)),
    }


def test_bad_outputs_are_unreadable_output(maze, tmp_path):
    a, _ = maze
    for name, out in _outputs(maze, tmp_path).items():
        v = verify_maze_edit(a, out)
        assert not v.ok, name
        assert v.reason == "unreadable_grid", (name, v)
        assert v.details["side"] in ("output", "unknown"), (name, v.details)
        assert v.details["message"], name


def test_bad_inputs_are_unreadable_input(maze, tmp_path):
    _, ref = maze
    for name, given in _outputs(maze, tmp_path).items():
        v = verify_maze_edit(given, ref)
        assert v.reason == "unreadable_grid" and v.details["side"] in ("input", "unknown"), (name, v.details)


def test_maze_without_green_or_red_is_unreadable(maze):
    a, ref = maze
    lay = mr.layout_for(PAIR.n)
    for cell, what in ((PAIR.start, "green"), (PAIR.goal, "red")):
        img = a.copy()
        ImageDraw.Draw(img).rectangle(lay.interior(cell), fill=mr.PASSAGE)
        v = verify_maze_edit(img, ref)
        assert v.reason == "unreadable_grid" and v.details["side"] == "input"
        assert f"one {what}" in v.details["message"]
    # an output whose start cell was painted over (not by the path) is an altered maze
    out = ref.copy()
    ImageDraw.Draw(out).rectangle(lay.interior(PAIR.start), fill=mr.PASSAGE)
    assert verify_maze_edit(a, out).reason == "maze_altered"


def test_accepted_variants_of_a_good_output(maze, tmp_path):
    a, ref = maze
    rgba = ref.convert("RGBA")
    palette = ref.convert("P", palette=Image.ADAPTIVE, colors=32)
    big = ref.resize((2600, 2600), Image.NEAREST)
    jpeg_path = tmp_path / "ref.jpg"
    big.save(jpeg_path, quality=90)
    for name, out in {"rgba": rgba, "palette": palette, "large 2600px": big, "large jpeg": jpeg_path}.items():
        v = verify_maze_edit(a, out)
        assert v.ok, (name, v.reason, v.details)
    # a grayscale *input* cannot be read (the colours carry the maze)
    assert verify_maze_edit(a.convert("L"), ref).reason == "unreadable_grid"


def test_bad_grid_evidence_is_reported(maze):
    a, ref = maze
    for evidence in ({"walls": []}, {"grid": "nonsense"}, "not json", {"grid": [[1, "x"]]}):
        v = verify_maze_edit(a, ref, evidence)
        assert v.reason == "unreadable_grid" and v.details["side"] == "input", evidence
