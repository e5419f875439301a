"""Hypothesis strategies for bad model outputs, shared by the four ``tests/<bench>/test_<bench>_fuzz.py``.

An output is what lmms-eval hands to ``process_results``: usually a string (plain text, the unified
``{"text", "images"}`` JSON, "Generated image saved to: <path>"), sometimes None, bytes or a
dict from a broken wrapper. The strategies mix the shapes a wrapper emits with the junk a fuzz
campaign found harmful: lone surrogates, deep nesting, huge numbers, failure markers, paths to
system files, broken and oversized images.

Checks every benchmark applies: :func:`check_records` (never status ``error``, only known
statuses, every record valid UTF-8 JSON) and :data:`OPENED` (``/etc/passwd`` is never opened).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: Bounded, deterministic: the fuzz tests are part of the default suite and must not flake.
FUZZ = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])

FORBIDDEN = ("/etc/passwd", "/etc/shadow", "/proc/self/environ")
OPENED: list[str] = []  # forbidden files opened by this process, recorded by an audit hook


def _audit(event, args):
    # audit hooks cannot be removed: keep it cheap and record only what the tests look for
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        if any(f in path for f in FORBIDDEN):
            OPENED.append(path)


sys.addaudithook(_audit)


def _png_header_only(width: int, height: int, bit_depth: int = 16) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def make_image_pool(folder: Path) -> dict[str, str]:
    """Files a fuzzed output may name: good and bad images, a folder, a link out, system files."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    good = folder / "good.png"
    Image.new("RGB", (64, 48), (200, 30, 30)).save(good)
    trunc = folder / "truncated.png"
    data = good.read_bytes()
    trunc.write_bytes(data[: len(data) // 2])
    junk = folder / "junk.png"
    junk.write_bytes(b"GIF89a not really an image")
    empty = folder / "empty.png"
    empty.write_bytes(b"")
    wide = folder / "huge16.png"  # a header that promises 7999x7999 16-bit pixels: refused before decoding
    wide.write_bytes(_png_header_only(7999, 7999, bit_depth=16))
    link = folder / "link.png"
    if not link.exists():
        link.symlink_to("/etc/passwd")
    return {
        "good": str(good), "truncated": str(trunc), "junk": str(junk), "empty": str(empty), "huge": str(wide),
        "link_out": str(link), "folder": str(folder), "absent": str(folder / "absent.png"),
        "passwd": "/etc/passwd", "dotdot": str(folder) + "/../../../../../../etc/passwd",
        "relative": "../../../../etc/passwd", "nul": str(folder) + "/a\x00b.png", "surrogate": str(folder) + "/\ud800.png",
        "proc": "/proc/self/environ", "long": "x/" * 3000 + "y.png",
    }


def _nested(depth: int, left="[", right="]") -> str:
    return left * depth + right * depth


TEXT = st.text(st.characters(exclude_categories=()), max_size=300)  # lone surrogates included
SPICY = st.sampled_from([
    "", " ", "\x00", "\ud800", "\udfff", "İİ", "\u202e", "<think>", "</think>", "<answer>", "</answer>",
    "<answer></answer>", "<answer>1e400</answer>", "<answer>[[1e200,1e200]]</answer>", "<answer>NaN</answer>",
    "<answer>" + "9" * 5000 + "</answer>", "<answer>" + _nested(3000) + "</answer>", "[ABSTAIN]",
    "I cannot do this: the request is impossible.", "Therefore no valid solution exists.",
    "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Connection refused", "[GENERATION_FAILED] CUDA OOM", "[ERROR] bad",
    "```json\n{\"a\": 1}\n```", "{", "}", "[", "\"", "\\", "\\ud800", "Generated image saved to: ",
])
MIXED_TEXT = st.lists(st.one_of(TEXT, SPICY), max_size=6).map("".join)


def outputs(pool: dict[str, str]):
    """A strategy of raw model outputs naming files of ``pool`` (see :func:`make_image_pool`)."""
    path = st.sampled_from(sorted(pool.values()))
    image_entry = st.one_of(path, st.builds(lambda p: {"path": p}, path), st.integers(), st.none(), TEXT)
    images = st.one_of(st.lists(image_entry, max_size=3), path, st.none(), st.integers(), st.dictionaries(TEXT, TEXT, max_size=2))
    payload = st.fixed_dictionaries(
        {"text": st.one_of(MIXED_TEXT, st.none(), st.integers(), st.lists(TEXT, max_size=2))},
        optional={"images": images, "error": st.one_of(TEXT, st.none())},
    )

    def dump(obj) -> str:
        return json.dumps(obj, ensure_ascii=True)  # what wrappers send: surrogates as \\ud800 escapes

    return st.one_of(
        payload.map(dump),
        payload.map(dump).map(lambda s: s[: len(s) // 2]),  # cut short
        MIXED_TEXT,
        path.map(lambda p: f"Generated image saved to: {p}"),
        st.integers(1, 6000).map(lambda d: '{"text": ' + _nested(d) + "}"),
        st.integers(1, 6000).map(lambda d: '{"text": "x", "images": ' + _nested(d) + "}"),
        st.sampled_from(['{"text": "\\ud800 I cannot", "images": []}', '{"text": "ok", "images": ["\\udfff.png"]}']),
        st.none(),
        st.binary(max_size=200),
        payload,  # a dict, from a broken wrapper
        st.integers(),
    )


def check_records(result: dict, known: set[str], metrics=None) -> None:
    """``process_results`` output: the metrics asked, known statuses, never ``error``, valid UTF-8 JSON."""
    assert isinstance(result, dict) and result, result
    if metrics is not None:
        assert set(result) == set(metrics), sorted(result)
    for name, rec in result.items():
        assert isinstance(rec, dict), (name, rec)
        assert rec.get("status") in known, (name, rec.get("status"), rec.get("reason"))
    # lmms-eval's --log_samples: json.dumps(ensure_ascii=False) written as UTF-8
    json.dumps(result, ensure_ascii=False, default=str).encode("utf-8")


def assert_nothing_forbidden_opened(since: int) -> None:
    bad = OPENED[since:]
    assert not bad, bad
