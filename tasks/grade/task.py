"""The GRADE task classes, named by ``class:`` in this folder's YAML template (utils/task_class.py: the
local data root, the request docs, the settings of settings.py). Before the first request of a
scored run: the judge (or a verdict file) is usable and its prompts parse (hooks.preflight). Once the
generations are known, every sample is scored at the judge's concurrency (utils/scored_ahead.py)."""

from __future__ import annotations

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

from lmms_plugins.utils.scored_ahead import ScoredAhead
from lmms_plugins.utils.task_class import PluginTask

from .settings import SETTINGS


class _Grade(ScoredAhead, PluginTask):
    SETTINGS = SETTINGS

    def preflight(self) -> None:
        from .hooks import preflight

        preflight(self.settings)


class GradeChatTask(_Grade, ConfigurableMessagesTask):
    """A GRADE task for a chat model."""


class GradeTask(_Grade, ConfigurableTask):
    """A GRADE task (the class the YAML names; a chat model gets :class:`GradeChatTask`)."""

    chat_variant = GradeChatTask
