"""#15.8: image paths named by a model's output are read only from the allowed folders.

The default folders are those real wrappers write to (lmms-eval's ``./logs/...`` defaults, the
temporary folder this package's wrappers use, the folders on lmms-eval's command line) plus
``LMMS_PLUGINS_IMAGE_DIRS``; ``/etc/passwd`` is never opened, not even stat'ed.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import pytest

from lmms_plugins.utils.image_dirs import ENV_IMAGE_DIRS, allowed_image_dirs, is_allowed
from lmms_plugins.utils.model_output import parse_model_output

_OPENED: list[str] = []


def _audit(event, args):  # audit hooks stay for the whole session: record only what is looked for
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)) and "passwd" in os.fsdecode(args[0]):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def answer(*paths) -> str:
    return json.dumps({"text": "", "images": [str(p) for p in paths]})


@pytest.fixture
def sandboxed_tmp(tmp_path, monkeypatch):
    """tmp_path/t is the temporary folder and the cwd is tmp_path/cwd; tmp_path/other is outside both."""
    tmp = tmp_path / "t"
    cwd = tmp_path / "cwd"
    for d in (tmp, cwd, tmp_path / "other"):
        d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["pytest"])
    for name in [n for n in os.environ if n.startswith("LMMS_PLUGINS_") and (n.endswith("_ROOT") or n == ENV_IMAGE_DIRS)]:
        monkeypatch.delenv(name)
    return tmp_path


def _png(path):
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4), (1, 2, 3)).save(path)
    return path


def test_image_confinement_refuses_system_files_without_touching_them():
    _OPENED.clear()
    for path in ("/etc/passwd", "/etc/../etc/passwd", tempfile.gettempdir() + "/../etc/passwd"):
        out = parse_model_output(answer(path))
        assert out.images == () and out.refused and out.missing, out
        assert any("outside the allowed image folders" in p and ENV_IMAGE_DIRS in p for p in out.problems)
    out = parse_model_output("Generated image saved to: /etc/passwd")
    assert out.images == () and out.refused
    assert not any("passwd" in p for p in _OPENED)


def test_image_confinement_allows_the_default_folders(sandboxed_tmp):
    in_tmp = _png(sandboxed_tmp / "t" / "run" / "a.png")
    in_logs = _png(sandboxed_tmp / "cwd" / "logs" / "bagel_images" / "b.png")  # lmms-eval wrappers' default
    qwen = _png(sandboxed_tmp / "cwd" / "qwen_edit_generated_images" / "q.png")  # qwen_image_edit's default
    outside = _png(sandboxed_tmp / "other" / "c.png")
    in_cwd_not_logs = _png(sandboxed_tmp / "cwd" / "d.png")
    out = parse_model_output(answer(in_tmp, in_logs, qwen, outside, in_cwd_not_logs))
    assert out.images == (str(in_tmp), str(in_logs), str(qwen))
    assert set(out.refused) == {str(outside), str(in_cwd_not_logs)}


def test_image_confinement_symlink_out_of_an_allowed_folder_is_refused(sandboxed_tmp):
    target = _png(sandboxed_tmp / "other" / "secret.png")
    link = sandboxed_tmp / "t" / "link.png"
    link.symlink_to(target)
    out = parse_model_output(answer(link))
    assert out.images == () and out.refused == (str(link),)


def test_image_confinement_env_variable_adds_folders(sandboxed_tmp, monkeypatch):
    outside = _png(sandboxed_tmp / "other" / "c.png")
    monkeypatch.setenv(ENV_IMAGE_DIRS, os.pathsep.join([str(sandboxed_tmp / "nowhere"), str(sandboxed_tmp / "other")]))
    assert parse_model_output(answer(outside)).images == (str(outside),)


def test_image_confinement_lmms_eval_command_line_folders(sandboxed_tmp, monkeypatch):
    edits = _png(sandboxed_tmp / "other" / "edits" / "x.png")
    replay = _png(sandboxed_tmp / "other" / "replay" / "imgs" / "y.png")
    (sandboxed_tmp / "other" / "replay" / "run.jsonl").write_text("")
    results = _png(sandboxed_tmp / "other" / "results" / "z.png")
    monkeypatch.setattr(sys, "argv", [
        "lmms-eval", "--model", "x", "--model_args",
        f"pretrained=Org/Model,output_dir={edits.parent},outputs={replay.parent.parent / 'run.jsonl'}",
        f"--output_path={results.parent}",
    ])
    out = parse_model_output(answer(edits, replay, results))
    assert out.images == (str(edits), str(replay), str(results)), out.problems


def test_image_confinement_data_roots_are_allowed(sandboxed_tmp, monkeypatch):
    img = _png(sandboxed_tmp / "other" / "dod" / "image" / "in.png")
    monkeypatch.setenv("LMMS_PLUGINS_DATA_ROOT", str(sandboxed_tmp / "other"))
    assert is_allowed(str(img))


def test_image_confinement_relative_paths_resolve_against_base_dir(sandboxed_tmp):
    img = _png(sandboxed_tmp / "t" / "replay" / "e.png")
    out = parse_model_output(answer("e.png"), base_dir=str(img.parent))
    assert out.images == (str(img),)
    out = parse_model_output(answer("../../../../../../../../etc/passwd"), base_dir=str(img.parent))
    assert out.images == () and out.refused


def test_image_confinement_filesystem_root_is_never_an_implicit_folder(sandboxed_tmp, monkeypatch):
    monkeypatch.chdir("/")
    monkeypatch.setattr(sys, "argv", ["lmms-eval", "--output_path", "/"])
    assert "/" not in [str(d) for d in allowed_image_dirs()]
