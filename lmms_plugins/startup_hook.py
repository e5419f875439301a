"""The ``.pth`` line of installs made before the harness package (``import lmms_plugins.startup_hook``):
the start-up hook itself is lmms_plugins/harness/startup.py, which a new install's line imports."""

import lmms_plugins.harness.startup  # noqa: F401
