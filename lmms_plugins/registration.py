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

import sys

from lmms_plugins.harness.guard import HarnessWarning as RegistrationWarning


def register():
    """Entry point payload for group ``lmms_eval.models``."""
    install_hooks()
    from lmms_plugins.models import manifests

    found = manifests()
    _list_in_models_command(found)
    return found


def install_hooks() -> None:
    """Install the harness package's hooks (idempotent).

    Called by :func:`register`; the ``.pth`` start-up hook (harness/startup.py) installs them
    too, as soon as ``lmms_eval`` is imported: ``lmms-eval tasks list`` builds a ``TaskManager``
    without ever importing ``lmms_eval.models``, so the entry point alone never runs there.
    """
    from lmms_plugins import harness

    harness.install()


def _list_in_models_command(found) -> None:
    """``lmms-eval models`` prints lmms-eval's static name tables, not the registry: add ours there
    too (as lmms-eval's own legacy plugin path does), so the listing shows them."""
    from lmms_plugins.harness.guard import warn

    module = sys.modules.get("lmms_eval.models")
    if module is None:  # called outside lmms-eval's start-up: nothing to list in
        return
    table = getattr(module, "AVAILABLE_SIMPLE_MODELS", None)
    if not isinstance(table, dict):
        warn("list its models in `lmms-eval models`")
        return
    for manifest in found:
        table.setdefault(manifest.model_id, manifest.simple_class_path)


__all__ = ["RegistrationWarning", "install_hooks", "register"]
