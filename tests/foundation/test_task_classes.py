"""The benchmarks' task classes (``class:`` in each YAML template), built by lmms-eval's own TaskManager.

* each template names a simple class whose ``chat_variant`` is a ConfigurableMessagesTask with the
  same mixin, and lmms-eval builds the one that fits the model's kind (harness/task_type.py);
* CwI: the class binds the scorer to the task's rule, and a bad rule or template stops the build;
* the checks before the first request (a judge needed and missing) run when the requests are
  built, and not under ``--predict_only`` (lmms-eval then sets ``process_results`` to None).
The real-CLI runs with a chat and a simple model are in test_task_classes_e2e.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "dod"), str(TESTS)]

import dod_fixtures  # noqa: E402
from task_settings import settings_include  # noqa: E402

from lmms_plugins import tasks_dir  # noqa: E402
from lmms_plugins.utils.preflight import PreflightError  # noqa: E402
from lmms_plugins.utils.task_class import PluginTask  # noqa: E402

TEMPLATES = {"cwi": "cwi/cwi_alignment.yaml", "dod": "dod/dod_no_hint.yaml", "abacus": "abacus/abacus_add_easy.yaml",
             "grade": "grade/grade.yaml"}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from lmms_plugins.tasks.cwi.generate import main as make_cwi

    root = tmp_path_factory.mktemp("task_classes")
    assert make_cwi(["--tasks", "alignment", "--n", "4", "--seed", "3", "--out", str(root / "cwi")]) == 0
    dod = dod_fixtures.make_dataset(root / "dod", pairs_per_category=1, maze_pairs=0)
    env = {"LMMS_PLUGINS_CWI_ROOT": str(root / "cwi"), "LMMS_PLUGINS_DOD_ROOT": str(dod), "LMMS_PLUGINS_DATA_ROOT": "",
           "HF_DATASETS_OFFLINE": "1",
           "HF_HUB_OFFLINE": "1", "HF_HOME": str(root / "hf")}
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        for key in ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL", "LMMS_PLUGINS_PREFLIGHT"):
            mp.delenv(key, raising=False)
        yield root


def build(names: list[str], task_type: str, include_path: str | None = None) -> dict:
    from lmms_plugins import registration

    registration.register()  # the harness hooks, as lmms-eval's entry point installs them
    from lmms_eval.tasks import TaskManager, get_task_dict

    return get_task_dict(names, TaskManager(include_path=include_path), task_type=task_type)


def test_each_template_names_a_class_pair():
    from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask
    from lmms_eval.utils import load_yaml_config

    for bench, leaf in TEMPLATES.items():
        cls = load_yaml_config(str(Path(tasks_dir()) / leaf), mode="full")["class"]
        chat = cls.chat_variant
        assert issubclass(cls, PluginTask) and issubclass(cls, ConfigurableTask), bench
        assert not issubclass(cls, ConfigurableMessagesTask), bench
        assert issubclass(chat, ConfigurableMessagesTask) and cls.__mro__[1] is chat.__mro__[1], bench  # one mixin
        assert cls.__module__ == chat.__module__ == f"lmms_plugins.tasks.{bench}.task"


def test_the_task_manager_builds_the_variant_for_the_models_kind(data):
    from lmms_plugins.request_docs import RequestDoc
    from lmms_plugins.tasks.cwi import hooks
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task

    names = ["cwi_alignment", "cwi_code_alignment", "dod_no_hint"]
    built = {kind: build(names, kind) for kind in ("simple", "chat")}
    for name in names:
        simple, chat = built["simple"][name], built["chat"][name]
        assert type(chat) is type(simple).chat_variant, name
        for task in (simple, chat):
            task.build_all_requests(rank=0, world_size=1)
            assert task.instances and all(isinstance(i.doc, RequestDoc) for i in task.instances), name
        if name != "cwi_code_alignment":  # a chat request carries doc_to_messages, a simple one the generation kwargs
            assert callable(chat.instances[0].args[1]) and isinstance(simple.instances[0].args[1], dict), name
    for kind in ("simple", "chat"):
        task = built[kind]["cwi_alignment"]
        assert task.rule == rule_for_task("alignment") == built[kind]["cwi_code_alignment"].rule
        doc = task.dataset["test"][0]
        reply = f"<answer>{doc['answer']}</answer>"
        assert task.process_results(doc, [reply]) == hooks.process_results(doc, [reply], rule=rule_for_task("alignment"))
        assert task.process_results(doc, [reply])["accuracy"]["value"] == 1.0


def cwi_config(**changes) -> dict:
    from lmms_eval.utils import load_yaml_config

    config = load_yaml_config(str(Path(tasks_dir()) / "cwi" / "cwi_alignment.yaml"), mode="full")
    return {**config, **changes}


def test_cwi_rule_and_template_are_checked_while_the_task_is_built(data):
    from lmms_plugins.tasks.cwi.task import CwiTask

    own = {"kind": "fields", "fields": [{"name": "dx", "tol": 50}, {"name": "dy", "tol": 50}]}
    task = CwiTask(config=cwi_config(task="cwi_own", metadata={"version": 1.0, "lmms_plugins_benchmark": "cwi",
                                                                "cwi_rule": own}))
    doc = task.dataset["test"][0]
    assert task.process_results(doc, ["<answer>0,0</answer>"])["accuracy"]["value"] == 1.0  # ±50 px: the YAML's own rule
    with pytest.raises(PreflightError, match="cwi_x: invalid metadata.cwi_rule"):
        CwiTask(config=cwi_config(task="cwi_x", metadata={"cwi_rule": {"kind": "telepathy"}}))
    with pytest.raises(PreflightError, match="neither metadata.cwi_rule nor metadata.cwi_task"):
        CwiTask(config=cwi_config(task="cwi_x", metadata={"version": 1.0}))
    broken = {"default": {"prompt_template": "Q: {{ prompt }"}}
    with pytest.raises(PreflightError, match="prompt template cannot be rendered: .*not a valid Jinja template"):
        CwiTask(config=cwi_config(lmms_eval_specific_kwargs=broken))
    undefined = {"default": {"prompt_template": "Q: {{ question }}"}}  # no such field: StrictUndefined
    with pytest.raises(PreflightError, match="cannot be rendered: UndefinedError"):
        CwiTask(config=cwi_config(lmms_eval_specific_kwargs=undefined))


def test_the_checks_before_the_first_request_are_skipped_when_nothing_is_scored(data, tmp_path):
    judge_mode = settings_include(tmp_path / "settings", {"dod_no_hint": {"refusal_mode": "judge"}})  # and no judge configured
    task = build(["dod_no_hint"], "simple", judge_mode)["dod_no_hint"]  # building it asks no judge
    with pytest.raises(PreflightError, match="dod with refusal_mode=judge needs an LLM judge"):
        task.build_all_requests(rank=0, world_size=1)
    task.override_metric("bypass")  # what lmms-eval's --predict_only does before it builds the requests
    task.build_all_requests(rank=0, world_size=1)
    assert task.instances


def test_per_model_prompt_options_reach_a_class_task(data, tmp_path):
    """lmms-eval passes a class no model_name; the harness does, as for a configurable task."""
    from lmms_eval.tasks import TaskManager

    from lmms_plugins import registration

    registration.register()
    (tmp_path / "mine.yaml").write_text(
        "task: my_alignment\n"
        f"include: {Path(tasks_dir()) / 'cwi' / '_default_template_yaml'}\n"
        "dataset_name: alignment\n"
        "lmms_eval_specific_kwargs:\n"
        "  default: {prompt_template: 'plain {{ prompt }}'}\n"
        "  some_model: {prompt_template: 'for some_model {{ prompt }}'}\n"
        "metadata: {version: 1.0, lmms_plugins_benchmark: cwi, cwi_task: alignment}\n")
    for model, kind, wording in (("some_model", "chat", "for some_model "), ("another", "simple", "plain ")):
        manager = TaskManager(include_path=str(tmp_path), include_defaults=False, model_name=model)
        task = manager.load_task_or_group(["my_alignment"], task_type=kind)["my_alignment"]
        doc = task.dataset["test"][0]
        assert task.model_name == model and task.doc_to_text(doc) == wording + doc["prompt"], (model, kind)


def test_an_override_of_a_package_task_must_state_the_version_that_scores_it(data, tmp_path):
    """An include whose metadata forgets ``version``, or keeps an older package's, would label the results with
    a version that did not score them: the task stops while it is built. The package's writer restates it."""
    from lmms_plugins.utils.task_version import package_versions

    current = package_versions()["dod_no_hint"]
    written = settings_include(tmp_path / "ok", {"dod_no_hint": {"refusal_text": "all"}})
    task = build(["dod_no_hint"], "simple", written)["dod_no_hint"]
    assert str(task.config.metadata["version"]) == current and task.settings["refusal_text"] == "all"
    template = Path(tasks_dir()) / "dod" / "dod_no_hint.yaml"
    for folder, meta, message in (
            ("none", "{lmms_plugins_benchmark: dod, refusal_text: all}", "dod_no_hint: metadata has no `version`"),
            ("old", "{version: 0.9, lmms_plugins_benchmark: dod}",
             f"dod_no_hint: metadata.version is 0.9 but this package scores dod_no_hint as version {current}")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "dod_no_hint.yaml").write_text(f"include: {template}\ntask: dod_no_hint\nmetadata: {meta}\n")
        with pytest.raises(PreflightError, match=message.replace(".", r"\.")):
            build(["dod_no_hint"], "simple", str(tmp_path / folder))
    (tmp_path / "own").mkdir()  # a task under its own name states its own version
    (tmp_path / "own" / "my_dod.yaml").write_text(f"include: {template}\ntask: my_dod\nmetadata: {{version: 0.1, lmms_plugins_benchmark: dod}}\n")
    assert str(build(["my_dod"], "simple", str(tmp_path / "own"))["my_dod"].config.metadata["version"]) == "0.1"


def test_the_readmes_override_examples_state_the_current_version():
    """The READMEs' override YAMLs are what users copy; one with an old version would now stop their run."""
    import re

    from lmms_plugins.utils import task_yaml
    from lmms_plugins.utils.task_version import package_versions

    examples = 0
    for readme in sorted(Path(tasks_dir()).glob("*/README.md")):
        for block in re.findall(r"```yaml\n(.*?)```", readme.read_text(encoding="utf-8"), re.S):
            config = task_yaml.loads(block)  # `!function` stays a name
            if not (isinstance(config, dict) and "include" in config and config.get("task") in package_versions()):
                continue
            examples += 1
            stated = (config.get("metadata") or {}).get("version")
            assert str(stated) == package_versions()[config["task"]], (readme, config["task"], stated)
    assert examples >= 2  # DoD's and GRADE's settings examples
