"""DoD's score-changing settings: keys of the task's YAML ``metadata`` (lmms_plugins.utils.settings;
README "Settings"). The task class records every effective value in the results."""

from __future__ import annotations

from lmms_plugins.utils.judge_settings import JUDGE_SETTINGS
from lmms_plugins.utils.settings import Setting, choice, non_negative, text

from .refusal.classifier import MARGIN
from .refusal.text import READINGS

REFUSAL_MODES = ("rules", "hybrid", "judge")
_ON_OFF = {"": "auto", "1": "on", "true": "on", "yes": "on", "0": "off", "false": "off", "no": "off"}

SETTINGS = (
    Setting("refusal_mode", "rules", choice(*REFUSAL_MODES), retired="LMMS_PLUGINS_DOD_REFUSAL",
            help="how a refusal conclusion is found: rules (default, judge-free), hybrid (the judge reads "
                 "the responses the detector is uncertain about) or judge"),
    Setting("refusal_text", "reasoning", choice(*READINGS), retired="LMMS_PLUGINS_DOD_REFUSAL_TEXT",
            help="the text that decides a refusal: reasoning (default, official: inside <think>...</think>) or all"),
    Setting("uncertain_margin", MARGIN, non_negative, retired="LMMS_PLUGINS_DOD_UNCERTAIN_MARGIN",
            help="the detector's |z| below which a response is uncertain (pending in rules mode; hybrid asks the judge)"),
    Setting("edit_judge", "auto", choice("auto", "on", "off", aliases=_ON_OFF), retired="LMMS_PLUGINS_DOD_EDIT_JUDGE",
            help="the editing judge of real-world E: auto (default: when a judge is configured), on or off"),
    Setting("refusal_prompt", "", text, retired="LMMS_PLUGINS_DOD_REFUSAL_PROMPT",
            help="a Jinja file replacing the refusal judge's prompt ('' = the shipped refusal_judge_prompt.jinja)"),
    Setting("edit_prompt", "", text, retired="LMMS_PLUGINS_DOD_EDIT_PROMPT",
            help="a Jinja file replacing the editing judge's prompt ('' = the shipped edit_judge_prompt.jinja)"),
    *JUDGE_SETTINGS,
)
