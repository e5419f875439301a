"""The scratch folder: input names, its size while the program runs, the new files it wrote,
and its removal."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import PurePosixPath

from .limits import Limits


def _remove(path: str) -> None:
    """rmtree that also removes folders the program made unreadable (chmod 000)."""

    def retry(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
                shutil.rmtree(p, ignore_errors=True)
            else:
                func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)
    if os.path.exists(path):
        shutil.rmtree(path, ignore_errors=True)


def _check_name(name: str) -> str:
    p = PurePosixPath(name)
    if not name or "\x00" in name or p.is_absolute() or ".." in p.parts or str(p) in (".", ""):
        raise ValueError(f"input file name {name!r} must be a relative path inside the scratch folder")
    return str(p)


def _tree_bytes(root: str, stop_above: int) -> int:
    """Bytes of the files under ``root`` (not following links); stops counting above ``stop_above``."""
    total = 0
    todo = [root]
    while todo:
        try:
            with os.scandir(todo.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            todo.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
                    if total > stop_above:
                        return total
        except OSError:
            pass
    return total


def _collect(scratch: str, inputs: dict, limits: Limits, uid) -> tuple[dict[str, bytes], tuple[str, ...]]:
    """New regular files in the scratch folder (never following links), within the caps."""
    got: dict[str, bytes] = {}
    skipped: list[str] = []
    budget = int(limits.max_returned_mb * (1 << 20))
    for dirpath, dirnames, filenames in os.walk(scratch, followlinks=False):
        dirnames.sort()
        for fn in sorted(filenames):
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, scratch)
            try:
                fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink, fifo without writer, ...: not returned
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or (uid is not None and st.st_uid != uid):
                    continue  # a device, a hard link (perhaps to a file outside), someone else's file
                if rel in inputs and inputs[rel] == (st.st_size, st.st_mtime_ns):
                    continue  # an input, unchanged
                if len(got) >= limits.max_returned_files or st.st_size > budget:
                    skipped.append(rel)
                    continue
                data = b""
                with os.fdopen(os.dup(fd), "rb") as f:
                    data = f.read(budget + 1)
                if len(data) > budget:
                    skipped.append(rel)
                    continue
                budget -= len(data)
                got[rel] = data
            finally:
                os.close(fd)
    return got, tuple(skipped)
