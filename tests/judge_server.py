"""A real OpenAI-compatible chat-completions server on 127.0.0.1, for testing judges offline.

Usage::

    def handler(request: dict):          # the parsed JSON body the client POSTed
        return '{"verdict": "yes"}'       # -> HTTP 200 chat completion with this content

    with FakeJudgeServer(handler) as server:
        client = JudgeClient(JudgeConfig(base_url=server.base_url, model="fake", cache_dir=None))
        ...
        assert server.calls == 1

A handler may return:

* ``str``: the assistant message content (HTTP 200, OpenAI response shape);
* ``Reply(status, body, headers)`` or a tuple ``(status, body[, headers])``: a raw HTTP reply
  (``body`` a str, bytes or a JSON-able object);
* ``Sleep(seconds, then)``: wait (to provoke a client timeout), then serve ``then``.

Helpers: :func:`sequence` serves canned replies in order; :func:`message_text` and
:func:`image_urls` read a request. The server is threaded (the client under test is called from
several threads and processes) and counts every request in ``calls`` / ``requests``. ``GET
/v1/models`` lists ``model`` (recorded in ``get_paths``, not in ``calls``).
"""

from __future__ import annotations

import json
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

__all__ = ["Drip", "FakeJudgeServer", "RawServer", "Reply", "Sleep", "chat_completion", "http_reply", "image_urls", "message_text",
           "sequence"]


class _Server(ThreadingHTTPServer):
    # the default listen backlog (5) drops connections when ~100 judge requests arrive at once
    request_queue_size = 256


@dataclass
class Reply:
    status: int = 200
    body: Any = ""
    headers: dict = field(default_factory=dict)


@dataclass
class Sleep:
    seconds: float
    then: Any = "too late"


def chat_completion(text: str, model: str = "fake-judge") -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def message_text(request: dict) -> str:
    """All text of all messages of a chat request, joined by newlines."""
    out = []
    for msg in request.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "\n".join(out)


def image_urls(request: dict) -> list[str]:
    """The image URLs (data URLs) of a chat request, in order."""
    out = []
    for msg in request.get("messages", []):
        content = msg.get("content")
        if isinstance(content, list):
            out.extend(
                p["image_url"]["url"] for p in content if isinstance(p, dict) and p.get("type") == "image_url"
            )
    return out


def sequence(*replies: Any) -> Callable[[dict], Any]:
    """A handler serving ``replies`` in order (thread-safe); the last one repeats forever."""
    lock = threading.Lock()
    it = iter(replies)
    last = [replies[-1] if replies else ""]

    def handler(_request: dict) -> Any:
        with lock:
            try:
                last[0] = next(it)
            except StopIteration:
                pass
            return last[0]

    return handler


class FakeJudgeServer:
    def __init__(self, handler: Callable[[dict], Any] | None = None, *, model: str = "fake-judge"):
        self.handler = handler or (lambda _req: "ok")
        self.model = model
        self.calls = 0
        self.requests: list[dict] = []
        self.request_headers: list[dict] = []
        self.handler_errors: list[str] = []
        self.get_paths: list[str] = []  # GET requests (not counted in calls)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "FakeJudgeServer":
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                server._serve(self)

            def do_GET(self) -> None:  # noqa: N802 - the model list (what a preflight check reads)
                with server._lock:
                    server.get_paths.append(self.path)
                if self.path.rstrip("/") == "/v1/models":
                    server._send(self, Reply(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]}))
                else:
                    server._send(self, Reply(404, {"error": f"unknown path {self.path}"}))

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-judge", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # wakes handlers sleeping in Sleep()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeJudgeServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def reset_counts(self) -> None:
        with self._lock:
            self.calls = 0
            self.requests.clear()
            self.request_headers.clear()

    # ------------------------------------------------------------------ serving
    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length)
        if not h.path.rstrip("/").endswith("/chat/completions"):
            self._send(h, Reply(404, {"error": f"unknown path {h.path}"}))
            return
        try:
            request = json.loads(raw)
        except ValueError:
            self._send(h, Reply(400, {"error": "body is not JSON"}))
            return
        with self._lock:
            self.calls += 1
            self.requests.append(request)
            self.request_headers.append(h.headers)  # case-insensitive, as HTTP header names are
        try:
            reply = self.handler(request)
        except Exception:  # noqa: BLE001 - report to the test, answer 500 like a broken server
            self.handler_errors.append(traceback.format_exc())
            reply = Reply(500, {"error": "handler raised"})
        while isinstance(reply, Sleep):
            if self._stop.wait(reply.seconds):
                return
            reply = reply.then
        self._send(h, reply)

    def _send(self, h: BaseHTTPRequestHandler, reply: Any) -> None:
        if isinstance(reply, tuple):
            reply = Reply(*reply)
        if not isinstance(reply, Reply):
            reply = Reply(200, chat_completion(str(reply), self.model))
        body = reply.body
        if isinstance(body, bytes):
            data = body
        elif isinstance(body, str):
            data = body.encode("utf-8")
        else:
            data = json.dumps(body).encode("utf-8")
        try:
            h.send_response(reply.status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in reply.headers.items():
                h.send_header(k, str(v))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass



class RawServer:
    """A TCP server on 127.0.0.1 that answers every HTTP request with what ``respond(path)`` yields,
    byte strings written as they come (``Drip`` items: written a byte at a time, ``every`` seconds
    apart), for behaviours an HTTP server library will not produce: a body sent a byte a second,
    headers that never end, a connection closed mid-reply, raw garbage. ``requests`` counts them.

        with RawServer(lambda path: [b"HTTP/1.1 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\n", Drip(b"hello", 1.0)]) as url:
            ...   # url is "http://127.0.0.1:<port>/v1"
    """

    def __init__(self, respond: Callable[[str], Any]):
        import socket

        self.respond = respond
        self.requests = 0
        self.paths: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._stop = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self) -> str:
        threading.Thread(target=self._accept, daemon=True).start()
        return self.base_url

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Any) -> None:
        import time

        with conn:
            try:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                path = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else ""
                self.requests += 1
                self.paths.append(path)
                for part in self.respond(path):
                    if isinstance(part, Drip):
                        for i in range(len(part.data)):
                            if self._stop.is_set():
                                return
                            conn.sendall(part.data[i:i + 1])
                            time.sleep(part.every)
                    else:
                        conn.sendall(part)
            except OSError:  # the client gave up: what a deadline does
                return


@dataclass
class Drip:
    data: bytes
    every: float = 1.0


def http_reply(status: int, body: bytes, content_type: str = "application/json", extra: str = "") -> bytes:
    """A complete HTTP/1.1 reply (headers and body) as bytes, for RawServer."""
    return (f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}"
            f"Connection: close\r\n\r\n").encode() + body
