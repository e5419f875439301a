"""The CwI task YAMLs: generated leaves are up to date, every task and group is well formed,
lmms-eval's own loader reads them, and each leaf's scorer carries its rule from the one table."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import yaml

from lmms_plugins.tasks.cwi import hooks, make_yamls
from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS
from lmms_plugins.tasks.cwi.rules import RuleError, rule_from_config
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
        # lmms-eval resolved the leaf's scorer through hooks' module __getattr__: bound to the table's rule
        scorer = cfg["process_results"]
        assert scorer is getattr(hooks, f"process_results_{task}") and scorer.__module__.endswith("cwi.hooks")
        assert scorer.rule == rule_for_task(task) == rule_from_config(RULES[task])
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


def test_each_card_scorer_uses_its_own_rule_with_no_task_on_the_stack():
    # called directly, as a script would: nothing up the stack says which task this is
    within_2px = "<answer>4.5,-3.5</answer>"
    assert hooks.process_results_alignment(DOC, [within_2px])["accuracy"]["value"] == 1.0  # ±2 px
    assert hooks.process_results_print_misreg(DOC, [within_2px])["accuracy"]["value"] == 0.0  # ±0.3 px
    assert hooks.process_results_print_misreg(DOC, ["<answer>3.2,-2.2</answer>"])["accuracy"]["value"] == 1.0
    # the generic hook, with no rule given and no task object above it, says what is missing
    generic = hooks.process_results(DOC, [within_2px])["accuracy"]
    assert generic["status"] == "error" and "metadata.cwi_rule" in generic["reason"]


def test_per_task_names_are_only_those_of_the_table(monkeypatch):
    assert hooks.process_results_jigsaw is hooks.process_results_jigsaw  # built once
    assert hooks.process_results_jigsaw.__name__ == "process_results_jigsaw"
    # pickled by reference (module + name), as a def would be: the same function comes back
    assert pickle.loads(pickle.dumps(hooks.process_results_jigsaw)) is hooks.process_results_jigsaw
    for name in ("process_results_no_such_task", "process_results_", "accuracy_jigsaw"):
        assert not hasattr(hooks, name)
    with pytest.raises(AttributeError, match="no attribute 'process_results_no_such_task'"):
        hooks.process_results_no_such_task  # noqa: B018
    monkeypatch.setitem(RULES, "broken_task", {"kind": "fields", "fields": []})
    with pytest.raises(RuleError, match="fields"):  # a bad table entry fails when a YAML names it
        hooks.process_results_broken_task  # noqa: B018
