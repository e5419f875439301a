"""A ``class:`` task is built for a chat model as its chat variant (works around an lmms-eval 0.7.3 bug).

lmms-eval builds a task for the model's kind: ``ConfigurableTask`` for a simple model,
``ConfigurableMessagesTask`` (requests carry ``doc_to_messages``) for a chat model
(``evaluator.py:528``: ``task_type = "simple" if lm.is_simple else "chat"``). A YAML ``class:``
task skips that choice: ``TaskManager._load_individual_task_or_group`` builds it as
``config["class"](config=config)`` whatever the ``task_type`` (``lmms_eval/tasks/__init__.py``,
``_load_task``), so a chat model receives simple-style request arguments and fails.

The same ``_load_task`` passes a class no ``model_name`` (a configurable task gets the
TaskManager's), so per-model keys of ``lmms_eval_specific_kwargs`` would be ignored.

This package's task classes name their chat form in ``chat_variant`` (utils/task_class.py). Here
``_load_individual_task_or_group`` notes the task type it was asked for, and ``_get_config`` (which
``_load_task`` reads every registered task's YAML through) names the chat variant in place of the
class when the task type is "chat", and hands the class the model's name under :data:`MODEL_NAME_KEY`
(which the class takes out of its config). Nothing else changes: a class that is not one of this
package's is built as lmms-eval builds it.
"""

from __future__ import annotations

import contextvars
import functools

from lmms_plugins.utils.task_class import MODEL_NAME_KEY

from . import guard

_TASK_TYPE: contextvars.ContextVar[str] = contextvars.ContextVar("lmms_plugins_task_type", default="simple")


def for_task_type(config, task_type: str, model_name: str | None = None):
    """``config`` with its ``class`` replaced by the class's chat variant when ``task_type`` is
    "chat", and the model's name for a class of this package."""
    cls = config.get("class") if isinstance(config, dict) else None
    if not hasattr(cls, "chat_variant"):  # not one of this package's task classes
        return config
    chat = cls.chat_variant
    return {**config, "class": chat if task_type == "chat" and isinstance(chat, type) else cls,
            MODEL_NAME_KEY: model_name}


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
        return for_task_type(get_config(self, name), _TASK_TYPE.get(), getattr(self, "model_name", None))

    guard.install(manager, "_load_individual_task_or_group", _load_individual_task_or_group)
    guard.install(manager, "_get_config", _get_config)


__all__ = ["for_task_type", "patch"]
