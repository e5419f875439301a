"""#15.2: deeply nested JSON (Python's json raises RecursionError on it) never escapes a parser.

A model output or a judge reply of 5,000 nested brackets is junk, not a crash: the model output
parser reads it as text with a problem noted, and the judge client treats such a reply as an
unusable answer and asks again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer, Reply, sequence  # noqa: E402

from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig, JudgeError, extract_json  # noqa: E402
from lmms_plugins.utils.model_output import parse_model_output  # noqa: E402

DEPTH = 5000
NESTED_TEXT = '{"text": ' + "[" * DEPTH + "]" * DEPTH + "}"
NESTED_IMAGES = '{"text": "hi", "images": ' + "[" * DEPTH + "]" * DEPTH + "}"


@pytest.mark.parametrize("raw", [NESTED_TEXT, NESTED_IMAGES, NESTED_TEXT.encode(), "  " + NESTED_TEXT + "\n"])
def test_parse_model_output_survives_deep_nesting(raw):
    out = parse_model_output(raw)
    assert out.images == ()
    assert any("nested too deeply" in p for p in out.problems), out.problems
    assert "does not parse" in " ".join(out.problems)  # the hooks' signal for an unreadable payload


def test_parse_model_output_survives_a_deeply_nested_python_value():
    value: list = []
    for _ in range(DEPTH):
        value = [value]
    out = parse_model_output({"text": value, "images": []})
    assert out.images == () and out.problems


def test_extract_json_deep_nesting_is_a_rejected_answer():
    with pytest.raises(ValueError):
        extract_json("[" * DEPTH + "]" * DEPTH)
    with pytest.raises(ValueError):
        extract_json("Here: " + '{"a": ' * DEPTH + "1" + "}" * DEPTH)


def _client(server, **kw):
    cfg = JudgeConfig(base_url=server.base_url, model="fake-judge", api_key="dummy", cache_dir=None, **kw)
    return JudgeClient(cfg, sleep=lambda s: None)


def test_judge_deeply_nested_reply_is_asked_again():
    good = '{"answer": "yes"}'
    with FakeJudgeServer(sequence("[" * DEPTH + "]" * DEPTH, good)) as server:
        res = _client(server).complete([{"role": "user", "content": "q"}], prompt_version="v1",
                                       parse=lambda t: extract_json(t)["answer"], attempts=3)
    assert res.value == "yes" and server.calls == 2


def test_judge_deeply_nested_reply_every_time_is_a_judge_error():
    with FakeJudgeServer(lambda req: '{"x": ' * DEPTH + "1" + "}" * DEPTH) as server:
        with pytest.raises(JudgeError, match="no usable answer"):
            _client(server).complete([{"role": "user", "content": "q"}], prompt_version="v1",
                                     parse=extract_json, attempts=2)
        assert server.calls == 2


def test_judge_deeply_nested_http_body_is_a_transport_failure():
    body = '{"choices": ' + "[" * DEPTH + "]" * DEPTH + "}"
    with FakeJudgeServer(lambda req: Reply(200, body.encode(), {"Content-Type": "application/json"})) as server:
        with pytest.raises(JudgeError):
            _client(server, max_attempts=2).complete([{"role": "user", "content": "q"}], prompt_version="v1")
