"""The package's tasks run through the real lmms-eval, found three ways: no flags, --include_path,
and the Python API. A tiny CwI dataset in the hub layout is made here; the `replay` model answers
from a JSONL; the test reads the results JSON (the CLI exits 0 even on failure)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from PIL import Image

from conftest import OFFLINE_ENV

pytestmark = pytest.mark.e2e


@pytest.fixture
def cwi_copy(tmp_path, hub_dataset):
    import datasets

    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "image": datasets.Image(),
            "image_2": datasets.Image(),
            "prompt": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "difficulty": datasets.Value("string"),
            "meta": datasets.Value("string"),
        }
    )
    img = Image.new("RGB", (16, 16), (40, 80, 120))
    rows = [
        {"id": f"al-{i}", "image": img, "image_2": img, "prompt": "Find the shift.", "answer": ans,
         "difficulty": tier, "meta": "{}"}
        for i, (ans, tier) in enumerate([("3,-2", "easy"), ("-5,7", "medium"), ("10,1", "hard"), ("0,4", "expert")])
    ]
    root = hub_dataset(tmp_path / "cwi", "alignment", "test", rows, features)
    outputs = tmp_path / "outputs.jsonl"
    answers = [
        {"key": "al-0", "text": "reasoning...\n\n<answer>dx=4, dy=-1</answer>"},  # within ±2: correct
        {"key": "al-1", "text": "<answer>(-5, 10)</answer>"},  # dy off by 3: wrong
        {"key": "al-2", "text": "I think it moved right."},  # no answer span: extraction failure
        # al-3 has no recorded output at all: reported by replay, scored as a failure
    ]
    outputs.write_text("".join(json.dumps(a) + "\n" for a in answers))
    return root, outputs


def check_alignment_results(results):
    metrics = results["results"]["cwi_alignment"]
    assert metrics["accuracy,none"] == pytest.approx(0.25)
    assert metrics["extraction_failure_rate,none"] == pytest.approx(0.5)
    assert metrics["accuracy_easy,none"] == pytest.approx(1.0)
    assert metrics["accuracy_medium,none"] == pytest.approx(0.0)


def test_literal_command_finds_tasks_with_no_flags(tmp_path, cwi_copy, run_lmms_eval):
    root, outputs = cwi_copy
    results = run_lmms_eval("cwi_alignment", "replay", f"outputs={outputs}", out_dir=tmp_path / "out",
                            env={"LMMS_PLUGINS_CWI_ROOT": str(root)})
    check_alignment_results(results)
    assert "no recorded output" in results["_stdout"] + results["_stderr"]


def test_include_path_works_without_the_hook(tmp_path, cwi_copy, run_lmms_eval):
    root, outputs = cwi_copy
    tasks_dir = subprocess.run([sys.executable, "-m", "lmms_plugins", "tasks-dir"], capture_output=True, text=True,
                               check=True).stdout.strip()
    env = {"LMMS_PLUGINS_CWI_ROOT": str(root), "LMMS_PLUGINS_NO_TASK_HOOK": "1"}
    results = run_lmms_eval("cwi_alignment", "replay", f"outputs={outputs}", out_dir=tmp_path / "out",
                            include_path=tasks_dir, env=env)
    check_alignment_results(results)
    with pytest.raises(AssertionError, match="cwi_alignment"):  # and without it the task is unknown
        run_lmms_eval("cwi_alignment", "replay", f"outputs={outputs}", out_dir=tmp_path / "out2", env=env)


def test_python_api_with_task_manager_include_path(tmp_path, cwi_copy):
    root, outputs = cwi_copy
    script = textwrap.dedent(f"""
        import json
        from lmms_eval import evaluator
        from lmms_eval.tasks import TaskManager
        from lmms_plugins import tasks_dir
        tm = TaskManager(include_path=tasks_dir())
        out = evaluator.simple_evaluate(model="replay", model_args="outputs={outputs}",
                                        tasks=["cwi_alignment"], task_manager=tm, batch_size=1)
        print("RESULTS=" + json.dumps(out["results"]))
    """)
    env = {**os.environ, **OFFLINE_ENV, "LMMS_PLUGINS_CWI_ROOT": str(root),
           "LMMS_PLUGINS_NO_TASK_HOOK": "1", "HF_HOME": str(tmp_path / "hf")}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=600)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS=")]
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    check_alignment_results({"results": json.loads(line[0][len("RESULTS="):])})


def test_missing_data_names_the_variable(tmp_path, run_lmms_eval):
    # offline, no local copy: the run stops and the message says how to provide the data
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text('{"key": "x", "text": ""}\n')
    with pytest.raises(AssertionError) as err:
        run_lmms_eval("cwi_alignment", "replay", f"outputs={outputs}", out_dir=tmp_path / "out")
    assert "MissingDataError" in str(err.value) and "LMMS_PLUGINS_CWI_ROOT=<folder>" in str(err.value)


def test_a_wrong_local_copy_ends_with_the_reason_and_the_fix_not_a_retry_wrapper(tmp_path, run_lmms_eval, monkeypatch):
    # a DoD copy without its labels file: the CLI's last error line names the file and the variable
    from lmms_plugins.cli import main as plugins_cli

    root = tmp_path / "dod"
    assert plugins_cli(["make-data", "dod-maze", "--pairs", "1", "--out", str(root)]) == 0
    (root / "ground_truth_criteria.jsonl").unlink()
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text('{"key": "x", "text": ""}\n')
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    with pytest.raises(AssertionError) as err:
        run_lmms_eval("dod_no_hint", "replay", f"outputs={outputs}", out_dir=tmp_path / "out")
    last = str(err.value).rsplit("Error during evaluation", 1)[-1]  # the final message, to the end
    assert "ground_truth_criteria.jsonl not found" in last and "LMMS_PLUGINS_DOD_ROOT" in last
    assert "RetryError" not in last
