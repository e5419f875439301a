"""The interface every sandbox provider implements (in the spirit of inspect_ai's
``SandboxEnvironment``: exec with files in, files out, limits, status), and the choice of provider.

A provider starts one execution (:meth:`Provider.start`): the program text, the input files and
the :class:`~.limits.Limits` go in; a :class:`Started` comes back, whose process ``run.py``
watches (output, time), kills, and whose scratch folder (``scratch_fd``) it reads the new files
from. ``missing()`` says what this machine lacks for the provider, in words that say how to get it.
"""

from __future__ import annotations

import os
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .limits import Limits

#: ``LMMS_PLUGINS_SANDBOX``: the provider ("bwrap", the default; "unconfined" runs the code
#: without confinement and is written into every result)
PROVIDER_ENV = "LMMS_PLUGINS_SANDBOX"
DEFAULT = "bwrap"


class SandboxStartError(RuntimeError):
    """The provider could not start this execution (a sandbox_error, with this message)."""


@dataclass
class Started:
    proc: subprocess.Popen  # stdout / stderr are pipes; kill() ends the whole execution
    scratch_fd: int  # the scratch folder, open: read after the program ended
    inputs: dict[str, tuple[int, int]]  # name -> (size, mtime_ns) as written
    cleanup: Callable[[], None] = field(default=lambda: None)  # after the files were read
    signal_base: int = 0  # exit codes above this mean "ended by signal (code - base)"
    memory_exceeded: Callable[[], bool] = field(default=lambda: False)  # the whole-execution limit was hit
    kill: Callable[[], None] | None = None  # ends everything the execution started (default: proc.kill)
    # files + folders the execution holds now (its tmpfs' inodes, which no size limit counts), or 0
    files_held: Callable[[], int] = field(default=lambda: 0)


class Provider(ABC):
    name: str

    @abstractmethod
    def missing(self) -> str | None:
        """What this machine lacks for this provider and how to get it; None when it works."""

    @abstractmethod
    def start(self, code: str, files: Mapping[str, bytes | str | os.PathLike], limits: Limits) -> Started:
        """Start one execution; :class:`SandboxStartError` when it cannot."""

    @abstractmethod
    def describe(self) -> dict:
        """What this provider confines here (for ``capabilities()`` and the results)."""


def chosen() -> str:
    return os.environ.get(PROVIDER_ENV, "").strip().lower() or DEFAULT


def get(name: str | None = None) -> Provider:
    name = name or chosen()
    if name == "bwrap":
        from .bwrap import BWRAP

        return BWRAP
    if name == "unconfined":
        from .unconfined import UNCONFINED

        return UNCONFINED
    raise ValueError(f"{PROVIDER_ENV}={name!r} is not a sandbox provider (bwrap, unconfined)")
