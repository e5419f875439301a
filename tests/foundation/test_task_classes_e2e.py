"""The real lmms-eval CLI builds this package's ``class:`` tasks for the model's kind.

lmms-eval 0.7.3 builds a YAML ``class:`` task as that class whatever the model, so a chat model
would get simple-model requests (lmms_plugins/harness/task_type.py). lmms-eval's own ``openai``
wrapper is a chat model, and a simple one with ``--force_simple``: both run cwi_alignment and
dod_no_hint against a loopback OpenAI-compatible server that gives every CwI item the same answer
and declines every DoD request; every sample is scored (none failed), and the two runs score the
same, sample by sample.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "dod"):
    sys.path.insert(0, str(folder))

import dod_fixtures  # noqa: E402
from judge_server import FakeJudgeServer, message_text  # noqa: E402

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from lmms_plugins.tasks.cwi.generate import main as make_cwi

    root = tmp_path_factory.mktemp("classes")
    assert make_cwi(["--tasks", "alignment", "--n", "4", "--seed", "5", "--out", str(root / "cwi")]) == 0
    dod = dod_fixtures.make_dataset(root / "dod", pairs_per_category=1, maze_pairs=0)
    return {"LMMS_PLUGINS_CWI_ROOT": str(root / "cwi"), "LMMS_PLUGINS_DOD_ROOT": str(dod), "LMMS_PLUGINS_DATA_ROOT": "",
            "LMMS_PLUGINS_JUDGE_BASE_URL": "", "OPENAI_API_KEY": "none"}  # no judge: DoD's editing judge is off


def reply(request: dict) -> str:
    if "<answer>" in message_text(request):  # a CwI prompt asks for the answer in these tags
        return "<answer>0,0</answer>"
    return "There is no valid solution: the requested object is not in the image, so this edit is impossible."


def scored(samples: list[dict], metric: str) -> list:
    return sorted((s["doc_id"], s[metric]["status"], json.dumps(s[metric].get("value"))) for s in samples)


def test_a_chat_and_a_simple_model_run_the_same_class_tasks(tmp_path, run_lmms_eval, env):
    runs = {}
    for kind in ("chat", "simple"):
        with FakeJudgeServer(reply, model="m") as server:
            runs[kind] = run_lmms_eval("cwi_alignment,dod_no_hint", "openai",
                                       f"model=m,base_url={server.base_url},api_key=none,max_retries=1",
                                       out_dir=tmp_path / kind, env=env,
                                       extra_args=["--force_simple"] if kind == "simple" else [])
        assert server.calls == 4 + 12 and not server.handler_errors, kind
        assert runs[kind]["config"]["model_backend"].endswith(f"({kind})"), runs[kind]["config"]["model_backend"]
    chat, simple = runs["chat"], runs["simple"]
    cwi = scored(chat["_samples"]["cwi_alignment"], "accuracy")
    assert len(cwi) == 4 and {status for _, status, _ in cwi} == {"ok"}  # every answer read, none failed
    assert cwi == scored(simple["_samples"]["cwi_alignment"], "accuracy")
    dod = scored(chat["_samples"]["dod_no_hint"], "dod_run")
    assert len(dod) == 12 and {status for _, status, _ in dod} == {"ok"}
    assert dod == scored(simple["_samples"]["dod_no_hint"], "dod_run")
    assert chat["results"]["dod_no_hint"]["D_strict,none"] == 1.0  # every infeasible request declined
    for task in ("cwi_alignment", "dod_no_hint"):  # (as JSON: a NaN rate equals itself there)
        assert json.dumps(chat["results"][task], sort_keys=True) == json.dumps(simple["results"][task], sort_keys=True)
