"""What an Images API hands back is not trusted: openai_image_edit against replies that name local
files, send too much, send it too slowly, or send bytes that are no image (real servers on
127.0.0.1; the judge client's deadline is tested the same way at the end)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/
from images_server import FakeImagesServer, UrlImage, png_bytes  # noqa: E402
from judge_server import Drip, RawServer, http_reply  # noqa: E402
from test_openai_image_edit import FAILED, make_model, requests_for  # noqa: E402

from lmms_plugins.utils.generation_failure import detect  # noqa: E402
from lmms_plugins.utils.model_output import parse_model_output  # noqa: E402

RED = png_bytes(Image.new("RGB", (8, 8), (250, 0, 0)))


def edit_once(tmp_path, handler, **kwargs) -> str:
    with FakeImagesServer(handler) as server:
        model = make_model(server, tmp_path, **kwargs)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
    return answer


def saved(tmp_path) -> list:
    return [p for p in (tmp_path / "edits").rglob("*") if p.is_file()]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "file:///dev/zero", "FILE:///etc/hostname", "file://localhost/etc/passwd",
                                 "ftp://127.0.0.1/x.png", "/etc/passwd", "../../etc/passwd", "gopher://127.0.0.1:70/x",
                                 "data:image/png,notbase64", "javascript:alert(1)"])
def test_an_image_url_that_is_not_http_is_never_followed(tmp_path, url):
    answer = edit_once(tmp_path, lambda req: {"created": 0, "data": [{"url": url}]}, max_retries=2)
    assert answer.startswith(FAILED) and "could not fetch the edited image" in answer, answer
    assert detect(answer) is not None and saved(tmp_path) == []


def test_a_redirect_to_a_local_file_is_refused_and_not_retried(tmp_path):
    redirect = [http_reply(302, b"", extra="Location: file:///etc/passwd\r\n")]
    with RawServer(lambda path: redirect) as url:
        answer = edit_once(tmp_path, lambda req: {"created": 0, "data": [{"url": url + "/img.png"}]}, max_retries=3)
    assert answer.startswith(f"{FAILED}0 retries] could not fetch the edited image") and "not http(s)" in answer, answer
    assert saved(tmp_path) == []


def test_data_urls_and_http_urls_are_fetched(tmp_path):
    data_url = "data:image/png;base64," + base64.b64encode(RED).decode()
    answer = edit_once(tmp_path, lambda req: {"created": 0, "data": [{"url": data_url}]})
    out = parse_model_output(answer)
    assert out.has_image and Image.open(out.images[0]).getpixel((0, 0)) == (250, 0, 0)
    answer = edit_once(tmp_path / "2", lambda req: UrlImage(RED))
    assert parse_model_output(answer).has_image


def test_images_over_the_size_cap_are_refused(tmp_path):
    big = png_bytes(Image.effect_noise((400, 400), 64).convert("RGB"))  # ~150 KiB
    cap_mb = 0.05
    for i, handler in enumerate([lambda req: big, lambda req: UrlImage(big),
                                 lambda req: {"created": 0, "data": [{"url": "data:image/png;base64," + base64.b64encode(big).decode()}]}]):
        answer = edit_once(tmp_path / str(i), handler, max_image_mb=cap_mb)
        assert answer.startswith(FAILED) and ("larger than" in answer or "more than" in answer), answer
        assert saved(tmp_path / str(i)) == []


@pytest.mark.parametrize("body", [b"<html><body>quota exceeded</body></html>", b'{"error": "nope"}', b"\x00" * 64, b"GIF"])
def test_bytes_that_are_not_an_image_are_a_failed_request_not_an_edit(tmp_path, body):
    for i, handler in enumerate([lambda req: {"created": 0, "data": [{"b64_json": base64.b64encode(body).decode()}]},
                                 lambda req: UrlImage(body)]):
        answer = edit_once(tmp_path / str(i), handler)
        assert answer.startswith(f"{FAILED}0 retries] the Images API sent {len(body)} bytes that are not"), answer
        assert detect(answer).kind == "marker"  # generation_failed in every benchmark, not bad_image
        assert saved(tmp_path / str(i)) == []


def test_a_reply_sent_a_byte_at_a_time_ends_at_the_deadline(tmp_path):
    """The Images API itself, and an image URL, each drip their body; timeout=1 bounds the whole
    request (with per-read timeouts they would run for minutes and end as a complete reply)."""
    body = json.dumps({"created": 0, "data": [{"b64_json": base64.b64encode(RED).decode()}]}).encode()
    drip = [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body), Drip(body, 0.2)]
    with RawServer(lambda path: drip) as url:
        model = make_model(None, tmp_path, base_url=url, timeout=1, max_retries=1)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
    assert answer.startswith(f"{FAILED}1 retries] APITimeoutError"), answer
    with RawServer(lambda path: drip) as image_url:
        answer = edit_once(tmp_path / "url", lambda req: {"created": 0, "data": [{"url": image_url + "/img.png"}]},
                           timeout=1, max_retries=0)
    assert answer.startswith(FAILED) and "did not complete within 1 s" in answer, answer


def test_the_judge_client_has_a_deadline_for_the_whole_request(tmp_path):
    from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig, JudgeError

    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "yes"}}]}).encode()
    drip = [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body), Drip(body, 0.2)]
    with RawServer(lambda path: drip) as url:
        client = JudgeClient(JudgeConfig(base_url=url, model="m", cache_dir=None, timeout_s=1, max_attempts=2), sleep=lambda s: None)
        with pytest.raises(JudgeError, match=r"failed 2 time\(s\); last error: timeout after 1"):
            client.complete([{"role": "user", "content": "q"}], prompt_version="p")
