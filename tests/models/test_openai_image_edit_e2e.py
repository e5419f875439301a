"""The real lmms-eval CLI, ONE invocation: openai_image_edit edits DoD (dod_no_hint), ABACUS
(abacus_add_easy) and GRADE samples through a real Images server on 127.0.0.1 that checks every
received image and prompt against the local datasets; GRADE is judged by the fake judge server.

The server answers like a real service would: b64_json images (DoD, ABACUS), image URLs (GRADE),
text refusals (DoD's infeasible requests, one GRADE sample) and one 429 with Retry-After."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import threading
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "dod", TESTS / "grade"):
    sys.path.insert(0, str(folder))

import dod_fixtures  # noqa: E402
import grade_fixtures  # noqa: E402
from images_server import FakeImagesServer, Reply, UrlImage  # noqa: E402
from task_settings import settings_include  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402

from lmms_plugins.utils.jsonl import read_jsonl  # noqa: E402

pytestmark = pytest.mark.e2e

REFUSAL = "This cannot be done: the request contradicts itself, so it is impossible. I will not generate an image."


def pixels_key(image) -> str:
    rgb = image.convert("RGB")
    return hashlib.sha256(repr(rgb.size).encode() + rgb.tobytes()).hexdigest()


def file_key(path: Path) -> str:
    from PIL import Image

    with Image.open(path) as im:
        return pixels_key(im)


def dod_cases(root: Path) -> list[dict]:
    """DoD requests: (input image key, prompt fragment, reply) per case."""
    labels = {r["case_id"]: r for r in dod_fixtures.read_jsonl(root / "ground_truth_criteria.jsonl")}
    cases = []
    for req in dod_fixtures.read_jsonl(root / "instruction.jsonl"):
        label = labels[req["case_id"]]
        if label["ground_truth"]["feasible"]:
            reply = (root / label["reference_image"]).read_bytes()  # the reference edit (a maze's solution)
        else:
            reply = REFUSAL
        cases.append({"id": req["case_id"], "key": file_key(root / req["input_image"]), "fragment": req["prompt_en"], "reply": reply})
    return cases


def abacus_cases(data: Path, task: str) -> list[dict]:
    import pyarrow.parquet as pq
    from PIL import Image

    op, tier = task.split("_")[1:]
    rows = pq.read_table(data / op / f"{tier}-00000-of-00001.parquet").to_pylist()
    replay = {(r["task"], r["doc_id"]): r for r in read_jsonl(data / "replay.jsonl")}
    return [{"id": f"{task}/{i}", "key": pixels_key(Image.open(io.BytesIO(row["image"]["bytes"]))), "fragment": row["prompt"],
             "reply": (data / replay[(task, i)]["image"]).read_bytes()} for i, row in enumerate(rows)]


def grade_cases(root: Path, tmp: Path) -> list[dict]:
    out = []
    for record, case in zip(json.loads((root / "data.json").read_text()), grade_fixtures.CASES):
        if case.colour is None:
            reply = "I could not draw this."
        else:
            path = grade_fixtures.write_png(tmp / f"{case.task_id}.png", (256, 256), case.colour)
            reply = UrlImage(path.read_bytes())
        out.append({"id": case.task_id, "key": file_key(root / record["image_path"]), "fragment": record["text"], "reply": reply})
    return out


def test_dod_abacus_and_grade_through_openai_image_edit(tmp_path, run_lmms_eval):
    from lmms_plugins.tasks.abacus import synthetic as syn

    dod_root = dod_fixtures.make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=2)
    abacus_root = tmp_path / "abacus"
    assert syn.main(["--out", str(abacus_root), "--n", "2", "--seed", "11", "--edits", "touch"]) == 0
    grade_root = grade_fixtures.make_dataset(tmp_path / "GRADE")
    cases = dod_cases(dod_root) + abacus_cases(abacus_root, "abacus_add_easy") + grade_cases(grade_root, tmp_path / "grade_edits")

    lock = threading.Lock()
    seen: dict[str, int] = {}
    mismatches: list[str] = []

    def handler(req):
        with lock:
            first = not seen and "rate_limited" not in seen
            if first:
                seen["rate_limited"] = 1
        if first:  # the very first request is told to come back later, once
            return Reply(429, {"error": {"message": "rate limited", "type": "requests"}}, {"Retry-After": "1"})
        if len(req.images) != 1:
            mismatches.append(f"{len(req.images)} images for {req.prompt[:60]!r}")
            return Reply(400, {"error": {"message": "expected one image"}})
        key = pixels_key(req.images[0])
        match = [c for c in cases if c["key"] == key and c["fragment"] in req.prompt]
        if len(match) != 1:
            mismatches.append(f"{len(match)} cases match image {key[:8]} and prompt {req.prompt[:80]!r}")
            return Reply(400, {"error": {"message": "unknown image/prompt"}})
        with lock:
            seen[match[0]["id"]] = seen.get(match[0]["id"], 0) + 1
        return match[0]["reply"]

    edits = tmp_path / "edits"
    with FakeImagesServer(handler) as images, FakeJudgeServer(grade_fixtures.canned_judge) as judge:
        env = {
            "LMMS_PLUGINS_DOD_ROOT": str(dod_root), "LMMS_PLUGINS_ABACUS_ROOT": str(abacus_root),
            "LMMS_PLUGINS_GRADE_ROOT": str(grade_root), "LMMS_PLUGINS_DATA_ROOT": "",
            "LMMS_PLUGINS_JUDGE_BASE_URL": judge.base_url, "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
            "LMMS_PLUGINS_JUDGE_API_KEY": "dummy", "LMMS_PLUGINS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "OPENAI_API_KEY": "sk-test",
        }
        model_args = f"model=fake-image-editor,base_url={images.base_url},concurrency=4,output_dir={edits},size=1024x1024"
        mine = settings_include(tmp_path / "settings", {"dod_no_hint": {"edit_judge": "off"},
                                                        "abacus_add_easy": {"detector": "synthetic_test"}})
        res = run_lmms_eval("dod_no_hint,abacus_add_easy,grade", "openai_image_edit", model_args, out_dir=tmp_path / "run", env=env,
                            include_path=mine)
        assert not judge.handler_errors, judge.handler_errors[0]
    assert not images.handler_errors and not mismatches, (images.handler_errors + mismatches)[:3]
    # every sample was edited exactly once, plus the one rate-limited request that came back
    assert seen.pop("rate_limited") == 1 and seen == {c["id"]: 1 for c in cases}
    assert images.calls == len(cases) + 1
    assert {r.fields["model"] for r in images.requests} == {"fake-image-editor"}
    assert {r.fields["size"] for r in images.requests} == {"1024x1024"}

    # DoD: every infeasible request declined in text, every feasible one answered with its reference
    dod = res["results"]["dod_no_hint"]
    n_real, n_maze = len(dod_fixtures.REAL_CATEGORIES), 2
    assert dod["D_strict,none"] == 1.0 and dod["D_lenient,none"] == 1.0 and dod["D_f,none"] == 0.0
    assert dod["dod_breakdown,none"]["E"] == [n_maze, n_real, n_real + n_maze]  # success, pending, total
    from lmms_plugins.tasks.dod.breakdown import summaries

    e = summaries(Path(res["_path"]).parent)["dod_no_hint"]["E"]
    assert (e["reviewed"], e["statuses"]) == (n_maze, {"no_edit_judge": n_real})  # real-world edits: no editing judge here
    assert dod["sample_statuses,none"] == {"ok": n_real + 2 * n_maze, "no_edit_judge": n_real}
    for sample in res["_samples"]["dod_no_hint"]:
        resp = sample["filtered_resps"]
        out = json.loads(resp[0] if isinstance(resp, list) else resp)
        if out["images"]:
            assert Path(out["images"][0]).parent == edits / "dod_no_hint"

    # ABACUS: the touched edits the server returned score what the generator says they must
    truth = {t["doc_id"]: t for t in read_jsonl(abacus_root / "truth.jsonl") if t["task"] == "abacus_add_easy"}
    abacus = res["results"]["abacus_add_easy"]
    assert abacus["abacus_count_fidelity,none"] == pytest.approx(sum(t["cf"] for t in truth.values()) / 2)
    assert abacus["abacus_conservation,none"] == pytest.approx(sum(t["oc"] for t in truth.values()) / 2)
    assert abacus["abacus_leaderboard,none"]["status_counts"] == {"ok": 2}

    # GRADE: the hand-computed scores of the canned verdicts (the text-only reply has no image)
    grade = res["results"]["grade"]
    expected = grade_fixtures.expected_scores()
    for name in ("strict", "lenient", "reasoning", "consistency", "readability"):
        assert grade[f"grade_{name},none"] == pytest.approx(expected[name]), name
    assert grade["grade_breakdown,none"]["status_counts"] == {"missing_image": 1, "ok": 5}
    assert sorted(p.name for p in (edits / "grade").iterdir()) == sorted(
        f"{i:06d}.png" for i, c in enumerate(grade_fixtures.CASES) if c.colour is not None)
