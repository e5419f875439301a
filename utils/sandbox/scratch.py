"""The scratch folder, through an open folder descriptor: input names, writing the inputs, and
reading back the new files the program wrote.

Every path is walked one component at a time (``openat`` with ``O_NOFOLLOW``), so no link the
program made leads outside; the walk is iterative and bounded (depth, entries), so no tree the
program builds (thousands of nested folders, millions of files) makes it raise or run long.
Names are returned only when they are safe to show and log: valid UTF-8, printable, no
component starting with a dot; others are listed (escaped) in ``skipped_files``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import PurePosixPath

from .limits import Limits

MAX_DEPTH = 16  # folders deeper than this are not looked into
MAX_ENTRIES = 10_000  # entries looked at in all
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def check_name(name: str) -> str:
    p = PurePosixPath(name)
    if not name or "\x00" in name or p.is_absolute() or ".." in p.parts or str(p) in (".", ""):
        raise ValueError(f"input file name {name!r} must be a relative path inside the scratch folder")
    return str(p)


def write_inputs(root_fd: int, files: Mapping) -> dict[str, tuple[int, int]]:
    """Write ``files`` (name -> bytes, or a path to copy) under ``root_fd``; name -> (size, mtime_ns)."""
    out = {}
    for name, src in files.items():
        parts = PurePosixPath(name).parts
        d = os.dup(root_fd)
        try:
            for part in parts[:-1]:
                try:
                    os.mkdir(part, 0o755, dir_fd=d)
                except FileExistsError:
                    pass
                nd = os.open(part, _DIR_FLAGS, dir_fd=d)
                os.close(d)
                d = nd
            fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=d)
            try:
                if isinstance(src, (bytes, bytearray, memoryview)):
                    view = memoryview(src)
                    while view:
                        view = view[os.write(fd, view):]
                else:
                    with open(os.fspath(src), "rb") as f:
                        while chunk := f.read(1 << 20):
                            view = memoryview(chunk)
                            while view:
                                view = view[os.write(fd, view):]
                st = os.fstat(fd)
                out[name] = (st.st_size, st.st_mtime_ns)
            finally:
                os.close(fd)
        finally:
            os.close(d)
    return out


def safe_name(raw: bytes) -> str | None:
    """The relative name as text when it is safe to show, log and save; else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    parts = text.split("/")
    if any(not p or p.startswith(".") or len(p.encode()) > 255 or not p.isprintable() for p in parts):
        return None
    return text


def _shown(raw: bytes) -> str:
    return repr(raw)[2:-1]  # escapes: bad\xff.png, line\nbreak.png


def collect(root_fd: int, inputs: dict, limits: Limits) -> tuple[dict[str, bytes], tuple[str, ...]]:
    """New or changed regular files under ``root_fd`` within the caps; (files, skipped names)."""
    got: dict[str, bytes] = {}
    skipped: list[str] = []
    budget = int(limits.max_returned_mb * (1 << 20))
    todo: list[tuple[bytes, int]] = [(b"", 0)]  # (relative path, depth); opened again from the root
    seen = 0
    while todo and seen < MAX_ENTRIES:
        rel, depth = todo.pop()
        try:
            d = _open_dir(root_fd, rel)
        except OSError:
            continue
        try:
            with os.scandir(d) as it:
                entries = sorted((e.name.encode("utf-8", "surrogateescape"), e) for e in it)
        except OSError:
            entries = []
        subdirs = []
        for name_b, e in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                break
            path = rel + b"/" + name_b if rel else name_b
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        subdirs.append((path, depth + 1))
                    continue
                if not e.is_file(follow_symlinks=False):
                    continue  # a link, fifo, socket, device: not returned
            except OSError:
                continue
            _take(d, name_b, path, inputs, limits, got, skipped, budget - sum(map(len, got.values())))
        os.close(d)
        todo.extend(reversed(subdirs))
    return got, tuple(skipped)


def _open_dir(root_fd: int, rel: bytes) -> int:
    d = os.dup(root_fd)
    for part in rel.split(b"/") if rel else []:
        try:
            nd = os.open(part, _DIR_FLAGS, dir_fd=d)
        finally:
            os.close(d)
        d = nd
    return d


def _take(d, name_b, path_b, inputs, limits, got, skipped, budget) -> None:
    name = safe_name(path_b)
    try:
        fd = os.open(name_b, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=d)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return  # a hard link (perhaps to a file outside)
        if name is not None and name in inputs and inputs[name] == (st.st_size, st.st_mtime_ns):
            return  # an input, unchanged
        if name is None or len(got) >= limits.max_returned_files or st.st_size > budget:
            skipped.append(name if name is not None else _shown(path_b))
            return
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(budget + 1)
        if len(data) > budget:
            skipped.append(name)
            return
        got[name] = data
    finally:
        os.close(fd)
