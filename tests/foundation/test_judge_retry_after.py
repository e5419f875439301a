"""Issue #15.10: a server's Retry-After can no longer hold a judge call for minutes.

The waits the client asks for are recorded (injected ``sleep``), never waited for.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer, Reply, sequence  # noqa: E402

from lmms_plugins.utils.judge_client import RETRY_AFTER_CAP_S, JudgeClient, JudgeConfig, JudgeError, retry_delay  # noqa: E402

MESSAGES = [{"role": "user", "content": "Is the sky blue?"}]


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client_for(server: FakeJudgeServer, **kw) -> tuple[JudgeClient, Sleeps]:
    sleeps = Sleeps()
    cfg = JudgeConfig(base_url=server.base_url, model="fake-judge", api_key="dummy", cache_dir=None, **kw)
    return JudgeClient(cfg, sleep=sleeps), sleeps


def test_retry_after_100000_is_capped_and_not_slept():
    # the case: three 300 s sleeps per question before; now no sleep at all (the server
    # asked for more than two minutes: not retried, the call fails at once with what came back)
    with FakeJudgeServer(lambda req: Reply(429, "quota exhausted", {"Retry-After": "100000"})) as server:
        client, sleeps = client_for(server)
        with pytest.raises(JudgeError, match=r"failed 1 time\(s\); last error: HTTP 429: quota exhausted.*not retried"):
            client.complete(MESSAGES, prompt_version="v1")
        assert server.calls == 1 and sleeps == []


def test_retry_after_over_the_cap_waits_the_cap_then_retries():
    replies = sequence(Reply(503, "busy", {"Retry-After": "100"}), Reply(429, "busy", {"Retry-After": "90"}), "fine")
    with FakeJudgeServer(replies) as server:
        client, sleeps = client_for(server)
        res = client.complete(MESSAGES, prompt_version="v1")
        assert (res.value, res.calls, server.calls) == ("fine", 3, 3)
        assert sleeps == [RETRY_AFTER_CAP_S, RETRY_AFTER_CAP_S] and RETRY_AFTER_CAP_S == 30.0
        assert client.http_calls == 3


def test_retry_after_ms_and_short_waits_are_honoured():
    replies = sequence(Reply(429, "slow", {"retry-after-ms": "1500"}), Reply(429, "slow", {"Retry-After": "2"}), "ok")
    with FakeJudgeServer(replies) as server:
        client, sleeps = client_for(server)
        assert client.complete(MESSAGES, prompt_version="v1").value == "ok"
        assert sleeps == [1.5, 2.0]


def test_retry_delay_without_retry_after_backs_off_within_bounds():
    cfg = JudgeConfig(base_url="http://127.0.0.1:9/v1", model="m", cache_dir=None, backoff_s=1.0, max_backoff_s=60.0)
    for retries_taken, (lo, hi) in enumerate([(0.5, 1.5), (1.0, 3.0), (2.0, 6.0)]):
        assert lo <= retry_delay(cfg, retries_taken) <= hi
    assert retry_delay(cfg, 10_000) <= 90.0  # max_backoff_s with jitter, no overflow
    assert retry_delay(cfg, 0, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_delay(cfg, 0, {"Retry-After": "1e308"}) == RETRY_AFTER_CAP_S


def test_malformed_200_body_is_asked_again():
    replies = sequence(Reply(200, "<html>proxy error</html>"), "good")
    with FakeJudgeServer(replies) as server:
        client, sleeps = client_for(server)
        res = client.complete(MESSAGES, prompt_version="v1", attempts=2)
        assert (res.value, res.calls, server.calls) == ("good", 2, 2)
    with FakeJudgeServer(lambda req: Reply(200, "<html>")) as server:
        client, _ = client_for(server)
        with pytest.raises(JudgeError, match=r"no usable answer in 2 attempt\(s\).*malformed response"):
            client.complete(MESSAGES, prompt_version="v1", attempts=2)
