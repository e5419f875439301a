from pathlib import Path

import yaml

from lmms_plugins.tasks.abacus import make_yamls
from lmms_plugins.utils import task_yaml

HERE = Path(make_yamls.__file__).parent


def test_generated_yamls_are_up_to_date():
    for name, text in make_yamls.files().items():
        assert (HERE / name).read_text(encoding="utf-8") == text, f"{name}: run python -m lmms_plugins.tasks.abacus.make_yamls"
    on_disk = {p.name for p in HERE.glob("*.yaml")}
    assert on_disk == set(make_yamls.files())


_Loader = task_yaml.loader()  # `!function` stays a dotted name


def test_nine_tasks_four_groups_and_their_hooks_exist():
    import importlib

    leaves = [yaml.load((HERE / f"abacus_{op}_{t}.yaml").read_text(), Loader=_Loader) for op in make_yamls.OPERATIONS for t in make_yamls.TIERS]
    assert len({c["task"] for c in leaves}) == 9
    for c in leaves:
        assert c["metadata"]["lmms_plugins_benchmark"] == "abacus"
        assert c["dataset_name"] in make_yamls.OPERATIONS and c["test_split"] in make_yamls.TIERS
    template = yaml.load((HERE / "_default_template_yaml").read_text(), Loader=_Loader)
    assert template["dataset_path"] == "Aymen-Lassoued/ABACUS_Bench" and template["process_results_use_image"] is True
    refs = [m["aggregation"] for m in template["metric_list"]] + [template[k] for k in ("doc_to_text", "doc_to_visual", "process_results")]
    refs += [c["process_docs"] for c in leaves]
    for ref in refs:
        module, name = ref.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), ref
    groups = [yaml.load((HERE / f"{g}.yaml").read_text(), Loader=_Loader) for g in ("abacus", "abacus_add", "abacus_remove", "abacus_change")]
    assert len(groups[0]["task"]) == 9
