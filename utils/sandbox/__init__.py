"""Run untrusted Python (a model's code) in a sandbox.

Usage::

    from lmms_plugins.utils.sandbox import Limits, run_python
    r = run_python(code, {"image.png": png_bytes}, Limits(wall_s=20))
    r.status, r.stdout, r.stderr, r.files  # files = new files the code saved, e.g. plots

``run_python`` never raises: every outcome is an :class:`ExecResult` with a status, and the
provider that ran it (``r.sandbox``). Calls share no state and may run in parallel threads.

Providers (``provider.py``; ``LMMS_PLUGINS_SANDBOX`` picks one): ``bwrap`` (the default,
``bwrap.py``: bubblewrap with an allow-listed view, every namespace, seccomp, size-limited tmpfs,
rlimits, a cgroup where one can be had) and ``unconfined`` (``unconfined.py``: a plain
subprocess, only when asked for by name). There is no fallback from one to the other: where
bubblewrap cannot run, :func:`require` raises :class:`SandboxUnavailable` naming what is missing,
and ``run_python`` returns ``sandbox_error``.

Modules, one idea each: ``run`` (:func:`run_python`), ``provider`` (the interface, the choice),
``bwrap`` / ``unconfined`` (the providers), ``view`` (the allow-list the sandbox sees),
``seccomp`` (the filter), ``cgroup`` (whole-execution memory), ``limits`` (statuses,
:class:`Limits`, :class:`ExecResult`), ``scratch`` (files in and out), ``output`` (capped
capture), ``environment`` (the execution's environment variables).
"""

from __future__ import annotations

from functools import lru_cache

from lmms_plugins.utils.preflight import PreflightError

from .limits import (
    ERROR,
    KILLED,
    MEMORY,
    OK,
    OUTPUT_LIMIT,
    SANDBOX_ERROR,
    TIMEOUT,
    ExecResult,
    Limits,
)
from .provider import PROVIDER_ENV, chosen, get
from .run import run_python


class SandboxUnavailable(PreflightError):
    """Code tasks cannot run here as configured: says what is missing and how to get it."""


@lru_cache(maxsize=4)
def _missing(name: str) -> str | None:
    return get(name).missing()


def require() -> str:
    """The provider to use, checked (once per process): raises :class:`SandboxUnavailable` with
    what is missing and how to get it, or for an unknown ``LMMS_PLUGINS_SANDBOX``. Returns its name
    ("bwrap", or "unconfined" when the user set it)."""
    name = chosen()
    try:
        why = _missing(name)
    except ValueError as e:
        raise SandboxUnavailable(str(e)) from None
    if why:
        hint = (f" To run the model's code without any confinement instead (only for code you trust), "
                f"set {PROVIDER_ENV}=unconfined; the results then record it.") if name == "bwrap" else ""
        raise SandboxUnavailable(f"the code sandbox ({name}) cannot run on this machine: {why}.{hint}")
    return name


def capabilities() -> dict:
    """What the chosen provider confines here (``provider``, ``namespaces``, ``seccomp``,
    ``memory``: whole execution through a cgroup or per process, ``missing``: None when it works)."""
    return get().describe()


__all__ = [
    "ERROR",
    "KILLED",
    "MEMORY",
    "OK",
    "OUTPUT_LIMIT",
    "PROVIDER_ENV",
    "SANDBOX_ERROR",
    "TIMEOUT",
    "ExecResult",
    "Limits",
    "SandboxUnavailable",
    "capabilities",
    "chosen",
    "require",
    "run_python",
]
