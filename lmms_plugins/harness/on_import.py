"""Run a patch right after a module is imported (or now, when it already is)."""

from __future__ import annotations

import importlib.machinery
import sys

from .guard import warn

#: modules whose loader carries a patch (it runs when their own code has run)
_ARMED: set[str] = set()


def when_imported(name: str, patch) -> None:
    module = sys.modules.get(name)
    if name in _ARMED:  # armed before this module started importing: its patch runs when it is done
        return
    if module is None:  # the usual case in lmms-eval 0.7.3: patch right after it is imported
        if not any(isinstance(f, _PatchOnImport) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _PatchOnImport(name, patch))
    elif _initialising(module):  # half-imported: it cannot be patched now, nor later by the hook
        warn(f"patch {name}, which was still being imported (is LMMS_PLUGINS_NO_STARTUP_HOOK set?)")
    else:
        patch(module)


def _initialising(module) -> bool:
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


class _PatchOnImport:  # duck-typed finder: importlib.abc costs ~10 ms at interpreter start
    """Finds nothing itself; wraps the real loader of one module so a patch runs after it."""

    def __init__(self, name: str, patch) -> None:
        self.name, self.patch = name, patch

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        real_exec = spec.loader.exec_module
        patch = self.patch
        _ARMED.add(fullname)

        def exec_module(module):
            real_exec(module)
            try:
                patch(module)
            except Exception as exc:  # guarded: lmms-eval must still start
                warn(f"patch {fullname} ({exc!r})")

        spec.loader.exec_module = exec_module
        return spec


__all__ = ["when_imported"]
