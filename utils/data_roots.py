"""Where a benchmark's data lives when the Hugging Face hub is not used.

One rule for every benchmark, checked in this order:

1. ``LMMS_PLUGINS_<BENCH>_ROOT`` (e.g. ``LMMS_PLUGINS_CWI_ROOT``): the local copy of that benchmark;
2. ``LMMS_PLUGINS_DATA_ROOT``: one folder with a sub-folder per benchmark (``cwi/``, ``dod/``,
   ``abacus/``, ``grade/``), named as the benchmark;
3. neither: the benchmark's official hub dataset.

A local copy has the official layout, so the same loading code reads both. Each benchmark's
descriptor (``tasks/<bench>/benchmark.py``) names its hub dataset and that layout.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ROOT_ENV = "LMMS_PLUGINS_DATA_ROOT"


class MissingDataError(FileNotFoundError):
    """The data a benchmark needs is not where the configuration says; the message says how to fix it."""


def env_var(bench: str) -> str:
    return f"LMMS_PLUGINS_{bench.upper().replace('-', '_')}_ROOT"


def local_root(bench: str) -> Path | None:
    """The configured local copy of ``bench``, or None to use the hub. A configured but absent folder is an error."""
    own = os.environ.get(env_var(bench))
    if own:
        root, source = Path(own).expanduser(), env_var(bench)
    elif os.environ.get(DATA_ROOT_ENV):
        root, source = Path(os.environ[DATA_ROOT_ENV]).expanduser() / bench, f"{DATA_ROOT_ENV}/{bench}"
    else:
        return None
    if not root.is_dir():
        raise MissingDataError(f"{source} points to {root}, which is not a folder.\n{how_to_provide(bench)}")
    return root


def local_dataset_path(bench: str) -> str | None:
    root = local_root(bench)
    return None if root is None else str(root)


def how_to_provide(bench: str) -> str:
    from lmms_plugins.utils.benchmarks import find

    known = find(bench)
    hub = (known.hub_id if known else None) or "(no hub copy)"
    layout = known.layout if known else "the benchmark's official layout"
    return (
        f"To use a local copy of {bench}, set {env_var(bench)}=<folder> (or {DATA_ROOT_ENV}=<folder> "
        f"holding {bench}/). Expected layout: {layout}. Without either, the data comes from the hub "
        f"dataset {hub}."
    )


def require_file(bench: str, path: Path, what: str) -> Path:
    """``path`` if it exists, else a MissingDataError naming the file and how to provide the data."""
    if not Path(path).exists():
        raise MissingDataError(f"{bench}: {what} not found at {path}.\n{how_to_provide(bench)}")
    return Path(path)
