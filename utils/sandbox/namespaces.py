"""Starting a program in new namespaces: which folders become private, which are hidden and
which interpreter folders are re-exposed (the mount plan), and the ``unshare`` command line that
runs ns_init's PID 1."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import PurePosixPath

from .ns_init import _NS_INIT

#: where the scratch folder appears inside a mount namespace
INNER_WORKDIR = "/tmp/work"
#: world-writable folders made private (tmpfs) inside a mount namespace
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock")
#: replaced by an empty tmpfs inside a mount namespace: the host's Unix sockets (D-Bus, databases)
ALWAYS_HIDDEN = ("/run",)


def _others_can_enter(path: str) -> str | None:
    """The first folder on the way to ``path`` that a stranger uid cannot enter, or None."""
    parts = PurePosixPath(path).parts
    for i in range(1, len(parts) + 1):
        d = str(PurePosixPath(*parts[:i]))
        try:
            st = os.stat(d)
        except OSError:
            return d
        if stat.S_ISDIR(st.st_mode) and not st.st_mode & 0o001:
            return d
    return None


def _interpreter_paths() -> list[str]:
    """Folders the sandboxed interpreter needs: its prefixes and the import path."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        os.path.dirname(os.path.abspath(sys.executable)),
    }
    paths.update(p for p in sys.path if p and os.path.isabs(p))
    out = []
    for p in sorted({os.path.realpath(p) for p in paths} | {os.path.abspath(p) for p in paths}):
        if os.path.isdir(p) and p != "/":
            out.append(p)
    return out


def _site_paths() -> list[str]:
    """The evaluator's package folders (site-packages and the like, with the plain paths their
    .pth files add), for an interpreter started without the site module."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.exec_prefix)}
    out = []
    for p in sys.path:
        if not p or not os.path.isabs(p) or not os.path.isdir(p):
            continue
        rp = os.path.realpath(p)
        parts = PurePosixPath(rp).parts
        if "site-packages" in parts or "dist-packages" in parts or any(rp.startswith(q + "/") for q in prefixes):
            out.append(p)
    return list(dict.fromkeys(out))


def _mount_plan(private: list[str]) -> dict:
    """Which folders to hide behind an empty tmpfs and which interpreter folders to re-expose."""
    need = _interpreter_paths()

    def under(p: str, d: str) -> bool:
        return p == d or p.startswith(d.rstrip("/") + "/")

    hide: set[str] = set()
    keep: list[str] = []
    always = [d for d in ALWAYS_HIDDEN if os.path.isdir(d) and not os.path.islink(d)]
    hide.update(always)
    for p in need:
        blocked = _others_can_enter(p) or next((d for d in always if under(p, d)), None)
        in_private = any(under(p, d) for d in private)
        if blocked and not any(under(blocked, d) for d in private):
            hide.add(blocked)
        if blocked or in_private:
            keep.append(p)
    # a hidden folder inside another hidden one is covered by the outer tmpfs
    hide_list = sorted(h for h in hide if not any(h != o and under(h, o) for o in hide))
    keep = sorted(set(keep), key=len)
    keep = [p for i, p in enumerate(keep) if not any(under(p, q) for q in keep[:i])]
    # without a mount namespace a stranger uid can only run an interpreter it can reach
    reachable = not any(_others_can_enter(p) for p in need)
    return {"hide": hide_list, "keep": keep, "reachable": reachable}



def _init_argv(
    unshare: str, uid: int, tmp_mb: int, hide: list[str], private: list[str], keep: list[str], program: list[str]
) -> list[str]:
    """``unshare`` into new mount/net/pid/ipc/uts namespaces running :data:`_NS_INIT` as PID 1.

    ``uid`` < 0: not root: a new user namespace too, whose root (the evaluator's own uid outside)
    runs the program without capabilities."""
    for p in [*hide, *private, *keep]:
        if "\n" in p:
            raise ValueError(f"folder name with a newline: {p!r}")
    user = ["--user", "--map-root-user"] if uid < 0 else []
    return [
        unshare,
        *user,
        "--mount",
        "--net",
        "--pid",
        "--ipc",
        "--uts",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--propagation",
        "private",
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        _NS_INIT,
        str(uid),
        str(tmp_mb),
        INNER_WORKDIR,
        "\n".join(hide),
        "\n".join(private),
        "\n".join(keep),
        *program,
    ]
