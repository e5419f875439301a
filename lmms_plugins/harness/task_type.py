"""A ``class:`` task is built for a chat model as its chat variant (works around an lmms-eval 0.7.3 bug).

lmms-eval builds a task for the model's kind: ``ConfigurableTask`` for a simple model,
``ConfigurableMessagesTask`` (requests carry ``doc_to_messages``) for a chat model
(``evaluator.py:528``: ``task_type = "simple" if lm.is_simple else "chat"``). A YAML ``class:``
task skips that choice: ``TaskManager._load_individual_task_or_group`` builds it as
``config["class"](config=config)`` whatever the ``task_type`` (``lmms_eval/tasks/__init__.py``,
``_load_task``), so a chat model receives simple-style request arguments and fails.

This package's task classes name their chat form in ``chat_variant`` (utils/task_class.py). Here
``_load_individual_task_or_group`` notes the task type it was asked for, and ``_get_config`` (which
``_load_task`` reads every registered task's YAML through) names the chat variant in place of the
class when the task type is "chat". Nothing else changes: a class without ``chat_variant``, and
every task of a simple model, is built as lmms-eval builds it.
"""

from __future__ import annotations

import contextvars
import functools

from . import guard

_TASK_TYPE: contextvars.ContextVar[str] = contextvars.ContextVar("lmms_plugins_task_type", default="simple")


def for_task_type(config, task_type: str):
    """``config`` with its ``class`` replaced by the class's chat variant when ``task_type`` is "chat"."""
    if task_type != "chat" or not isinstance(config, dict):
        return config
    chat = getattr(config.get("class"), "chat_variant", None)
    return {**config, "class": chat} if isinstance(chat, type) else config


def patch(module) -> None:
    """Patch ``lmms_eval.tasks.TaskManager`` (two methods, both guarded and idempotent)."""
    manager = getattr(module, "TaskManager", None)
    load = guard.unpatched(manager, "_load_individual_task_or_group", "TaskManager._load_individual_task_or_group")
    get_config = guard.unpatched(manager, "_get_config", "TaskManager._get_config")
    if load is None or get_config is None:
        return

    @functools.wraps(load)
    def _load_individual_task_or_group(self, name_or_config=None, task_type="simple", *args, **kwargs):
        token = _TASK_TYPE.set(task_type)
        try:
            return load(self, name_or_config, task_type, *args, **kwargs)
        finally:
            _TASK_TYPE.reset(token)

    @functools.wraps(get_config)
    def _get_config(self, name):
        return for_task_type(get_config(self, name), _TASK_TYPE.get())

    guard.install(manager, "_load_individual_task_or_group", _load_individual_task_or_group)
    guard.install(manager, "_get_config", _get_config)


__all__ = ["for_task_type", "patch"]
