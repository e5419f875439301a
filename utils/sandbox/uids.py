"""Each execution's own unused uid (as root): drawn at random, unused by any process, released after."""

from __future__ import annotations

import os
import secrets
import threading

_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()
_UID_BASE, _UID_SPAN = 1_900_000_000, 200_000_000


def _take_uid() -> int:
    with _uid_lock:
        while True:
            uid = _UID_BASE + secrets.randbelow(_UID_SPAN)
            # unused here and by any process (another evaluator process on this machine)
            if uid not in _uids_in_use and not _procs_of_uid(uid):
                _uids_in_use.add(uid)
                return uid


def _release_uid(uid: int) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


def _procs_of_uid(uid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    found.append(int(name))
            except OSError:
                pass
    return found


def _after_fork_in_child() -> None:
    # a forked evaluator (multiprocessing, data loaders): no lock may stay taken
    global _uid_lock
    _uid_lock = threading.Lock()
    _uids_in_use.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
