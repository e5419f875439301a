"""`lmms-plugins settings`: lists a task's settings; writes a YAML that includes the task (or group)
and restates each task's metadata with the values given, checked as the task checks them."""

from __future__ import annotations

from lmms_plugins import tasks_dir
from lmms_plugins.cli import main
from lmms_plugins.utils import task_yaml


def test_a_group_yaml_restates_every_tasks_metadata(tmp_path, capsys):
    assert main(["settings", "abacus", "detector=synthetic_test", "--out", str(tmp_path / "mine")]) == 0
    assert "lmms-eval --include_path" in capsys.readouterr().out
    written = task_yaml.load(tmp_path / "mine" / "abacus.yaml")
    assert written["include"] == f"{tasks_dir()}/abacus/abacus.yaml" and written["group"] == "abacus"
    assert [t["task"] for t in written["task"]] == [f"abacus_{op}_{tier}" for op in ("add", "remove", "change")
                                                    for tier in ("easy", "medium", "hard")]
    assert all(t["metadata"] == {"version": 1.2, "lmms_plugins_benchmark": "abacus", "detector": "synthetic_test"}
               for t in written["task"])


def test_a_task_yaml_with_a_mapping_value(capsys):
    assert main(["settings", "grade", "judge_extra_body={\"reasoning_effort\": \"low\"}", "verdicts=a.jsonl"]) == 0
    written = task_yaml.loads(capsys.readouterr().out)
    assert written["task"] == "grade" and written["include"].endswith("/grade/grade.yaml")
    assert written["metadata"]["judge_extra_body"] == {"reasoning_effort": "low"} and written["metadata"]["verdicts"] == "a.jsonl"
    assert written["metadata"]["version"] == 1.2


def test_bad_values_and_keys_are_refused_with_the_reason(capsys):
    assert main(["settings", "dod_no_hint", "refusal_mode=judges"]) == 2
    assert "metadata.refusal_mode must be one of rules, hybrid, judge, got 'judges'" in capsys.readouterr().err
    assert main(["settings", "abacus", "detecter=x"]) == 2
    assert "abacus has no setting detecter; its settings: detector, flow" in capsys.readouterr().err
    assert main(["settings", "no_such_task", "a=b"]) == 2
    assert main(["settings", "dod_no_hint", "refusal_mode"]) == 2  # not KEY=VALUE


def test_listing_shows_defaults_and_former_variables(monkeypatch, capsys):
    assert main(["settings", "dod_no_hint"]) == 0
    text = capsys.readouterr().out
    assert 'refusal_mode = "rules"   (was LMMS_PLUGINS_DOD_REFUSAL, no longer read)' in text
    assert "uncertain_margin = 1.5" in text
    monkeypatch.setenv("LMMS_PLUGINS_DOD_REFUSAL", "judge")  # still set: said here too, not listed as if it counted
    assert main(["settings", "dod_no_hint"]) == 2
    assert "dod_no_hint: LMMS_PLUGINS_DOD_REFUSAL is no longer read" in capsys.readouterr().err
    assert main(["settings", "cwi_jigsaw"]) == 0 and "no settings" in capsys.readouterr().out
