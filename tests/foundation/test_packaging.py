"""The wheel carries every task file; the CLI's sub-commands work."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA_SUFFIXES = (".yaml", "_yaml", ".jinja", ".json", ".jsonl", ".csv", ".toml")


@pytest.mark.e2e
def test_wheel_contains_every_task_file(tmp_path):
    # --no-build-isolation: offline, with the setuptools already installed
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation",
                           "-w", str(tmp_path), "-q"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    wheel = next(tmp_path.glob("lmms_plugins-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "lmms_plugins/tasks/" + p.relative_to(REPO / "tasks").as_posix()
        for p in (REPO / "tasks").rglob("*")
        if p.is_file() and p.name.endswith(DATA_SUFFIXES) and "__pycache__" not in p.parts
    }
    expected |= {
        "lmms_plugins/tasks/" + p.relative_to(REPO / "tasks").as_posix()
        for p in (REPO / "tasks").rglob("*.py") if "__pycache__" not in p.parts
    }
    assert any(n.endswith("cwi/_default_template_yaml") for n in expected)
    assert not expected - names, sorted(expected - names)[:20]
    assert "lmms_plugins/utils/model_output.py" in names and "lmms_plugins/registration.py" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[lmms_eval.models]" in text and "lmms_plugins.registration:register" in text


def cli(*args):
    return subprocess.run([sys.executable, "-m", "lmms_plugins", *args], capture_output=True, text=True, timeout=120)


def test_tasks_dir_points_at_the_task_yamls():
    out = cli("tasks-dir")
    assert out.returncode == 0 and (Path(out.stdout.strip()) / "cwi" / "cwi_alignment.yaml").is_file()


def test_list_shows_tasks_groups_and_local_counts(tmp_path, hub_dataset, monkeypatch):
    rows = [{"id": str(i), "prompt": "p", "answer": "1"} for i in range(5)]
    hub_dataset(tmp_path, "alignment", "test", rows)
    import os

    out = subprocess.run([sys.executable, "-m", "lmms_plugins", "list"], capture_output=True, text=True,
                         env={**os.environ, "LMMS_PLUGINS_CWI_ROOT": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    lines = {ln.split()[0]: ln.split() for ln in out.stdout.splitlines() if ln.strip()}
    assert lines["cwi"][1] == "group"
    assert lines["cwi_alignment"][1:] == ["task", "cwi", "5"]
    assert lines["cwi_jigsaw"][3] == "-"  # no local data for that config


def test_make_data_unknown_generator_is_a_clear_error():
    out = cli("make-data", "nope")
    assert out.returncode == 2 and "invalid choice" in out.stderr
