"""The shared judge client against a real HTTP server on 127.0.0.1 (tests/judge_server.py)."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer, Reply, Sleep, image_urls, message_text, sequence  # noqa: E402

from lmms_plugins.utils.judge_client import (  # noqa: E402
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CACHE,
    ENV_MODEL,
    ENV_TIMEOUT,
    JudgeClient,
    JudgeConfig,
    JudgeError,
    cache_key,
    extract_json,
    image_part,
    text_part,
)
from lmms_plugins.utils.images import ImageError  # noqa: E402

MESSAGES = [{"role": "user", "content": [text_part("Is the sky blue? Answer JSON {\"answer\": ...}")]}]


def parse_answer(text: str) -> str:
    obj = extract_json(text)
    if not isinstance(obj, dict) or obj.get("answer") not in ("yes", "no"):
        raise ValueError(f"answer must be yes or no, got {obj!r}")
    return obj["answer"]


class Sleeps(list):
    """Records the backoff the client asks for instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(server: FakeJudgeServer, cache_dir: Path | None, **kw) -> tuple[JudgeClient, Sleeps]:
    sleeps = Sleeps()
    cfg = JudgeConfig(base_url=server.base_url, model="fake-judge", api_key="dummy", cache_dir=cache_dir, **kw)
    return JudgeClient(cfg, sleep=sleeps), sleeps


@pytest.fixture
def server():
    with FakeJudgeServer() as srv:
        yield srv
        assert not srv.handler_errors, srv.handler_errors


def test_correct_reply_and_request_shape(server, tmp_path):
    server.handler = lambda req: '{"answer": "yes"}'
    client, sleeps = make_client(server, tmp_path, extra_body={"reasoning_effort": "low"})
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer, max_tokens=50)
    assert (res.value, res.cached, res.calls) == ("yes", False, 1)
    assert res.raw == '{"answer": "yes"}'
    req = server.requests[0]
    assert req["model"] == "fake-judge" and req["temperature"] == 0.0 and req["max_tokens"] == 50
    assert req["reasoning_effort"] == "low"
    assert "Is the sky blue?" in message_text(req)
    assert server.request_headers[0]["Authorization"] == "Bearer dummy"
    assert sleeps == []


def test_invalid_json_then_valid_fenced(server, tmp_path):
    server.handler = sequence("I think yes.", '{"answer": "maybe"}', 'Sure:\n```json\n{"answer": "no"}\n```')
    client, _ = make_client(server, tmp_path)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer, attempts=3)
    assert (res.value, res.calls) == ("no", 3)
    assert server.calls == 3


def test_http_500_then_ok_backs_off(server, tmp_path):
    server.handler = sequence(Reply(500, "boom"), Reply(503, "busy"), '{"answer": "yes"}')
    client, sleeps = make_client(server, tmp_path, backoff_s=2.0)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.calls) == ("yes", 3)
    # exponential with +-50 % jitter: first ~2 s, second ~4 s
    assert len(sleeps) == 2 and 1.0 <= sleeps[0] <= 3.0 and 2.0 <= sleeps[1] <= 6.0


def test_429_honours_retry_after(server, tmp_path):
    server.handler = sequence(Reply(429, "slow down", {"Retry-After": "7"}), '{"answer": "yes"}')
    client, sleeps = make_client(server, tmp_path)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert res.value == "yes" and sleeps == [7.0]


def test_timeout_then_ok(server, tmp_path):
    server.handler = sequence(Sleep(5.0, '{"answer": "no"}'), '{"answer": "yes"}')
    client, sleeps = make_client(server, tmp_path, timeout_s=0.3)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.calls) == ("yes", 2) and len(sleeps) == 1


def test_timeouts_exhaust_transport_attempts(server, tmp_path):
    server.handler = lambda req: Sleep(5.0)
    client, sleeps = make_client(server, tmp_path, timeout_s=0.2, max_attempts=2)
    with pytest.raises(JudgeError, match=r"failed 2 time\(s\); last error: timeout"):
        client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert server.calls == 2 and len(sleeps) == 1


def test_exhausting_answer_attempts_raises_and_caches_nothing(server, tmp_path):
    server.handler = lambda req: "no idea"
    client, _ = make_client(server, tmp_path)
    with pytest.raises(JudgeError, match=r"no usable answer in 3 attempt\(s\).*no JSON found"):
        client.complete(MESSAGES, prompt_version="v1", parse=parse_answer, attempts=3)
    assert server.calls == 3
    assert not list(tmp_path.rglob("*.json"))  # failures are not cached: a re-run asks again


def test_server_errors_exhaust_and_client_errors_fail_fast(server, tmp_path):
    server.handler = lambda req: Reply(502, "bad gateway")
    client, sleeps = make_client(server, tmp_path, max_attempts=3)
    with pytest.raises(JudgeError, match=r"failed 3 time\(s\); last error: HTTP 502: bad gateway"):
        client.complete(MESSAGES, prompt_version="v1")
    assert server.calls == 3 and len(sleeps) == 2
    server.reset_counts()
    server.handler = lambda req: Reply(401, {"error": "bad key"})
    with pytest.raises(JudgeError, match=r"HTTP 401 \(not retried\).*bad key"):
        client.complete(MESSAGES, prompt_version="v1")
    assert server.calls == 1


def test_unreachable_endpoint_is_a_judge_error(tmp_path):
    with FakeJudgeServer() as srv:
        url = srv.base_url
    client = JudgeClient(JudgeConfig(base_url=url, model="m", cache_dir=None, max_attempts=2), sleep=Sleeps())
    with pytest.raises(JudgeError, match="connection error"):
        client.complete(MESSAGES, prompt_version="v1")


def test_rerun_is_served_from_cache(server, tmp_path):
    server.handler = lambda req: '{"answer": "yes"}'
    first, _ = make_client(server, tmp_path)
    assert first.complete(MESSAGES, prompt_version="v1", parse=parse_answer).cached is False
    again, _ = make_client(server, tmp_path)  # a new run: new client, same cache folder
    res = again.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.cached, res.calls) == ("yes", True, 0)
    assert server.calls == 1
    # another prompt version or another question is a different key
    again.complete(MESSAGES, prompt_version="v2", parse=parse_answer)
    assert server.calls == 2
    key = cache_key("fake-judge", "v1", MESSAGES)
    entry = json.loads((tmp_path / key[:2] / f"{key}.json").read_text())
    assert entry["raw"] == '{"answer": "yes"}' and entry["prompt_version"] == "v1"


def test_corrupt_or_unparsable_cache_entry_is_asked_again(server, tmp_path):
    server.handler = lambda req: '{"answer": "no"}'
    key = cache_key("fake-judge", "v1", MESSAGES)
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"raw": "{\\"answer\\": \\"purple\\"}"}')  # parses as JSON, fails parse()
    client, _ = make_client(server, tmp_path)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.cached) == ("no", False) and server.calls == 1
    assert json.loads(path.read_text())["raw"] == '{"answer": "no"}'  # overwritten with a good one


def test_threads_share_one_client(server, tmp_path):
    def handler(req):
        n = message_text(req).split("#")[-1]
        return json.dumps({"answer": "yes" if int(n) % 2 else "no"})

    server.handler = handler
    client, _ = make_client(server, tmp_path)
    results: dict[int, str] = {}

    def ask(i: int) -> None:
        msgs = [{"role": "user", "content": f"question #{i % 10}"}]
        results[i] = client.complete(msgs, prompt_version="v1", parse=parse_answer).value

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i] == ("yes" if (i % 10) % 2 else "no") for i in range(40))
    assert server.calls == 10  # one call per distinct question, the rest waited for the cache


CHILD = textwrap.dedent(
    """
    import json, sys
    from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig
    base_url, cache_dir, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = JudgeClient(JudgeConfig(base_url=base_url, model="fake-judge", cache_dir=cache_dir))
    out = {}
    for i in range(start, start + 30):
        msgs = [{"role": "user", "content": f"question #{i}"}]
        out[i] = client.complete(msgs, prompt_version="v1", parse=lambda t: json.loads(t)["n"]).value
    print(json.dumps(out))
    """
)


def test_two_processes_fill_one_cache(server, tmp_path):
    server.handler = lambda req: json.dumps({"n": int(message_text(req).split("#")[-1]) * 3})
    cache = tmp_path / "cache"
    # overlapping ranges: questions 10..29 are asked by both processes at about the same time
    procs = [
        subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, str(cache), str(start)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        for start in (0, 10)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    for (out, _), start in zip(outs, (0, 10)):
        assert json.loads(out) == {str(i): 3 * i for i in range(start, start + 30)}
    files = sorted(cache.rglob("*.json"))
    assert len(files) == 40 and not list(cache.rglob("*.tmp"))
    for f in files:
        assert json.loads(f.read_text())["key"] == f.stem
    calls_before = server.calls
    client, _ = make_client(server, cache)
    for i in range(40):
        res = client.complete([{"role": "user", "content": f"question #{i}"}], prompt_version="v1",
                              parse=lambda t: json.loads(t)["n"])
        assert res.cached and res.value == 3 * i
    assert server.calls == calls_before


def test_image_part_is_jpeg_with_longest_side_1024(tmp_path):
    from PIL import Image

    path = tmp_path / "wide.png"
    Image.new("RGBA", (2000, 1000), (255, 0, 0, 0)).save(path)  # fully transparent
    part = image_part(path)
    assert part["type"] == "image_url"
    url = part["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert img.format == "JPEG" and img.size == (1024, 512) and img.mode == "RGB"
    assert img.getpixel((10, 10))[0] > 240 and img.getpixel((10, 10))[1] > 240  # over white
    small = image_part(Image.new("L", (300, 200), 0))
    assert Image.open(io.BytesIO(base64.b64decode(small["image_url"]["url"].split(",", 1)[1]))).size == (300, 200)
    with pytest.raises(ImageError, match="nope.png"):
        image_part(tmp_path / "nope.png")
    (tmp_path / "junk.png").write_bytes(b"not an image")
    with pytest.raises(ImageError, match="junk.png"):
        image_part(tmp_path / "junk.png")


def test_images_reach_the_server(server, tmp_path):
    from PIL import Image

    server.handler = lambda req: '{"answer": "yes"}'
    client, _ = make_client(server, None)
    msgs = [{"role": "user", "content": [text_part("look"), image_part(Image.new("RGB", (8, 8)))]}]
    client.complete(msgs, prompt_version="v1", parse=parse_answer)
    assert len(image_urls(server.requests[0])) == 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n[{"id": 1, "answer": "Yes"}]\n```', [{"id": 1, "answer": "Yes"}]),
        ('```\n{"a": 2}\n```', {"a": 2}),
        ('Here is my verdict: {"score": 2, "reason": "fine"} Hope it helps.', {"score": 2, "reason": "fine"}),
        ("Sure [see below]\n{\"a\": [1, 2]}", {"a": [1, 2]}),
        ('<think>maybe [1] or {"a": 0}?</think>\n{"a": 3}', {"a": 3}),
    ],
)
def test_extract_json(text, expected):
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "yes", "{broken", "```json\n{nope\n```"])
def test_extract_json_rejects(text):
    with pytest.raises(ValueError):
        extract_json(text)


def test_config_from_env(monkeypatch, tmp_path):
    for var in (ENV_BASE_URL, ENV_MODEL, ENV_API_KEY, ENV_TIMEOUT, ENV_CACHE):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(JudgeError, match=f"{ENV_BASE_URL} and {ENV_MODEL}"):
        JudgeConfig.from_env()
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:9/v1")
    with pytest.raises(JudgeError, match=f"set {ENV_MODEL}"):
        JudgeConfig.from_env()
    monkeypatch.setenv(ENV_MODEL, "judge-m")
    monkeypatch.setenv(ENV_TIMEOUT, "12.5")
    monkeypatch.setenv(ENV_CACHE, str(tmp_path))
    cfg = JudgeConfig.from_env()
    assert (cfg.base_url, cfg.model, cfg.api_key, cfg.timeout_s, cfg.cache_dir) == (
        "http://127.0.0.1:9/v1", "judge-m", "EMPTY", 12.5, tmp_path)
    monkeypatch.setenv(ENV_CACHE, "off")
    assert JudgeConfig.from_env().cache_dir is None
    assert JudgeConfig.from_env(model="other").model == "other"
    monkeypatch.delenv(ENV_CACHE)
    assert JudgeConfig.from_env().cache_dir.parts[-2:] == ("lmms_plugins", "judge")
    assert JudgeConfig.from_env().extra_body == {}
    assert JudgeConfig.from_env(extra_body={"reasoning_effort": "low"}).extra_body == {"reasoning_effort": "low"}
    monkeypatch.setenv(ENV_TIMEOUT, "soon")
    with pytest.raises(JudgeError, match=ENV_TIMEOUT):
        JudgeConfig.from_env()


def test_key_data_builds_messages_only_on_a_miss(server, tmp_path):
    server.handler = lambda req: '{"answer": "yes"}'
    built = []

    def build():
        built.append(1)
        return MESSAGES

    client, _ = make_client(server, tmp_path)
    key = {"prompt": "p", "image_sha256": ["abc"]}
    assert client.complete(build, prompt_version="v1", parse=parse_answer, key_data=key).cached is False
    assert len(built) == 1 and server.requests[0]["messages"] == MESSAGES
    again, _ = make_client(server, tmp_path)
    res = again.complete(build, prompt_version="v1", parse=parse_answer, key_data=key)
    assert res.cached and len(built) == 1 and server.calls == 1  # a hit encodes nothing
    again.complete(build, prompt_version="v1", parse=parse_answer, key_data={**key, "image_sha256": ["abd"]})
    assert len(built) == 2 and server.calls == 2


def test_file_digest(tmp_path):
    import hashlib

    from lmms_plugins.utils.judge_client import file_digest

    (tmp_path / "a.bin").write_bytes(b"x" * 3_000_000)
    assert file_digest(tmp_path / "a.bin") == hashlib.sha256(b"x" * 3_000_000).hexdigest()


def test_retry_feedback_shows_the_judge_its_rejected_answer(server, tmp_path):
    server.handler = sequence("I think yes.", '{"answer": "yes"}')
    client, _ = make_client(server, tmp_path)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer, retry_feedback=True)
    assert res.value == "yes" and server.calls == 2
    first, second = server.requests
    assert first["messages"] == MESSAGES
    assert second["messages"][:1] == MESSAGES and second["messages"][1] == {"role": "assistant", "content": "I think yes."}
    assert "no JSON found" in second["messages"][2]["content"]
    # cached under the original question: a new client asking it gets the accepted answer
    again, _ = make_client(server, tmp_path)
    assert again.complete(MESSAGES, prompt_version="v1", parse=parse_answer).cached


def test_everything_that_changes_a_reply_changes_the_cache_key():
    base = cache_key("fake-judge", "v1", MESSAGES)
    assert base == cache_key("fake-judge", "v1", MESSAGES, temperature=0, max_tokens=None, extra_body={})
    variants = [
        cache_key("other-judge", "v1", MESSAGES),
        cache_key("fake-judge", "v2", MESSAGES),
        cache_key("fake-judge", "v1", [{"role": "user", "content": "another question"}]),
        cache_key("fake-judge", "v1", MESSAGES, temperature=0.7),
        cache_key("fake-judge", "v1", MESSAGES, max_tokens=50),
        cache_key("fake-judge", "v1", MESSAGES, extra_body={"reasoning_effort": "low"}),
        cache_key("fake-judge", "v1", MESSAGES, extra_body={"reasoning_effort": "high"}),
        cache_key("fake-judge", "v1", key_data={"prompt": "p", "images": ["abc"]}),
    ]
    assert len({base, *variants}) == len(variants) + 1
    # the order of the extra body's fields does not matter
    assert cache_key("m", "v1", MESSAGES, extra_body={"a": 1, "b": 2}) == cache_key("m", "v1", MESSAGES, extra_body={"b": 2, "a": 1})
    with pytest.raises(ValueError, match="exactly one"):
        cache_key("m", "v1", MESSAGES, key_data={"x": 1})


def test_requests_differing_only_in_extra_body_are_two_calls_and_two_entries(server, tmp_path):
    server.handler = lambda req: json.dumps({"answer": "yes" if req.get("reasoning_effort") == "low" else "no"})
    plain, _ = make_client(server, tmp_path)
    low, _ = make_client(server, tmp_path, extra_body={"reasoning_effort": "low"})
    assert plain.complete(MESSAGES, prompt_version="v1", parse=parse_answer).value == "no"
    assert low.complete(MESSAGES, prompt_version="v1", parse=parse_answer).value == "yes"  # not plain's cached "no"
    assert server.calls == 2 and len(list(tmp_path.rglob("*.json"))) == 2
    # each is then served from its own entry
    assert plain.complete(MESSAGES, prompt_version="v1", parse=parse_answer).value == "no"
    res = low.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.cached) == ("yes", True) and server.calls == 2
    # the same holds for a key built from key_data (GRADE, DoD's editing judge)
    for client in (plain, low):
        client.complete(lambda: MESSAGES, prompt_version="v1", parse=parse_answer, key_data={"image": "abc"})
    assert server.calls == 4


def _old_key(model: str, prompt_version: str, messages) -> str:
    """The key of the cache before renovation #18 (schema 1: model, prompt version, messages)."""
    import hashlib

    blob = json.dumps({"model": model, "prompt_version": prompt_version, "messages": messages},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def test_a_cache_written_before_the_key_change_is_ignored_not_misread(server, tmp_path, caplog):
    from lmms_plugins.utils.judge_client import CACHE_SCHEMA

    # an old entry (schema 1, made with another extra body), as the previous version wrote it
    old = _old_key("fake-judge", "v1", MESSAGES)
    old_path = tmp_path / old[:2] / f"{old}.json"
    old_path.parent.mkdir(parents=True)
    old_entry = {"key": old, "model": "fake-judge", "prompt_version": "v1", "raw": '{"answer": "no"}'}
    old_path.write_text(json.dumps(old_entry))
    server.handler = lambda req: '{"answer": "yes"}'
    client, _ = make_client(server, tmp_path)
    res = client.complete(MESSAGES, prompt_version="v1", parse=parse_answer)
    assert (res.value, res.cached) == ("yes", False) and server.calls == 1
    assert json.loads(old_path.read_text()) == old_entry  # left alone (delete the folder to reclaim it)
    new = cache_key("fake-judge", "v1", MESSAGES)
    assert new != old and json.loads((tmp_path / new[:2] / f"{new}.json").read_text())["schema"] == CACHE_SCHEMA
    # a file at the new key's place that does not name this schema and key is never served
    foreign = cache_key("fake-judge", "v2", MESSAGES)
    path = tmp_path / foreign[:2] / f"{foreign}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({**old_entry, "key": foreign}))  # no schema: written by the old code
    with caplog.at_level("WARNING", logger="lmms_plugins.judge"):
        res = client.complete(MESSAGES, prompt_version="v2", parse=parse_answer)
    assert (res.value, res.cached) == ("yes", False) and server.calls == 2
    assert "ignoring judge cache entry" in caplog.text and "schema None" in caplog.text


def test_shared_client_is_one_per_configuration_extra_body_included(monkeypatch, tmp_path):
    from lmms_plugins.utils.judge_client import reset_shared_clients, shared_client

    for var in (ENV_API_KEY, ENV_TIMEOUT):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:9/v1")
    monkeypatch.setenv(ENV_MODEL, "judge-m")
    monkeypatch.setenv(ENV_CACHE, str(tmp_path))
    reset_shared_clients()
    first = shared_client()
    assert shared_client() is first
    low = shared_client(extra_body={"reasoning_effort": "low"})
    assert low is not first and low.config.extra_body == {"reasoning_effort": "low"}
    assert shared_client(extra_body={"reasoning_effort": "low"}) is low
    high = shared_client(extra_body={"reasoning_effort": "high"})
    assert high is not low and high.config.extra_body == {"reasoning_effort": "high"}
    assert shared_client() is first
    reset_shared_clients()
    assert shared_client() is not first
    monkeypatch.delenv(ENV_MODEL)
    with pytest.raises(JudgeError, match=ENV_MODEL):
        shared_client()
    reset_shared_clients()
