"""One client for every LLM judge of this package (DoD and GRADE share it).

Speaks the OpenAI chat-completions protocol (``POST {base_url}/chat/completions``) through the
``openai`` package (installed with lmms-eval), so any OpenAI-compatible endpoint works: a local
vLLM server (any dummy API key), OpenAI, Gemini's OpenAI endpoint, OpenRouter...

Configured by environment variables (see :meth:`JudgeConfig.from_env`):

=================================  ==========================================================
``LMMS_PLUGINS_JUDGE_BASE_URL``    e.g. ``http://127.0.0.1:8000/v1`` (required)
``LMMS_PLUGINS_JUDGE_MODEL``       the judge model name the endpoint expects (required)
``LMMS_PLUGINS_JUDGE_API_KEY``     bearer token; any dummy value works for a local vLLM
``LMMS_PLUGINS_JUDGE_TIMEOUT``     seconds for each whole HTTP request (default 60)
``LMMS_PLUGINS_JUDGE_CONCURRENCY`` judge requests in flight at once per process, whatever the
                                   number of threads asking (default 64); lower it for a
                                   rate-limited endpoint
``LMMS_PLUGINS_JUDGE_CACHE``       cache folder (default ``judge`` under the package's cache folder,
                                   ``LMMS_PLUGINS_CACHE_DIR`` or ``~/.cache/lmms_plugins``);
                                   ``off`` disables the cache
=================================  ==========================================================

Behaviour:

* Thread-safe: ``process_results`` runs in several threads; one client may be shared.
* Transport: the package's one HTTP client (lmms_plugins.utils.http_client: an ``openai`` client
  whose every request ends within the timeout as a whole, not per read) sends the request and decides
  what to retry (timeouts, refused connections, HTTP 408/409/429 and 5xx; other errors such as
  400, 401, 404 fail at once), up to ``max_attempts`` requests. This client only chooses how long
  to wait before a retry: the server's ``Retry-After`` (``retry-after-ms``) capped at
  :data:`RETRY_AFTER_CAP_S` (30 s), else exponential backoff with jitter. A server that asks for
  more than two minutes is not retried at all (the ``openai`` rule): the call fails at once.
* ``parse(text)`` turns the reply into a value; a ``ValueError`` from it means "this answer is
  unusable, ask again" (up to ``attempts`` answers).
* A persistent cache, one JSON file per key (:func:`cache_key`: sha256 of everything that can
  change the reply: judge model, prompt version, messages or the caller's ``key_data`` standing in
  for them, temperature, max tokens, extra body), written atomically (temporary file +
  ``os.replace``), so several processes (accelerate ranks) can fill it at once and a crashed run
  resumes where it stopped. Only answers that parsed are stored; on a hit the stored text is
  parsed again, so a changed parser can never serve a stale value silently (bump
  ``prompt_version`` when the prompt or its parser changes meaning). An entry is read only when it
  names the current :data:`CACHE_SCHEMA` and its own key; entries of an older key live under other
  file names and are never looked up.
* :func:`shared_client` gives the process one client per configuration (DoD and GRADE use it).
* After every attempt failed: :class:`JudgeError` saying what failed, how often and the last error.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lmms_plugins.utils.utf8 import valid_text, valid_utf8

log = logging.getLogger("lmms_plugins.judge")

ENV_BASE_URL = "LMMS_PLUGINS_JUDGE_BASE_URL"
ENV_MODEL = "LMMS_PLUGINS_JUDGE_MODEL"
ENV_API_KEY = "LMMS_PLUGINS_JUDGE_API_KEY"
ENV_TIMEOUT = "LMMS_PLUGINS_JUDGE_TIMEOUT"
ENV_CONCURRENCY = "LMMS_PLUGINS_JUDGE_CONCURRENCY"
DEFAULT_CONCURRENCY = 64  # above what --process_docs_parallel 16 asks (48): a bound for rate limits, not a brake
ENV_CACHE = "LMMS_PLUGINS_JUDGE_CACHE"

_CACHE_OFF = {"off", "none", "0", "false", "no", ""}
_RETRY_STATUS = {408, 409, 429}  # and every 5xx: the statuses the openai client retries
#: Longest wait a server's Retry-After can impose between two attempts (a longer one is cut to
#: this; one over two minutes is not retried at all, the openai client's rule).
RETRY_AFTER_CAP_S = 30.0


class JudgeError(RuntimeError):
    """The judge could not give a usable answer (after its retries), or is not configured."""


def default_cache_dir() -> Path:
    """``judge`` under the package's one cache folder (lmms_plugins.utils.cache_root)."""
    from lmms_plugins.utils.cache_root import cache_dir

    return cache_dir("judge")


@dataclass(frozen=True)
class JudgeConfig:
    base_url: str
    model: str
    api_key: str = "EMPTY"
    timeout_s: float = 60.0
    max_attempts: int = 4  # HTTP attempts per answer (transport failures)
    cache_dir: Path | None = None  # None: no cache
    backoff_s: float = 1.0  # first backoff; doubles per failed HTTP attempt
    max_backoff_s: float = 60.0
    concurrency: int = DEFAULT_CONCURRENCY  # HTTP requests in flight at once (all threads of the process)
    # Extra top-level request fields (e.g. {"reasoning_effort": "low"}); part of the cache key.
    # Compared but not hashed (a dict is not hashable): two configs that differ only here are
    # different dict keys in shared_client's registry.
    extra_body: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=True)

    @classmethod
    def from_env(cls, **overrides: Any) -> "JudgeConfig":
        """Read the ``LMMS_PLUGINS_JUDGE_*`` variables; keyword overrides win over them."""
        env = os.environ
        values: dict[str, Any] = {
            "base_url": env.get(ENV_BASE_URL, "").strip(),
            "model": env.get(ENV_MODEL, "").strip(),
            "api_key": env.get(ENV_API_KEY, "").strip() or "EMPTY",
        }
        timeout = env.get(ENV_TIMEOUT, "").strip()
        if timeout:
            try:
                values["timeout_s"] = float(timeout)
            except ValueError:
                raise JudgeError(f"{ENV_TIMEOUT}={timeout!r} is not a number of seconds") from None
        concurrency = env.get(ENV_CONCURRENCY, "").strip()
        if concurrency:
            try:
                values["concurrency"] = int(concurrency)
            except ValueError:
                values["concurrency"] = 0
            if values["concurrency"] < 1:
                raise JudgeError(f"{ENV_CONCURRENCY}={concurrency!r} is not a positive whole number of requests")
        cache = env.get(ENV_CACHE)
        if cache is None:
            values["cache_dir"] = default_cache_dir()
        elif cache.strip().lower() in _CACHE_OFF:
            values["cache_dir"] = None
        else:
            values["cache_dir"] = Path(cache).expanduser()
        values.update(overrides)
        missing = [name for name, key in ((ENV_BASE_URL, "base_url"), (ENV_MODEL, "model")) if not values.get(key)]
        if missing:
            raise JudgeError(
                "the LLM judge is not configured: set "
                + " and ".join(missing)
                + f" (e.g. {ENV_BASE_URL}=http://127.0.0.1:8000/v1 {ENV_MODEL}=Qwen/Qwen3-VL-8B-Instruct"
                f" for a local vLLM server; {ENV_API_KEY} may be any dummy value there)"
            )
        if values.get("cache_dir") is not None:
            values["cache_dir"] = Path(values["cache_dir"])
        return cls(**values)


@dataclass(frozen=True)
class JudgeResult:
    value: Any  # what parse() returned (the reply text when parse is None)
    raw: str  # the judge's reply text
    cached: bool  # served from the cache, no HTTP call
    calls: int  # HTTP requests this result cost (0 when cached)


#: What the cache key covers, as a number: bump it when that changes, so that no entry written
#: under the old meaning is read. 1: model, prompt version, messages. 2: also
#: temperature, max tokens and the extra body, for DoD and GRADE alike.
CACHE_SCHEMA = 2


def cache_key(
    model: str,
    prompt_version: str,
    messages: Sequence[Mapping[str, Any]] | None = None,
    *,
    key_data: Any = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    extra_body: Mapping[str, Any] | None = None,
) -> str:
    """The judge cache's key: sha256 of everything in a request that can change the reply.

    Give either ``messages`` (what is sent) or ``key_data`` (a JSON-able value that determines
    them, e.g. the rendered prompt and the image files' sha256, so a hit encodes no image). The
    endpoint, the API key and the timeout are left out: they do not change what a model answers.
    """
    if (messages is None) == (key_data is None):
        raise ValueError("cache_key needs exactly one of messages and key_data")
    request: dict[str, Any] = {
        "schema": CACHE_SCHEMA,
        "model": model,
        "prompt_version": prompt_version,
        "temperature": float(temperature),
        "max_tokens": max_tokens,
        "extra_body": dict(extra_body or {}),
    }
    if key_data is None:
        request["messages"] = list(messages)
    else:
        request["key_data"] = key_data
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # surrogatepass: a lone surrogate (a JSON escape in a model's text) still gives a stable key
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def prompt_version(name: str, source: str) -> str:
    """A prompt's part of the cache key: its name and the sha256 of its text, so a replaced or
    edited prompt file never reads answers given to another."""
    return f"{name}:{hashlib.sha256(source.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def _policy(config: "JudgeConfig", sleep: Callable[[float], None] = time.sleep):
    from lmms_plugins.utils.http_client import RetryPolicy

    return RetryPolicy(backoff_s=config.backoff_s, max_backoff_s=config.max_backoff_s,
                       retry_after_cap_s=RETRY_AFTER_CAP_S, sleep=sleep)


def retry_delay(config: "JudgeConfig", retries_taken: int, headers: Any = None) -> float:
    """Seconds to wait before retry number ``retries_taken + 1``: the server's Retry-After capped at
    :data:`RETRY_AFTER_CAP_S`, else ``backoff_s`` doubling per retry (at most ``max_backoff_s``)
    with +-50 % jitter (the package's one policy: lmms_plugins.utils.http_client.RetryPolicy)."""
    return _policy(config).delay(retries_taken, headers)


def _reply_text(body: Any) -> str:
    """The assistant text of a chat-completions response body; raises ValueError if absent."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"response has no choices[0].message.content: {str(body)[:200]}") from None
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise ValueError("the judge returned an empty message")
    return content


class _Unusable(ValueError):
    """The endpoint answered, but with no usable message (counts as a rejected answer)."""

    def __init__(self, message: str, calls: int):
        super().__init__(message)
        self.calls = calls


def _transport_error(url: str, exc: Exception, calls: int, timeout_s: float) -> str:
    """One line saying what the endpoint did, for JudgeError (and so for the sample's reason)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        try:
            body = exc.response.text[:300]
        except Exception:  # noqa: BLE001 - a streamed or closed body: the message is enough
            body = str(exc)[:300]
        if status in _RETRY_STATUS or status >= 500:
            from lmms_plugins.utils.http_client import retry_after_seconds

            wait = retry_after_seconds(exc.response.headers)
            note = f" (the server asked to wait {wait:.0f}s: not retried)" if calls == 1 and wait and wait > RETRY_AFTER_CAP_S else ""
            return f"judge endpoint {url} failed {calls} time(s); last error: HTTP {status}: {body}{note}"
        return f"judge endpoint {url} answered HTTP {status} (not retried): {body}"
    if isinstance(exc, openai.APITimeoutError):
        return f"judge endpoint {url} failed {calls} time(s); last error: timeout after {timeout_s}s"
    if not isinstance(exc, openai.APIConnectionError):
        return f"judge endpoint {url} failed: {type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc
    return f"judge endpoint {url} failed {calls} time(s); last error: connection error: {type(cause).__name__}: {cause}"


class JudgeClient:
    def __init__(self, config: JudgeConfig, *, sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self._sleep = sleep  # injectable so tests can check backoff without waiting
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._openai = None
        self._slots = threading.BoundedSemaphore(max(1, int(config.concurrency)))  # requests in flight
        self.http_calls = 0  # total HTTP requests made by this client (all threads)
        self.cache_hits = 0

    @classmethod
    def from_env(cls, **overrides: Any) -> "JudgeClient":
        return cls(JudgeConfig.from_env(**overrides))

    # ---------------------------------------------------------------- public
    def complete(
        self,
        messages: Sequence[Mapping[str, Any]] | Callable[[], Sequence[Mapping[str, Any]]],
        *,
        prompt_version: str,
        parse: Callable[[str], Any] | None = None,
        attempts: int = 3,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        key_data: Any = None,
        retry_feedback: bool = False,
    ) -> JudgeResult:
        """Ask the judge; return the first answer that ``parse`` accepts (cached when possible).

        ``messages`` may be a function that builds them: with ``key_data`` (any JSON-able value
        that determines the messages, e.g. the prompt text and the image files' sha256), the cache
        key is computed from ``key_data`` instead, and the messages (base64 images) are only built
        on a cache miss, so a re-run costs no image encoding.

        ``retry_feedback``: when an answer is rejected, the next attempt also carries that answer
        and a short note of what was wrong (a judge at temperature 0 otherwise tends to repeat
        itself). The cache key stays that of the original messages.
        """
        if not prompt_version:
            raise ValueError("prompt_version is required: it is part of the cache key")
        if key_data is None:
            if callable(messages):
                messages = messages()
            messages = [dict(m) for m in messages]
        key = cache_key(self.config.model, prompt_version, None if key_data is not None else messages,
                        key_data=key_data, temperature=temperature, max_tokens=max_tokens,
                        extra_body=self.config.extra_body)
        # One thread per key at a time: a second thread asking the same question waits and then
        # reads the cache instead of paying for the same call.
        with self._key_lock(key):
            hit = self._cache_get(key, parse)
            if hit is not None:
                with self._lock:
                    self.cache_hits += 1
                return hit
            if callable(messages):
                messages = [dict(m) for m in messages()]
            calls = 0
            last_problem = ""
            asked = messages
            for answer_no in range(1, max(1, attempts) + 1):
                try:
                    text, n = self._post(asked, temperature=temperature, max_tokens=max_tokens)
                except _Unusable as exc:
                    calls += exc.calls
                    last_problem = f"{exc}"
                    log.info("judge answer %d/%d unusable: %s", answer_no, attempts, exc)
                    continue
                calls += n
                try:
                    value = parse(text) if parse is not None else text
                except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
                    last_problem = f"{exc}"
                    log.info("judge answer %d/%d rejected: %s", answer_no, attempts, exc)
                    if retry_feedback:
                        asked = messages + [
                            {"role": "assistant", "content": text},
                            {"role": "user", "content": f"That reply could not be used ({exc}). "
                             "Answer again, exactly in the required format."},
                        ]
                    continue
                self._cache_put(key, prompt_version, text)
                return JudgeResult(value=value, raw=text, cached=False, calls=calls)
            raise JudgeError(
                f"judge {self.config.model!r} gave no usable answer in {attempts} attempt(s) "
                f"({calls} HTTP call(s)); last problem: {last_problem}"
            )

    # ---------------------------------------------------------------- HTTP
    def _transport(self):
        """The process's ``openai`` client for this configuration (built on first use: heavy import),
        from the package's one factory: a deadline per whole request, the shared retry policy."""
        from lmms_plugins.utils.http_client import openai_client

        with self._lock:
            if self._openai is None:
                cfg = self.config
                self._openai = openai_client(base_url=cfg.base_url, api_key=cfg.api_key, timeout_s=cfg.timeout_s,
                                             max_retries=cfg.max_attempts - 1, policy=_policy(cfg, self._sleep),
                                             max_connections=max(8, cfg.concurrency))
            return self._openai

    def _post(self, messages: list, *, temperature: float, max_tokens: int | None) -> tuple[str, int]:
        """(reply text, HTTP requests made). Raises JudgeError when the transport gave up, and
        _Unusable (a ValueError) when the server answered 200 with no usable message."""
        import openai

        cfg = self.config
        url = cfg.base_url.rstrip("/") + "/chat/completions"
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": valid_utf8(messages), "temperature": temperature}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if cfg.extra_body:
            kwargs["extra_body"] = dict(cfg.extra_body)
        from lmms_plugins.utils.http_client import retries_in_flight, start_counting_retries

        transport = self._transport()
        with self._slots:  # at most `concurrency` requests of this process in flight (a rate-limited endpoint)
            start_counting_retries()
            try:
                raw = transport.chat.completions.with_raw_response.create(**kwargs)
                problem = None
            except openai.OpenAIError as exc:  # HTTP status, timeout, connection, or anything else: a judge failure
                problem = exc
            finally:
                calls = retries_in_flight() + 1
            with self._lock:
                self.http_calls += calls
        if problem is not None:
            raise JudgeError(_transport_error(url, problem, calls, cfg.timeout_s)) from None
        try:
            return valid_text(_reply_text(json.loads(raw.text))), calls  # a "\ud800" escape must not break the next request
        except (ValueError, RecursionError) as exc:  # a proxy's HTML page, a truncated or absurdly nested body: ask again
            raise _Unusable(f"malformed response: {exc}", calls) from None

    # ---------------------------------------------------------------- cache
    def _key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            lock = self._key_locks.get(key)
            if lock is None:
                lock = self._key_locks[key] = threading.Lock()
            return lock

    def _cache_path(self, key: str) -> Path | None:
        if self.config.cache_dir is None:
            return None
        return Path(self.config.cache_dir) / key[:2] / f"{key}.json"

    def _cache_get(self, key: str, parse: Callable[[str], Any] | None) -> JudgeResult | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("schema") != CACHE_SCHEMA or entry.get("key") != key:
                # not written for this key by this version (a hand-made or foreign file): never served
                raise ValueError(f"written for schema {entry.get('schema')!r}, key {str(entry.get('key'))[:16]!r}")
            text = entry["raw"]
            value = parse(text) if parse is not None else text
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            # Unreadable or no longer parsable entry: ask again (and overwrite it).
            log.warning("ignoring judge cache entry %s: %s", path, exc)
            return None
        return JudgeResult(value=value, raw=text, cached=True, calls=0)

    def _cache_put(self, key: str, prompt_version: str, text: str) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        entry = {"schema": CACHE_SCHEMA, "key": key, "model": self.config.model, "prompt_version": prompt_version, "raw": text}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:16]}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh, ensure_ascii=False)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError as exc:  # a full disk must not lose the verdict we already paid for
            log.warning("could not write judge cache entry %s: %s", path, exc)


# -------------------------------------------------------------------- one client per configuration
_SHARED: dict[JudgeConfig, JudgeClient] = {}
_SHARED_LOCK = threading.Lock()


def shared_client(**overrides: Any) -> JudgeClient:
    """The process's client for the current ``LMMS_PLUGINS_JUDGE_*`` settings (thread-safe; raises
    :class:`JudgeError` when the judge is not configured). Every setting, the extra body included,
    picks the client, so a changed setting never reuses a client made for another."""
    config = JudgeConfig.from_env(**overrides)
    with _SHARED_LOCK:
        client = _SHARED.get(config)
        if client is None:
            client = _SHARED[config] = JudgeClient(config)
        return client


def reset_shared_clients() -> None:
    """Forget the clients :func:`shared_client` made (a new run in the same process: tests, benchmarks)."""
    with _SHARED_LOCK:
        _SHARED.clear()


# -------------------------------------------------------------------- message helpers
def image_part(image_or_path: Any, *, max_side: int = 1024, fmt: str = "JPEG", quality: int = 90) -> dict:
    """An OpenAI ``image_url`` content part holding the image as a base64 data URL.

    The image is converted to RGB (transparency over white) and shrunk so its longest side is at
    most ``max_side`` (GRADE's official evaluator sends JPEG, longest side <= 1024).
    Accepts a path or a PIL image; a missing or unreadable file raises
    :class:`lmms_plugins.utils.images.ImageError` with the path in the message.
    """
    from PIL import Image

    from lmms_plugins.utils.images import load_rgb, to_rgb

    if isinstance(image_or_path, (str, os.PathLike)):
        img = load_rgb(image_or_path, max_side=max_side)  # a JPEG is decoded small (draft) when it can be
    elif isinstance(image_or_path, Image.Image):
        img = to_rgb(image_or_path)
    else:
        raise TypeError(f"image_part expects a path or a PIL image, got {type(image_or_path).__name__}")
    if max_side and max(img.size) > max_side:
        scale = max_side / max(img.size)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        img = img.resize(size, Image.Resampling.LANCZOS)
    fmt = fmt.upper()
    buf = io.BytesIO()
    if fmt in ("JPEG", "JPG"):
        img.save(buf, format="JPEG", quality=quality)
        mime = "image/jpeg"
    else:
        img.save(buf, format=fmt)
        mime = f"image/{fmt.lower()}"
    b64 = base64.b64encode(buf.getvalue()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{b64}"}}


def file_digest(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes: identifies an image in ``key_data`` without decoding it."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def text_part(text: str) -> dict:
    return {"type": "text", "text": text}


_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.I)


def drop_think_blocks(text: str) -> str:
    """``text`` without its ``<think>…</think>`` blocks (an unclosed ``<think>`` is kept).

    One pass over the tags (linear): a lazy ``<think>.*?</think>`` regex rescans the rest of the
    text from every unclosed ``<think>``, which is quadratic (140 KB of ``<think>`` took 11 s).
    """
    parts, kept_from, open_at = [], 0, -1
    for m in _THINK_TAG.finditer(text):
        if not m.group(1) and open_at < 0:
            open_at = m.start()
        elif m.group(1) and open_at >= 0:
            parts.append(text[kept_from:open_at])
            kept_from, open_at = m.end(), -1
    parts.append(text[kept_from:])
    return "".join(parts)


def extract_json(text: str) -> Any:
    """The JSON value in a judge's reply: bare, inside a Markdown fence, or after some prose.

    Raises ``ValueError`` (which makes :meth:`JudgeClient.complete` ask again) when there is none.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    # Reasoning models served by vLLM & co. may put their thinking in the content: drop it.
    stripped = drop_think_blocks(text).strip()
    # RecursionError: json recurses per bracket, so thousands of them are junk (ask again), not a crash
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        pass
    candidates: list[str] = []
    # Fenced blocks first: ```json ... ``` (the language tag is optional).
    parts = stripped.split("```")
    for block in parts[1::2]:
        body = block.split("\n", 1)[1] if "\n" in block and not block.lstrip().startswith(("{", "[")) else block
        candidates.append(body.strip())
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            continue
    # Then the first decodable object or array anywhere in the text, in two passes that stop once
    # their tries have cost a fixed multiple of the text (so junk full of brackets costs linear
    # time): (1) each bracket span with a matching close, outer before inner, is decoded from a
    # slice of just that span; (2) as before, a decode from every opening bracket.
    budget = _SCAN_FACTOR * len(stripped) + 1_000_000
    for i, j in _bracket_spans(stripped):
        try:
            return json.loads(stripped[i:j + 1])
        except ValueError:
            budget -= 2 * (j - i + 1) + _TRY_COST  # the decode, and the scan for the spans inside
        except RecursionError:
            break  # brackets nested ~1000 deep: junk, and the spans inside are as deep
        if budget <= 0:
            break
    decoder = json.JSONDecoder()
    budget = _SCAN_FACTOR * len(stripped) + 1_000_000
    for match in _JSON_START.finditer(stripped):
        i = match.start()
        try:
            value, _ = decoder.raw_decode(stripped, i)
            return value
        except ValueError:
            budget -= i + _TRY_COST  # a failed decode costs its position (the error counts line numbers)
        except RecursionError:
            break  # thousands of nested brackets: junk
        if budget <= 0:
            break
    raise ValueError(f"no JSON found in the judge's reply: {stripped[:120]!r}")


_JSON_START = re.compile(r"[{\[]")
_JSON_TOKEN = re.compile(r'[{}\[\]"\\]')
_SCAN_FACTOR = 4  # decode tries may cost at most this many times the reply, in characters read
_TRY_COST = 64  # one decode call, as characters read


def _top_spans(text: str, lo: int, hi: int):
    """(open, close) of the outermost matching bracket pairs in ``text[lo:hi]``, in order.

    Quotes count only inside brackets (prose has stray ones); a mismatched close drops the
    region. Memory: one byte per open bracket.
    """
    openers = bytearray()
    in_string, escaped_at, start = False, -2, -1
    for m in _JSON_TOKEN.finditer(text, lo, hi):
        ch, pos = m.group(), m.start()
        if in_string:
            if pos == escaped_at + 1:  # the character after a backslash
                escaped_at = -2
            elif ch == "\\":
                escaped_at = pos
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = bool(openers)
        elif ch in "{[":
            if not openers:
                start = pos
            openers.append(ord(ch))
        elif openers:
            if openers.pop() == (123 if ch == "}" else 91):  # "{" / "["
                if not openers:
                    yield start, pos
            else:
                openers.clear()


def _bracket_spans(text: str):
    """Every matching bracket span of ``text`` by opening position (outer before inner), found
    lazily: the spans inside one are only looked for when the caller asks for more."""
    pending = [_top_spans(text, 0, len(text))]
    while pending:
        span = next(pending[-1], None)
        if span is None:
            pending.pop()
            continue
        yield span
        pending.append(_top_spans(text, span[0] + 1, span[1]))


__all__ = [
    "CACHE_SCHEMA",
    "JudgeClient",
    "JudgeConfig",
    "JudgeError",
    "JudgeResult",
    "cache_key",
    "default_cache_dir",
    "extract_json",
    "file_digest",
    "image_part",
    "prompt_version",
    "reset_shared_clients",
    "shared_client",
    "text_part",
]
