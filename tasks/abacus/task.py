"""The ABACUS task classes, named by ``class:`` in this folder's YAML template (utils/task_class.py:
the local data root, the request docs, the settings of settings.py). Before the first request of a
scored run: the detector and flow backends load (hooks.preflight)."""

from __future__ import annotations

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

from lmms_plugins.utils.task_class import PluginTask

from .settings import SETTINGS


class _Abacus(PluginTask):
    SETTINGS = SETTINGS

    def preflight(self) -> None:
        from .hooks import preflight

        preflight(self.settings)


class AbacusChatTask(_Abacus, ConfigurableMessagesTask):
    """An ABACUS task for a chat model."""


class AbacusTask(_Abacus, ConfigurableTask):
    """An ABACUS task (the class the YAML names; a chat model gets :class:`AbacusChatTask`)."""

    chat_variant = AbacusChatTask
