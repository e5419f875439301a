"""Memory and processes of a whole execution through a cgroup, where this process may make one.

cgroup v2: a child of this process's cgroup, when that cgroup already delegates the ``memory``
controller to its children (``cgroup.subtree_control``) and is writable: ``memory.max``,
``memory.swap.max`` 0, ``pids.max``. cgroup v1 (a hybrid hierarchy, as on the machines this
project runs CI on): a child in the ``memory`` hierarchy (``memory.limit_in_bytes``, and
``memory.memsw.limit_in_bytes`` where swap is accounted) and in the ``pids`` hierarchy, when
writable (as root). Both count every page the execution's processes touch, tmpfs, shared memory
and memfd included. The execution's processes are born in it (v1: the thread that starts bwrap
enters it for that moment) or moved into it while bwrap sets up (v2). Elsewhere :func:`new`
returns None and only the per-process rlimits apply (the README states the bound that gives).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from .limits import Limits

_FS = "/sys/fs/cgroup"


def _own_groups() -> dict[str, str]:
    """{v1 controller: cgroup path} of this thread."""
    with open("/proc/thread-self/cgroup") as f:
        return {ctl: path for ln in f if ln.count(":") >= 2
                for _, ctls, path in [ln.rstrip("\n").split(":", 2)] for ctl in ctls.split(",") if ctl}


@lru_cache(maxsize=1)
def _parents() -> tuple[str, dict[str, str]]:
    """("v2"|"v1"|"", {controller: parent folder}) where children can be made here."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [ln.rstrip("\n").split(":", 2) for ln in f if ln.count(":") >= 2]
    except OSError:
        return "", {}
    own = {ctl: path for _, ctls, path in lines for ctl in (ctls.split(",") if ctls else [""])}
    v2 = own.get("")
    if v2 is not None and os.path.isfile(os.path.join(_FS, "cgroup.controllers")):
        base = os.path.join(_FS, v2.lstrip("/"))
        try:
            with open(os.path.join(base, "cgroup.subtree_control")) as f:
                delegated = f.read().split()
        except OSError:
            delegated = []
        if "memory" in delegated and os.access(base, os.W_OK):
            return "v2", {"memory": base}
        return "", {}
    out = {}
    for ctl in ("memory", "pids"):
        if ctl in own:
            base = os.path.join(_FS, ctl, own[ctl].lstrip("/"))
            if os.path.isfile(os.path.join(base, "cgroup.procs")) and os.access(base, os.W_OK):
                out[ctl] = base
    return ("v1", out) if "memory" in out else ("", {})


def describe() -> str:
    version, parents = _parents()
    if not version:
        return "per-process rlimits (no writable cgroup with the memory controller here)"
    return f"cgroup {version}: whole execution ({', '.join(sorted(parents))})"


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class Group:
    def __init__(self, version: str, dirs: dict[str, str], pids: bool = False):
        self.version, self.dirs = version, dirs
        self.pids = pids  # its pids.max bounds the processes

    @contextmanager
    def spawning(self) -> Iterator[None]:
        """cgroup v1: this thread inside the group meanwhile, so that the processes it starts are
        born in it. Moving a process (``cgroup.procs``) takes a global lock whose first taking
        waits for an RCU grace period (about 10 ms here); a thread moving itself (``0`` into
        ``tasks``) does not. cgroup v2 (no thread moves outside threaded groups): nothing here,
        :meth:`adopt` moves them."""
        if self.version != "v1":
            yield
            return
        back = _own_groups()
        try:
            for ctl, d in self.dirs.items():
                _write(os.path.join(d, "tasks"), "0")
            yield
        finally:
            for ctl in self.dirs:
                _write(os.path.join(_FS, ctl, back[ctl].lstrip("/"), "tasks"), "0")

    def adopt(self, pids: list[int]) -> None:
        """Make sure ``pids`` are in the group: cgroup v2, moved where they are not; cgroup v1,
        born in it (:meth:`spawning`), so only checked."""
        for d in self.dirs.values():
            with open(os.path.join(d, "cgroup.procs")) as f:
                present = set(f.read().split())
            for pid in pids:
                if str(pid) not in present:
                    if self.version != "v2":
                        raise OSError(f"process {pid} is not in its cgroup {d}")
                    _write(os.path.join(d, "cgroup.procs"), str(pid))

    def exceeded(self) -> bool:
        """The kernel killed a process of the execution for the memory limit."""
        name = "memory.events" if self.version == "v2" else "memory.oom_control"
        try:
            with open(os.path.join(self.dirs["memory"], name)) as f:
                fields = dict(ln.split() for ln in f if len(ln.split()) == 2)
            return int(fields.get("oom_kill", 0)) > 0
        except (OSError, ValueError):
            return False

    def remove(self) -> None:
        deadline = time.monotonic() + 2.0
        for d in dict.fromkeys(self.dirs.values()):
            while True:
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # a process still dying: left for the parent cgroup
                    time.sleep(0.01)


@lru_cache(maxsize=1)
def _sweep() -> None:
    """Remove the empty cgroups of evaluators that died without cleaning up (named by their pid)."""
    for parent in _parents()[1].values():
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            parts = name.split("_")
            if len(parts) == 4 and name.startswith("lmms_sandbox_") and parts[2].isdigit():
                try:
                    os.kill(int(parts[2]), 0)
                    continue  # its evaluator is alive
                except ProcessLookupError:
                    pass
                except OSError:
                    continue
                try:
                    os.rmdir(os.path.join(parent, name))
                except OSError:
                    pass


def new(limits: Limits) -> Group | None:
    """A fresh cgroup limited to ``limits.memory_mb`` and ``limits.max_processes``, or None."""
    version, parents = _parents()
    if not version:
        return None
    _sweep()
    name = f"lmms_sandbox_{os.getpid()}_{uuid.uuid4().hex[:12]}"
    mem = str(int(limits.memory_mb) << 20)
    dirs: dict[str, str] = {}
    try:
        for ctl, parent in parents.items():
            dirs[ctl] = os.path.join(parent, name)
            os.mkdir(dirs[ctl])
        if version == "v2":
            d = dirs["memory"]
            _write(os.path.join(d, "memory.max"), mem)
            for f, v in (("memory.swap.max", "0"), ("pids.max", str(int(limits.max_processes) + 2))):
                if os.path.exists(os.path.join(d, f)):
                    _write(os.path.join(d, f), v)
        else:
            d = dirs["memory"]
            _write(os.path.join(d, "memory.limit_in_bytes"), mem)
            if os.path.exists(os.path.join(d, "memory.memsw.limit_in_bytes")):
                _write(os.path.join(d, "memory.memsw.limit_in_bytes"), mem)
            if "pids" in dirs:
                _write(os.path.join(dirs["pids"], "pids.max"), str(int(limits.max_processes) + 2))  # + bwrap's two
    except OSError:
        Group(version, dirs).remove()
        return None
    pids = "pids" in dirs or (version == "v2" and os.path.exists(os.path.join(dirs["memory"], "pids.max")))
    return Group(version, dirs, pids)
