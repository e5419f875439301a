"""How lmms-eval finds this package with no flags.

lmms-eval 0.7.3 has no entry-point group for tasks, and ``LMMS_EVAL_PLUGINS`` adds a plugin's
task folder only after the task index is built. It does load the ``lmms_eval.models`` entry
points (while importing ``lmms_eval.models``) before any ``TaskManager`` exists. :func:`register`
is that entry point: it returns this package's model manifests and, as a side effect, installs
the harness package's hooks (lmms_plugins/harness/: the task index, the task classes' chat
variants, the end of a run), which wait for their lmms-eval modules to be imported.

Everything there is guarded: if lmms-eval's internals differ, a warning says so and
``--include_path "$(lmms-plugins tasks-dir)"`` still works. Nothing heavy is imported (no torch,
cv2, datasets, nor any benchmark code): see benchmarks/registration_overhead.py.
"""

from __future__ import annotations

from lmms_plugins.harness.guard import HarnessWarning as RegistrationWarning


def register():
    """Entry point payload for group ``lmms_eval.models``."""
    from lmms_plugins.harness.discovery import list_models
    from lmms_plugins.models import manifests

    install_hooks()
    found = manifests()
    list_models(found)  # `lmms-eval models` reads a static table, not the registry
    return found


def install_hooks() -> None:
    """Install the harness package's hooks (idempotent).

    Called by :func:`register`; the ``.pth`` start-up hook (harness/startup.py) installs them
    too, as soon as ``lmms_eval`` is imported: ``lmms-eval tasks list`` builds a ``TaskManager``
    without ever importing ``lmms_eval.models``, so the entry point alone never runs there.
    """
    from lmms_plugins import harness

    harness.install()


__all__ = ["RegistrationWarning", "install_hooks", "register"]
