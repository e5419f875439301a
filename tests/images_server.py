"""A real OpenAI-compatible Images edit server on 127.0.0.1 (``POST /v1/images/edits``), for tests
and benchmarks of image-editing models.

The multipart body is parsed with the standard library's ``email`` parser (a real MIME parser:
boundaries, headers, transfer of binary parts), into an :class:`EditRequest` with the prompt, the
other form fields and the uploaded images (decoded with PIL). A handler decides the reply::

    def handler(req: EditRequest):
        return edited_png_bytes              # -> {"created", "data": [{"b64_json": ...}]}

    with FakeImagesServer(handler) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x")

A handler may return ``bytes`` (one PNG/JPEG image, sent as b64_json), :class:`UrlImage` (the
image is served by this server at ``/files/<n>`` and the reply holds its URL), ``str`` (a
text-only reply ``{"created", "data": [], "text": ...}``), a ``dict`` (sent as the JSON body), or
a :class:`Reply` for any status and headers. ``latency`` (seconds) delays every edit reply.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from judge_server import Reply  # noqa: E402  (one reply type for both loopback servers)

__all__ = ["EditRequest", "FakeImagesServer", "Reply", "UrlImage", "parse_multipart", "png_bytes"]


@dataclass
class UrlImage:
    data: bytes


@dataclass
class EditRequest:
    prompt: str
    fields: dict  # every non-file form field (model, size, quality, n, ...)
    images: list  # the uploaded images as PIL images, in upload order
    filenames: list
    headers: dict
    files: list = field(default_factory=list)  # the uploaded files' bytes, as sent


def png_bytes(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def parse_multipart(content_type: str, body: bytes) -> tuple[dict, list[tuple[str, str, bytes]]]:
    """(fields, files) of a multipart/form-data body; files are (field name, filename, bytes)."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValueError(f"expected multipart/form-data, got {content_type!r}")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise ValueError("the body is not a multipart message")
    fields: dict = {}
    files: list = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        payload = part.get_payload(decode=True) or b""
        if filename is not None:
            files.append((name, filename, payload))
        else:
            fields[name] = payload.decode("utf-8")
    return fields, files


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # a class attribute: listen() reads it in the constructor (the default backlog, 5, resets
    # connections when 32 requests arrive at once)
    request_queue_size = 256


class FakeImagesServer:
    def __init__(self, handler: Callable[[EditRequest], Any] | None = None, *, latency: float = 0.0, decode_images: bool = True,
                 parse: bool = True):
        self.handler = handler or (lambda req: png_bytes(req.images[0]))
        self.latency = latency
        self.decode_images = decode_images
        self.parse = parse  # False: the body is read, not parsed (benchmarks keep the server's CPU low)
        self.calls = 0
        self.requests: list[EditRequest] = []
        self.handler_errors: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.busy_s = 0.0  # time spent serving edits, without the latency sleep (benchmarks subtract it)
        self._files: dict[int, bytes] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "FakeImagesServer":
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                server._serve_edit(self)

            def do_GET(self) -> None:  # noqa: N802
                server._serve_file(self)

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeImagesServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ serving
    def _serve_edit(self, h: BaseHTTPRequestHandler) -> None:
        started = time.perf_counter()
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        if not h.path.rstrip("/").endswith("/images/edits"):
            self._send(h, Reply(404, {"error": {"message": f"unknown path {h.path}"}}))
            return
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            try:
                fields, files = parse_multipart(h.headers.get("Content-Type", ""), body) if self.parse else ({}, [])
                images = []
                if self.decode_images:
                    from PIL import Image

                    for _name, _filename, data in files:
                        img = Image.open(io.BytesIO(data))
                        img.load()
                        images.append(img)
                request = EditRequest(fields.get("prompt", ""), fields, images, [f[1] for f in files], dict(h.headers.items()),
                                      [f[2] for f in files])
            except Exception as exc:  # noqa: BLE001 - a malformed request is the client's bug: say so
                self.handler_errors.append(f"bad request: {exc!r}")
                self._send(h, Reply(400, {"error": {"message": f"bad multipart body: {exc}"}}))
                return
            with self._lock:
                self.calls += 1
                self.requests.append(request)
            try:
                reply = self.handler(request)
            except Exception:  # noqa: BLE001
                self.handler_errors.append(traceback.format_exc())
                reply = Reply(500, {"error": {"message": "handler raised"}})
            reply = self._as_reply(h, reply)
            if self.latency:
                busy = time.perf_counter() - started
                time.sleep(self.latency)
                started = time.perf_counter() - busy
            self._send(h, reply)
        finally:
            with self._lock:
                self.in_flight -= 1
                self.busy_s += time.perf_counter() - started

    def _as_reply(self, h: BaseHTTPRequestHandler, reply: Any) -> Reply:
        if isinstance(reply, Reply):
            return reply
        if isinstance(reply, bytes):
            return Reply(200, {"created": int(time.time()), "data": [{"b64_json": base64.b64encode(reply).decode()}]})
        if isinstance(reply, UrlImage):
            with self._lock:
                key = len(self._files)
                self._files[key] = reply.data
            host, port = self._httpd.server_address[:2]
            return Reply(200, {"created": int(time.time()), "data": [{"url": f"http://{host}:{port}/files/{key}"}]})
        if isinstance(reply, str):
            return Reply(200, {"created": int(time.time()), "data": [], "text": reply})
        return Reply(200, reply)

    def _serve_file(self, h: BaseHTTPRequestHandler) -> None:
        if h.path.rstrip("/").endswith("/stats"):  # for benchmarks running the server in another process
            self._send(h, Reply(200, {"calls": self.calls, "busy_s": self.busy_s, "max_in_flight": self.max_in_flight}))
            return
        try:
            data = self._files[int(h.path.rsplit("/", 1)[1])]
        except (KeyError, ValueError):
            self._send(h, Reply(404, {"error": {"message": "no such file"}}))
            return
        h.send_response(200)
        h.send_header("Content-Type", "image/png")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, reply: Reply) -> None:
        body = reply.body
        data = body if isinstance(body, bytes) else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
        try:
            h.send_response(reply.status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                h.send_header(key, str(value))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
