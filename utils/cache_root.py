"""The one folder under which this package caches anything (judge replies, local datasets).

``LMMS_PLUGINS_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/lmms_plugins``, else
``~/.cache/lmms_plugins``. Each user of it takes one sub-folder (``judge``, ``datasets``).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "LMMS_PLUGINS_CACHE_DIR"


def cache_root() -> Path:
    """The cache folder, read from the environment at each call (tests and users may change it)."""
    own = os.environ.get(CACHE_DIR_ENV, "").strip()
    if own:
        return Path(own).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lmms_plugins"


def cache_dir(name: str) -> Path:
    """The sub-folder ``name`` of :func:`cache_root` (not created here)."""
    return cache_root() / name
