"""The judge preflight against 27 behaviours of a real server on 127.0.0.1 (raw sockets, so a
reply can be anything: HTML, garbage, a body sent a byte at a time, headers that never end).

Every behaviour ends in one of two ways: the check passes, or one PreflightError whose message is
one line naming the URL. Never another exception, never a hang (the whole request has a
deadline), and never a second request for the same endpoint in one process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import Drip, RawServer, http_reply  # noqa: E402

from lmms_plugins.utils import preflight as pf  # noqa: E402

LIST = json.dumps({"object": "list", "data": [{"id": "judge-model", "object": "model"}]}).encode()
OK, STOP = "passes", "stops"

BEHAVIOURS = {
    # name: (what the server sends for each request, expected verdict, text the message must hold)
    "model list": ([http_reply(200, LIST)], OK, ""),
    "bare list of objects": ([http_reply(200, b'[{"id": "judge-model"}]')], OK, ""),
    "bare list of names": ([http_reply(200, b'["judge-model"]')], OK, ""),
    "empty list": ([http_reply(200, b'{"data": []}')], OK, ""),
    "list of junk items": ([http_reply(200, b'{"data": [1, null, {"id": 7}, "judge-model"]}')], OK, ""),
    "gateway 'models' key": ([http_reply(200, b'{"models": [{"id": "judge-model"}]}')], OK, ""),
    "HTML page": ([http_reply(200, b"<!doctype html><html><body>Login</body></html>", "text/html")], STOP, "an HTML page"),
    "garbage bytes": ([http_reply(200, bytes(range(256)) * 4, "application/octet-stream")], STOP, "not a model list"),
    "null": ([http_reply(200, b"null")], STOP, "the body 'null'"),
    "empty body": ([http_reply(200, b"")], STOP, "an empty body"),
    "a number": ([http_reply(200, b"42")], STOP, "the body '42'"),
    "data is a string": ([http_reply(200, b'{"data": "models"}')], STOP, "not a model list"),
    "nested 1,500 deep": ([http_reply(200, b"[" * 1500 + b"]" * 1500)], STOP, "not a model list"),
    "invalid UTF-8 JSON": ([http_reply(200, b'{"data": ["\xff\xfe"]}')], STOP, "not a model list"),
    "HTTP 401": ([http_reply(401, b'{"error": {"message": "bad key"}}')], STOP, "refused the key"),
    "HTTP 403": ([http_reply(403, b"forbidden", "text/plain")], STOP, "refused the key"),
    "HTTP 404": ([http_reply(404, b"<h1>Not Found</h1>", "text/html")], STOP, "does the URL end with /v1"),
    "HTTP 405": ([http_reply(405, b"")], OK, ""),
    "HTTP 500": ([http_reply(500, b"oops", "text/plain")], OK, ""),
    "redirect loop": ([http_reply(302, b"", extra="Location: /v1/models\r\n")], STOP, "cannot be reached"),
    "closed without a reply": ([], STOP, "cannot be reached"),
    "not HTTP at all": ([b"hello there\r\n\r\n"], STOP, "cannot be reached"),
    "body shorter than announced": ([b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"data\": ["], STOP, "cannot be reached"),
    "body a byte at a time": ([b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n", Drip(b" " * 200, 0.1)], STOP, "did not answer in time"),
    "headers that never end": ([b"HTTP/1.1 200 OK\r\n", Drip(b"X-Slow: " + b"a" * 400, 0.1)], STOP, "did not answer in time"),
    "list larger than the cap": ([http_reply(200, b'{"data": [' + b'{"id": "m"},' * 500 + b'{"id": "judge-model"}]}')], OK, ""),
    "HTML larger than the cap": ([http_reply(200, b"<html>" + b" " * 5000 + b"</html>", "text/html")], STOP, "an HTML page"),
}


@pytest.fixture(autouse=True)
def short_limits(monkeypatch):
    monkeypatch.setattr(pf, "REACH_TIMEOUT_S", 3.0)  # a loaded machine must not turn a slow answer into a timeout
    monkeypatch.setattr(pf, "MAX_LIST_BYTES", 4096)
    for var in ("LMMS_PLUGINS_PREFLIGHT", "LMMS_PLUGINS_JUDGE_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    pf.forget_verdicts()
    yield
    pf.forget_verdicts()


@pytest.mark.parametrize("name", list(BEHAVIOURS))
def test_any_models_reply_passes_or_is_one_clear_error(name, monkeypatch):
    parts, expected, fragment = BEHAVIOURS[name]
    server = RawServer(lambda path: list(parts))
    with server as url:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", url)
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_API_KEY", "dummy")
        outcomes = []
        for _ in range(2):  # the second call is answered from the first one's verdict
            try:
                pf.require_judge("grade")
                outcomes.append(OK)
            except pf.PreflightError as exc:
                outcomes.append(str(exc))
        asked = server.requests
    assert outcomes[0] == outcomes[1] or outcomes == [OK, OK]
    if expected == OK:
        assert outcomes[0] == OK, outcomes[0]
    else:
        message = outcomes[0]
        assert message != OK and "\n" not in message and f"GET {url}/models" in message and fragment in message, message
        assert message.startswith("grade: the judge endpoint LMMS_PLUGINS_JUDGE_BASE_URL=") and "LMMS_PLUGINS_PREFLIGHT=off" in message
    if name != "redirect loop":
        assert asked == 1, asked  # one check for the endpoint, no retry


def test_preflight_error_passes_lmms_evals_retry_and_catch_all():
    """lmms-eval 0.7.3 retries a task's download with tenacity and its CLI catches Exception: a
    PreflightError goes through both unretried, and Python prints its message as the last line."""
    import tenacity

    tries = []

    @tenacity.retry(stop=tenacity.stop_after_attempt(5), wait=tenacity.wait_fixed(0))
    def download():
        tries.append(1)
        raise pf.PreflightError("grade: the judge is not there")

    with pytest.raises(pf.PreflightError) as err:
        try:
            download()
        except Exception:  # noqa: BLE001 - what lmms-eval's CLI does
            pytest.fail("a PreflightError must not be caught as an Exception")
    assert tries == [1] and err.value.code == "grade: the judge is not there" == str(err.value)
