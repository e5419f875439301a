"""GRADE's task class (lmms_plugins/judged_task.py) scores every sample ahead at the judge's
concurrency when lmms-eval applies its filters; process_results then gives exactly what the hook
gives for that sample (built by lmms-eval's TaskManager, scored as its evaluator scores)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grade_fixtures import canned_judge, make_dataset, make_outputs  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402


def test_scored_ahead_at_the_judges_concurrency_with_the_hooks_results(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    answers = {row["key"]: json.dumps({"text": row["text"], "images": [str(outputs.parent / row["image"])] if row.get("image") else []})
               for row in map(json.loads, outputs.read_text().splitlines())}
    with FakeJudgeServer(canned_judge) as server:
        for key, value in {"LMMS_PLUGINS_GRADE_ROOT": str(root), "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url,
                           "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge", "LMMS_PLUGINS_JUDGE_CACHE": "off",
                           "LMMS_PLUGINS_JUDGE_CONCURRENCY": "7", "LMMS_PLUGINS_PREFLIGHT": "off"}.items():
            monkeypatch.setenv(key, value)
        from lmms_plugins import registration
        from lmms_plugins.judged_task import JudgedTask
        from lmms_plugins.tasks.grade import hooks
        from lmms_plugins.utils.judge_client import reset_shared_clients

        reset_shared_clients()
        registration.register()
        from lmms_eval.evaluator import _thread_map_ordered
        from lmms_eval.tasks import TaskManager, get_task_dict

        task = get_task_dict(["grade"], TaskManager())["grade"]
        assert isinstance(task, JudgedTask)
        task.build_all_requests(rank=0, world_size=1)
        docs = task.eval_docs_no_media
        for inst in task.instances:
            inst.resps.append(answers[docs[inst.doc_id]["task_id"]])
        task.apply_filters()
        assert task.config.metadata["judge_concurrency"] == 7  # written into the results' task config
        by_doc = {inst.doc_id: inst for inst in task.instances}
        got = _thread_map_ordered(lambda i: task.process_results(docs[i], [by_doc[i].filtered_resps["none"]]),
                                  iter(range(len(docs))), max_workers=4)
        assert task._prefetch.served == len(docs)
        calls = server.calls
        direct = [hooks.process_results(docs[i], [by_doc[i].filtered_resps["none"]]) for i in range(len(docs))]
    assert json.dumps(got, sort_keys=True) == json.dumps(direct, sort_keys=True)
    assert server.calls == 2 * calls  # the cache is off: the direct run asked again, the class asked once per question
