"""Scoring ahead (utils/scored_ahead.py) on the real GRADE task classes: every sample is scored when
lmms-eval applies the filters, at the judge's concurrency; lmms-eval's process_results calls then
get exactly what the hook gives (verdicts, statuses, a judge error still pending), each question is
asked once, a rerun on the cache asks nothing, and the setting is in the task's results config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grade_fixtures import CASES, canned_judge, case_of_image, image_urls, kind_of, make_dataset, make_outputs  # noqa: E402
from judge_server import FakeJudgeServer, Reply  # noqa: E402

from lmms_plugins.utils.scored_ahead import Ahead  # noqa: E402

GRADE_YAML = Path(__file__).resolve().parents[2] / "tasks" / "grade" / "grade.yaml"


def _task(base: str):
    """The grade task as lmms-eval builds it: the class its YAML names (``index``: through lmms-eval's
    TaskManager; ``simple``: that class given the YAML), or that class's chat variant."""
    from lmms_eval import utils

    from lmms_plugins import registration
    from lmms_plugins.tasks.grade.task import GradeChatTask, GradeTask
    from lmms_plugins.utils.scored_ahead import ScoredAhead

    registration.register()
    if base == "index":
        from lmms_eval.tasks import TaskManager, get_task_dict

        task = get_task_dict(["grade"], TaskManager())["grade"]
        assert type(task) is GradeTask
    else:
        task = {"simple": GradeTask, "chat": GradeChatTask}[base](config=utils.load_yaml_config(str(GRADE_YAML), mode="full"))
    assert isinstance(task, ScoredAhead)
    task.build_all_requests(rank=0, world_size=1)
    return task


def _score(task, answers, workers=4):
    """As lmms-eval's evaluator does: apply_filters, then process_results per doc in its scoring pool."""
    from lmms_eval.evaluator import _thread_map_ordered

    docs = task.eval_docs_no_media
    for inst in task.instances:
        inst.resps[:] = [answers[docs[inst.doc_id]["task_id"]]]
        inst.filtered_resps.clear()
    task.apply_filters()
    by_doc = {inst.doc_id: inst for inst in task.instances}
    return _thread_map_ordered(lambda i: task.process_results(docs[i], [by_doc[i].filtered_resps["none"]]),
                               iter(range(len(docs))), max_workers=workers)


def _direct(task):
    from lmms_plugins.tasks.grade import hooks

    docs = task.eval_docs_no_media
    by_doc = {inst.doc_id: inst for inst in task.instances}
    return [hooks.process_results(docs[i], [by_doc[i].filtered_resps["none"].strip()]) for i in range(len(docs))]


@pytest.fixture
def grade(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    answers = {row["key"]: json.dumps({"text": row["text"], "images": [str(outputs.parent / row["image"])] if row.get("image") else []})
               for row in map(json.loads, outputs.read_text().splitlines())}
    for key, value in {"LMMS_PLUGINS_GRADE_ROOT": str(root), "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge",
                       "LMMS_PLUGINS_JUDGE_CACHE": str(tmp_path / "cache"), "LMMS_PLUGINS_JUDGE_CONCURRENCY": "7",
                       "LMMS_PLUGINS_PREFLIGHT": "off", "LMMS_PLUGINS_JUDGE_TIMEOUT": "10"}.items():
        monkeypatch.setenv(key, value)
    from lmms_plugins.utils.judge_client import reset_shared_clients

    reset_shared_clients()
    yield answers, monkeypatch
    reset_shared_clients()


@pytest.mark.parametrize("base", ["index", "chat"])
def test_scored_ahead_gives_the_hooks_results_and_asks_each_question_once(grade, base):
    answers, monkeypatch = grade
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    with FakeJudgeServer(canned_judge) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        task = _task(base)
        assert task.config.metadata["judge_concurrency"] == 7
        assert task.dump_config()["metadata"]["judge_concurrency"] == 7  # what the results file's configs hold
        got = _score(task, answers)
        assert task._ahead.served == len(task.eval_docs_no_media) == len(CASES)
        ahead_calls = server.calls
        direct = _direct(task)
        assert server.calls == 2 * ahead_calls  # the cache is off: the direct run asked again; ahead asked once each
    assert ahead_calls > len(CASES)
    assert json.dumps(got, sort_keys=True) == json.dumps(direct, sort_keys=True)
    statuses = [r["grade_strict"]["status"] for r in got]
    assert statuses.count("ok") >= 4 and "missing_image" in statuses  # a sample without an image scored as such


def test_a_judge_error_stays_pending_and_a_cached_rerun_asks_only_what_failed(grade):
    answers, _monkeypatch = grade
    failing = CASES[0]

    def judge(request):  # the readability question of one sample fails for good (HTTP 400: not retried)
        if kind_of(request) == "readability" and case_of_image(image_urls(request)[0]) is failing:
            return Reply(400, {"error": "rejected"})
        return canned_judge(request)

    with FakeJudgeServer(judge) as server:
        _monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        task = _task("simple")
        first = _score(task, answers)
        direct = _direct(task)  # from the cache, but for the failed question
        assert _verdicts(first) == _verdicts(direct)
        failed = [r["grade_lenient"] for r in first if r["grade_lenient"]["id"] == failing.task_id][0]
        assert failed["status"] == "judge_error" and failed["value"] is None  # pending, not a 0
        server.reset_counts()
        again = _score(_task("simple"), answers)
        assert server.calls == 1  # every answer came from the cache, the failed question is asked again
    assert _verdicts(again) == _verdicts(first)


def _verdicts(records: list) -> str:
    """The records without how each answer was obtained (cache or HTTP)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("cached", "judge_calls")}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return json.dumps(strip(records), sort_keys=True)


def test_without_a_judge_nothing_is_scored_ahead(grade):
    answers, monkeypatch = grade
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL", raising=False)
    task = _task("simple")
    assert "judge_concurrency" not in task.config.metadata
    out = _score(task, answers)
    assert task._ahead is None
    assert {r["grade_strict"]["status"] for r in out} == {"judge_error", "missing_image"}  # pending, as the hook says


def test_each_sample_is_served_its_own_result_once_and_other_arguments_are_not_served():
    calls = []

    def score(doc, results):
        calls.append((doc["id"], results[0]))
        return {"id": doc["id"], "out": results[0]}

    ahead = Ahead(score, 4)
    assert ahead.start(({"id": i}, [f"o{i}"]) for i in range(10)) == 10
    assert ahead.start([({"id": 3}, ["o3"])]) == 0  # the same sample again: scored once
    assert ahead.take({"id": 3}, ["o3"]) == (True, {"id": 3, "out": "o3"})
    assert ahead.take({"id": 3}, ["o3"]) == (False, None)  # served once
    assert ahead.take({"id": 4}, ["other outputs"]) == (False, None)  # never another sample's result
    assert ahead.take({"id": 4, "extra": 1}, ["o4"]) == (False, None)  # another document
    assert sorted(calls) == sorted((i, f"o{i}") for i in range(10))
    ahead.close()
