"""The CwI task YAMLs: generated leaves are up to date, every task and group is well formed,
and lmms-eval's own loader reads them."""

from __future__ import annotations

from pathlib import Path

import yaml

from lmms_plugins.tasks.cwi import make_yamls
from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS

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
        assert cfg["metadata"]["cwi_rule"]["kind"] in ("int", "sequence", "set", "fields", "points", "boxes")
        assert cfg["generation_kwargs"]["until"] == []
        assert callable(cfg["process_results"]) and cfg["process_results"].__module__.endswith("cwi.hooks")
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
