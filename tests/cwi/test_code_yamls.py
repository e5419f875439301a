"""The cwi_code_<task> YAMLs: generated from the same rule table as cwi_<task> (same data, same
rule), loaded by lmms-eval's own loader as multi-round tasks, and grouped like cwi_<task>."""

from __future__ import annotations

from pathlib import Path

import yaml
from lmms_plugins.tasks.cwi import make_yamls
from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS
from lmms_plugins.tasks.cwi.task import rule_of
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

HERE = Path(make_yamls.__file__).parent


def test_every_code_leaf_is_its_answer_only_twin_run_as_a_loop():
    from lmms_eval import utils

    for task in TASKS:
        code = utils.load_yaml_config(str(HERE / f"cwi_code_{task}.yaml"), mode="full")
        plain = utils.load_yaml_config(str(HERE / f"cwi_{task}.yaml"), mode="full")
        assert code["task"] == f"cwi_code_{task}"
        for key in ("dataset_path", "dataset_name", "test_split", "doc_to_visual", "doc_to_target"):
            assert code[key] == plain[key], (task, key)
        assert code["metadata"]["cwi_task"] == plain["metadata"]["cwi_task"] == task
        assert code["class"] is plain["class"]  # the same task class binds the same rule (one table)
        assert rule_of(code["metadata"], code["task"]) == rule_of(plain["metadata"], plain["task"]) == rule_for_task(task)
        assert code["output_type"] == "generate_until_agentic"
        assert code["doc_to_text"].__module__.endswith("cwi.code_hooks") and code["process_results"].__module__.endswith("cwi.code_hooks")
        kwargs = code["lmms_eval_specific_kwargs"]["default"]
        assert kwargs["max_rounds"] == 8 and code["generation_kwargs"]["max_agentic_steps"] > kwargs["max_rounds"]
        names = [m["metric"] for m in code["metric_list"]]
        assert names[: len(plain["metric_list"]) - 1] == [m["metric"] for m in plain["metric_list"]][:-1]
        assert names[-1] == "extraction_failure_rate"
        assert {"rounds_used", "executions", "execution_errors", "timeouts", "answered_without_code"} <= set(names)


def test_code_groups_cover_the_card():
    top = yaml.safe_load((HERE / "cwi_code.yaml").read_text())
    assert top["group"] == "cwi_code" and top["task"] == [f"cwi_code_{t}" for t in TASKS]
    for fam, tasks in FAMILIES.items():
        g = yaml.safe_load((HERE / f"cwi_code_{fam}.yaml").read_text())
        assert g["task"] == [f"cwi_code_{t}" for t in tasks]
        assert {m["metric"] for m in g["aggregate_metric_list"]} >= {"accuracy", "executions", "answered_without_code"}


def test_a_failing_sandbox_is_recorded_not_raised(monkeypatch):
    from lmms_plugins.tasks.cwi import code_hooks
    from lmms_plugins.utils import sandbox
    from PIL import Image

    def broken(*a, **k):
        raise OSError("no scratch folder")

    monkeypatch.setattr(sandbox, "run_python", broken)
    doc = {"id": "x", "image": Image.new("RGB", (4, 4)), "prompt": "Count. <answer>…</answer>", "answer": "1"}
    _, nxt, term, _, info = code_hooks.doc_to_text(doc, {}, previous_output=["```python\nprint(1)\n```"], round_idx=1)
    ex = info["state"]["executions"][0]
    assert not term and ex["status"] == "sandbox_error" and "no scratch folder" in ex["reason"]
    assert "status: sandbox_error" in nxt


def test_the_code_scorer_of_a_task_scores_the_final_reply_with_that_tasks_rule():
    import json

    from lmms_plugins.tasks.cwi import code_hooks

    doc = {"id": "x", "answer": "3,-2", "difficulty": "hard"}
    logged = json.dumps({"text": "<answer>4.5,-3.5</answer>", "images": [], "cwi_code": {"rounds": 2, "ended": "answer", "executions": []}})
    assert code_hooks.process_results(doc, [logged], rule=rule_for_task("alignment"))["accuracy"]["value"] == 1.0  # ±2 px
    out = code_hooks.process_results(doc, [logged], rule=rule_for_task("print_misreg"))  # ±0.3 px
    assert out["accuracy"]["value"] == 0.0 and out["rounds_used"]["value"] == 2
