"""openai_image_edit without the CLI: the real model class and the real openai client against a
real Images server on 127.0.0.1 (tests/images_server.py, real multipart parsing)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ (images_server)
from images_server import FakeImagesServer, Reply, UrlImage, png_bytes  # noqa: E402

from lmms_plugins.utils.model_output import parse_model_output  # noqa: E402

FAILED = "[LMMS_EVAL_REQUEST_FAILED after "


def colour(i: int) -> tuple[int, int, int]:
    return (10 + 20 * i % 240, 200 - 7 * i % 200, 30 + 11 * i % 220)


def make_model(server, tmp_path, **kwargs):
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    args = {"base_url": server.base_url if server else "http://127.0.0.1:9/v1", "api_key": "test-key",
            "output_dir": str(tmp_path / "edits"), "progress": "false", **kwargs}
    model = OpenAIImageEdit(**args)
    model.waits = []
    model._sleep = model.waits.append  # record the waits; no test sleeps
    return model


def requests_for(model, prompts, visuals_of=None, task="t"):
    """lmms-eval Instances as the evaluator builds them for generate_until (docs in model.task_dict)."""
    from lmms_eval.api.instance import Instance

    docs = [{"n": i} for i in range(len(prompts))]
    model.task_dict = {task: {"test": docs}}
    visuals_of = visuals_of or (lambda doc: [Image.new("RGB", (24, 16), colour(doc["n"]))])
    return [Instance("generate_until", (p, {"max_new_tokens": 16384}, visuals_of, i, task, "test"), 0,
                     {"task": task, "doc_id": i, "repeats": 1}) for i, p in enumerate(prompts)]


def mirror(req):
    return png_bytes(req.images[0].transpose(Image.FLIP_LEFT_RIGHT))


def test_edits_run_concurrently_and_answers_keep_request_order(tmp_path):
    with FakeImagesServer(mirror, latency=0.3) as server:
        model = make_model(server, tmp_path, concurrency=4, size="256x256", quality="low")
        reqs = requests_for(model, [f"edit {i}" for i in range(12)])
        answers = model.generate_until(reqs)
        assert server.max_in_flight == 4  # never more than `concurrency`, and it was reached
        assert server.calls == 12 and not server.handler_errors
        sent = {r.prompt: r for r in server.requests}
    for i, answer in enumerate(answers):
        out = parse_model_output(answer)
        assert out.text == "" and len(out.images) == 1 and not out.problems
        assert out.image == str(tmp_path / "edits" / "t" / f"{i:06d}.png")
        # the server received doc i's image and prompt; the answer holds the server's edit of it
        got = sent[f"edit {i}"]
        assert got.images[0].getpixel((0, 0)) == colour(i)
        assert got.fields["model"] == "gpt-image-1" and got.fields["size"] == "256x256" and got.fields["quality"] == "low"
        assert "response_format" not in got.fields  # only sent when asked for
        assert list(Image.open(out.image).getdata()) == list(got.images[0].transpose(Image.FLIP_LEFT_RIGHT).getdata())


def test_one_request_at_a_time_with_concurrency_1(tmp_path):
    with FakeImagesServer(mirror, latency=0.05) as server:
        model = make_model(server, tmp_path, concurrency=1)
        model.generate_until(requests_for(model, ["a", "b", "c", "d"]))
        assert server.max_in_flight == 1 and server.calls == 4


def test_429_retry_after_is_honoured_then_the_edit_succeeds(tmp_path):
    state = {"n": 0}

    def handler(req):
        state["n"] += 1
        if state["n"] == 1:
            return Reply(429, {"error": {"message": "slow down", "type": "rate_limit"}}, {"Retry-After": "2"})
        return mirror(req)

    with FakeImagesServer(handler) as server:
        model = make_model(server, tmp_path, max_retries=3)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
        assert server.calls == 2
    assert model.waits == [2.0]
    assert parse_model_output(answer).has_image


def test_retry_after_is_capped_and_backoff_doubles_without_it(tmp_path):
    replies = iter([Reply(503, {"error": {"message": "busy"}}, {"Retry-After": "100"}),
                    Reply(502, {"error": {"message": "bad gateway"}}), Reply(500, {"error": {"message": "oops"}})])

    def handler(req):
        return next(replies, None) or mirror(req)

    with FakeImagesServer(handler) as server:
        model = make_model(server, tmp_path, max_retries=3, retry_after_cap=7, retry_backoff=0.5)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
        assert server.calls == 4
    assert model.waits == [7.0, 1.0, 2.0]  # capped Retry-After; then 0.5 * 2**1, 0.5 * 2**2
    assert parse_model_output(answer).has_image


def test_failure_after_retries_is_lmms_evals_failure_marker(tmp_path):
    with FakeImagesServer(lambda req: Reply(500, {"error": {"message": "model crashed"}})) as server:
        model = make_model(server, tmp_path, max_retries=2, retry_backoff=0.1)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
        assert server.calls == 3  # one try and two retries
    assert answer.startswith(f"{FAILED}2 retries] HTTP 500: model crashed")
    assert model.waits == [0.1, 0.2]
    from lmms_plugins.utils.generation_failure import detect

    assert detect(answer).kind == "marker"  # the benchmarks record it as generation_failed, not as an answer


def test_client_errors_are_not_retried(tmp_path):
    with FakeImagesServer(lambda req: Reply(401, {"error": {"message": "bad key", "code": "invalid_api_key"}})) as server:
        model = make_model(server, tmp_path, max_retries=5)
        [answer] = model.generate_until(requests_for(model, ["edit"]))
        assert server.calls == 1
    assert answer.startswith(f"{FAILED}0 retries] HTTP 401: bad key")


def test_dead_server_gives_the_failure_marker(tmp_path):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    model = make_model(None, tmp_path, base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, timeout=5)
    [answer] = model.generate_until(requests_for(model, ["edit"]))
    assert answer.startswith(f"{FAILED}1 retries] APIConnectionError")


def test_text_refusal_safety_refusal_url_image_and_empty_reply(tmp_path):
    jpeg = Image.new("RGB", (8, 8), (250, 0, 0))

    def handler(req):
        if "refuse" in req.prompt:
            return "I cannot make this edit: the square cannot both move and stay."
        if "unsafe" in req.prompt:
            return Reply(400, {"error": {"message": "Your request was rejected by the safety system.", "code": "moderation_blocked"}})
        if "url" in req.prompt:
            return UrlImage(png_bytes(req.images[0].transpose(Image.ROTATE_90)))
        if "both" in req.prompt:
            import base64
            import io

            buf = io.BytesIO()
            jpeg.save(buf, format="JPEG")
            return {"created": 1, "data": [{"b64_json": base64.b64encode(buf.getvalue()).decode()}], "refusal": "partly done"}
        return {"created": 1, "data": []}

    with FakeImagesServer(handler) as server:
        model = make_model(server, tmp_path)
        prompts = ["refuse this", "unsafe edit", "url please", "both please", "nothing"]
        raw = model.generate_until(requests_for(model, prompts))
        answers = [parse_model_output(a) for a in raw]
        assert server.calls == 5  # the safety refusal is the service's answer: not retried
    refusal, unsafe, url, both, empty = answers
    assert refusal.text == "I cannot make this edit: the square cannot both move and stay." and not refusal.images
    assert unsafe.text.startswith("[refused by the service] Your request was rejected") and not unsafe.images
    assert url.image.endswith("000002.png")
    assert Image.open(url.image).size == (16, 24)  # the rotated 24x16 input, downloaded from the URL
    assert both.text == "partly done" and both.image.endswith("000003.jpg")
    assert not empty.images and empty.text.startswith(f"{FAILED}0 retries] the reply holds neither an image nor text")
    # refusals (the model's or the service's) are answers; a reply with nothing in it is a failed generation
    from lmms_plugins.utils.generation_failure import detect

    assert [detect(a) is None for a in raw] == [True, True, True, True, False]


def test_several_input_images_are_sent_in_the_tasks_order(tmp_path):
    def two(doc):
        return [Image.new("RGB", (10, 10), (1, 2, 3)), Image.new("RGB", (12, 10), (4, 5, 6))]

    with FakeImagesServer(mirror) as server:
        model = make_model(server, tmp_path)
        model.generate_until(requests_for(model, ["combine"], visuals_of=two))
        [got] = server.requests
    assert [im.getpixel((0, 0)) for im in got.images] == [(1, 2, 3), (4, 5, 6)]
    assert [im.size for im in got.images] == [(10, 10), (12, 10)]


def test_no_input_image_sends_nothing_and_says_why(tmp_path):
    with FakeImagesServer(mirror) as server:
        model = make_model(server, tmp_path)
        [answer] = model.generate_until(requests_for(model, ["edit"], visuals_of=lambda doc: []))
        assert server.calls == 0
    payload = json.loads(answer)
    assert payload["images"] == [] and "no input image" in payload["error"]


def test_missing_api_key_is_a_clear_error(tmp_path, monkeypatch):
    from lmms_plugins.models.openai_image_edit import OpenAIImageEdit

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIImageEdit(base_url="http://127.0.0.1:9/v1", output_dir=str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert OpenAIImageEdit(base_url="http://127.0.0.1:9/v1", output_dir=str(tmp_path)).client.api_key == "from-env"


def test_unknown_model_args_are_named_and_lmms_evals_own_are_not(tmp_path):
    from loguru import logger

    lines = []
    sink = logger.add(lines.append, level="WARNING")
    try:
        make_model(None, tmp_path, batch_size=1, max_batch_size=None, device="cuda")
        assert not lines
        make_model(None, tmp_path, qualty="high")
        assert "ignoring unknown model_args ['qualty']" in str(lines[-1])
    finally:
        logger.remove(sink)


def test_a_tasks_png_or_jpeg_input_is_sent_as_the_file_and_a_changed_image_as_new_png(tmp_path):
    from lmms_plugins.utils.images import load_rgb

    png, jpeg = tmp_path / "in.png", tmp_path / "in.jpg"
    Image.new("RGB", (20, 14), (9, 120, 200)).save(png)
    Image.new("RGB", (20, 14), (200, 40, 9)).save(jpeg, quality=80)
    changed = load_rgb(png, keep_source=True)
    changed.putpixel((0, 0), (1, 1, 1))  # no longer the file's pixels

    def visuals(doc):
        return [[load_rgb(png, keep_source=True), load_rgb(jpeg, keep_source=True)], [changed], [load_rgb(png)]][doc["n"]]

    with FakeImagesServer(mirror) as server:
        model = make_model(server, tmp_path, concurrency=1)
        model.generate_until(requests_for(model, ["a", "b", "c"], visuals_of=visuals))
        first, second, third = server.requests
    assert first.files == [png.read_bytes(), jpeg.read_bytes()]  # the files themselves: no re-encoding
    assert first.filenames == ["image_0.png", "image_1.jpg"]
    assert second.files[0] != png.read_bytes() and second.images[0].getpixel((0, 0)) == (1, 1, 1)
    assert third.files[0] != png.read_bytes() and third.images[0].getpixel((5, 5)) == (9, 120, 200)  # encoded anew


def test_an_abacus_docs_stored_image_is_sent_byte_identical_and_a_changed_one_encoded_anew(tmp_path):
    import datasets

    from lmms_plugins.tasks.abacus import hooks
    from lmms_plugins.tasks.abacus import synthetic as syn

    root = tmp_path / "abacus"
    assert syn.main(["--out", str(root), "--n", "1", "--seed", "3", "--edits", "touch"]) == 0
    docs = hooks.process_docs_add(datasets.load_dataset(str(root), "add", split="easy"))
    stored = docs[0]["image"]["bytes"]
    resized = hooks.doc_to_visual(docs[0])[0].resize((40, 30))  # a new image: remembers nothing
    converted = hooks.doc_to_visual(docs[0])[0].convert("L").convert("RGB")

    def visuals(doc):
        return [hooks.doc_to_visual(docs[0]), [resized], [converted]][doc["n"]]

    with FakeImagesServer(mirror) as server:
        model = make_model(server, tmp_path, concurrency=1)
        model.generate_until(requests_for(model, ["a", "b", "c"], visuals_of=visuals))
        first, second, third = server.requests
    assert first.files == [stored] and first.filenames == ["image_0.png"]  # the parquet's bytes, not re-encoded
    assert second.files[0] != stored and second.images[0].size == (40, 30)
    assert third.files[0] != stored and third.images[0].size == hooks.source_image(docs[0]).size
