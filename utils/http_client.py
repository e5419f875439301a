"""The one way this package talks HTTP to a judge or an image editor: an ``openai`` client whose
every request has a deadline for the WHOLE request, and one retry policy.

Why a deadline of our own: httpx's timeouts (connect, read, write, pool) bound each socket
operation, so a server that sends its reply a byte a second keeps a request alive indefinitely
with a "3 s" timeout. Here every read and write of a request is given only the time that is left
of ``timeout_s`` (counted from the request's start, headers and body alike), and a request that
outlives it fails as the openai client's own timeout (``APITimeoutError``), which its retry rules
already handle. The openai client still sends the requests and decides what is retried
(timeouts, refused connections, HTTP 408/409/429 and 5xx); :class:`RetryPolicy` decides only how
long to wait before a retry, and counts the retries of the request in flight in each thread.

:func:`fetch` downloads a URL that an API handed back (an edited image): http(s) or ``data:``
only, a size cap, the same whole-request deadline.
"""

from __future__ import annotations

import base64
import binascii
import importlib
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable

log = logging.getLogger("lmms_plugins.http")

_local = threading.local()  # the deadline of the request in flight in this thread (monotonic s)


class FetchError(RuntimeError):
    """A URL could not be downloaded within its limits (scheme, size, time, status). ``retryable``:
    the failure may pass (a timeout, a refused connection, HTTP 408/429/5xx); a refused scheme or
    an image over the cap never does."""

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


# -------------------------------------------------------------------------- retry policy
def retry_after_seconds(headers: Any) -> float | None:
    """The server's requested wait in seconds (``retry-after-ms``, else ``retry-after``: seconds
    or an HTTP date), or None when it names none."""
    if headers is None:
        return None
    if isinstance(headers, dict):  # httpx headers are case-insensitive; a plain dict is not
        headers = {str(k).lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if not value:
            continue
        value = str(value).strip()
        try:
            seconds = float(value) * scale
        except ValueError:
            if scale != 1.0:
                continue
            try:  # HTTP-date form
                seconds = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError, OverflowError):
                continue
        if seconds == seconds:  # not NaN
            return max(0.0, seconds)
    return None


@dataclass
class RetryPolicy:
    """How long to wait before retry number ``retries_taken + 1``: the server's Retry-After capped
    at ``retry_after_cap_s``, else ``backoff_s`` doubling per retry (at most ``max_backoff_s``)
    times a random factor in ``1 +- jitter``, so several processes hitting one server spread out."""

    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    retry_after_cap_s: float = 30.0
    jitter: float = 0.5
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)  # tests record the waits

    def delay(self, retries_taken: int, headers: Any = None) -> float:
        server = retry_after_seconds(headers)
        if server is not None:
            return min(server, self.retry_after_cap_s)
        wait = min(self.max_backoff_s, self.backoff_s * 2 ** min(retries_taken, 30))
        return wait * (1.0 + self.jitter * (2 * random.random() - 1)) if self.jitter else wait


# -------------------------------------------------------------------------- the deadline
class _DeadlineStream:
    """A network stream whose reads and writes get at most the time left of the request."""

    def __init__(self, inner: Any, errors: Any) -> None:
        self._inner, self._errors = inner, errors

    def _left(self, timeout: float | None, error: type) -> float | None:
        deadline = getattr(_local, "deadline", None)
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            raise error("the whole request took longer than its timeout")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, self._errors.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        return self._inner.write(buffer, self._left(timeout, self._errors.WriteTimeout))

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        stream = self._inner.start_tls(ssl_context, server_hostname, self._left(timeout, self._errors.ConnectTimeout))
        return _DeadlineStream(stream, self._errors)

    def close(self) -> None:
        self._inner.close()

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """httpcore's network backend, with every stream it opens bounded by the request's deadline."""

    def __init__(self, inner: Any, errors: Any) -> None:
        self._inner, self._errors = inner, errors

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> Any:
        left = _DeadlineStream(None, self._errors)._left(timeout, self._errors.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, timeout=left, local_address=local_address, socket_options=socket_options)
        return _DeadlineStream(stream, self._errors)

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        left = _DeadlineStream(None, self._errors)._left(timeout, self._errors.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, timeout=left, socket_options=socket_options), self._errors)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def httpx_module():
    """The httpx flavour the installed openai client is built on (``httpx2`` for openai 3, else ``httpx``)."""
    import openai

    for cls in openai.DefaultHttpxClient.__mro__[1:]:
        if cls.__name__ == "Client":
            return importlib.import_module(cls.__module__.split(".")[0])
    return importlib.import_module("httpx")


def _transport_class():
    httpx = httpx_module()

    class DeadlineTransport(httpx.HTTPTransport):
        """httpx's transport with a deadline for each whole request (the module docstring says why)."""

        def __init__(self, total_s: float, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.total_s = float(total_s)
            pool = self._pool  # httpcore's pool: its network backend is the one place every byte passes
            errors = importlib.import_module(type(pool).__module__.split(".")[0])
            if not hasattr(pool, "_network_backend"):
                raise RuntimeError(f"{type(pool).__module__}.{type(pool).__name__} has no network backend to bound: "
                                   "this httpcore version is not supported by lmms_plugins.utils.http_client")
            pool._network_backend = _DeadlineBackend(pool._network_backend, errors)

        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + self.total_s
            _local.deadline = deadline
            try:
                response = super().handle_request(request)
            except BaseException:
                _local.deadline = None
                raise
            response.stream = _BodyWithDeadline(response.stream, deadline)
            return response

    class _BodyWithDeadline(httpx.SyncByteStream):
        def __init__(self, inner: Any, deadline: float) -> None:
            self._inner, self._deadline = inner, deadline

        def __iter__(self):
            _local.deadline = self._deadline  # the body is read under the request's deadline
            try:
                yield from self._inner
            finally:
                _local.deadline = None

        def close(self) -> None:
            _local.deadline = None
            self._inner.close()

    return DeadlineTransport


_TRANSPORT = None
_TRANSPORT_LOCK = threading.Lock()


def http_client(timeout_s: float, *, max_connections: int = 100, follow_redirects: bool = False) -> Any:
    """An httpx client (the flavour openai uses) whose requests each end within ``timeout_s``."""
    global _TRANSPORT
    httpx = httpx_module()
    with _TRANSPORT_LOCK:
        if _TRANSPORT is None:
            _TRANSPORT = _transport_class()
    limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    return httpx.Client(transport=_TRANSPORT(timeout_s, limits=limits), timeout=timeout_s,
                        follow_redirects=follow_redirects, max_redirects=5)


# -------------------------------------------------------------------------- the openai client
def openai_client(*, base_url: str | None, api_key: str, timeout_s: float, max_retries: int,
                  policy: RetryPolicy | None = None, max_connections: int = 100) -> Any:
    """An ``openai.OpenAI`` client: each request bounded by ``timeout_s`` as a whole, up to
    ``max_retries`` retries with ``policy``'s waits; :func:`retries_in_flight` counts them."""
    import openai

    policy = policy or RetryPolicy()

    class _OpenAI(openai.OpenAI):
        def _sleep_for_retry(self, *args: Any, retries_taken: int = 0, response: Any = None, **kwargs: Any) -> None:
            wait = policy.delay(retries_taken, getattr(response, "headers", None))
            _local.retries = getattr(_local, "retries", 0) + 1
            log.warning("request to %s failed; retry %d/%d in %.1fs", base_url, retries_taken + 1, max_retries, wait)
            policy.sleep(wait)

    return _OpenAI(base_url=base_url or None, api_key=api_key or "EMPTY", timeout=timeout_s, max_retries=max(0, int(max_retries)),
                   http_client=http_client(timeout_s, max_connections=max_connections, follow_redirects=True))


def start_counting_retries() -> None:
    """Call before a request: :func:`retries_in_flight` then counts the retries made for it in this thread."""
    _local.retries = 0


def retries_in_flight() -> int:
    return getattr(_local, "retries", 0)


# -------------------------------------------------------------------------- downloads
def fetch(url: str, *, max_bytes: int, timeout_s: float, client: Any = None) -> bytes:
    """The bytes behind a URL an API returned: ``https``/``http`` (redirects followed only to
    http(s)) or a base64 ``data:`` URL; at most ``max_bytes``; within ``timeout_s`` in all.
    Anything else (``file:``, ``ftp:``, a relative path) is refused: a model's reply never chooses
    a local file. Raises :class:`FetchError` saying what was wrong."""
    if not isinstance(url, str):
        raise FetchError(f"the image URL is a {type(url).__name__}, not a string")
    scheme = url.split(":", 1)[0].strip().lower() if ":" in url else ""
    if scheme == "data":
        head, _, payload = url.partition(",")
        if ";base64" not in head.lower():
            raise FetchError(f"only base64 data: URLs are accepted, got {head[:60]!r}")
        if len(payload) > (max_bytes * 4) // 3 + 4:
            raise FetchError(f"the data: URL holds more than {max_bytes} bytes")
        try:
            return base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise FetchError(f"the data: URL is not valid base64: {exc}") from None
    if scheme not in ("http", "https"):
        raise FetchError(f"refused to fetch {url[:120]!r}: only http(s) and data: URLs are accepted")
    own = client is None
    client = client or http_client(timeout_s, max_connections=4, follow_redirects=True)
    httpx = httpx_module()
    try:
        with client.stream("GET", url, follow_redirects=True) as response:
            if response.status_code != 200:
                status = response.status_code
                raise FetchError(f"GET {url[:120]} answered HTTP {status}", retryable=status in (408, 429) or status >= 500)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"GET {url[:120]} announces {declared} bytes, more than the cap of {max_bytes}")
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError(f"GET {url[:120]} sent more than the cap of {max_bytes} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except httpx.TimeoutException:
        raise FetchError(f"GET {url[:120]} did not complete within {timeout_s:g} s", retryable=True) from None
    except httpx.UnsupportedProtocol as exc:  # a redirect to file: or another scheme: refused, never retried
        raise FetchError(f"GET {url[:120]} was redirected to a URL that is not http(s): {exc}") from None
    except httpx.TransportError as exc:  # a refused connection, a broken body
        raise FetchError(f"GET {url[:120]} failed: {type(exc).__name__}: {exc}", retryable=True) from None
    except httpx.HTTPError as exc:  # too many redirects, a redirect to a scheme httpx does not speak...
        raise FetchError(f"GET {url[:120]} failed: {type(exc).__name__}: {exc}") from None
    finally:
        if own:
            client.close()


__all__ = ["FetchError", "RetryPolicy", "fetch", "http_client", "httpx_module", "openai_client", "retries_in_flight",
           "retry_after_seconds", "start_counting_retries"]
