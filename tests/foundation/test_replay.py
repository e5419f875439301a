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


@pytest.mark.parametrize("line, says", [
    ('{"doc_id": 0.7, "text": "x"}', "'doc_id' must be a non-negative integer, got 0.7"),
    ('{"doc_id": "3", "text": "x"}', "'doc_id' must be a non-negative integer, got str '3'"),
    ('{"doc_id": true, "text": "x"}', "got bool True"),
    ('{"doc_id": -1, "text": "x"}', "got -1"),
    ('{"doc_id": null, "text": "x"}', "got NoneType None"),
    ('{"key": {"a": 1}, "text": "x"}', "'key' must be a non-empty string or an integer"),
    ('{"key": "", "text": "x"}', "'key' must be a non-empty string"),
    ('{"key": "b", "image": 5}', "'image' must be a path (a non-empty string), got int 5"),
    ('{"key": "b", "image": ["a.png"]}', "'image' must be a path"),
    ('{"key": "b", "images": [1, 2]}', "'images' must be a path or a list of paths"),
    ('{"key": "b", "images": {"a": "x.png"}}', "'images' must be a path or a list of paths"),
    ('{"key": "b", "images": ["ok.png", ""]}', "'images' must be a path or a list of paths"),
    ('{"doc_id": 1, "task": 7}', "'task' must be a string"),
    ('[1, 2]', "each line must be a JSON object, got list"),
    ('{"key": "a", "text": "again"}', "key 'a' was already given on line 1"),
])
def test_every_line_is_checked_at_load_and_named_by_file_and_line(tmp_path, replay_cls, line, says):
    """A wrong type stops the run when the model is made, naming file and line, instead of failing
    (or reading doc_id 0.7 as 0) when the sample is generated."""
    path = tmp_path / "run.jsonl"
    path.write_text('{"key": "a", "text": "first"}\n' + line + "\n")
    with pytest.raises(ValueError) as err:
        replay_cls(outputs=str(path))
    assert str(err.value).startswith(f"{path}:2: ") and says in str(err.value), str(err.value)


def test_integral_doc_ids_and_null_images_load(tmp_path, replay_cls):
    path = tmp_path / "run.jsonl"
    path.write_text('{"doc_id": 3.0, "text": "three", "image": null}\n{"doc_id": 4, "task": "t", "images": null}\n')
    model = replay_cls(outputs=str(path))
    assert set(model.by_doc) == {3} and set(model.by_task_doc) == {("t", 4)}
