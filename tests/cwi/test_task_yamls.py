"""The CwI task YAMLs: generated leaves are up to date, every task and group is well formed,
lmms-eval's own loader reads them, and each leaf's task class binds its rule from the one table."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lmms_plugins.tasks.cwi import hooks, make_yamls
from lmms_plugins.tasks.cwi.task import CwiTask, rule_of
from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS
from lmms_plugins.tasks.cwi.rules import rule_from_config
from lmms_plugins.tasks.cwi.task_rules import RULES, rule_for_task

HERE = Path(make_yamls.__file__).parent


def test_regeneration_is_a_no_op():
    assert make_yamls.main(["--check"]) == 0


def test_check_notices_a_stale_leaf(tmp_path, monkeypatch):
    for name, text in make_yamls.files().items():
        (tmp_path / name).write_text(text)
    (tmp_path / "cwi_jigsaw.yaml").write_text("task: cwi_jigsaw\n")
    monkeypatch.setattr(make_yamls, "HERE", tmp_path)
    assert make_yamls.main(["--check"]) == 1
    assert make_yamls.main([]) == 0
    assert make_yamls.main(["--check"]) == 0


def _load_full(path):
    from lmms_eval import utils

    return utils.load_yaml_config(str(path), mode="full")


def test_every_leaf_loads_with_lmms_eval_and_declares_its_rule():
    for task in TASKS:
        cfg = _load_full(HERE / f"cwi_{task}.yaml")
        assert cfg["task"] == f"cwi_{task}"
        assert cfg["dataset_path"] == "ytz009/image_pot_bench"
        assert cfg["dataset_name"] == task
        assert cfg["test_split"] == "test"
        assert cfg["metadata"]["lmms_plugins_benchmark"] == "cwi"
        assert cfg["metadata"]["cwi_task"] == task and "cwi_rule" not in cfg["metadata"]  # the rule lives in RULES only
        assert cfg["generation_kwargs"]["until"] == []
        # the template's class binds the generic scorer to the table's rule (tests/cwi/test_task_class.py builds it)
        assert cfg["class"] is CwiTask and cfg["process_results"] is hooks.process_results
        assert rule_of(cfg["metadata"], cfg["task"]) == rule_for_task(task) == rule_from_config(RULES[task])
        names = [m["metric"] for m in cfg["metric_list"]]
        assert names == ["accuracy", "accuracy_easy", "accuracy_medium", "accuracy_hard", "accuracy_expert", "generation_failure_rate", "extraction_failure_rate"]


def test_groups_cover_the_card():
    top = yaml.safe_load((HERE / "cwi.yaml").read_text())
    assert top["group"] == "cwi" and top["task"] == [f"cwi_{t}" for t in TASKS] and len(TASKS) == 30
    for fam, tasks in FAMILIES.items():
        g = yaml.safe_load((HERE / f"cwi_{fam}.yaml").read_text())
        assert g["task"] == [f"cwi_{t}" for t in tasks]
        assert {m["metric"] for m in g["aggregate_metric_list"]} == {"accuracy", "generation_failure_rate", "extraction_failure_rate"}
    assert [len(v) for v in FAMILIES.values()] == [12, 6, 7, 5]


def test_the_template_is_not_a_task_file():
    assert not any(p.name.startswith("_") for p in HERE.glob("*.yaml"))
    assert (HERE / "_default_template_yaml").is_file()


def test_the_table_is_the_only_source_of_the_rules():
    assert set(RULES) == set(TASKS)
    assert make_yamls.RULES is RULES  # the generator imports the table, it keeps no copy
    for name, text in make_yamls.files().items():
        assert "cwi_rule" not in text, name  # no leaf repeats a rule


DOC = {"id": "x", "answer": "3,-2", "difficulty": "easy"}


def test_each_card_rule_scores_as_the_table_says():
    within_2px = "<answer>4.5,-3.5</answer>"
    score = lambda task, reply: hooks.process_results(DOC, [reply], rule=rule_for_task(task))["accuracy"]["value"]  # noqa: E731
    assert score("alignment", within_2px) == 1.0  # ±2 px
    assert score("print_misreg", within_2px) == 0.0  # ±0.3 px
    assert score("print_misreg", "<answer>3.2,-2.2</answer>") == 1.0
    # the scorer with no rule (a YAML that names no task class) says what is missing, on every sample
    generic = hooks.process_results(DOC, [within_2px])["accuracy"]
    assert generic["status"] == "error" and "class: !function lmms_plugins.tasks.cwi.task.CwiTask" in generic["reason"]


def test_a_task_without_a_usable_rule_stops_before_any_request(monkeypatch):
    from lmms_plugins.utils.preflight import PreflightError

    with pytest.raises(PreflightError, match="neither metadata.cwi_rule nor metadata.cwi_task"):
        rule_of({"version": 2.1}, "cwi_x")
    with pytest.raises(PreflightError, match="no CwI rule for task 'no_such_task'"):
        rule_of({"cwi_task": "no_such_task"}, "cwi_x")
    with pytest.raises(PreflightError, match="invalid metadata.cwi_rule"):
        rule_of({"cwi_rule": {"kind": "no_such_kind"}}, "cwi_x")
    monkeypatch.setitem(RULES, "broken_task", {"kind": "fields", "fields": []})
    rule_for_task.cache_clear()
    with pytest.raises(PreflightError, match="fields"):  # a bad table entry fails when a task names it
        rule_of({"cwi_task": "broken_task"}, "cwi_x")
    # the YAML's own rule wins over the table (a task written in YAML alone)
    own = {"kind": "int"}
    assert rule_of({"cwi_rule": own, "cwi_task": "alignment"}, "cwi_x") == rule_from_config(own)
