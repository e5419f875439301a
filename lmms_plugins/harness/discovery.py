"""This package's tasks in lmms-eval's task index, with no flags (wraps ``TaskManager.initialize_tasks``),
and its models in ``lmms-eval models`` (:func:`list_models`).

lmms-eval 0.7.3 has no entry-point group for tasks, and ``LMMS_EVAL_PLUGINS`` adds a plugin's task
folder only after the task index is built. ``LMMS_PLUGINS_NO_TASK_HOOK=1`` turns this off (then pass
``--include_path "$(lmms-plugins tasks-dir)"``).
"""

from __future__ import annotations

import os

from . import guard

#: Set to 1 to keep this package's tasks out of lmms-eval's index (then use --include_path).
NO_TASK_HOOK_ENV = "LMMS_PLUGINS_NO_TASK_HOOK"


def enabled() -> bool:
    return os.environ.get(NO_TASK_HOOK_ENV, "") not in ("1", "true", "yes")


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def fast_index(folder: str) -> dict | None:
    """This package's part of the task index, in lmms-eval's entry format, read with PyYAML's C
    loader, each shared template once (every leaf names its task itself). lmms-eval's own
    pure-Python loader re-reads the shared template for every leaf: ~2 ms per file. Returns None
    (fall back to lmms-eval's indexer) for anything this reader does not cover, such as tags."""
    from lmms_plugins.utils import task_yaml  # C loader; `!function` tags are only names at indexing time

    templates: dict[str, dict] = {}

    def with_template(config: dict, root: str) -> dict:
        include = config.get("include")
        if not isinstance(include, str):
            return config
        path = include if os.path.isabs(include) else os.path.join(root, include)
        if path not in templates:  # a template may include another (tasks/cwi/_code_template_yaml)
            templates[path] = with_template(task_yaml.load(path) or {}, os.path.dirname(path))
        return {**templates[path], **config}

    index = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(root, name)
            config = with_template(task_yaml.load(path) or {}, root)
            if "tag" in config or "include" in config and not isinstance(config["include"], str):
                return None
            if "class" in config and isinstance(config.get("task"), str):  # lmms-eval's kind for a class: task
                index[config["task"]] = {"type": "python_task", "yaml_path": path}
            elif isinstance(config.get("task"), list) and "group" in config:
                index[config["group"]] = {"type": "group", "task": -1, "yaml_path": path}
            elif isinstance(config.get("task"), str):
                index[config["task"]] = {"type": "task", "yaml_path": path}
            else:
                return None
    return index


def patch(module) -> None:
    """Add this package's task folder to every TaskManager's index (after lmms-eval's own)."""
    manager = getattr(module, "TaskManager", None)
    original = guard.unpatched(manager, "initialize_tasks", "TaskManager.initialize_tasks")
    if original is None:
        return
    from lmms_plugins import tasks_dir

    ours = tasks_dir()
    cached: list = []

    def initialize_tasks(self, include_path=None, include_defaults=True):
        paths = [include_path] if isinstance(include_path, str) else list(include_path or [])
        paths = [p for p in paths if not (os.path.isdir(p) and _same_dir(p, ours))]
        if not cached:
            cached.append(fast_index(ours))
        if cached[0] is None:  # not covered by the fast reader: let lmms-eval index the folder
            return original(self, include_path=paths + [ours], include_defaults=include_defaults)
        index = original(self, include_path=paths, include_defaults=include_defaults)
        return {**cached[0], **index}  # lmms-eval's and the user's entries win, as for include_path

    guard.install(manager, "initialize_tasks", initialize_tasks)


def list_models(found) -> None:
    """``lmms-eval models`` prints lmms-eval's static name tables, not the registry: add this
    package's models there too (as lmms-eval's own legacy plugin path does), so the listing shows
    them. Called by the entry point, while ``lmms_eval.models`` is being imported."""
    import sys

    module = sys.modules.get("lmms_eval.models")
    if module is None:  # called outside lmms-eval's start-up: nothing to list in
        return
    if not guard.supported("lmms_eval"):
        return
    table = getattr(module, "AVAILABLE_SIMPLE_MODELS", None)
    if not isinstance(table, dict):
        guard.warn("list its models in `lmms-eval models`")
        return
    for manifest in found:
        table.setdefault(manifest.model_id, manifest.simple_class_path)


__all__ = ["NO_TASK_HOOK_ENV", "enabled", "fast_index", "list_models", "patch"]
