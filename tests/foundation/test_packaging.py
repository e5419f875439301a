"""The wheel carries every task file; the CLI's sub-commands work."""

import os
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
    assert {"lmms_plugins/utils/sandbox/__init__.py", "lmms_plugins/utils/sandbox/run.py",
            "lmms_plugins/tasks/dod/maze/verify.py", "lmms_plugins/compare/__init__.py",
            "lmms_plugins/tasks/dod/refusal/detect.py", "lmms_plugins/tasks/dod/refusal/model.json.gz"} <= names  # the subpackages
    lm_eval_dir = REPO / "lmms_plugins" / "lm_eval_tasks"  # the lm-eval YAMLs (tasks-dir --harness lm-eval)
    lm_eval_files = {p.relative_to(REPO).as_posix() for p in lm_eval_dir.rglob("*")
                     if p.is_file() and (p.name.endswith(DATA_SUFFIXES) or p.suffix == ".py") and "__pycache__" not in p.parts}
    assert "lmms_plugins/lm_eval_tasks/cwi/cwi_alignment.yaml" in lm_eval_files
    assert not lm_eval_files - names, sorted(lm_eval_files - names)[:20]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[lmms_eval.models]" in text and "lmms_plugins.registration:register" in text
    # at the wheel's root, so pip puts it straight into site-packages (where .pth files are read)
    assert zipfile.ZipFile(wheel).read("lmms_plugins_hook.pth").decode().strip() == "import lmms_plugins.harness.startup"


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


def test_list_names_the_benchmark_of_groups_and_grade_and_counts_grade_records(tmp_path):
    import json
    import os

    (tmp_path / "data.json").write_text(json.dumps([{"task_id": f"math_x_{i}"} for i in range(3)]))
    out = subprocess.run([sys.executable, "-m", "lmms_plugins", "list"], capture_output=True, text=True,
                         env={**os.environ, "LMMS_PLUGINS_GRADE_ROOT": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    lines = {ln.split()[0]: ln.split() for ln in out.stdout.splitlines() if ln.strip()}
    assert lines["grade"][1:] == ["task", "grade", "3"]
    assert lines["cwi"][1:3] == ["group", "cwi"] and lines["dod"][1:3] == ["group", "dod"]


def test_make_data_help_shows_no_internal_argument_name():
    out = cli("make-data", "--help")
    assert out.returncode == 0 and "rest" not in out.stdout and "generator's own options" in out.stdout


def test_lmms_eval_models_command_lists_this_packages_models():
    import shutil

    exe = shutil.which("lmms-eval") or str(Path(sys.executable).with_name("lmms-eval"))
    out = subprocess.run([exe, "models"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    listed = {ln.split()[0] for ln in out.stdout.splitlines() if ln.strip()}
    from lmms_plugins.models import available

    assert set(available()) <= listed


@pytest.mark.e2e
def test_lmms_eval_tasks_list_subcommand_lists_this_packages_tasks_unless_turned_off():
    import shutil

    exe = shutil.which("lmms-eval") or str(Path(sys.executable).with_name("lmms-eval"))
    ours = {"dod_no_hint", "cwi_alignment", "cwi_code", "grade", "abacus_add_easy"}
    listed = {}
    for off in ("", "1"):
        env = {**os.environ, "LMMS_PLUGINS_NO_STARTUP_HOOK": off}
        out = subprocess.run([exe, "tasks", "list"], capture_output=True, text=True, timeout=300, env=env)
        assert out.returncode == 0, out.stderr[-2000:]
        listed[off] = {ln.strip() for ln in out.stdout.splitlines()}
    assert ours <= listed[""]
    assert not ours & listed["1"]  # lmms-eval's own tasks are still there, ours only through the hook
    assert "mme" in listed["1"] or len(listed["1"]) > 1000
