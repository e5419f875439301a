"""The environment an execution sees: nothing of the evaluator's (no API key)."""

from __future__ import annotations

import os
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def _interpreter_dir() -> str:
    return os.path.dirname(os.path.realpath(sys.executable))


def env(home: str, cache: str, path: str) -> dict[str, str]:
    """``path``: PYTHONPATH, where the allowed packages are (the interpreter runs without site)."""
    return {
        "PATH": _interpreter_dir(),
        "HOME": home,
        "TMPDIR": home,
        # caches (matplotlib's font list, ...) go outside the scratch folder, so they are not
        # returned as files the program wrote
        "XDG_CACHE_HOME": cache,
        "XDG_CONFIG_HOME": cache,
        "MPLCONFIGDIR": cache,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": path,
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        # one thread per library: parallel executions do not oversubscribe the cores, and the
        # process limit is not eaten by BLAS/OpenMP pools
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "OPENCV_FOR_THREADS_NUM": "1",
    }
