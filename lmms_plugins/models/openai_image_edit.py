"""``openai_image_edit``: edits images through an OpenAI-compatible Images API.

    OPENAI_API_KEY=... lmms-eval --model openai_image_edit \\
        --model_args model=gpt-image-1,concurrency=8,output_dir=edits/ --tasks dod_no_hint,abacus,grade

Each request sends the task's input image(s) (from its ``doc_to_visual``, in that order) and the
task's prompt to ``POST {base_url}/images/edits`` (multipart), with the ``openai`` package as the
client. The answer is the package's unified output ``{"text": ..., "images": [paths]}``:

* images (``b64_json`` or ``url`` in ``data``) are written to
  ``<output_dir>/<task>/<doc_id>[-<i>].<ext>``; names are unique per task and document, so ranks
  of a multi-process run never collide;
* text a server sends beside or instead of an image (``text``, ``refusal``, ``output_text`` or a
  string ``message`` at the top level or in a ``data`` item) is the answer's text; a request the
  service's safety system refuses (HTTP 400 with a moderation / content-policy code) is a text-only
  answer too: it is the service's decision, not a broken request;
* a request that still fails after its retries, or a reply with neither image nor text, answers
  lmms-eval's own failure marker ``[LMMS_EVAL_REQUEST_FAILED after N retries] <error>``, which the
  benchmarks record as ``generation_failed``: it never passes for a decision of the model.

What a reply may hand back is checked, since the service is not trusted with the evaluator's
machine: an image ``url`` is fetched only over ``https``/``http`` (or decoded from a ``data:``
URL), never from ``file:`` or any other scheme; every image, downloaded or ``b64_json``, is at
most ``max_image_mb`` MiB; and bytes that are not a PNG, JPEG, WebP or GIF image are a failed
request (``generation_failed``), never saved as the model's edit.

Transport: the package's one HTTP client (lmms_plugins.utils.http_client): ``timeout`` bounds
each whole request, body included (not each read). Retries: HTTP 408/409/429/5xx, connection
errors and timeouts, up to ``max_retries`` times (the ``openai`` client's rules; a server that
asks to wait more than two minutes is not retried); a ``Retry-After`` (or ``retry-after-ms``)
header is honoured up to ``retry_after_cap`` seconds (default 60), otherwise the wait doubles
from ``retry_backoff`` seconds (default 1, capped at the same cap). Other HTTP errors (400, 401,
404, ...) are not retried. ``concurrency`` requests are in flight at once (threads sharing one
client). An input image given as a PIL image is sent as PNG, encoded once by OpenCV (lossless, in
C without the interpreter lock: about half of Pillow's time, README "Image editors"); paths and
bytes of PNG/JPEG/WebP files are sent as they are.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from loguru import logger

from lmms_eval.api.model import lmms

from lmms_plugins.models import OnCPU

FAILURE_PREFIX = "[LMMS_EVAL_REQUEST_FAILED"  # lmms-eval's own marker (its openai and gemini wrappers)
TEXT_FIELDS = ("text", "refusal", "output_text", "message")
# error codes with which OpenAI-style services refuse an edit on safety grounds
REFUSAL_CODES = ("moderation_blocked", "content_policy_violation", "content_filter", "safety")
RETRY_STATUSES = (408, 409, 429)
IMAGE_EXTS = {b"\x89PNG": ".png", b"\xff\xd8\xff": ".jpg", b"GIF8": ".gif"}


def _parse_bool(value) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def image_ext(data: bytes) -> str | None:
    """File suffix from the image's magic bytes; None when the bytes are no PNG, JPEG, WebP or GIF."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    for magic, ext in IMAGE_EXTS.items():
        if data.startswith(magic):
            return ext
    return None


def png_bytes(image) -> bytes:
    """A PIL image as PNG bytes, lossless (the edit is judged against this very image), by OpenCV:
    fast zlib settings (level 1, RLE) in C, without holding the interpreter lock."""
    import cv2
    import numpy as np

    from lmms_plugins.utils.images import to_rgb

    if image.mode not in ("RGB", "RGBA", "L"):
        image = to_rgb(image)
    array = np.asarray(image)
    if image.mode == "RGB":
        array = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    elif image.mode == "RGBA":
        array = cv2.cvtColor(array, cv2.COLOR_RGBA2BGRA)
    ok, encoded = cv2.imencode(".png", array, [cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_STRATEGY, cv2.IMWRITE_PNG_STRATEGY_RLE])
    if not ok:
        raise ValueError(f"OpenCV could not encode a {image.mode} image of {image.size} as PNG")
    return encoded.tobytes()


def encode_visual(visual, index: int) -> tuple[str, bytes, str]:
    """One input image as a multipart file tuple ``(name, bytes, mime)``.

    Paths and bytes of an image file are sent as they are (no re-encoding), and so is the PNG or JPEG
    file a task's PIL image was loaded from unchanged (``images.load_rgb(..., keep_source=True)``);
    other PIL images are sent as PNG (:func:`png_bytes`); anything else is a TypeError naming what it is.
    """
    from lmms_plugins.utils.images import source_bytes

    if isinstance(visual, (bytes, bytearray, str, os.PathLike)):
        data = bytes(visual) if isinstance(visual, (bytes, bytearray)) else Path(visual).read_bytes()
        ext = image_ext(data)
        if ext is None:
            raise TypeError(f"input image {index} is not a PNG, JPEG, WebP or GIF file")
    elif hasattr(visual, "save") and hasattr(visual, "mode"):  # a PIL image
        data = source_bytes(visual)
        ext = image_ext(data) if data is not None else None
        if ext is None:
            data, ext = png_bytes(visual), ".png"
    else:
        raise TypeError(f"input image {index} is a {type(visual).__name__}, not a PIL image, path or bytes")
    mime = {".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}.get(ext, "image/png")
    return f"image_{index}{ext}", data, mime


def reply_text(payload: dict) -> str:
    """Text a reply carries beside or instead of images (refusals, explanations), joined by newlines."""
    found: list[str] = []
    data = payload.get("data") if isinstance(payload.get("data"), list) else []
    items = [payload] + [d for d in data if isinstance(d, dict)]
    for item in items:
        for field in TEXT_FIELDS:
            value = item.get(field)
            if isinstance(value, str) and value.strip() and value.strip() not in found:
                found.append(value.strip())
    return "\n".join(found)


class RequestFailed(Exception):
    """A request that failed for good; ``retries`` says how many retries were made."""

    def __init__(self, message: str, retries: int) -> None:
        super().__init__(message)
        self.retries = retries


class OpenAIImageEdit(OnCPU, lmms):
    def __init__(
        self,
        model: str = "gpt-image-1",
        base_url: str = "",
        api_key: str = "",
        size: str = "",
        quality: str = "",
        concurrency: int = 8,
        timeout: float = 600.0,
        max_retries: int = 3,
        output_dir: str = "",
        retry_after_cap: float = 60.0,
        retry_backoff: float = 1.0,
        response_format: str = "",
        input_fidelity: str = "",
        progress: bool = True,
        max_image_mb: float = 64.0,
        **kwargs,
    ) -> None:
        super().__init__()
        from lmms_plugins.utils.http_client import RetryPolicy, http_client, openai_client

        unknown = sorted(set(kwargs) - {"batch_size", "max_batch_size", "device"})  # lmms-eval passes these to every model
        if unknown:
            logger.warning(f"openai_image_edit: ignoring unknown model_args {unknown}")
        key = api_key or os.environ.get("OPENAI_API_KEY", "")
        if not key:
            raise ValueError("openai_image_edit needs an API key: model_args api_key=... or the environment variable OPENAI_API_KEY")
        self.model_name = model
        self.concurrency = max(1, int(concurrency))
        self.max_retries = max(0, int(max_retries))
        self.timeout = float(timeout)
        self.retry_after_cap = float(retry_after_cap)
        self.retry_backoff = float(retry_backoff)
        self.progress = _parse_bool(progress)
        self.max_image_bytes = int(float(max_image_mb) * (1 << 20))
        # optional request fields are sent only when given: servers reject fields they do not know
        self.extra_fields = {k: v for k, v in (("size", size), ("quality", quality), ("response_format", response_format),
                                               ("input_fidelity", input_fidelity)) if v}
        self.output_dir = Path(output_dir).expanduser().resolve() if output_dir else Path(tempfile.mkdtemp(prefix="openai_image_edit_"))
        self.output_dir.mkdir(parents=True, exist_ok=True)
        logger.info(f"openai_image_edit: edited images go to {self.output_dir}")
        self._sleep = time.sleep  # tests record the waits instead of sleeping
        # the package's one client and retry policy; no jitter, so a run's waits are the documented ones
        self.policy = RetryPolicy(backoff_s=self.retry_backoff, max_backoff_s=self.retry_after_cap,
                                  retry_after_cap_s=self.retry_after_cap, jitter=0.0, sleep=lambda s: self._sleep(s))
        self.client = openai_client(base_url=base_url, api_key=key, timeout_s=self.timeout, max_retries=self.max_retries,
                                    policy=self.policy, max_connections=max(8, 2 * self.concurrency))
        self.downloads = http_client(self.timeout, max_connections=max(8, 2 * self.concurrency), follow_redirects=True)

    # --- one request ----------------------------------------------------------------------------

    def _visuals(self, doc_to_visual, task: str, split: str, doc_id: int) -> list:
        visuals = doc_to_visual(self.task_dict[task][split][doc_id]) if doc_to_visual is not None else []
        if visuals is None:
            return []
        return list(visuals) if isinstance(visuals, (list, tuple)) else [visuals]

    def _call(self, files: list, prompt: str) -> dict:
        """The reply's JSON as a dict; raises RequestFailed when the request fails for good."""
        import openai

        from lmms_plugins.utils.http_client import retries_in_flight, start_counting_retries

        image = files[0] if len(files) == 1 else files
        start_counting_retries()
        try:
            raw = self.client.images.with_raw_response.edit(image=image, prompt=prompt, model=self.model_name, n=1, **self.extra_fields)
            payload = json.loads(raw.content)  # the JSON as sent: no model objects built and dumped again
        except openai.APIStatusError as exc:
            if exc.status_code == 400 and self._is_refusal(exc):
                return {"refusal": f"[refused by the service] {self._error_message(exc)}"}
            raise RequestFailed(f"HTTP {exc.status_code}: {self._error_message(exc)}", retries_in_flight()) from None
        except openai.APIError as exc:  # connection errors and timeouts (the whole request's deadline)
            raise RequestFailed(f"{type(exc).__name__}: {exc}", retries_in_flight()) from None
        except (ValueError, RecursionError) as exc:
            raise RequestFailed(f"the reply is not JSON: {exc}", retries_in_flight()) from None
        if not isinstance(payload, dict):
            raise RequestFailed(f"the reply is a JSON {type(payload).__name__}, not an object", retries_in_flight())
        return payload

    @staticmethod
    def _error_body(exc) -> dict:
        body = getattr(exc, "body", None)
        if isinstance(body, dict):
            return body.get("error", body) if isinstance(body.get("error", body), dict) else body
        return {}

    def _error_message(self, exc) -> str:
        body = self._error_body(exc)
        message = body.get("message") if isinstance(body.get("message"), str) else None
        return (message or getattr(exc, "message", "") or str(exc)).replace("\n", " ")

    def _is_refusal(self, exc) -> bool:
        body = self._error_body(exc)
        code = " ".join(str(body.get(k, "")) for k in ("code", "type")).lower()
        return any(c in code for c in REFUSAL_CODES)

    def _image_bytes(self, item: dict) -> bytes | None:
        """The image of one ``data`` item (b64_json, or a URL fetched within the limits), or None."""
        from lmms_plugins.utils.http_client import FetchError, fetch

        b64 = item.get("b64_json")
        if b64:
            if not isinstance(b64, str):
                raise RequestFailed(f"b64_json is a {type(b64).__name__}, not a string", 0)
            if len(b64) > (self.max_image_bytes * 4) // 3 + 4:
                raise RequestFailed(f"the reply's image is larger than max_image_mb={self.max_image_bytes / (1 << 20):g}", 0)
            try:
                return base64.b64decode(b64)
            except ValueError as exc:  # binascii.Error
                raise RequestFailed(f"b64_json is not valid base64: {exc}", 0) from None
        url = item.get("url")
        if not url:
            return None
        retries = 0
        while True:
            try:
                return fetch(url, max_bytes=self.max_image_bytes, timeout_s=self.timeout, client=self.downloads)
            except FetchError as exc:
                if not exc.retryable or retries >= self.max_retries:
                    raise RequestFailed(f"could not fetch the edited image: {exc}", retries) from None
            self.policy.sleep(self.policy.delay(retries))
            retries += 1

    def edit_one(self, prompt: str, visuals: list, task: str, doc_id: int) -> str:
        """One sample's answer in the unified form (or lmms-eval's failure marker). Never raises."""
        try:
            if not visuals:
                return json.dumps({"text": "", "images": [], "error": "the task gave no input image to edit"})
            files = [encode_visual(v, i) for i, v in enumerate(visuals)]
            payload = self._call(files, prompt)
            paths = []
            items = payload.get("data") if isinstance(payload.get("data"), list) else []
            for i, item in enumerate(d for d in items if isinstance(d, dict)):
                data = self._image_bytes(item)
                if data is None:
                    continue
                if image_ext(data) is None:  # the service failed to give an image: never scored as the model's edit
                    raise RequestFailed(f"the Images API sent {len(data)} bytes that are not a PNG, JPEG, WebP or GIF "
                                        f"image (they start {data[:16]!r})", 0)
                paths.append(self._save(data, task, doc_id, i))
            text = reply_text(payload)
            if not paths and not text:  # the service answered nothing: the model side failed
                raise RequestFailed(f"the reply holds neither an image nor text: {json.dumps(payload)[:200]}", 0)
            return json.dumps({"text": text, "images": paths}, ensure_ascii=False)
        except RequestFailed as exc:
            return f"{FAILURE_PREFIX} after {exc.retries} retries] {str(exc)[:300]}"
        except Exception as exc:  # noqa: BLE001 - one bad sample must not end the run
            return f"{FAILURE_PREFIX} after 0 retries] {type(exc).__name__}: {str(exc)[:300]}"

    def _save(self, data: bytes, task: str, doc_id: int, index: int) -> str:
        folder = self.output_dir / task
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{int(doc_id):06d}{'' if index == 0 else f'-{index}'}{image_ext(data)}"
        path.write_bytes(data)
        return str(path)

    # --- lmms-eval interface ----------------------------------------------------------------------

    def _one(self, request) -> str:
        context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args[:6]
        try:
            visuals = self._visuals(doc_to_visual, task, split, doc_id)
        except Exception as exc:  # noqa: BLE001 - the task's loader failed: say so for this sample only
            return json.dumps({"text": "", "images": [], "error": f"doc_to_visual failed: {type(exc).__name__}: {exc}"})
        return self.edit_one(context, visuals, task, int(doc_id))

    def generate_until(self, requests) -> list[str]:
        from tqdm import tqdm

        answers: list[str | None] = [None] * len(requests)
        bar = tqdm(total=len(requests), desc="openai_image_edit", disable=not self.progress or self.rank != 0)
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="image-edit") as pool:
            futures = {pool.submit(self._one, request): i for i, request in enumerate(requests)}
            for future in as_completed(futures):
                answers[futures[future]] = future.result()
                bar.update(1)
        bar.close()
        failed = [a for a in answers if a.startswith(FAILURE_PREFIX)]
        if failed:
            logger.warning(f"openai_image_edit: {len(failed)} of {len(requests)} requests failed; first: {failed[0]}")
        return answers

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("openai_image_edit only edits images")
