"""GRADE's score-changing settings: keys of the task's YAML ``metadata`` (lmms_plugins.utils.settings;
README "Settings"). The task class records every effective value in the results."""

from __future__ import annotations

from lmms_plugins.utils.judge_settings import JUDGE_SETTINGS
from lmms_plugins.utils.settings import Setting, text

SETTINGS = (
    Setting("verdicts", "", text, retired="LMMS_PLUGINS_GRADE_VERDICTS",
            help="verdict files (official results or ours, os.pathsep-separated) that score samples without a judge call"),
    Setting("prompts", "", text, retired="LMMS_PLUGINS_GRADE_PROMPTS",
            help="a folder whose reasoning / consistency / readability files replace the shipped judge prompts"),
    *JUDGE_SETTINGS,
)

