"""DoD reads requests as the official code does (issue 19): ``input_images or [input_image]``, and the
judges read the prompt the model saw (with the hint in decline_hint)."""

from __future__ import annotations

import json

from dod_fixtures import make_dataset, png, read_jsonl, write_jsonl
from judge_server import FakeJudgeServer, image_urls, message_text

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.data import check_integrity
from lmms_plugins.tasks.dod.settings import SETTINGS
from lmms_plugins.utils.settings import resolve

HINT = "If no solution exists under these constraints"


def two_image_root(tmp_path):
    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    requests = read_jsonl(root / "instruction.jsonl")
    png(root / "image/second-view.png", (200, 200, 10), size=(40, 30))
    for r in requests:
        if r["case_id"].startswith("pose_adjustment-1"):
            r["input_images"] = [r["input_image"], "image/second-view.png"]
    write_jsonl(root / "instruction.jsonl", requests)
    docs = {d["case_id"]: {**d, "dod_root": str(root)} for d in requests}
    return root, docs


def test_every_input_image_is_given_to_the_model_and_checked(tmp_path):
    root, docs = two_image_root(tmp_path)
    first, second = hooks.doc_to_visual(docs["pose_adjustment-1-feasible"])
    assert first.size == (96, 64) and second.size == (40, 30)
    assert len(hooks.doc_to_visual(docs["material_modification-1-feasible"])) == 1  # input_image alone
    (root / "image/second-view.png").unlink()
    report = check_integrity(read_jsonl(root / "instruction.jsonl"), root)
    assert ("pose_adjustment-1-feasible", "image/second-view.png") in report.missing_image
    res = hooks.process_results(docs["pose_adjustment-1-feasible"], ['{"text": "x", "images": []}'])
    assert res["E"]["status"] == "missing_data" and "second-view" in res["E"]["reason"]


def test_judges_see_all_inputs_and_the_prompt_the_model_saw(tmp_path, monkeypatch):
    root, docs = two_image_root(tmp_path)
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    out_img = png(tmp_path / "edit.png", (10, 200, 10))
    seen = []

    def handler(request):
        seen.append((message_text(request), len(image_urls(request))))
        if image_urls(request):
            return '{"task_image_correct": true, "unrelated_content_preserved": true, "reason": "fine"}'
        return json.dumps({"concludes_infeasible": False, "reason_correct": None, "evidence": "", "reason": "r"})

    answer = [json.dumps({"text": "I will draw it.", "images": [str(out_img)]})]
    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        judge_mode = resolve(SETTINGS, {"refusal_mode": "judge"})
        hinted = hooks.process_results_decline_hint(docs["pose_adjustment-1-feasible"], answer, settings=judge_mode)
        assert hinted["E"]["value"] == 1.0
        assert [n for _, n in seen] == [0, 3]  # refusal question; edit question with 2 inputs + the output
        assert all(HINT in text for text, _ in seen)
        seen.clear()
        plain = hooks.process_results(docs["pose_adjustment-1-feasible"], answer, settings=judge_mode)
        assert plain["E"]["value"] == 1.0 and seen and not any(HINT in text for text, _ in seen)
