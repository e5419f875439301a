"""Tests set a task's settings as a user does: a YAML for lmms-eval's ``--include_path``."""

from __future__ import annotations

from pathlib import Path


def settings_include(folder: Path, values_by_name: dict[str, dict]) -> str:
    """A folder for ``--include_path`` (or ``TaskManager(include_path=...)``) that runs each task or
    group named with its settings changed, written by the package's own writer as ``lmms-plugins
    settings NAME KEY=VALUE --out DIR`` writes it."""
    from lmms_plugins.settings_yaml import write_yaml

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, values in values_by_name.items():
        (folder / f"{name}.yaml").write_text(write_yaml(name, values), encoding="utf-8")
    return str(folder)
