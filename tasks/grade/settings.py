"""GRADE's score-changing settings: keys of the task's YAML ``metadata`` (lmms_plugins.utils.settings;
README "Settings"). The task class records every effective value in the results."""

from __future__ import annotations

from typing import Any, Mapping

from lmms_plugins.utils.judge_settings import JUDGE_SETTINGS
from lmms_plugins.utils.settings import Setting, resolve, text

VERDICTS_ENV, PROMPTS_ENV = "LMMS_PLUGINS_GRADE_VERDICTS", "LMMS_PLUGINS_GRADE_PROMPTS"  # deprecated aliases

SETTINGS = (
    Setting("verdicts", "", text, env=VERDICTS_ENV,
            help="verdict files (official results or ours, os.pathsep-separated) that score samples without a judge call"),
    Setting("prompts", "", text, env=PROMPTS_ENV,
            help="a folder whose reasoning / consistency / readability files replace the shipped judge prompts"),
    *JUDGE_SETTINGS,
)


def settings_of(settings: Mapping | None) -> Mapping[str, Any]:
    """The values the task class gave the hook, else (a hook called on its own) the defaults and aliases."""
    return settings if settings is not None else resolve(SETTINGS, None)
