"""Run at interpreter start by ``lmms_plugins_hook.pth`` (installed next to the package; build_hooks.py).

lmms-eval's ``tasks`` subcommand (``lmms-eval tasks list``) indexes tasks without importing
``lmms_eval.models``, so the entry point in registration.py never runs there and the listing
would miss this package's tasks; lm-eval runs no plugin code at all, and its table would show
"N/A" for this package's standard errors. Since a ``.pth`` line runs in every interpreter of the
environment, this module does the least it can: it leaves a finder that finds nothing and, the
first time ``lmms_eval`` or ``lm_eval`` itself is imported, installs the harness package's hooks
(which then wait for their modules). It is also what arms the batched runner before
``lmms_eval.evaluator`` starts importing. Errors are swallowed: a start-up hook must never break
Python. ``LMMS_PLUGINS_NO_STARTUP_HOOK=1`` turns it off. Cost: benchmarks/registration_overhead.py.
"""

import os
import sys

_HARNESSES = ("lmms_eval", "lm_eval")


class _InstallOnHarnessImport:
    """Finds nothing; stays in ``sys.meta_path`` (inert once used) so the list being walked by
    the import in progress is never shortened under it."""

    used = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _HARNESSES and not self.used:
            self.used = True
            try:
                from lmms_plugins import harness

                harness.install()
            except Exception:  # pragma: no cover - never break an import of a harness
                pass
        return None


if os.environ.get("LMMS_PLUGINS_NO_STARTUP_HOOK", "") not in ("1", "true", "yes"):
    sys.meta_path.insert(0, _InstallOnHarnessImport())
