"""DoD's score-changing settings: keys of the task's YAML ``metadata`` (lmms_plugins.utils.settings;
README "Settings"). The task class records every effective value in the results."""

from __future__ import annotations

from typing import Any, Mapping

from lmms_plugins.utils.judge_settings import JUDGE_SETTINGS
from lmms_plugins.utils.settings import Setting, choice, non_negative, resolve, text

from .refusal.classifier import MARGIN
from .refusal.text import READINGS

REFUSAL_MODES = ("rules", "hybrid", "judge")
ENV_REFUSAL_MODE = "LMMS_PLUGINS_DOD_REFUSAL"
ENV_REFUSAL_TEXT = "LMMS_PLUGINS_DOD_REFUSAL_TEXT"
ENV_MARGIN = "LMMS_PLUGINS_DOD_UNCERTAIN_MARGIN"
ENV_EDIT_JUDGE = "LMMS_PLUGINS_DOD_EDIT_JUDGE"
ENV_REFUSAL_PROMPT = "LMMS_PLUGINS_DOD_REFUSAL_PROMPT"
ENV_EDIT_PROMPT = "LMMS_PLUGINS_DOD_EDIT_PROMPT"
_ON_OFF = {"": "auto", "1": "on", "true": "on", "yes": "on", "0": "off", "false": "off", "no": "off"}

SETTINGS = (
    Setting("refusal_mode", "rules", choice(*REFUSAL_MODES), env=ENV_REFUSAL_MODE,
            help="how a refusal conclusion is found: rules (default, judge-free), hybrid (the judge reads "
                 "the responses the detector is uncertain about) or judge"),
    Setting("refusal_text", "reasoning", choice(*READINGS), env=ENV_REFUSAL_TEXT,
            help="the text that decides a refusal: reasoning (default, official: inside <think>...</think>) or all"),
    Setting("uncertain_margin", MARGIN, non_negative, env=ENV_MARGIN,
            help="the detector's |z| below which a response is uncertain (pending in rules mode; hybrid asks the judge)"),
    Setting("edit_judge", "auto", choice("auto", "on", "off", aliases=_ON_OFF), env=ENV_EDIT_JUDGE,
            help="the editing judge of real-world E: auto (default: when a judge is configured), on or off"),
    Setting("refusal_prompt", "", text, env=ENV_REFUSAL_PROMPT,
            help="a Jinja file replacing the refusal judge's prompt ('' = the shipped refusal_judge_prompt.jinja)"),
    Setting("edit_prompt", "", text, env=ENV_EDIT_PROMPT,
            help="a Jinja file replacing the editing judge's prompt ('' = the shipped edit_judge_prompt.jinja)"),
    *JUDGE_SETTINGS,
)


def settings_of(settings: Mapping | None) -> Mapping[str, Any]:
    """The values the task class gave the hook, else (a hook called on its own) the defaults and aliases."""
    return settings if settings is not None else resolve(SETTINGS, None)
