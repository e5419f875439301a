"""The real lmms-eval CLI: a run that cannot be scored ends with the preflight's message as its
last line, exit status 1, before the model gets any request, whichever task stops it: GRADE with
a judge that refuses the key (asked once, not once per lmms-eval retry), DoD's editing judge (not
reported as a data problem), ABACUS without its detector extra. (A CwI task written in YAML alone
raises the same PreflightError from the same place as GRADE: test_preflight.py.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "dod", TESTS / "grade", TESTS / "foundation"):
    sys.path.insert(0, str(folder))

import dod_fixtures  # noqa: E402
import grade_fixtures  # noqa: E402
from conftest import lmms_eval_executable, lmms_eval_process  # noqa: E402
from task_settings import settings_include  # noqa: E402
from judge_server import RawServer, http_reply  # noqa: E402

from lmms_plugins.demo import OFFLINE_ENV  # noqa: E402

pytestmark = pytest.mark.e2e

@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from lmms_plugins.tasks.abacus import synthetic as syn

    root = tmp_path_factory.mktemp("preflight_e2e")
    dod = dod_fixtures.make_dataset(root / "dod", pairs_per_category=1, maze_pairs=0)
    assert syn.main(["--out", str(root / "abacus"), "--n", "1", "--seed", "3"]) == 0
    grade = grade_fixtures.make_dataset(root / "GRADE")
    return root, {"LMMS_PLUGINS_DOD_ROOT": str(dod), "LMMS_PLUGINS_ABACUS_ROOT": str(root / "abacus"),
                  "LMMS_PLUGINS_GRADE_ROOT": str(grade), "LMMS_PLUGINS_DATA_ROOT": "",
                  "LMMS_PLUGINS_PREFLIGHT": ""}


# task: (its environment, its settings (a YAML on --include_path), the last line's start)
CASES = {
    "grade": ({}, {}, "grade: the judge endpoint LMMS_PLUGINS_JUDGE_BASE_URL={url} refused the key: GET {url}/models answered HTTP 401"),
    "dod_no_hint": ({}, {"edit_judge": "on"}, "dod with edit_judge=on: the judge endpoint"),
    "abacus_add_easy": ({"LMMS_PLUGINS_JUDGE_BASE_URL": "", "LMMS_PLUGINS_JUDGE_MODEL": ""}, {},
                        "abacus: the detector 'rfdetr' (metadata.detector) cannot be loaded"),
}


@pytest.mark.parametrize("task", list(CASES))
def test_the_last_line_is_the_preflights_message(tmp_path, data, task):
    _root, env_data = data
    extra, settings, expected = CASES[task]
    out = tmp_path / "run"
    out.mkdir()
    judge = RawServer(lambda path: [http_reply(401, b'{"error": {"message": "Incorrect API key"}}')])
    with judge as url:
        env = {**os.environ, **OFFLINE_ENV, **env_data, "HF_HOME": str(out / ".hf_home"), "LMMS_PLUGINS_JUDGE_BASE_URL": url,
               "LMMS_PLUGINS_JUDGE_MODEL": "judge", "LMMS_PLUGINS_JUDGE_API_KEY": "wrong", **extra}
        if task == "abacus_add_easy":
            # rfdetr (the default detector) is an optional extra: hide it even where it is installed
            (out / "sitecustomize.py").write_text("import sys; sys.modules['rfdetr'] = None\n")
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(out), env.get("PYTHONPATH", "")]))
        cmd = [lmms_eval_executable(), "--model", "replay", "--model_args", f"images={out}", "--tasks", task,
               "--output_path", str(out), "--batch_size", "1"]
        if settings:
            cmd += ["--include_path", settings_include(tmp_path / "settings", {task: settings})]
        proc = lmms_eval_process(cmd, env=env, cwd=out, timeout=600)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert lines[-1].startswith(expected.format(url=url)) and lines[-1].endswith("(to run anyway, set LMMS_PLUGINS_PREFLIGHT=off)") \
        or task == "abacus_add_easy" and lines[-1].startswith(expected), lines[-3:]
    if task == "abacus_add_easy":
        assert 'pip install "lmms-plugins[detectors]"' in lines[-1]
    assert "RetryError" not in proc.stderr and "Error during evaluation" not in proc.stderr
    assert "could not load" not in proc.stderr  # a judge failure is not reported as a data failure
    assert judge.requests == (1 if task in ("grade", "dod_no_hint") else 0)  # one check, however often lmms-eval retries
    assert not list(out.rglob("*results*.json"))
