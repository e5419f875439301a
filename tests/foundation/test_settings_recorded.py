"""Every declared setting, set in a task's metadata, is recorded with its value (the others with their
defaults) in the metadata lmms-eval writes into the results, and compare names exactly that key."""

from __future__ import annotations

import importlib

import pytest

from lmms_plugins.utils.settings import bind, differences

# a value each setting accepts that is not its default
CHANGED = {
    "refusal_mode": "hybrid", "refusal_text": "all", "uncertain_margin": 0.5, "edit_judge": "off",
    "refusal_prompt": "/prompts/refusal.jinja", "edit_prompt": "/prompts/edit.jinja",
    "judge_model": "another-judge", "judge_extra_body": {"reasoning_effort": "low"},
    "detector": "synthetic_test", "flow": "raft_small", "verdicts": "official_results.jsonl", "prompts": "/prompts",
}
CASES = [(bench, s) for bench in ("dod", "abacus", "grade")
         for s in importlib.import_module(f"lmms_plugins.tasks.{bench}.settings").SETTINGS]


@pytest.mark.parametrize("bench, setting", CASES, ids=[f"{b}.{s.key}" for b, s in CASES])
def test_a_setting_in_the_metadata_is_recorded_and_compared(bench, setting, monkeypatch):
    for var in (setting.retired, setting.endpoint_env):
        if var:
            monkeypatch.delenv(var, raising=False)
    seen = {}

    def scorer(doc, results, settings=None):
        seen.update(settings)
        return {}

    declared = importlib.import_module(f"lmms_plugins.tasks.{bench}.settings").SETTINGS
    base = {"task": f"{bench}_x", "process_results": scorer, "metadata": {"version": 1.0}}
    default = bind(declared, base)["metadata"]
    changed = bind(declared, {**base, "metadata": {"version": 1.0, setting.key: CHANGED[setting.key]}})
    assert set(default) == {"version"} | {s.key for s in declared}  # every setting recorded, defaults included
    assert changed["metadata"][setting.key] == CHANGED[setting.key]
    changed["process_results"]({}, [])
    assert seen[setting.key] == CHANGED[setting.key]  # the scorer gets it
    assert [line.split(":")[0] for line in differences({"a": default, "b": changed["metadata"]})] == [setting.key]


@pytest.mark.parametrize("bench, setting", [(b, s) for b, s in CASES if s.retired], ids=lambda v: getattr(v, "key", v))
def test_each_retired_variable_set_stops_the_task(bench, setting, monkeypatch):
    from lmms_plugins.utils.settings import SettingError

    monkeypatch.setenv(setting.retired, "x")
    declared = importlib.import_module(f"lmms_plugins.tasks.{bench}.settings").SETTINGS
    with pytest.raises(SettingError, match=f"{bench}_x: {setting.retired} is no longer read .* set metadata.{setting.key} "
                                           f"instead: `lmms-plugins settings {bench}_x {setting.key}=<value> --out DIR`"):
        bind(declared, {"task": f"{bench}_x", "metadata": {"version": 1.0}})


def test_the_retired_variables_are_the_former_ones():
    retired = {s.retired for _b, s in CASES if s.retired}
    assert retired == {"LMMS_PLUGINS_DOD_REFUSAL", "LMMS_PLUGINS_DOD_REFUSAL_TEXT", "LMMS_PLUGINS_DOD_UNCERTAIN_MARGIN",
                       "LMMS_PLUGINS_DOD_EDIT_JUDGE", "LMMS_PLUGINS_DOD_REFUSAL_PROMPT", "LMMS_PLUGINS_DOD_EDIT_PROMPT",
                       "LMMS_PLUGINS_ABACUS_DETECTOR", "LMMS_PLUGINS_ABACUS_FLOW", "LMMS_PLUGINS_GRADE_VERDICTS",
                       "LMMS_PLUGINS_GRADE_PROMPTS", "LMMS_PLUGINS_JUDGE_EXTRA_BODY"}
    assert {s.endpoint_env for _b, s in CASES if s.endpoint_env} == {"LMMS_PLUGINS_JUDGE_MODEL"}
