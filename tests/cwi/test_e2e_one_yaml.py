"""Adding a CwI-style task takes one YAML and no Python: a new tolerance task on another
(tiny, local) dataset, run through the real lmms-eval CLI with --include_path."""

from __future__ import annotations

import json
import textwrap

import pytest
from PIL import Image

NEW_TASK_YAML = textwrap.dedent(
    """\
    task: my_lamp_brightness
    class: !function lmms_plugins.tasks.cwi.task.CwiTask
    dataset_path: {root}
    dataset_name: lamps
    test_split: test
    output_type: generate_until
    doc_to_visual: !function lmms_plugins.tasks.cwi.hooks.doc_to_visual
    doc_to_text: !function lmms_plugins.tasks.cwi.hooks.doc_to_text
    doc_to_target: answer
    process_results: !function lmms_plugins.tasks.cwi.hooks.process_results
    generation_kwargs:
      until: []
      max_new_tokens: 1024
    lmms_eval_specific_kwargs:
      default:
        prompt_template: "{{{{ prompt }}}} Reply as <answer>value</answer>."
    metric_list:
      - metric: accuracy
        aggregation: !function lmms_plugins.tasks.cwi.hooks.aggregate_accuracy
        higher_is_better: true
      - metric: extraction_failure_rate
        aggregation: !function lmms_plugins.tasks.cwi.hooks.aggregate_extraction_failure_rate
        higher_is_better: false
    metadata:
      version: 1.0
      cwi_rule:
        kind: fields
        fields:
          - {{name: brightness, aliases: [value], tol: 5}}
    """
)


@pytest.mark.e2e
def test_one_yaml_no_python(tmp_path, run_lmms_eval, hub_dataset):
    import datasets

    root = tmp_path / "data"
    img_dir = tmp_path / "imgs"
    img_dir.mkdir()
    rows, outputs = [], []
    golds = [40, 100, 180, 220]
    preds = ["<answer>43</answer>", "brightness <answer>value = 106</answer>", "<answer>180 %</answer>", "I am not sure."]
    for i, (gold, pred) in enumerate(zip(golds, preds)):
        path = img_dir / f"{i}.png"
        Image.new("RGB", (16, 16), (gold, gold, gold)).save(path)
        rows.append({"id": f"lamp{i}", "image": str(path), "prompt": "How bright is the lamp (0-255)?", "answer": str(gold), "difficulty": "easy"})
        outputs.append({"key": f"lamp{i}", "text": pred})
    features = datasets.Features({"id": datasets.Value("string"), "image": datasets.Image(), "prompt": datasets.Value("string"),
                                  "answer": datasets.Value("string"), "difficulty": datasets.Value("string")})
    hub_dataset(root, "lamps", "test", rows, features=features)
    tasks_dir = tmp_path / "my_tasks"
    tasks_dir.mkdir()
    (tasks_dir / "my_lamp_brightness.yaml").write_text(NEW_TASK_YAML.format(root=root))
    replay = tmp_path / "outputs.jsonl"
    replay.write_text("\n".join(json.dumps(o) for o in outputs) + "\n")

    res = run_lmms_eval("my_lamp_brightness", "replay", f"outputs={replay}", out_dir=tmp_path / "run", include_path=str(tasks_dir))
    got = res["results"]["my_lamp_brightness"]
    # 43 vs 40 within ±5; 106 vs 100 outside; 180 exact; no span -> 0 and an extraction failure
    assert got["accuracy,none"] == pytest.approx(0.5)
    assert got["extraction_failure_rate,none"] == pytest.approx(0.25)
    samples = {s["accuracy"]["id"]: s for s in res["_samples"]["my_lamp_brightness"]}
    assert samples["lamp3"]["accuracy"]["status"] == "unparsable"
    assert samples["lamp1"]["accuracy"]["reason"] == "outside rule: brightness"
