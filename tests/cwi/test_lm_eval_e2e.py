"""End to end (issue #17): the real ``lm_eval`` CLI (EleutherAI lm-eval 0.4.x) runs CwI tasks and a
group from ``lmms-plugins tasks-dir --harness lm-eval``, offline, on a generated local copy, with
lm-eval's own ``local-chat-completions`` model (images on) against a loopback OpenAI server.

The server recognises each item by the pixels of the images the request carried (both images of
a two-image item, in order) and by its prompt, and answers with a planned reply: right, wrong,
unparsable, or empty (a failed generation). The same replies go through lmms-eval's CLI with the
``replay`` model (run at the same time, to save wall time), and through the shared scorer
directly: every metric of every task and of the group is the same number in all three.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from lmms_plugins.demo import OFFLINE_ENV
from lmms_plugins.tasks.cwi import hooks
from lmms_plugins.tasks.cwi.catalog import FAMILIES
from lmms_plugins.tasks.cwi.generate import main as make_data
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer, Reply, image_urls, message_text  # noqa: E402

pytest.importorskip("lm_eval", reason="lm-eval comes with the [test] and [lm-eval] extras")

GROUP = "cwi_color"  # five tasks, two-image items among them
TASKS = [*FAMILIES["color"], "anomaly_v2"]  # anomaly_v2: its rule reads the item's grid
N = 4  # one item per tier
AGGREGATIONS = {
    "accuracy": hooks.aggregate_accuracy,
    "accuracy_easy": hooks.aggregate_accuracy_easy,
    "accuracy_medium": hooks.aggregate_accuracy_medium,
    "accuracy_hard": hooks.aggregate_accuracy_hard,
    "accuracy_expert": hooks.aggregate_accuracy_expert,
    "generation_failure_rate": hooks.aggregate_generation_failure_rate,
    "extraction_failure_rate": hooks.aggregate_extraction_failure_rate,
}


def _pixels(image) -> str:
    image = image.convert("RGB")
    return hashlib.sha256(f"{image.size}".encode() + image.tobytes()).hexdigest()


def _decode(url: str):
    from PIL import Image

    head, _, data = url.partition(",")
    assert head.startswith("data:image/"), head[:40]
    return Image.open(io.BytesIO(base64.b64decode(data)))


def _reply(task: str, index: int, gold: str) -> str:
    """Item ``index`` of each task: right, wrong (parsed), unparsable, right after reasoning; one empty."""
    if index == 0:
        return f"<answer>{gold}</answer>"
    if index == 1:  # every number moved by 37: outside every tolerance of these rules
        return "<answer>" + re.sub(r"\d+", lambda m: str(int(m.group()) + 37), gold) + "</answer>"
    if index == 2:
        return "The image is too noisy to say."
    if task == "anomaly_v2":
        return ""  # the server answered nothing: a failed generation, not an unparsable answer
    return f"Measuring first.\nStep 2 ...\n<answer>{gold}</answer>"


def _items(root: Path, cache: Path) -> dict:
    """(pixel hashes of the item's images, in order) -> the item: task, doc, planned reply."""
    from datasets import load_dataset

    items = {}
    for task in TASKS:
        # a cache of its own: datasets' shared cache can serve another folder's copy of the same config
        docs = load_dataset(str(root), task, cache_dir=str(cache))["test"]
        assert len(docs) == N
        for index, doc in enumerate(docs):
            key = tuple(_pixels(im) for im in hooks.doc_to_visual(doc))
            assert key not in items, "two items with the same images: the server could not tell them apart"
            items[key] = {"task": task, "doc": doc, "reply": _reply(task, index, doc["answer"])}
    return items


class ItemServer:
    """Answers a chat request with the planned reply of the item whose images it carries."""

    def __init__(self, items: dict):
        self.items, self.seen, self.problems = items, Counter(), []
        self.lock = threading.Lock()

    def __call__(self, request: dict):
        key = tuple(_pixels(_decode(u)) for u in image_urls(request))
        item = self.items.get(key)
        text = message_text(request)
        with self.lock:
            if item is None:
                self.problems.append(f"a request with {len(key)} image(s) that match no item: {text[:120]!r}")
                return Reply(400, {"error": {"message": "unknown images"}})
            doc = item["doc"]
            if doc["prompt"] not in text or not text.startswith("<image>" * len(key)):
                self.problems.append(f"{doc['id']}: the request's text is not the item's prompt: {text[:120]!r}")
            self.seen[doc["id"]] += 1
        return item["reply"]


def _expected(items: dict) -> dict:
    """Per task and for the group: each metric from the shared scorer and aggregations."""
    per_task: dict[str, dict[str, list]] = {}
    for item in items.values():
        scored = hooks.process_results(item["doc"], [item["reply"]], rule=rule_for_task(item["task"]))
        for metric, sample in scored.items():
            per_task.setdefault(item["task"], {}).setdefault(metric, []).append(sample)
    out = {f"cwi_{t}": {m: AGGREGATIONS[m](samples) for m, samples in metrics.items()} for t, metrics in per_task.items()}
    members = [f"cwi_{t}" for t in FAMILIES["color"]]  # equal sizes: the size-weighted mean is the plain mean
    out[GROUP] = {m: sum(out[t][m] for t in members) / len(members) for m in AGGREGATIONS}
    return out, per_task


def _lm_eval_command(base_url: str, out_dir: Path) -> list[str]:
    script = Path(sys.executable).with_name("lm_eval")
    return [
        str(script) if script.exists() else "lm_eval",
        "--model", "local-chat-completions",
        # max_images: lm-eval sends the first image only unless told more
        "--model_args", f"model=fake,base_url={base_url}/chat/completions,max_images=2,num_concurrent=4,max_retries=1",
        "--tasks", ",".join([GROUP, "cwi_anomaly_v2"]),
        "--include_path", subprocess.run([sys.executable, "-m", "lmms_plugins", "tasks-dir", "--harness", "lm-eval"],
                                         capture_output=True, text=True, check=True).stdout.strip(),
        "--apply_chat_template",
        "--output_path", str(out_dir),
        "--log_samples",
    ]


def _lm_eval_results(out_dir: Path) -> dict:
    """The newest results_<date>.json that lm-eval wrote under out_dir/<model>/."""
    found = sorted(out_dir.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    assert found, f"lm_eval wrote no results under {out_dir}"
    return json.loads(found[-1].read_text())


def _lm_eval_samples(out_dir: Path) -> dict[str, list[dict]]:
    """lm-eval writes each sample's metric value with str(): read the dicts back."""
    samples = {}
    for path in out_dir.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for row in rows:
            for metric in AGGREGATIONS:
                if isinstance(row.get(metric), str):
                    row[metric] = ast.literal_eval(row[metric])
        samples[task] = rows
    return samples


@pytest.mark.e2e
def test_lm_eval_cli_scores_cwi_like_lmms_eval(tmp_path, run_lmms_eval):
    root = tmp_path / "cwi"
    assert make_data(["--tasks", "color,anomaly_v2", "--n", str(N), "--seed", "5", "--out", str(root)]) == 0
    items = _items(root, tmp_path / "datasets_cache")
    server = ItemServer(items)
    replay = tmp_path / "replies.jsonl"
    replay.write_text("".join(json.dumps({"key": i["doc"]["id"], "text": i["reply"]}) + "\n" for i in items.values()))
    env = {**os.environ, **OFFLINE_ENV, "HF_HOME": str(tmp_path / "hf_lm_eval"), "LMMS_PLUGINS_CWI_ROOT": str(root)}

    lm_out = tmp_path / "lm_eval_run"
    with FakeJudgeServer(server, model="fake") as fake:
        log = (tmp_path / "lm_eval.log").open("w")
        proc = subprocess.Popen(_lm_eval_command(fake.base_url, lm_out), stdout=log, stderr=subprocess.STDOUT,
                                env=env, cwd=tmp_path)
        try:  # lmms-eval with the same replies meanwhile
            lmms = run_lmms_eval(f"{GROUP},cwi_anomaly_v2", "replay", f"outputs={replay}", out_dir=tmp_path / "lmms_run",
                                 env={"LMMS_PLUGINS_CWI_ROOT": str(root)})
            code = proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
            log.close()
    tail = (tmp_path / "lm_eval.log").read_text()[-5000:]
    # the server's own findings first: a request it refused makes lm_eval fail with aiohttp errors
    assert not server.problems, server.problems
    assert code == 0, tail
    assert sorted(server.seen.values()) == [1] * len(items), server.seen  # every item asked once
    assert sum(len(k) == 2 for k in items) > 0  # and two-image items carried both images
    lm = _lm_eval_results(lm_out)
    expected, per_task = _expected(items)

    # the plan covers every outcome: right, wrong, unparsable, failed generation
    statuses = Counter((s["value"], s["status"]) for m in per_task.values() for s in m["accuracy"])
    assert statuses[(1.0, "ok")] and statuses[(0.0, "ok")] and statuses[(0.0, "unparsable")]
    assert statuses[(0.0, "generation_failed")] == 1

    for name, metrics in expected.items():
        lm_row = lm["groups"][name] if name == GROUP else lm["results"][name]
        lmms_row = lmms["results"][name]
        for metric, value in metrics.items():
            # NaN where no item of the metric was generated (CwI 2.1): NaN in both harnesses
            assert lm_row[f"{metric},none"] == pytest.approx(value, nan_ok=True), (name, metric)
            assert lmms_row[f"{metric},none"] == pytest.approx(value, nan_ok=True), (name, metric)
            lm_se, lmms_se = lm_row[f"{metric}_stderr,none"], lmms_row[f"{metric}_stderr,none"]
            assert lm_se == lmms_se or lm_se == pytest.approx(lmms_se, nan_ok=True), (name, metric, lm_se, lmms_se)
        assert lm_row["accuracy_stderr,none"] != "N/A", name  # the declared standard error reaches lm-eval

    # sample by sample: the same verdict in both harnesses, and the same reason (a failed
    # generation's reason names the wrapper's form: "" from lm-eval, {"text": ""} from replay)
    lm_samples = _lm_eval_samples(lm_out)
    for task in TASKS:
        mine = {s["accuracy"]["id"]: s["accuracy"] for s in lm_samples[f"cwi_{task}"]}
        theirs = {s["accuracy"]["id"]: s["accuracy"] for s in lmms["_samples"][f"cwi_{task}"]}
        assert mine.keys() == theirs.keys() and len(mine) == N
        for sid, sample in mine.items():
            assert (sample["value"], sample["status"], sample["predicted"]) == (
                theirs[sid]["value"], theirs[sid]["status"], theirs[sid]["predicted"]), sid
            if sample["status"] != "generation_failed":
                assert sample["reason"] == theirs[sid]["reason"], sid

    # and `lmms-plugins compare` pairs the two harnesses' runs item by item: nothing discordant
    from lmms_plugins.compare import compare

    paired = {p.task: p for p in compare([lm_out, tmp_path / "lmms_run"]).paired if p.metric == "accuracy"}
    for task in TASKS:
        p = paired[f"cwi_{task}"]
        assert p.n_shared == N and p.dropped == 0 and p.discordant == (0, 0), p
