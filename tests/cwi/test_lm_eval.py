"""CwI-Bench under EleutherAI lm-eval 0.4.x (issue #17): the generated task folder is current,
every YAML in it builds a task or group in lm-eval's TaskManager, and the adapters keep the
lmms-eval hooks' behaviour. The real ``lm_eval`` CLI runs in test_lm_eval_e2e.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from lmms_plugins.lm_eval_tasks import tasks_dir
from lmms_plugins.lm_eval_tasks.cwi import hooks as adapters
from lmms_plugins.lm_eval_tasks.cwi import make_yamls
from lmms_plugins.tasks.cwi import hooks
from lmms_plugins.tasks.cwi.catalog import FAMILIES, TASKS, task_name
from lmms_plugins.tasks.cwi.task_rules import rule_for_task
from lmms_plugins.utils.data_roots import MissingDataError

pytest.importorskip("lm_eval", reason="lm-eval comes with the [test] and [lm-eval] extras")

GROUPS = ["cwi", *(f"cwi_{fam}" for fam in FAMILIES)]


def test_generated_lm_eval_yamls_are_current():
    assert make_yamls.main(["--check"]) == 0, "run: python -m lmms_plugins.lm_eval_tasks.cwi.make_yamls"


def test_folder_holds_the_30_answer_only_tasks_and_5_groups_and_nothing_else():
    folder = Path(tasks_dir()) / "cwi"
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    assert names == sorted([task_name(t) for t in TASKS] + GROUPS)
    assert (folder / "_default_template_yaml").is_file()  # not .yaml: lm-eval does not index it


def test_translation_refuses_what_it_cannot_express():
    with pytest.raises(ValueError, match="no lm-eval translation"):
        make_yamls.translate({"process_results_use_image": True}, make_yamls.TEMPLATE_KEYS, "x.yaml")
    with pytest.raises(ValueError, match="reasoning_tags"):
        make_yamls.translate({"reasoning_tags": "<think>"}, make_yamls.TEMPLATE_KEYS, "x.yaml")
    with pytest.raises(ValueError, match="lmms_eval_specific_kwargs"):
        make_yamls.translate({"lmms_eval_specific_kwargs": {"default": {"prompt_template": "{{ x }}"}}},
                             make_yamls.TEMPLATE_KEYS, "x.yaml")
    with pytest.raises(ValueError, match="top_p"):
        make_yamls.translate({"generation_kwargs": {"top_p": 0.5}}, make_yamls.TEMPLATE_KEYS, "x.yaml")
    with pytest.raises(ValueError, match="no lm-eval adapter"):
        make_yamls.translate({"metric_list": [{"metric": "m", "aggregation": make_yamls.Function(f"{make_yamls.HOOKS}.aggregate_new")}]},
                             make_yamls.TEMPLATE_KEYS, "x.yaml")
    out = make_yamls.translate({"generation_kwargs": {"until": [], "max_new_tokens": 7}}, make_yamls.TEMPLATE_KEYS, "x")
    assert out == {"generation_kwargs": {"until": [], "max_gen_toks": 7}}


def test_groups_list_every_metric_by_exact_name():
    """lmms-eval matches aggregate_metric_list names by substring, lm-eval by exact name."""
    for name in GROUPS:
        metrics = [m["metric"] for m in make_yamls.group(name)["aggregate_metric_list"]]
        assert sorted(metrics) == sorted(hooks.METRICS), name


def _one_item_per_task(root: Path, hub_dataset) -> None:
    for i, task in enumerate(TASKS):
        two = i % 2 == 0  # half the configs carry a second image
        row = {
            "id": f"{task}_test_0000",
            "image": Image.new("RGB", (8, 6), (i, 2 * i, 3 * i)),
            "image_2": Image.new("RGB", (8, 6), (200, i, 0)) if two else None,
            "prompt": f"Question about {task}. Answer inside <answer>…</answer>.",
            "answer": "1",
            "difficulty": "easy",
            "meta": "{}",
        }
        import datasets

        features = datasets.Features({
            "id": datasets.Value("string"), "image": datasets.Image(), "image_2": datasets.Image(),
            "prompt": datasets.Value("string"), "answer": datasets.Value("string"),
            "difficulty": datasets.Value("string"), "meta": datasets.Value("string"),
        })
        hub_dataset(root, task, "test", [row], features=features)


def test_every_yaml_builds_in_lm_eval_task_manager(tmp_path, hub_dataset, monkeypatch):
    from lm_eval.tasks import TaskManager

    root = tmp_path / "cwi"
    _one_item_per_task(root, hub_dataset)
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(root))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    manager = TaskManager(include_path=tasks_dir(), include_defaults=False)
    assert set(manager.all_subtasks) == {task_name(t) for t in TASKS}  # no cwi_code_*: lmms-eval only
    assert set(manager.all_groups) == set(GROUPS)
    loaded = manager.load("cwi")  # lm-eval refuses overlapping groups in one load: the families come below
    assert set(loaded["tasks"]) == {task_name(t) for t in TASKS}
    assert loaded["group_map"] == {"cwi": [task_name(t) for t in TASKS]}
    for fam, members in FAMILIES.items():
        assert manager.load(f"cwi_{fam}")["group_map"] == {f"cwi_{fam}": [task_name(t) for t in members]}
    for i, task in enumerate(TASKS):
        built = loaded["tasks"][task_name(task)]
        assert built.MULTIMODAL and built.OUTPUT_TYPE == "generate_until"
        doc = built.test_docs()[0]
        images = built.doc_to_image(doc)
        assert len(images) == (2 if i % 2 == 0 else 1) and all(im.mode == "RGB" for im in images)
        assert built.doc_to_text(doc) == "<image>" * len(images) + hooks.doc_to_text(doc)
        assert built.config.generation_kwargs == {"until": [], "max_gen_toks": 8192, "temperature": 0.0, "do_sample": False}
        # the lmms-eval scorer, bound by the lm-eval task class to this task's rule in task_rules.RULES
        scorer = built.config.process_results
        assert scorer.func is hooks.process_results and scorer.keywords == {"rule": rule_for_task(task)}
        assert built.rule == rule_for_task(task)
        assert set(built.aggregation()) == set(hooks.METRICS)


def test_load_dataset_says_how_to_provide_the_data(tmp_path, monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(MissingDataError, match="LMMS_PLUGINS_CWI_ROOT"):
        adapters.load_dataset(cwi_task="alignment")
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(tmp_path / "empty"))
    with pytest.raises(MissingDataError, match=r"(?s)config alignment.*make-data cwi"):
        adapters.load_dataset(cwi_task="alignment", base_url="http://x", version=1.0)  # run metadata is ignored


def test_process_docs_stops_a_template_that_does_not_render(monkeypatch):
    monkeypatch.setattr(adapters, "LMMS_PROMPT_KWARGS", {"prompt_template": "{{ prompt | no_such_filter }}"})
    with pytest.raises(ValueError, match="cannot be rendered"):
        adapters.process_docs([{"prompt": "p", "image": Image.new("RGB", (2, 2))}])


def test_tasks_dir_names_the_folder_of_each_harness():
    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "lmms_plugins", "tasks-dir", *args], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return Path(out.stdout.strip())

    assert (cli("--harness", "lm-eval") / "cwi" / "cwi_alignment.yaml").is_file()
    lmms = cli()
    assert lmms == cli("--harness", "lmms-eval") and (lmms / "cwi" / "cwi_alignment.yaml").is_file()
    assert not (lmms / "cwi" / "cwi_alignment.yaml").samefile(cli("--harness", "lm-eval") / "cwi" / "cwi_alignment.yaml")


def test_a_task_in_yaml_alone_scores_with_its_own_rule_under_lm_eval(tmp_path, hub_dataset, monkeypatch):
    """As under lmms-eval (README "Adding a task: one YAML, no Python"): a YAML that includes the
    generated template and declares metadata.cwi_rule is scored with that rule, which the template's
    lm-eval task class binds to the scorer."""
    from lm_eval.tasks import TaskManager

    rows = [{"id": f"lamp-{i}", "image": Image.new("RGB", (4, 4), (i, 0, 0)), "image_2": None,
             "prompt": "How many lamps?", "answer": str(i + 3), "difficulty": "easy", "meta": "{}"} for i in range(2)]
    root = hub_dataset(tmp_path / "data", "lamps", "test", rows)
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(root))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    mine = tmp_path / "my_tasks"
    mine.mkdir()
    (mine / "my_lamps.yaml").write_text(
        "task: my_lamps\n"
        f"include: {Path(tasks_dir()) / 'cwi' / '_default_template_yaml'}\n"
        "metadata:\n  version: 1.0\n  cwi_task: lamps\n  cwi_rule: {\"kind\": \"int\"}\n")
    task = TaskManager(include_path=str(mine), include_defaults=False).load("my_lamps")["tasks"]["my_lamps"]
    docs = list(task.test_docs())
    assert [d["id"] for d in docs] == ["lamp-0", "lamp-1"]
    right = task.process_results(docs[1], ["<answer>4</answer>"])
    wrong = task.process_results(docs[1], ["<answer>5</answer>"])
    assert (right["accuracy"]["value"], right["accuracy"]["status"]) == (1.0, "ok")
    assert (wrong["accuracy"]["value"], wrong["accuracy"]["status"]) == (0.0, "ok")
    assert right == hooks.process_results(docs[1], ["<answer>4</answer>"], rule={"kind": "int"})
