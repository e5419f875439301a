"""Finding and killing everything an execution started: its descendants (read from /proc), its
process group, and every process of its own uid."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from .uids import _procs_of_uid
from .warm import _WarmProc


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _descendants(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        seen += kids
        todo += kids
    return seen


def _uid_sweep(uid: int) -> None:
    """SIGKILL every process of ``uid`` (the execution's own uid): ``kill -1`` as that uid."""
    try:
        subprocess.run(
            ["kill", "-KILL", "-1"],
            check=False,
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError):
        pass


def _tasks_of_uid(uid: int) -> int:
    """Processes and threads running as ``uid`` (what RLIMIT_NPROC counts)."""
    n = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    txt = f.read()
                if f"\nUid:\t{uid}\t" in txt:
                    n += int(txt.split("\nThreads:")[1].split()[0])
            except (OSError, IndexError, ValueError):
                pass
    return n



def _kill_all(proc: subprocess.Popen, uid: int | None, tree: list[int], use_ns: bool) -> None:
    """Kill the execution and everything it started; return when they are gone.

    Its descendants (with namespaces: the namespace's init among them, whose death makes the
    kernel kill every process in its PID namespace), its process group, the descendants seen
    while it ran, and every process of its own uid (until none is left)."""
    warm = isinstance(proc, _WarmProc)
    for pid in _descendants(proc.pid) + tree + ([proc.pid] if warm and proc.poll() is None else []):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if not warm:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if uid is not None:
        end = time.monotonic() + 5
        while True:
            left = _procs_of_uid(uid)
            if not left or time.monotonic() > end:
                break
            _uid_sweep(uid)
            time.sleep(0.02)  # killed processes need a moment to be reaped
