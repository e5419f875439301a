"""Run at interpreter start by ``lmms_plugins_hook.pth`` (installed next to the package).

lmms-eval's ``tasks`` subcommand (``lmms-eval tasks list``) indexes tasks without importing
``lmms_eval.models``, so the entry point in registration.py never runs there and the listing
would miss this package's tasks. Since a ``.pth`` line runs in every interpreter of the
environment, this module does the least it can: it leaves a finder that finds nothing and, the
first time ``lmms_eval`` itself is imported, installs registration.py's hooks (which then wait
for ``lmms_eval.tasks``). Errors are swallowed: a start-up hook must never break Python.
``LMMS_PLUGINS_NO_STARTUP_HOOK=1`` turns it off. Cost: benchmarks/registration_overhead.py.
"""

import os
import sys


class _InstallOnLmmsEvalImport:
    """Finds nothing; stays in ``sys.meta_path`` (inert once used) so the list being walked by
    the import in progress is never shortened under it."""

    used = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "lmms_eval" and not self.used:
            self.used = True
            try:
                from lmms_plugins.registration import install_hooks

                install_hooks()
            except Exception:  # pragma: no cover - never break an import of lmms_eval
                pass
        return None


if os.environ.get("LMMS_PLUGINS_NO_STARTUP_HOOK", "") not in ("1", "true", "yes"):
    sys.meta_path.insert(0, _InstallOnLmmsEvalImport())
