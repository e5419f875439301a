"""End to end: the real lmms-eval CLI runs the cwi_code tasks' loop, with the model's code executed
in the sandbox between rounds.

1. ``cwi_coder`` on the ``cwi_code`` group (all 30 tasks, 2 items each): its accuracy through the
   loop equals the reference solvers' on the same items.
2. lmms-eval's own ``openai`` wrapper, chat and simple (``--force_simple``), against a loopback
   OpenAI-compatible server: round 1 replies with code that draws a random nonce inside the
   sandbox, prints it with a checksum of the item's image and saves an image coloured by it;
   round 2 answers from the stdout it was sent. The test checks that the nonce in the answer is
   the one the execution printed (only the execution could know it), that the checksum is the
   item's image's, and that the server saw the saved image.
"""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer, image_urls, message_text
from lmms_plugins.tasks.cwi.catalog import TASKS
from lmms_plugins.tasks.cwi.generate import main as make_data

N = 1  # one item per task: 30 executions of the solvers' programs in one CLI run


def _final(sample) -> dict:
    raw = sample["filtered_resps"]
    while isinstance(raw, list):
        raw = raw[0]
    return json.loads(raw)


@pytest.mark.e2e
def test_cwi_coder_through_the_loop_equals_the_solvers(tmp_path, run_lmms_eval):
    from test_e2e_cli import _own_accuracy

    root = tmp_path / "cwi"
    assert make_data(["--tasks", ",".join(TASKS), "--n", str(N), "--seed", "5", "--out", str(root)]) == 0
    res = run_lmms_eval("cwi_code", "cwi_coder", out_dir=tmp_path / "run", env={"LMMS_PLUGINS_CWI_ROOT": str(root)})
    assert "RoundsWarning" not in res["_stdout"] + res["_stderr"]
    own = {}
    for task in TASKS:
        got = res["results"][f"cwi_code_{task}"]
        own[task] = _own_accuracy(root, task)
        assert got["accuracy,none"] == pytest.approx(own[task]), task
        assert got["rounds_used,none"] == 2.0 and got["executions,none"] == 1.0, task
        assert got["execution_errors,none"] == 0.0 and got["timeouts,none"] == 0.0
        assert got["answered_without_code,none"] == 0.0
        for sample in res["_samples"][f"cwi_code_{task}"]:
            trace = _final(sample)["cwi_code"]
            assert trace["ended"] == "answer" and trace["executions"][0]["status"] == "ok"
            assert "answer: " in trace["executions"][0]["stdout"]
            assert "from lmms_plugins.tasks.cwi.solvers" in trace["executions"][0]["code"]
    expected = sum(own.values()) / len(own)
    assert res["results"]["cwi_code"]["accuracy,none"] == pytest.approx(expected)
    assert res["results"]["cwi_code"]["executions,none"] == 1.0  # the group aggregates the loop's counts too
    assert expected >= 0.9


PROBE = """```python
import secrets
import numpy as np
from PIL import Image
a = np.asarray(Image.open("image_1.png").convert("RGB"), dtype=np.int64)
nonce = secrets.token_hex(3)
print("NONCE", nonce, "CHECKSUM", int((a * np.arange(1, a.shape[1] + 1)[None, :, None]).sum() % 1000003))
Image.new("RGB", (16, 16), tuple(bytes.fromhex(nonce))).save("probe.png")
```"""


class ProbeModel:
    """Round 1: the probe program. Round 2: reads NONCE/CHECKSUM from the stdout it was sent and
    the colour of the image attached last."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen: list[dict] = []
        self.rounds: list[int] = []  # the round of each request, in arrival order

    def __call__(self, request: dict) -> str:
        text = message_text(request)
        first = "=== Result of running the code of reply 1 ===" not in text
        with self.lock:
            self.rounds.append(1 if first else 2)
        if first:
            return "I will compute it.\n" + PROBE
        m = re.search(r"stdout:\nNONCE ([0-9a-f]{6}) CHECKSUM (\d+)", text)
        urls = image_urls(request)
        last = Image.open(io.BytesIO(base64.b64decode(urls[-1].split(",", 1)[1]))).convert("RGB")
        with self.lock:
            self.seen.append({"nonce": m and m.group(1), "n_images": len(urls), "colour": last.getpixel((8, 8))})
        if not m:
            return "The program printed nothing I can use."
        return f"<answer>{m.group(1)} {m.group(2)}</answer>"


def _checksum(image) -> int:
    a = np.asarray(image.convert("RGB"), dtype=np.int64)
    return int((a * np.arange(1, a.shape[1] + 1)[None, :, None]).sum() % 1000003)


@pytest.mark.e2e
@pytest.mark.parametrize("flavour", ["chat", "simple"])
def test_openai_wrapper_gets_the_executions_output(tmp_path, run_lmms_eval, flavour):
    from datasets import load_dataset

    root = tmp_path / "cwi"
    assert make_data(["--tasks", "alignment", "--n", "2", "--seed", "9", "--out", str(root)]) == 0
    model = ProbeModel()
    with FakeJudgeServer(model, model="probe") as server:
        res = run_lmms_eval(
            "cwi_code_alignment", "openai",
            f"model=probe,base_url={server.base_url},api_key=none,max_retries=1,num_concurrent=2",
            out_dir=tmp_path / "run", env={"LMMS_PLUGINS_CWI_ROOT": str(root), "OPENAI_API_KEY": "none"},
            extra_args=["--force_simple"] if flavour == "simple" else [],
        )
    assert res["config"]["model"] == "openai"
    assert res["config"]["model_backend"].endswith(f"({flavour})")  # the class task was built for the model's kind
    docs = load_dataset(str(root), "alignment")["test"]
    samples = res["_samples"]["cwi_code_alignment"]
    assert len(samples) == 2 and len(model.seen) == 2
    for sample in samples:
        final = _final(sample)
        ex = final["cwi_code"]["executions"]
        assert len(ex) == 1 and ex[0]["status"] == "ok" and ex[0]["code"].startswith("import secrets")
        nonce, checksum = re.search(r"NONCE (\w+) CHECKSUM (\d+)", ex[0]["stdout"]).groups()
        # the answer carries what the execution printed: the nonce exists nowhere else
        assert final["text"] == f"<answer>{nonce} {checksum}</answer>"
        assert int(checksum) == _checksum(docs[sample["doc_id"]]["image"])  # the code read the item's image
        assert ex[0]["images"][0]["name"] == "probe.png"
        assert sample["rounds_used"]["value"] == 2 and sample["executions"]["value"] == 1
        assert sample["accuracy"]["value"] == 0.0  # scored like cwi_alignment: a nonce is no shift
    assert model.rounds == [1, 1, 2, 2]  # batched: both items' round 1 before any round 2 (lmms-eval alone: 1, 2, 1, 2)
    for seen in model.seen:  # the saved image came back as the last of 3 images (2 item images + probe)
        assert seen["n_images"] == 3 and seen["colour"] == tuple(bytes.fromhex(seen["nonce"]))
    assert res["results"]["cwi_code_alignment"]["executions,none"] == 1.0
