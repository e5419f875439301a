"""The replay model's lookup, without the CLI (the CLI path is in test_e2e_registration.py)."""

import json

import pytest

from lmms_plugins.utils.model_output import parse_model_output


@pytest.fixture
def replay_cls():
    from lmms_plugins.models.replay import Replay

    return Replay


def test_lookup_by_key_doc_id_and_image_folder(tmp_path, replay_cls):
    (tmp_path / "imgs" / "dod_no_hint").mkdir(parents=True)
    (tmp_path / "imgs" / "dod_no_hint" / "m-2.png").write_bytes(b"png")
    (tmp_path / "edit.png").write_bytes(b"png")
    rows = [
        {"key": "m-1", "text": "drawn", "image": "edit.png"},
        {"doc_id": 5, "task": "cwi_alignment", "text": "<answer>1,2</answer>"},
        {"doc_id": 6, "text": "any task"},
        {"key": "m-3", "text": "gone", "images": ["nope.png"]},
    ]
    outputs = tmp_path / "run.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    model = replay_cls(outputs=str(outputs), images=str(tmp_path / "imgs"))

    first = parse_model_output(model.answer("dod_no_hint", 0, {"case_id": "m-1"}))
    assert first.text == "drawn" and first.images == (str(tmp_path / "edit.png"),)
    assert parse_model_output(model.answer("cwi_alignment", 5, {"id": "zz"})).text == "<answer>1,2</answer>"
    assert parse_model_output(model.answer("other", 6, None)).text == "any task"
    folder = parse_model_output(model.answer("dod_no_hint", 1, {"case_id": "m-2"}))
    assert folder.images == (str(tmp_path / "imgs" / "dod_no_hint" / "m-2.png"),)
    missing = parse_model_output(model.answer("dod_no_hint", 3, {"case_id": "m-3"}))
    assert not missing.has_image and any("missing" in p for p in missing.problems)
    unknown = parse_model_output(model.answer("dod_no_hint", 9, {"case_id": "m-9"}))
    assert unknown.text == "" and any("no recorded output" in p for p in unknown.problems)
    assert len(model.problems) == 2


def test_bad_files_are_specific_errors(tmp_path, replay_cls):
    with pytest.raises(ValueError, match="outputs=<file.jsonl>"):
        replay_cls()
    with pytest.raises(FileNotFoundError, match="outputs file not found"):
        replay_cls(outputs=str(tmp_path / "absent.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "a", "text": "ok"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        replay_cls(outputs=str(bad))
    nokey = tmp_path / "nokey.jsonl"
    nokey.write_text('{"text": "ok"}\n')
    with pytest.raises(ValueError, match="'key' or 'doc_id'"):
        replay_cls(outputs=str(nokey))
