"""`lmms-plugins compare` names every setting (a key of the task's recorded metadata) in which runs differ."""

from __future__ import annotations

import json

from lmms_plugins import compare as C
from lmms_plugins.utils.settings import differences

from .runs import lm_eval_cwi_run

CORRECT = [True, True, False, True]


def _set_metadata(run, task, **values):
    path = next(run.rglob("results_*.json"))
    data = json.loads(path.read_text())
    meta = data["configs"][task]["metadata"]
    for k, v in values.items():
        if v is None:
            meta.pop(k, None)
        else:
            meta[k] = v
    path.write_text(json.dumps(data))


def test_runs_that_differ_in_a_setting_are_compared_with_a_warning_naming_it(tmp_path):
    for name in ("a", "b", "c"):
        lm_eval_cwi_run(tmp_path / name, {"cwi_color_count": CORRECT})
    _set_metadata(tmp_path / "a", "cwi_color_count", refusal_mode="rules", judge_extra_body={"reasoning_effort": "low"})
    _set_metadata(tmp_path / "b", "cwi_color_count", refusal_mode="hybrid", judge_extra_body={"reasoning_effort": "low"})
    _set_metadata(tmp_path / "c", "cwi_color_count", refusal_mode="rules", judge_extra_body={"reasoning_effort": "low"})
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=["A", "B"])
    said = [w for w in cmp.warnings if "different settings" in w]
    assert said == ['cwi_color_count: the runs used different settings (refusal_mode: A "rules", B "hybrid"); '
                    "the same outputs can score differently (the settings in the benchmark's README)"]
    assert said[0] in cmp.text and any(b.task == "cwi_color_count" for b in cmp.blocks)  # printed, still compared
    assert not [w for w in C.compare([tmp_path / "a", tmp_path / "c"]).warnings if "settings" in w]
    # a run whose file lacks the key (written before the setting was recorded) shows "-"
    _set_metadata(tmp_path / "c", "cwi_color_count", judge_extra_body=None)
    said = [w for w in C.compare([tmp_path / "a", tmp_path / "c"], labels=["A", "C"]).warnings if "settings" in w]
    assert len(said) == 1 and 'judge_extra_body: A {"reasoning_effort": "low"}, C -' in said[0]
    # the version has its own warning, not this one; a lone run has nothing to differ from
    _set_metadata(tmp_path / "c", "cwi_color_count", version=9.0, judge_extra_body={"reasoning_effort": "low"})
    warnings = C.compare([tmp_path / "a", tmp_path / "c"]).warnings
    assert [w for w in warnings if "task versions" in w] and not [w for w in warnings if "settings" in w]
    assert not [w for w in C.compare([tmp_path / "b"]).warnings if "settings" in w]


def test_differences_of_nested_and_missing_values():
    assert differences({"x": {"a": {"k": [1, 2]}}, "y": {"a": {"k": [1, 2]}}}) == []
    assert differences({"x": {"a": 1}, "y": {"a": 1.5}, "z": None}) == ["a: x 1, y 1.5, z -"]
    assert differences({"x": {"version": 1}, "y": {"version": 2}}) == []
