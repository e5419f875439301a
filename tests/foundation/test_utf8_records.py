"""#15.5: lone surrogates (a model's ``"\\ud800"`` JSON escape) never break a cache key or a record.

lmms-eval's ``--log_samples`` writes each record with ``json.dumps(..., ensure_ascii=False)`` to a
UTF-8 file: a lone surrogate there makes it drop the line with a warning. Every record this package
returns must therefore encode as UTF-8.
"""

from __future__ import annotations

import json

import pytest

from lmms_plugins.utils import status
from lmms_plugins.utils.judge_client import cache_key
from lmms_plugins.utils.model_output import parse_model_output
from lmms_plugins.utils.utf8 import valid_text, valid_utf8

LONE = "\ud800"
RAW = '{"text": "I cannot draw \\ud800 this \\udfff", "images": []}'  # what a model can emit


def encodes(record) -> bool:
    json.dumps(record, ensure_ascii=False).encode("utf-8")
    return True


def test_valid_text_replaces_lone_surrogates_keeps_pairs_and_the_rest():
    assert valid_text("a" + LONE + "b") == "a\ufffdb"
    assert valid_text("\ud83d\ude00") == "\U0001F600"  # a split pair is joined, not lost
    s = "plain ascii and ünïcödé 😀"
    assert valid_text(s) is s  # no copy when nothing is wrong


def test_valid_utf8_walks_nested_records():
    rec = {"a": [LONE, ("x", {LONE: LONE})], "n": 1, "f": None}
    clean = valid_utf8(rec)
    assert encodes(clean) and clean["a"][1][1] == {"\ufffd": "\ufffd"} and clean["n"] == 1


def test_judge_cache_key_accepts_lone_surrogates():
    key = cache_key("m", "v1", [{"role": "user", "content": "x" + LONE}])
    assert len(key) == 64
    assert key == cache_key("m", "v1", [{"role": "user", "content": "x" + LONE}])
    assert key != cache_key("m", "v1", [{"role": "user", "content": "x\udfff"}])


def test_model_output_text_with_lone_surrogates_is_valid_utf8():
    out = parse_model_output(RAW)
    assert out.text.encode("utf-8") and "\ufffd" in out.text
    assert any("surrogate" in p for p in out.problems)


def test_status_sample_records_are_valid_utf8():
    rec = status.sample(0.0, status.UNPARSABLE, "bad " + LONE, "id" + LONE, predicted=[LONE], detail={"t": LONE})
    assert encodes(rec)
    assert rec["reason"] == "bad \ufffd" and rec["predicted"] == ["\ufffd"] and rec["id"] == "id\ufffd"


@pytest.mark.parametrize("exc_text", ["boom " + LONE])
def test_never_raises_fallback_records_are_valid_utf8(exc_text):
    @status.never_raises(metrics=["m"])
    def broken(doc, results):
        raise ValueError(exc_text)

    assert encodes(broken({"id": LONE}, ["x"]))


def test_judge_reply_with_lone_surrogates_is_asked_again_with_feedback():
    """A reply carrying a "\\ud800" escape goes back to the judge (retry_feedback): it must encode."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from judge_server import FakeJudgeServer, sequence

    from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig, extract_json

    with FakeJudgeServer(sequence("not json " + LONE, '{"answer": "yes"}')) as server:
        client = JudgeClient(JudgeConfig(base_url=server.base_url, model="m", cache_dir=None), sleep=lambda s: None)
        res = client.complete([{"role": "user", "content": "q " + LONE}], prompt_version="v1",
                              parse=lambda t: extract_json(t)["answer"], retry_feedback=True)
        assert res.value == "yes" and server.calls == 2
        assert "\ufffd" in server.requests[1]["messages"][1]["content"]
