"""GRADE regressions of issue #15: confined data paths (8), bad images without a judge (6),
a deeply nested judge reply that must not stop the other dimensions (2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_fixtures import CASES, canned_judge, kind_of, make_dataset, make_outputs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer  # noqa: E402

from lmms_plugins.tasks.grade import hooks, judging  # noqa: E402
from lmms_plugins.utils.judge_client import reset_shared_clients  # noqa: E402
from lmms_plugins.tasks.grade.records import load_records  # noqa: E402
from lmms_plugins.utils.images import PathEscapesRoot  # noqa: E402


@pytest.fixture
def data(tmp_path):
    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    docs = {d["task_id"]: d for d in load_records(root)}
    return root, docs, outputs.parent


@pytest.fixture
def no_judge(monkeypatch):
    for name in ("BASE_URL", "MODEL", "API_KEY", "CACHE"):
        monkeypatch.delenv(f"LMMS_PLUGINS_JUDGE_{name}", raising=False)
    reset_shared_clients()


@pytest.mark.parametrize("field,path", [("gt", "/etc/passwd"), ("image_path", "../../../etc/passwd"),
                                        ("gt", "images/../../outside.png")])
def test_grade_records_confine_image_paths_to_the_data_root(data, field, path):
    root = data[0]
    (root.parent / "outside.png").write_bytes((root / "images" / "gt" / f"{CASES[0].task_id}.png").read_bytes())
    records = json.loads((root / "data.json").read_text())
    records[1][field] = path
    (root / "data.json").write_text(json.dumps(records))
    with pytest.raises(PathEscapesRoot, match=rf"{CASES[1].task_id}.*{field}.*escapes"):
        load_records(root)


def test_grade_records_accept_a_symlinked_folder_inside_the_root(data, tmp_path):
    root = data[0]
    (root / "linked").symlink_to(root / "images")  # a link that stays inside the root is fine
    records = json.loads((root / "data.json").read_text())
    records[0]["gt"] = "linked/gt/" + Path(records[0]["gt"]).name
    (root / "data.json").write_text(json.dumps(records))
    assert Path(load_records(root)[0]["gt"]).is_file()


def _answer(path: Path) -> str:
    return json.dumps({"text": "", "images": [str(path)]})


@pytest.mark.parametrize("content", [b"", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"not an image at all"])
def test_grade_bad_image_without_a_judge_is_bad_image(data, no_judge, tmp_path, content):
    _, docs, _ = data
    bad = tmp_path / "run" / "bad.png"
    bad.write_bytes(content)
    rec = hooks.process_results(docs[CASES[0].task_id], [_answer(bad)])["grade_strict"]
    assert rec["status"] == "bad_image", rec
    assert "bad.png" in rec["reason"] and rec["judge_calls"] == 0
    assert (rec["R"], rec["L"]) == (0.0, 0)


def test_grade_good_image_without_a_judge_is_still_judge_error(data, no_judge):
    _, docs, run = data
    rec = hooks.process_results(docs[CASES[0].task_id], [_answer(run / "edited" / f"{CASES[0].task_id}.png")])["grade_strict"]
    assert rec["status"] == "judge_error" and "LMMS_PLUGINS_JUDGE_BASE_URL" in rec["reason"]


def test_grade_deeply_nested_rubric_reply_still_asks_consistency_and_readability(data, monkeypatch, tmp_path):
    _, docs, run = data
    case = CASES[0]
    reset_shared_clients()

    def handler(req):
        if kind_of(req) == "reasoning":
            return "[" * 5000 + "]" * 5000
        return canned_judge(req)

    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
        rec = hooks.process_results(docs[case.task_id], [_answer(run / "edited" / f"{case.task_id}.png")])["grade_strict"]
        kinds = [kind_of(r) for r in server.requests]
    reset_shared_clients()
    assert rec["status"] == "judge_error" and rec["R"] is None, rec
    assert (rec["C"], rec["L"]) == (case.C, case.L)
    assert kinds.count("reasoning") == judging.ANSWER_ATTEMPTS  # asked again, not crashed
    assert "consistency_overall" in kinds and "readability" in kinds
