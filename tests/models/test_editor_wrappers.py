"""lmms-eval 0.7.3's own image-editing wrappers on this package's tasks, without the CLI.

Real task objects (dod_no_hint, abacus_add_easy, grade on small local datasets) build their real
requests; each wrapper's own ``generate_until`` (request handling, prompt and image plumbing, file
naming, output format) runs unchanged, with only its heavy model replaced at the lowest level:

* qwen_image_edit: ``DiffusionPipeline`` in the wrapper's module (its real ``__init__`` runs);
* bagel: the ``InterleaveInferencer`` (``self.inferencer``) and bagel's ``pil_img2rgb`` helper;
* bagel_lmms_engine: its ``InterleaveInferencer``; requests come from the chat (messages) task.

The bagel ``__init__`` methods load weights inline, so those two objects are made with
``__new__`` and given the attributes their ``__init__`` sets for the mode under test. One test runs
qwen_image_edit through the real CLI, with a stand-in ``diffusers`` package on PYTHONPATH.
The README's "Image editors" table cites these tests.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

import pytest
from PIL import Image, ImageOps

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "dod", TESTS / "grade"):
    sys.path.insert(0, str(folder))

import dod_fixtures  # noqa: E402
import grade_fixtures  # noqa: E402
from task_settings import settings_include  # noqa: E402

from lmms_plugins.utils.model_output import parse_model_output  # noqa: E402

TASKS = ("dod_no_hint", "abacus_add_easy", "grade")
# no editing judge (whatever the environment's judge), the detector that reads the synthetic images
SETTINGS = {"dod_no_hint": {"edit_judge": "off"}, "abacus_add_easy": {"detector": "synthetic_test"}}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from lmms_plugins.tasks.abacus import synthetic as syn

    root = tmp_path_factory.mktemp("wrappers")
    dod = dod_fixtures.make_dataset(root / "dod", pairs_per_category=1, maze_pairs=0)
    assert syn.main(["--out", str(root / "abacus"), "--n", "2", "--seed", "3"]) == 0
    grade = grade_fixtures.make_dataset(root / "GRADE")
    settings_include(root / "settings", SETTINGS)
    env = {"LMMS_PLUGINS_DOD_ROOT": str(dod), "LMMS_PLUGINS_ABACUS_ROOT": str(root / "abacus"),
           "LMMS_PLUGINS_GRADE_ROOT": str(grade), "LMMS_PLUGINS_DATA_ROOT": "", "HF_DATASETS_OFFLINE": "1",
           "HF_HUB_OFFLINE": "1", "HF_HOME": str(root / "hf"),
           "LMMS_PLUGINS_PREFLIGHT": "off"}  # no judge here: GRADE is not scored in these tests, only edited
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        yield root


def build(task_type: str, root: Path):
    """{task name: (task object, its generate_until Instances)} as lmms-eval's evaluator builds them."""
    from lmms_plugins import registration

    registration.register()  # the package's patches, as the lmms_eval.models entry point installs them
    from lmms_eval.tasks import TaskManager, get_task_dict

    tasks = get_task_dict(list(TASKS), TaskManager(include_path=str(root / "settings")), task_type=task_type)
    out = {}
    for name in TASKS:
        task = tasks[name]
        task.build_all_requests(rank=0, world_size=1)
        out[name] = (task, list(task.instances))
    return out


@pytest.fixture(scope="module")
def simple_requests(data):
    return build("simple", data)


def all_requests(built):
    return [inst for _task, instances in built.values() for inst in instances]


def input_of(built, inst):
    task, _ = built[inst.task_name]
    visuals = task.doc_to_visual(task.dataset[inst.args[-1]][inst.doc_id])
    return visuals[0]


def check_outputs(built, outputs, received, *, expect_prompt_in):
    """Every output names an existing image equal to the stub's edit of that request's own input."""
    assert len(outputs) == len(all_requests(built))
    for inst, raw in zip(all_requests(built), outputs):
        out = parse_model_output(raw)
        assert out.image and not out.missing, (inst.task_name, inst.doc_id, raw)
        source = input_of(built, inst)
        assert list(Image.open(out.image).convert("RGB").getdata()) == list(ImageOps.mirror(source.convert("RGB")).getdata())
        prompt, image = received[(inst.task_name, inst.doc_id)]
        assert expect_prompt_in(inst) in prompt
        assert list(image.convert("RGB").getdata()) == list(source.convert("RGB").getdata())
    # the benchmark's own scoring reads these outputs as images (no missing_image / unparsable)
    for name in ("dod_no_hint", "abacus_add_easy"):
        task, instances = built[name]
        for inst, raw in ((i, o) for i, o in zip(all_requests(built), outputs) if i.task_name == name):
            doc = task.dataset[inst.args[-1]][inst.doc_id]
            if name == "dod_no_hint":
                doc = {**doc, "dod_root": os.environ["LMMS_PLUGINS_DOD_ROOT"]}
            result = task.process_results(doc, [raw])
            statuses = {v.get("status") for v in result.values() if isinstance(v, dict)}
            assert not statuses & {"missing_image", "unparsable", "bad_image", "error", "generation_failed"}, (name, statuses)


def mirror_key(inst):
    return (inst.task_name, inst.doc_id)


# --------------------------------------------------------------------------- qwen_image_edit


class StubPipeline:
    """Stands in for diffusers' DiffusionPipeline: mirrors the input image, records what it got."""

    calls: list = []

    @classmethod
    def from_pretrained(cls, pretrained, **kwargs):
        return cls()

    def __call__(self, prompt, image, num_inference_steps, guidance_scale, output_type):
        StubPipeline.calls.append((prompt, image))
        return types.SimpleNamespace(images=[ImageOps.mirror(image.convert("RGB"))])


def test_qwen_image_edit_edits_every_benchmark_with_the_packages_request_docs(simple_requests, tmp_path, monkeypatch):
    from lmms_eval.models.simple import qwen_image_edit as qmod

    monkeypatch.setattr(qmod, "DiffusionPipeline", StubPipeline, raising=False)
    StubPipeline.calls = []
    model = qmod.QwenImageEdit(pretrained="stub", mode="editing", device="cpu", device_map="cpu",
                               generated_image_dir=str(tmp_path / "qwen"))
    model.task_dict = {name: task.dataset for name, (task, _) in simple_requests.items()}
    requests = all_requests(simple_requests)
    outputs = model.generate_until(requests)
    assert all(o.startswith("Generated image saved to: ") for o in outputs)  # the wrapper's own format
    received = {}
    for inst, (prompt, image) in zip(requests, StubPipeline.calls):
        received[(inst.task_name, inst.doc_id)] = (prompt, image)
    check_outputs(simple_requests, outputs, received, expect_prompt_in=lambda inst: inst.args[0])
    # files are named <task>_<doc_id>.png: unique per task and document, so ranks never collide
    assert len({parse_model_output(o).image for o in outputs}) == len(outputs)
    assert parse_model_output(outputs[0]).image.endswith(f"{requests[0].task_name}_{requests[0].doc_id}.png")


def test_qwen_image_edit_without_request_docs_stops_the_run(simple_requests, tmp_path, monkeypatch):
    """Why the package fills in Instance.doc: lmms-eval 0.7.3 leaves it None and the wrapper fails."""
    import copy

    from lmms_eval.models.simple import qwen_image_edit as qmod

    monkeypatch.setattr(qmod, "DiffusionPipeline", StubPipeline, raising=False)
    model = qmod.QwenImageEdit(pretrained="stub", mode="editing", device="cpu", device_map="cpu",
                               generated_image_dir=str(tmp_path / "qwen"))
    bare = copy.copy(all_requests(simple_requests)[0])
    bare.doc = None
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'get'"):
        model.generate_until([bare])


def test_request_docs_are_light_and_picklable(simple_requests):
    import pickle

    inst = all_requests(simple_requests)[0]
    assert set(inst.doc) == {"image", "images", "task", "doc_id", "prompt"}
    assert inst.doc["task"] == inst.task_name and inst.doc["doc_id"] == inst.doc_id and inst.doc["prompt"] == inst.args[0]
    assert "Image" not in repr(inst.doc)
    assert pickle.loads(pickle.dumps(inst.doc)) == {"task": inst.task_name, "doc_id": inst.doc_id, "prompt": inst.args[0]}


# --------------------------------------------------------------------------- bagel (mode=edit)


class StubInferencer:
    """Stands in for bagel's InterleaveInferencer: mirrors the (last) input image."""

    def __init__(self):
        self.calls = []

    def interleave_inference(self, input_list, **params):
        images = [x for x in input_list if isinstance(x, Image.Image)]
        text = " ".join(x for x in input_list if isinstance(x, str))
        self.calls.append((text, images[0], params))
        return ["", ImageOps.mirror(images[-1])]

    def __call__(self, text, think=False, image=None, **params):  # bagel_lmms_engine's call
        self.calls.append((text, image, params))
        return {"text": "", "image": ImageOps.mirror(image.convert("RGB"))}


def test_bagel_umm_edit_mode_edits_every_benchmark(simple_requests, tmp_path, monkeypatch):
    import torch
    from lmms_eval.models.simple import bagel as bmod

    monkeypatch.setattr(bmod, "pil_img2rgb", lambda im: im.convert("RGB"), raising=False)
    model = bmod.BagelUMM.__new__(bmod.BagelUMM)
    model._rank, model._world_size, model.mode = 0, 1, "edit"
    model.inference_params, model.text_temperature, model.image_shapes = dict(bmod.BASE_PARAMS["edit"]), 0.3, (64, 64)
    model._torch_dtype, model.output_dir = torch.bfloat16, str(tmp_path / "bagel")
    os.makedirs(model.output_dir)
    model.inferencer = StubInferencer()
    model.task_dict = {name: task.dataset for name, (task, _) in simple_requests.items()}
    requests = all_requests(simple_requests)
    outputs = model.generate_until(requests)
    received = {(i.task_name, i.doc_id): (c[0], c[1]) for i, c in zip(requests, model.inferencer.calls)}
    check_outputs(simple_requests, outputs, received, expect_prompt_in=lambda inst: inst.args[0].strip())
    assert all(json.loads(o)["images"][0].endswith(f"{i.task_name}_{i.doc_id}_0.png") for i, o in zip(requests, outputs))


def test_bagel_lmms_engine_edits_every_benchmark_through_the_chat_tasks(data, tmp_path):
    from lmms_eval.models.chat import bagel_lmms_engine as emod

    chat = build("chat", data)
    model = emod.BagelLmmsEngine.__new__(emod.BagelLmmsEngine)
    model._rank, model._world_size, model.seed, model.show_thinking = 0, 1, 0, False
    for name, value in dict(max_think_token_n=1024, do_sample=False, text_temperature=0.3, cfg_text_scale=4.0,
                            cfg_img_scale=2.0, cfg_interval=0.0, timestep_shift=3.0, num_timesteps=50, cfg_renorm_min=0.0,
                            cfg_renorm_type="text_channel", image_shapes=(64, 64)).items():
        setattr(model, name, value)
    model.output_image_dir = str(tmp_path / "engine")
    model.inferencer = StubInferencer()
    model.task_dict = {name: task.dataset for name, (task, _) in chat.items()}
    requests = all_requests(chat)
    outputs = model.generate_until(requests)
    received = {(i.task_name, i.doc_id): (c[0], c[1]) for i, c in zip(requests, model.inferencer.calls)}
    check_outputs(chat, outputs, received, expect_prompt_in=lambda inst: inst.args[0])


def test_bagel_model_ids_of_lmms_eval_0_7_3_do_not_load_and_the_packages_alias_does():
    """`--model bagel` maps to lmms_eval.models.simple.bagel.Bagel, but that module defines BagelUMM;
    `--model bagel_umm` maps to a module bagel_umm that does not exist. This package registers
    `lmms_eval_bagel` -> lmms_eval.models.simple.bagel.BagelUMM (the wrapper tested above)."""
    from lmms_eval.models import get_model

    from lmms_plugins.registration import register

    register()
    with pytest.raises(Exception, match="Bagel"):
        get_model("bagel")
    with pytest.raises(Exception, match="bagel_umm"):
        get_model("bagel_umm")
    assert get_model("lmms_eval_bagel").__name__ == "BagelUMM"


# --------------------------------------------------------------------------- wrappers that cannot edit


def counted_requests(built):
    """One request per task whose doc_to_visual counts its calls (the input image is read or not)."""
    import copy

    calls = []
    out = []
    for _name, (task, instances) in built.items():
        inst = copy.copy(instances[0])

        def doc_to_visual(doc, _task=task):
            calls.append(doc)
            return _task.doc_to_visual(doc)

        inst.arguments = (inst.args[0], dict(inst.args[1]), doc_to_visual, *inst.args[3:])
        out.append(inst)
    return out, calls


def test_bagel_unig2u_generation_mode_never_reads_the_input_image(simple_requests, tmp_path):
    from lmms_eval.models.simple import bagel_unig2u as umod

    received = []

    def inferencer(text, think=False, image=None, **params):  # bagel's InterleaveInferencer
        received.append(image)
        return {"text": "", "image": Image.new("RGB", (8, 8), (9, 9, 9))}

    model = umod.BagelUniG2U.__new__(umod.BagelUniG2U)
    model._rank, model._world_size, model.mode, model.continual_mode, model.seed = 0, 1, "generation", False, 0
    for name, value in dict(show_thinking=False, max_new_tokens=64, max_think_token_n=64, do_sample=False, text_temperature=0.3,
                            cfg_text_scale=4.0, cfg_img_scale=2.0, cfg_interval=0.4, timestep_shift=3.0, num_timesteps=2,
                            cfg_renorm_min=0.0, cfg_renorm_type="global", image_shapes=(8, 8)).items():
        setattr(model, name, value)
    model.output_image_dir = str(tmp_path)
    model.inferencer = inferencer
    model.task_dict = {name: task.dataset for name, (task, _) in simple_requests.items()}
    requests, visual_calls = counted_requests(simple_requests)
    outputs = model.generate_until(requests)
    assert visual_calls == [] and received == [None] * len(requests)  # text-to-image: no input image
    assert all(parse_model_output(o).has_image for o in outputs)  # an image comes back, unrelated to the input


def test_mmada_generation_mode_never_reads_the_input_image(simple_requests, tmp_path, monkeypatch):
    import torch
    from lmms_eval.models.simple import mmada as mmod

    seen_ids = []

    def generate(model, input_ids, **kwargs):  # MMaDA's own `generate` module, replaced
        seen_ids.append(input_ids)
        return torch.cat([input_ids, torch.full((input_ids.shape[0], 256), 1000 + 7)], dim=1)

    monkeypatch.setitem(sys.modules, "generate", types.SimpleNamespace(generate=generate))
    text_tokenizer = type("Tok", (), {"apply_chat_template": staticmethod(lambda messages, **kw: torch.tensor([[1, 2, 3]])),
                                      "__len__": lambda self: 1000})()
    model = mmod.MMaDA.__new__(mmod.MMaDA)
    model.__dict__.update(model="mmada-weights", _rank=0, _world_size=1, mode="generation", continual_mode=False, seed=0, device="cpu",
                          generation_timesteps=2, temperature=1.0, guidance_scale=1.0, output_image_dir=str(tmp_path),
                          uni_prompting=types.SimpleNamespace(text_tokenizer=text_tokenizer, sptids_dict={"<|t2i|>": 5}),
                          tokenizer=types.SimpleNamespace(mask_token_id=0),
                          vq_model=types.SimpleNamespace(decode_code=lambda codes: torch.zeros(1, 3, 8, 8)))
    model.task_dict = {name: task.dataset for name, (task, _) in simple_requests.items()}
    requests, visual_calls = counted_requests(simple_requests)
    outputs = [json.loads(o) for o in model.generate_until(requests)]
    assert visual_calls == []  # the input image is never read
    assert all(ids.tolist() == [[5, 1, 2, 3]] for ids in seen_ids)  # the t2i token and the prompt: nothing else
    for inst, out in zip(requests, outputs):
        assert out["text"] == f"Generated image for prompt: {inst.args[0]}" and len(out["images"]) == 1


def test_qwen_image_edit_skips_a_sample_without_input_image_instead_of_stopping(tmp_path, monkeypatch):
    """A doc whose doc_to_visual gives nothing (e.g. DoD's input file is missing): 'image' is absent
    from its RequestDoc, and the wrapper answers "" (generation_failed) for that sample only."""
    from lmms_eval.api.instance import Instance
    from lmms_eval.models.simple import qwen_image_edit as qmod

    from lmms_plugins.request_docs import RequestDoc

    monkeypatch.setattr(qmod, "DiffusionPipeline", StubPipeline, raising=False)
    task = types.SimpleNamespace(dataset={"test": [{"n": 0}, {"n": 1}]}, config=types.SimpleNamespace(task="t"),
                                 doc_to_visual=lambda doc: [Image.new("RGB", (4, 4), (1, 2, 3))] if doc["n"] else [])
    requests = []
    for i in range(2):
        inst = Instance("generate_until", (f"edit {i}", {}, task.doc_to_visual, i, "t", "test"), 0, {"task": "t", "doc_id": i, "repeats": 1})
        inst.doc = RequestDoc(task, "test", i, f"edit {i}")
        requests.append(inst)
    assert "image" not in requests[0].doc and "image" in requests[1].doc
    model = qmod.QwenImageEdit(pretrained="stub", mode="editing", device="cpu", device_map="cpu", generated_image_dir=str(tmp_path))
    empty, edited = model.generate_until(requests)
    assert empty == "" and parse_model_output(edited).image.endswith("t_1.png")


FAKE_DIFFUSERS = '''"""Stands in for diffusers in a test: DiffusionPipeline mirrors the input image."""
from types import SimpleNamespace

from PIL import ImageOps


class DiffusionPipeline:
    @classmethod
    def from_pretrained(cls, pretrained, **kwargs):
        return cls()

    def __call__(self, prompt, image, **kwargs):
        return SimpleNamespace(images=[ImageOps.mirror(image.convert("RGB"))])
'''


@pytest.mark.e2e
def test_qwen_image_edit_through_the_real_cli(tmp_path, run_lmms_eval):
    """The task classes' Instance.doc in a real `lmms-eval --model qwen_image_edit` run, with
    diffusers replaced by a package on PYTHONPATH (the wrapper's import, loading and call stay real)."""
    from lmms_plugins.tasks.abacus import synthetic as syn

    fake = tmp_path / "fake" / "diffusers"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(FAKE_DIFFUSERS)
    dod = dod_fixtures.make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    assert syn.main(["--out", str(tmp_path / "abacus"), "--n", "2", "--seed", "3"]) == 0
    env = {"PYTHONPATH": str(fake.parent), "LMMS_PLUGINS_DOD_ROOT": str(dod),
           "LMMS_PLUGINS_ABACUS_ROOT": str(tmp_path / "abacus"), "LMMS_PLUGINS_DATA_ROOT": ""}
    edits = tmp_path / "edits"
    res = run_lmms_eval("dod_no_hint,abacus_add_easy", "qwen_image_edit",
                        f"pretrained=stub,mode=editing,device=cpu,device_map=cpu,generated_image_dir={edits}",
                        out_dir=tmp_path / "run", env=env, log_samples=False,
                        include_path=settings_include(tmp_path / "settings", SETTINGS))
    dod_res, abacus = res["results"]["dod_no_hint"], res["results"]["abacus_add_easy"]
    # every DoD sample got an image (an editor never declines: D_strict 0); real-world E awaits a judge
    assert dod_res["sample_statuses,none"] == {"ok": 6, "no_edit_judge": 6}
    assert dod_res["D_strict,none"] == 0.0 and dod_res["D_f,none"] == 0.0
    assert abacus["abacus_leaderboard,none"]["status_counts"] == {"ok": 2}
    assert sorted(p.name for p in edits.iterdir()) == sorted(
        [f"dod_no_hint_{i}.png" for i in range(12)] + ["abacus_add_easy_0.png", "abacus_add_easy_1.png"])
