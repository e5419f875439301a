"""End to end through the real lmms-eval CLI: the code tasks never run a model's code without the
sandbox unless told to, and a run told to says so in every sample."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import run_lmms_eval_cli
from lmms_plugins.tasks.cwi.generate import main as make_data

TASK = "color_count"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("cwi")
    assert make_data(["--tasks", TASK, "--n", "2", "--seed", "11", "--out", str(root)]) == 0
    return root


@pytest.mark.e2e
def test_no_sandbox_stops_the_run_before_the_first_request(tmp_path, data):
    # a setting that names no provider stands for any machine where confinement cannot be had:
    # the first turn's check raises before lmms-eval sends anything to the model
    with pytest.raises(AssertionError) as err:
        run_lmms_eval_cli(f"cwi_code_{TASK}", "cwi_coder", out_dir=tmp_path / "run",
                          env={"LMMS_PLUGINS_CWI_ROOT": str(data), "LMMS_PLUGINS_SANDBOX": "plain"})
    text = str(err.value)
    assert "lmms-eval wrote no results" in text
    assert "the code sandbox (plain) cannot run" not in text  # an unknown name is refused as such
    assert "LMMS_PLUGINS_SANDBOX='plain' is not a sandbox provider (bwrap, unconfined)" in text
    assert "Model Responding" not in text and not list((tmp_path / "run").rglob("*samples*.jsonl"))


@pytest.mark.e2e
def test_an_unconfined_run_is_recorded_in_every_sample(tmp_path, data):
    res = run_lmms_eval_cli(f"cwi_code_{TASK}", "cwi_coder", out_dir=tmp_path / "run",
                            env={"LMMS_PLUGINS_CWI_ROOT": str(data), "LMMS_PLUGINS_SANDBOX": "unconfined"})
    samples = res["_samples"][f"cwi_code_{TASK}"]
    assert len(samples) == 2
    for sample in samples:
        assert sample["rounds_used"]["sandbox"] == "unconfined"
        assert all(sample[m]["unconfined"] is True for m in ("accuracy", "rounds_used", "executions")), sample
        raw = sample["filtered_resps"]
        while isinstance(raw, list):
            raw = raw[0]
        trace = json.loads(raw)["cwi_code"]
        assert trace["sandbox"] == "unconfined" and trace["executions"][0]["status"] == "ok"
    assert "unconfined" in res["_stdout"] + res["_stderr"]  # the end-of-run lines count them
