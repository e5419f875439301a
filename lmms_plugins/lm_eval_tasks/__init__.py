"""Task folders for EleutherAI's lm-eval 0.4.x (``lm_eval --include_path``).

Not under ``tasks/``: lmms-eval parses every ``.yaml`` below its task folder, and these YAMLs use
lm-eval's keys. ``lmms-plugins tasks-dir --harness lm-eval`` prints :func:`tasks_dir`.
"""

from __future__ import annotations

from pathlib import Path


def tasks_dir() -> str:
    """The folder to pass to ``lm_eval --include_path``."""
    return str(Path(__file__).resolve().parent)
