"""Loading GRADE-layout data: the records, the errors that name what is missing, the prompt and image hooks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_fixtures import CASES, make_dataset  # noqa: E402

from lmms_plugins.tasks.grade import hooks  # noqa: E402
from lmms_plugins.tasks.grade.records import GradeDataError, load_records  # noqa: E402
from lmms_plugins.utils.data_roots import MissingDataError  # noqa: E402


def edit(root: Path, fn) -> None:
    data = json.loads((root / "data.json").read_text())
    fn(data)
    (root / "data.json").write_text(json.dumps(data))


def test_records_are_normalised(tmp_path):
    root = make_dataset(tmp_path / "g")
    docs = load_records(root)
    assert [d["task_id"] for d in docs] == [c.task_id for c in CASES]
    d = {d["task_id"]: d for d in docs}
    assert d["board_chess_001"]["domain"] == "sports" and d["engineering_views_001"]["domain"] == "physics"
    assert Path(d["eco_macro_001"]["image_path"]).is_absolute() and Path(d["eco_macro_001"]["gt"]).is_file()
    assert json.loads(d["eco_macro_001"]["questions"])[1] == {"id": "Q2", "question": "Is E1 marked?", "score": 0.5}


@pytest.mark.parametrize(
    "change, error, message",
    [
        (lambda data: data[0].update(consistency="partial"), GradeDataError, "physics_mech_001: consistency must be one of"),
        (lambda data: data[1].update(questions=[]), GradeDataError, "board_chess_001: questions must be a non-empty list"),
        (lambda data: data[1]["questions"][0].update(score="heavy"), GradeDataError, "board_chess_001: question 1 has no numeric 'score'"),
        (lambda data: data[2].pop("text"), GradeDataError, "engineering_views_001: field 'text'"),
        (lambda data: data[3].update(task_id="physics_mech_001"), GradeDataError, "duplicate task_id"),
        (lambda data: data[4].update(gt="images/gt/nope.png"), MissingDataError, "math_geo_001: .*nope.png"),
    ],
)
def test_bad_records_are_named(tmp_path, change, error, message):
    root = make_dataset(tmp_path / "g")
    edit(root, change)
    with pytest.raises(error, match=message):
        load_records(root)


def test_missing_data_json_says_how_to_provide_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_GRADE_ROOT", str(tmp_path))
    with pytest.raises(MissingDataError, match=r"(?s)data.json not found.*LMMS_PLUGINS_GRADE_ROOT"):
        hooks.process_docs(None)


def test_process_docs_reads_the_local_root_and_hooks_feed_the_model(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "g")
    monkeypatch.setenv("LMMS_PLUGINS_PREFLIGHT", "off")  # about the data: no judge here (preflight has its own tests)
    monkeypatch.delenv("LMMS_PLUGINS_GRADE_ROOT", raising=False)
    monkeypatch.setenv("LMMS_PLUGINS_DATA_ROOT", str(tmp_path))
    (tmp_path / "grade").symlink_to(root)
    ds = hooks.process_docs(None)
    assert len(ds) == len(CASES) and ds[0]["task_id"] == CASES[0].task_id
    doc = ds[0]
    assert hooks.doc_to_text(doc) == "Edit the diagram of physics_mech_001."
    assert hooks.doc_to_text(doc, {"pre_prompt": "Task: ", "post_prompt": " Output the edited image."}) == (
        "Task: Edit the diagram of physics_mech_001. Output the edited image.")
    (image,) = hooks.doc_to_visual(doc)
    assert image.mode == "RGB" and image.size == (1600, 800)
