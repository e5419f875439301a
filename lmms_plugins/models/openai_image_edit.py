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

Retries: HTTP 408/409/429/5xx, connection errors and timeouts, up to ``max_retries`` times; a
``Retry-After`` (or ``retry-after-ms``) header is honoured up to ``retry_after_cap`` seconds
(default 60), otherwise the wait doubles from ``retry_backoff`` seconds (default 1, capped at
the same cap). Other HTTP errors (400, 401, 404, ...) are not retried. ``concurrency`` requests
are in flight at once (threads sharing one client).
"""

from __future__ import annotations

import base64
import io
import json
import os
import tempfile
import time
import urllib.request
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


def image_ext(data: bytes) -> str:
    """File suffix from the image's magic bytes (PNG when unknown: what the API sends by default)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    for magic, ext in IMAGE_EXTS.items():
        if data.startswith(magic):
            return ext
    return ".png"


def encode_visual(visual, index: int) -> tuple[str, bytes, str]:
    """One input image as a multipart file tuple ``(name, bytes, mime)``.

    PIL images are sent as PNG (lossless: the edit is judged against this very image); paths and
    bytes are sent as they are.
    """
    if isinstance(visual, (bytes, bytearray)):
        data = bytes(visual)
        ext = image_ext(data)
    elif isinstance(visual, (str, os.PathLike)):
        data = Path(visual).read_bytes()
        ext = image_ext(data)
    elif hasattr(visual, "save"):  # a PIL image
        from lmms_plugins.utils.images import to_rgb

        image = visual if visual.mode in ("RGB", "RGBA", "L") else to_rgb(visual)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)  # lossless; ~2.4x less CPU than level 6 (README)
        data, ext = buffer.getvalue(), ".png"
    else:
        raise TypeError(f"input image {index} is a {type(visual).__name__}, not a PIL image, path or bytes")
    mime = {".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}.get(ext, "image/png")
    return f"image_{index}{ext}", data, mime


def reply_text(payload: dict) -> str:
    """Text a reply carries beside or instead of images (refusals, explanations), joined by newlines."""
    found: list[str] = []
    items = [payload] + [d for d in (payload.get("data") or []) if isinstance(d, dict)]
    for item in items:
        for field in TEXT_FIELDS:
            value = item.get(field)
            if isinstance(value, str) and value.strip() and value.strip() not in found:
                found.append(value.strip())
    return "\n".join(found)


def retry_after_seconds(headers) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (numbers only; an HTTP date counts as absent)."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None


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
        **kwargs,
    ) -> None:
        super().__init__()
        import openai

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
        # optional request fields are sent only when given: servers reject fields they do not know
        self.extra_fields = {k: v for k, v in (("size", size), ("quality", quality), ("response_format", response_format),
                                               ("input_fidelity", input_fidelity)) if v}
        self.output_dir = Path(output_dir).expanduser().resolve() if output_dir else Path(tempfile.mkdtemp(prefix="openai_image_edit_"))
        self.output_dir.mkdir(parents=True, exist_ok=True)
        logger.info(f"openai_image_edit: edited images go to {self.output_dir}")
        # retries are ours (Retry-After with a cap, the count in the failure marker): the client makes none
        self.client = openai.OpenAI(api_key=key, base_url=base_url or None, timeout=self.timeout, max_retries=0)
        self._sleep = time.sleep  # tests record the waits instead of sleeping

    # --- one request ----------------------------------------------------------------------------

    def _visuals(self, doc_to_visual, task: str, split: str, doc_id: int) -> list:
        visuals = doc_to_visual(self.task_dict[task][split][doc_id]) if doc_to_visual is not None else []
        if visuals is None:
            return []
        return list(visuals) if isinstance(visuals, (list, tuple)) else [visuals]

    def _call(self, files: list, prompt: str) -> dict:
        """The reply's JSON as a dict; raises RequestFailed when the request fails for good."""
        import openai

        image = files[0] if len(files) == 1 else files
        retries = 0
        while True:
            try:
                reply = self.client.images.edit(image=image, prompt=prompt, model=self.model_name, n=1, **self.extra_fields)
                return reply.to_dict() if hasattr(reply, "to_dict") else dict(reply)
            except openai.APIStatusError as exc:
                if exc.status_code == 400 and self._is_refusal(exc):
                    return {"refusal": f"[refused by the service] {self._error_message(exc)}"}
                retryable = exc.status_code in RETRY_STATUSES or exc.status_code >= 500
                error, headers = f"HTTP {exc.status_code}: {self._error_message(exc)}", exc.response.headers
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:  # timeout is a connection error
                retryable, error, headers = True, f"{type(exc).__name__}: {exc}", None
            if not retryable or retries >= self.max_retries:
                raise RequestFailed(error, retries)
            wait = retry_after_seconds(headers)
            if wait is None:
                wait = self.retry_backoff * (2**retries)
            self._sleep(min(wait, self.retry_after_cap))
            retries += 1

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

    def _download(self, url: str) -> bytes:
        if url.startswith("data:"):
            return base64.b64decode(url.split(",", 1)[1])
        last = None
        for attempt in range(self.max_retries + 1):
            try:
                with urllib.request.urlopen(url, timeout=self.timeout) as response:  # noqa: S310 - the server's own URL
                    return response.read()
            except OSError as exc:
                last = exc
                if attempt < self.max_retries:
                    self._sleep(min(self.retry_backoff * (2**attempt), self.retry_after_cap))
        raise RequestFailed(f"could not download the edited image {url}: {last}", self.max_retries)

    def edit_one(self, prompt: str, visuals: list, task: str, doc_id: int) -> str:
        """One sample's answer in the unified form (or lmms-eval's failure marker). Never raises."""
        try:
            if not visuals:
                return json.dumps({"text": "", "images": [], "error": "the task gave no input image to edit"})
            files = [encode_visual(v, i) for i, v in enumerate(visuals)]
            payload = self._call(files, prompt)
            paths = []
            for i, item in enumerate(d for d in (payload.get("data") or []) if isinstance(d, dict)):
                if item.get("b64_json"):
                    data = base64.b64decode(item["b64_json"])
                elif item.get("url"):
                    data = self._download(item["url"])
                else:
                    continue
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
