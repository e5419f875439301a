"""lmms-plugins: Draw-or-Decline, ABACUS, GRADE and CwI-Bench for lmms-eval.

Importing this package is cheap on purpose (no torch, cv2, datasets): lmms-eval imports it
at start-up through the ``lmms_eval.models`` entry point.
"""

from __future__ import annotations

__version__ = "0.1.0"


def tasks_dir() -> str:
    """The folder lmms-eval should scan for this package's task and group YAMLs.

    Found through the import system rather than ``__file__`` so that it is right both for a
    wheel (``site-packages/lmms_plugins/tasks``) and for an editable install, where
    ``lmms_plugins.tasks`` maps to the repository's top-level ``tasks/``.
    """
    import importlib.util

    spec = importlib.util.find_spec("lmms_plugins.tasks")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("lmms_plugins.tasks is not installed; reinstall lmms-plugins")
    return list(spec.submodule_search_locations)[0]
