"""Run untrusted Python (a model's code) in a separate, confined process.

Usage::

    from lmms_plugins.utils.sandbox import Limits, run_python
    r = run_python(code, {"image.png": png_bytes}, Limits(wall_s=20))
    r.status, r.stdout, r.stderr, r.files  # files = new files the code saved, e.g. plots

Every call starts a new process of the current interpreter (``sys.executable``: numpy, Pillow,
OpenCV, SciPy and scikit-image import as in the evaluator) in a fresh scratch folder holding only
the given files under the given names; the folder is removed afterwards. Calls share no state and
may run in parallel threads. ``run_python`` never raises for what the code does: every outcome is
an :class:`ExecResult` with a status.

Confinement (``capabilities()`` says what is active here; the README's "Sandbox" section says it
in words):

* always: a new session; an empty environment (PATH, HOME = TMPDIR = the scratch folder, LANG,
  one-thread BLAS/OpenMP settings; nothing of the evaluator's, so no API key); stdin /dev/null;
  rlimits (CPU time, address space, file size, open files, processes) lowered before the code
  runs; a wall-clock deadline; stdout/stderr read as they come with a cap; the scratch folder's
  size watched; everything the program started is killed when it ends or is killed; a
  ``timeout`` watchdog kills it even if the evaluator itself dies.
* with namespaces (Linux, ``unshare`` works: as root, or via an unprivileged user namespace):
  new network (nothing but a down loopback), PID, IPC, UTS and mount namespaces; as root, its own
  unused uid (no capabilities, no_new_privs); otherwise the user namespace's root with no
  capability; /tmp, /var/tmp, /dev/shm, /run/lock are private tmpfs; folders a stranger cannot
  enter (e.g. /root) are an empty tmpfs except the interpreter's own folders; the scratch folder
  is /tmp/work. When its PID namespace's init exits, the kernel kills everything left in it.
* warm (opt-in: ``warm=True`` / ``LMMS_PLUGINS_SANDBOX_WARM=1``; root with namespaces): the
  same confinement, but the program runs in a fork of a worker that imported numpy, Pillow,
  OpenCV, SciPy and scikit-image once (~3.5x faster for an import-heavy script).
* without them (``LMMS_PLUGINS_SANDBOX=plain`` forces this): as root with an interpreter a
  stranger can reach, still its own uid (found and killed by uid); otherwise the evaluator's uid.
  No network or file-system confinement beyond ordinary permissions.

Modules, one idea each: ``run`` (:func:`run_python`: prepare, start, watch, kill, classify),
``limits`` (statuses, :class:`Limits`, :class:`ExecResult`), ``probe`` (:func:`capabilities`),
``namespaces`` (mount plan, ``unshare`` command line), ``ns_init`` (the namespace's PID 1, source
text), ``bootstrap`` (the interpreter's first code, source text), ``warm`` / ``warm_worker`` (the
warm worker: evaluator side / its program, source text), ``processes`` (finding and killing what
an execution started), ``uids`` (an unused uid per execution), ``output`` (capped capture),
``environment`` (the execution's environment variables), ``scratch`` (the scratch folder).
"""

from .limits import (
    ERROR,
    KILLED,
    MEMORY,
    OK,
    OUTPUT_LIMIT,
    SANDBOX_ERROR,
    TIMEOUT,
    WATCHDOG_MARGIN_S,
    ExecResult,
    Limits,
)
from .namespaces import ALWAYS_HIDDEN, INNER_WORKDIR, PRIVATE_DIRS, _others_can_enter  # noqa: F401 (tests)
from .probe import BACKEND_ENV, capabilities
from .processes import _descendants  # noqa: F401 (tests)
from .run import run_python
from .uids import _UID_BASE, _procs_of_uid  # noqa: F401 (tests)
from .warm import WARM_ENV, WARM_PRELOAD, warm_up

# also importable from here, for the tests: _descendants, _procs_of_uid (its reading of /proc),
# _others_can_enter, _UID_BASE; the warm worker in use is warm._zygote
__all__ = [
    "ALWAYS_HIDDEN",
    "BACKEND_ENV",
    "ERROR",
    "INNER_WORKDIR",
    "KILLED",
    "MEMORY",
    "OK",
    "OUTPUT_LIMIT",
    "PRIVATE_DIRS",
    "SANDBOX_ERROR",
    "TIMEOUT",
    "WARM_ENV",
    "WARM_PRELOAD",
    "WATCHDOG_MARGIN_S",
    "ExecResult",
    "Limits",
    "capabilities",
    "run_python",
    "warm_up",
]
