"""End to end: the real lmms-eval CLI scores CwI groups with the cwi_solver model on a locally
generated copy (offline), and the results JSON matches the solver's own accuracy.

Runs ``--tasks cwi`` once all 30 generators exist; until then, every family group whose
generators all exist (at least ``cwi_transformation``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS
from lmms_plugins.tasks.cwi.generate import available_tasks
from lmms_plugins.tasks.cwi.generate import main as make_data

N = 4  # one item per tier


def _groups() -> tuple[list[str], list[str]]:
    have = set(available_tasks())
    if have >= set(TASKS):
        return ["cwi"], list(TASKS)
    fams = [f for f, ts in FAMILIES.items() if set(ts) <= have]
    return [f"cwi_{f}" for f in fams], [t for f in fams for t in FAMILIES[f]]


def _own_accuracy(root, task):
    """The solver run directly on the same parquet, scored with the task's YAML rule."""
    from datasets import load_dataset

    from lmms_plugins.models.cwi_solver import answer_doc
    from lmms_plugins.tasks.cwi.hooks import doc_to_visual
    from lmms_plugins.tasks.cwi.rules import score
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task

    # own cache folder: datasets' shared cache has served another local folder's rows for the same config
    ds = load_dataset(str(root), task, cache_dir=str(Path(root).parent / f"hf_cache_{task}"))["test"]
    rule = rule_for_task(task)
    hits = [score(rule, answer_doc(task, doc, doc_to_visual(doc), doc["prompt"])[0], doc["answer"]).value for doc in ds]
    return sum(hits) / len(hits)


@pytest.mark.e2e
def test_cli_scores_cwi_groups_with_the_solver(tmp_path, run_lmms_eval):
    groups, tasks = _groups()
    assert "cwi_transformation" in groups or groups == ["cwi"]
    root = tmp_path / "cwi"
    assert make_data(["--tasks", ",".join(tasks), "--n", str(N), "--seed", "3", "--out", str(root)]) == 0
    res = run_lmms_eval(",".join(groups), "cwi_solver", out_dir=tmp_path / "run", env={"LMMS_PLUGINS_CWI_ROOT": str(root)})
    own = {}
    for task in tasks:
        got = res["results"][f"cwi_{task}"]
        own[task] = _own_accuracy(root, task)
        assert got["accuracy,none"] == pytest.approx(own[task]), task
        assert got["extraction_failure_rate,none"] == 0.0
        for tier in ("easy", "medium", "hard", "expert"):
            assert got[f"accuracy_{tier},none"] in (0.0, 1.0)  # one item per tier
        samples = res["_samples"][f"cwi_{task}"]
        assert len(samples) == N and all(s["accuracy"]["status"] == "ok" for s in samples)
    for group in groups:
        members = TASKS if group == "cwi" else FAMILIES[group.removeprefix("cwi_")]
        expected = sum(own[t] for t in members) / len(members)
        assert res["results"][group]["accuracy,none"] == pytest.approx(expected)
        assert res["results"][group]["generation_failure_rate,none"] == 0.0  # groups report failures too
    assert sum(own.values()) / len(own) >= 0.9
