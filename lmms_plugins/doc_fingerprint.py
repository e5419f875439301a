"""What a document gives the model, as one hash: the same inputs hash alike wherever the data lies.

lmms-eval 0.7.3 logs per sample ``doc_hash = sha256(json.dumps(Instance.doc, default=str))``. It
leaves ``Instance.doc`` at None (the same hash for every sample of every task); this package's
requests carry a :class:`~lmms_plugins.request_docs.RequestDoc` whose text holds this fingerprint,
so ``doc_hash`` tells two datasets apart (``lmms-plugins compare`` pairs samples by it).

Each field of the doc is hashed by content: images (decoded, or HF ``{"bytes"}`` dicts) by their
pixels or bytes, an image path by its file's bytes where the file is found (absolute, or under a
folder the doc names or the benchmark's local data root), a folder path not at all (it says where
the data lies, not what it is), anything else by its JSON text.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

IMAGE_ENDINGS = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, _mtime_ns: int, _size: int) -> bytes:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return b"file:" + h.digest()


def _is_dir(value: str) -> bool:
    return len(value) < 4096 and "\n" not in value and os.path.isabs(value) and os.path.isdir(value)


def _path_digest(value: str, folders: list[Path]) -> bytes | None:
    if len(value) >= 4096 or "\n" in value or not value.lower().endswith(IMAGE_ENDINGS):
        return None
    p = Path(value)
    for cand in [p] if p.is_absolute() else [f / p for f in folders]:
        try:
            st = cand.stat()
            if cand.is_file():
                return _file_digest(str(cand), st.st_mtime_ns, st.st_size)
        except (OSError, ValueError):
            continue
    return None


def _part(value: Any, folders: list[Path]) -> bytes | None:
    """The bytes that stand for one value (None: a location, left out)."""
    if isinstance(value, str):
        if _is_dir(value):
            return None
        return _path_digest(value, folders) or value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray)):
        return b"bytes:" + hashlib.sha256(value).digest()
    if isinstance(value, Mapping) and isinstance(value.get("bytes"), (bytes, bytearray)):  # an HF image, undecoded
        return b"bytes:" + hashlib.sha256(value["bytes"]).digest()
    if hasattr(value, "tobytes") and hasattr(value, "mode") and hasattr(value, "size"):  # a PIL image
        return f"image:{value.mode}:{value.size}:".encode() + hashlib.sha256(value.tobytes()).digest()
    if isinstance(value, (list, tuple)):
        return b"[" + b"|".join(_part(v, folders) or b"" for v in value) + b"]"
    return json.dumps(value, sort_keys=True, default=str).encode()


def doc_fingerprint(doc: Mapping, data_roots: list[Path] | tuple = ()) -> str:
    """sha256 (hex, 32 characters) of a doc's content; ``data_roots``: folders relative image
    paths may be under (besides the folders the doc itself names)."""
    folders = [Path(v) for v in doc.values() if isinstance(v, str) and _is_dir(v)] + [Path(r) for r in data_roots]
    h = hashlib.sha256()
    for key in sorted(doc, key=str):
        part = _part(doc[key], folders)
        if part is None:
            continue
        h.update(str(key).encode() + b"\0" + part + b"\1")
    return h.hexdigest()[:32]
