"""The DoD task classes, named by ``class:`` in this folder's YAML template (utils/task_class.py: the
local data root, the request docs, the settings of settings.py). Before the first request of a
scored run: a judge this run needs is configured and reachable, its prompts parse (hooks.preflight).
With a judge, every sample is scored at the judge's concurrency once the generations are known
(utils/scored_ahead.py)."""

from __future__ import annotations

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

from lmms_plugins.utils.scored_ahead import ScoredAhead
from lmms_plugins.utils.task_class import PluginTask

from .settings import SETTINGS


class _Dod(ScoredAhead, PluginTask):
    SETTINGS = SETTINGS

    def preflight(self) -> None:
        from .hooks import preflight

        preflight(self.settings)

    def scores_ahead(self) -> bool:
        """A judge reads samples in these settings: the refusal judge (judge, hybrid) or the editing judge."""
        from .hooks import edit_judge_enabled

        return self.settings["refusal_mode"] != "rules" or edit_judge_enabled(self.settings)


class DodChatTask(_Dod, ConfigurableMessagesTask):
    """A DoD task for a chat model."""


class DodTask(_Dod, ConfigurableTask):
    """A DoD task (the class the YAML names; a chat model gets :class:`DodChatTask`)."""

    chat_variant = DodChatTask
