import json

from lmms_plugins.utils.model_output import parse_model_output


def test_json_with_text_and_existing_image(tmp_path):
    img = tmp_path / "a.png"
    img.write_bytes(b"x")
    out = parse_model_output(json.dumps({"text": "done", "images": [str(img)]}))
    assert out.text == "done" and out.images == (str(img),) and out.has_image and out.problems == ()


def test_bare_string_is_text_only():
    out = parse_model_output("I cannot do this.")
    assert out.text == "I cannot do this." and out.images == () and out.problems == ()


def test_json_with_missing_images_field_is_reported():
    out = parse_model_output(json.dumps({"text": "hi"}))
    assert out.text == "hi" and not out.has_image
    assert any("no 'images'" in p for p in out.problems)


def test_json_with_empty_images_is_fine():
    out = parse_model_output(json.dumps({"text": "no image", "images": []}))
    assert out.images == () and out.problems == ()


def test_generated_image_saved_to(tmp_path):
    img = tmp_path / "edit.png"
    img.write_bytes(b"x")
    out = parse_model_output(f"Generated image saved to: {img}")
    assert out.images == (str(img),) and out.text == ""


def test_nonexistent_path_is_reported_not_returned(tmp_path):
    ghost = str(tmp_path / "ghost.png")
    out = parse_model_output(json.dumps({"text": "t", "images": [ghost]}))
    assert out.images == () and out.missing == (ghost,)
    assert any("does not exist" in p for p in out.problems)


def test_non_utf8_bytes_are_decoded_with_a_problem():
    out = parse_model_output(b"ok \xff\xfe junk")
    assert out.text.startswith("ok ") and any("UTF-8" in p for p in out.problems)


def test_broken_json_is_read_as_text():
    out = parse_model_output('{"text": "unclosed')
    assert out.text == '{"text": "unclosed' and any("does not parse" in p for p in out.problems)


def test_none_and_non_string_inputs():
    assert parse_model_output(None).problems == ("output is None",)
    assert "int" in parse_model_output(42).problems[0]


def test_images_not_a_list_and_bad_entries(tmp_path):
    img = tmp_path / "a.png"
    img.write_bytes(b"x")
    out = parse_model_output(json.dumps({"text": "", "images": [str(img), 3]}))
    assert out.images == (str(img),) and any("not a path" in p for p in out.problems)
    out = parse_model_output(json.dumps({"text": "", "images": 7}))
    assert out.images == () and any("not a list" in p for p in out.problems)


def test_relative_paths_resolve_against_base_dir(tmp_path):
    (tmp_path / "b.png").write_bytes(b"x")
    out = parse_model_output(json.dumps({"text": "", "images": ["b.png"]}), base_dir=str(tmp_path))
    assert out.images == (str(tmp_path / "b.png"),)


def test_model_reported_error_is_a_problem():
    out = parse_model_output(json.dumps({"text": "", "images": [], "error": "no recorded output"}))
    assert any("no recorded output" in p for p in out.problems)
