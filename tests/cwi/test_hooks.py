"""The thin lmms-eval hooks: prompt template, visuals, process_results that never raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from lmms_plugins.tasks.cwi import hooks

RULE = {"kind": "fields", "fields": [{"name": "dx", "tol": 2}, {"name": "dy", "tol": 2}]}
DOC = {"id": "alignment_test_0001", "answer": "3,-2", "difficulty": "hard", "prompt": "Find (dx, dy). Answer in <answer>dx,dy</answer>."}


def test_prompt_template_default_and_inline():
    assert hooks.doc_to_text(DOC) == DOC["prompt"]
    assert hooks.doc_to_text({"prompt": "Q?"}).endswith("Give your final answer inside <answer>…</answer>.")
    custom = {"prompt_template": "[{{ difficulty }}] {{ prompt }} Think step by step."}
    assert hooks.doc_to_text(DOC, custom) == f"[hard] {DOC['prompt']} Think step by step."


def test_visuals_one_or_two_images_in_rgb():
    a, b = Image.new("L", (4, 4)), Image.new("RGBA", (4, 4))
    assert [im.mode for im in hooks.doc_to_visual({"image": a, "image_2": None})] == ["RGB"]
    assert [im.mode for im in hooks.doc_to_visual({"image": a, "image_2": b})] == ["RGB", "RGB"]


def test_process_results_metrics_and_tier():
    out = hooks.process_results(DOC, ["work... <answer>dx=4, dy=-3</answer>"], rule=RULE)
    assert list(out)[-1] == "extraction_failure_rate"  # lmms-eval sizes the task by the last metric
    assert set(out) == {"accuracy", "accuracy_easy", "accuracy_medium", "accuracy_hard", "accuracy_expert", "generation_failure_rate", "extraction_failure_rate"}
    assert out["accuracy_easy"]["tier"] == "hard"
    assert out["accuracy"]["value"] == 1.0 and out["accuracy"]["status"] == "ok"
    assert out["accuracy"]["predicted"] == {"dx": 4, "dy": -3}
    assert out["extraction_failure_rate"]["value"] == 0.0
    out = hooks.process_results(DOC, ["I think 3,-2"], rule=RULE)
    assert out["accuracy"]["value"] == 0.0 and out["accuracy"]["status"] == "unparsable"
    assert out["extraction_failure_rate"]["value"] == 1.0


def test_json_text_image_outputs_are_unwrapped():
    import json

    raw = json.dumps({"text": "it is <answer>−3,-2</answer>", "images": []})  # escaped minus
    assert hooks.process_results({**DOC, "answer": "-3,-2"}, [raw], rule=RULE)["accuracy"]["value"] == 1.0
    own_json = '{"answer": "<answer>3,-2</answer>"}'  # JSON a text model wrote itself
    assert hooks.process_results(DOC, [own_json], rule=RULE)["accuracy"]["value"] == 1.0


def test_missing_or_bad_rule_is_a_recorded_error():
    out = hooks.process_results(DOC, ["<answer>3,-2</answer>"])
    assert out["accuracy"]["status"] == "error" and "cwi_rule" in out["accuracy"]["reason"]
    out = hooks.process_results(DOC, ["<answer>3,-2</answer>"], rule={"kind": "nope"})
    assert out["accuracy"]["status"] == "error" and "bad cwi_rule" in out["accuracy"]["reason"]


def test_bad_gold_is_missing_data():
    out = hooks.process_results({**DOC, "answer": None}, ["<answer>3,-2</answer>"], rule=RULE)
    assert out["accuracy"]["status"] == "missing_data" and out["accuracy"]["value"] == 0.0


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.none(), st.text(), st.integers(), st.lists(st.text(), max_size=2)),
    st.one_of(st.none(), st.text(), st.integers()),
    st.one_of(st.none(), st.text(max_size=10)),
)
def test_process_results_never_raises(pred, gold, tier):
    out = hooks.process_results({"id": 1, "answer": gold, "difficulty": tier}, [pred], rule=RULE)
    assert out["accuracy"]["value"] in (0.0, 1.0)
    assert out["accuracy"]["status"] in ("ok", "unparsable", "missing_data", "error", "generation_failed")


def test_tier_aggregations_keep_their_tier():
    docs = [({**DOC, "difficulty": t}, p) for t, p in (("easy", "<answer>3,-2</answer>"), ("easy", "x"), ("hard", "<answer>3,-2</answer>"))]
    outs = [hooks.process_results(d, [p], rule=RULE) for d, p in docs]
    assert hooks.aggregate_accuracy_easy([o["accuracy_easy"] for o in outs]) == 0.5
    assert hooks.aggregate_accuracy_hard([o["accuracy_hard"] for o in outs]) == 1.0
    assert hooks.aggregate_accuracy_expert([o["accuracy_expert"] for o in outs]) != hooks.aggregate_accuracy_expert([])  # NaN


def test_error_path_returns_every_metric_last_one_full():
    out = hooks.process_results(DOC, ["<answer>3,-2</answer>"])
    assert list(out) == list(hooks.METRICS) and list(out)[-1] == "extraction_failure_rate"


def test_aggregations_count_statuses():
    items = [hooks.process_results(DOC, [p], rule=RULE)["accuracy"] for p in ("<answer>3,-2</answer>", "x", "<answer>9,9</answer>")]
    assert hooks.aggregate_accuracy(items) == 1 / 3
    rates = [hooks.process_results(DOC, [p], rule=RULE)["extraction_failure_rate"] for p in ("<answer>3,-2</answer>", "x")]
    assert hooks.aggregate_extraction_failure_rate(rates) == 0.5
    assert hooks.aggregate_failure_rate is hooks.aggregate_extraction_failure_rate  # the old name still loads
