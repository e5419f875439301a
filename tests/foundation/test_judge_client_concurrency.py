"""The judge's requests in flight stay within LMMS_PLUGINS_JUDGE_CONCURRENCY, however many threads ask."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer  # noqa: E402

from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig, JudgeError  # noqa: E402


def test_the_judge_client_keeps_its_requests_in_flight_within_the_concurrency(tmp_path, monkeypatch):
    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    def handler(request):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return "ok"

    with FakeJudgeServer(handler) as server:
        client = JudgeClient(JudgeConfig(base_url=server.base_url, model="m", cache_dir=None, concurrency=3))
        threads = [threading.Thread(target=client.complete, args=([{"role": "user", "content": f"q{i}"}],),
                                    kwargs={"prompt_version": "p"}) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.calls == 12 and state["most"] == 3
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "m")
    assert JudgeConfig.from_env().concurrency == 64
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CONCURRENCY", "4")
    assert JudgeConfig.from_env().concurrency == 4
    for bad in ("0", "-2", "many", "2.5"):
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CONCURRENCY", bad)
        with pytest.raises(JudgeError, match="LMMS_PLUGINS_JUDGE_CONCURRENCY"):
            JudgeConfig.from_env()
