"""End to end: the real lmms-eval CLI scores CwI tasks with the cwi_solver model on a locally
generated copy (offline), and the results JSON matches the solver's own accuracy."""

from __future__ import annotations

import pytest

from lmms_plugins.tasks.cwi.generate import main as make_data
from lmms_plugins.tasks.cwi.generate import available_tasks

TASKS = [t for t in ("alignment", "jigsaw", "ring_rotor") if t in available_tasks()]


def _own_accuracy(root, task):
    """The solver run directly on the same parquet, scored with the task's YAML rule."""
    from datasets import load_dataset

    from lmms_plugins.models.cwi_solver import answer_doc
    from lmms_plugins.tasks.cwi.hooks import doc_to_visual
    from lmms_plugins.tasks.cwi.rules import score
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task

    ds = load_dataset(str(root), task)["test"]
    rule = rule_for_task(task)
    hits = []
    for doc in ds:
        out, _ = answer_doc(task, doc, doc_to_visual(doc), doc["prompt"])
        hits.append(score(rule, out, doc["answer"]).value)
    return sum(hits) / len(hits)


@pytest.mark.e2e
def test_cli_scores_cwi_tasks_with_the_solver(tmp_path, run_lmms_eval):
    assert TASKS, "no transformation generators found"
    root = tmp_path / "cwi"
    assert make_data(["--tasks", ",".join(TASKS), "--n", "8", "--seed", "3", "--out", str(root)]) == 0
    res = run_lmms_eval(
        ",".join(f"cwi_{t}" for t in TASKS),
        "cwi_solver",
        out_dir=tmp_path / "run",
        env={"LMMS_PLUGINS_CWI_ROOT": str(root)},
    )
    for task in TASKS:
        got = res["results"][f"cwi_{task}"]
        assert got["accuracy,none"] == pytest.approx(_own_accuracy(root, task))
        assert got["extraction_failure_rate,none"] == 0.0
        tiers = [got[f"accuracy_{t},none"] for t in ("easy", "medium", "hard", "expert")]
        assert all(0.0 <= v <= 1.0 for v in tiers)
        samples = res["_samples"][f"cwi_{task}"]
        assert len(samples) == 8
        assert all(s["accuracy"]["status"] == "ok" for s in samples)
    assert res["results"][f"cwi_{TASKS[0]}"]["accuracy,none"] > 0.9
