"""The warm worker, evaluator side (opt-in; root with namespaces): starts the worker
(warm_worker.py) once per evaluator process, hands it each execution over a socket and gives
back a Popen-like handle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from .environment import _env
from .limits import WATCHDOG_MARGIN_S, Limits
from .namespaces import INNER_WORKDIR
from .probe import _effective, _probe
from .warm_worker import _ZYGOTE

#: modules the warm worker imports once (import errors are ignored)
WARM_PRELOAD = (
    "numpy",
    "PIL.Image",
    "PIL.ImageDraw",
    "PIL.ImageFilter",
    "PIL.ImageOps",
    "cv2",
    "scipy.ndimage",
    "scipy.signal",
    "scipy.optimize",
    "scipy.spatial",
    "skimage",
    "skimage.measure",
    "skimage.morphology",
    "skimage.color",
    "skimage.transform",
    "skimage.filters",
    "skimage.feature",
    "skimage.segmentation",
    "skimage.registration",
    "skimage.draw",
    "skimage.util",
    "skimage.exposure",
    "skimage.io",
)
#: ``LMMS_PLUGINS_SANDBOX_WARM=1`` makes run_python use the warm worker where it can
WARM_ENV = "LMMS_PLUGINS_SANDBOX_WARM"


class _WarmProc:
    """The Popen-like handle of one warm execution (its C1 process in the worker)."""

    def __init__(self):
        self.pid: int | None = None
        self.returncode: int | None = None
        self.started = threading.Event()
        self.done = threading.Event()
        self.wake_r, self.wake_w = os.pipe()  # readable once the worker reported the exit status
        self.stdin = self.stdout = self.stderr = None

    def _finish(self, code: int) -> None:
        self.returncode = code
        self.done.set()
        self.started.set()
        try:
            os.write(self.wake_w, b"x")
        except OSError:
            pass

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self.done.wait(timeout):
            raise subprocess.TimeoutExpired("warm execution", timeout)
        return self.returncode

    def close(self) -> None:
        for fd in (self.wake_r, self.wake_w):
            try:
                os.close(fd)
            except OSError:
                pass


class _Zygote:
    def __init__(self, caps: dict):
        import json
        import socket

        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.waiting: dict[int, _WarmProc] = {}
        self.next_id = 0
        self.dead = False
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = _env("/", "/tmp/.cache")
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    _ZYGOTE,
                    str(theirs.fileno()),
                    ",".join(WARM_PRELOAD),
                    *caps["site_paths"],
                ],
                pass_fds=[theirs.fileno()],
                env=env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.sock = ours
        ours.settimeout(300)
        hello = ours.recv(1 << 16)
        ours.settimeout(30)  # a worker that stopped reading must not block a caller forever
        if not hello or "ready" not in json.loads(hello):
            raise OSError("the warm worker did not start")
        self.preloaded = json.loads(hello)["ready"]
        threading.Thread(target=self._dispatch, name="lmms-sandbox-warm", daemon=True).start()

    def _dispatch(self) -> None:
        import json

        while True:
            try:
                msg = self.sock.recv(1 << 16)
            except TimeoutError:
                continue  # idle
            except OSError:
                msg = b""
            if not msg:
                with self.lock:
                    self.dead = True
                    waiting, self.waiting = self.waiting, {}
                for wp in waiting.values():
                    wp._finish(-signal.SIGKILL)
                return
            m = json.loads(msg)
            with self.lock:
                wp = self.waiting.get(m["id"])
                if "status" in m:
                    self.waiting.pop(m["id"], None)
            if wp is None:
                continue
            if "pid" in m:
                wp.pid = m["pid"]
                wp.started.set()
            if "status" in m:
                wp._finish(int(m["status"]))

    def spawn(self, req: dict, fds: list[int]) -> _WarmProc:
        import json
        import socket

        wp = _WarmProc()
        with self.lock:
            if self.dead:
                raise OSError("the warm worker is gone")
            self.next_id += 1
            req = {**req, "id": self.next_id}
            self.waiting[self.next_id] = wp
            socket.send_fds(self.sock, [json.dumps(req).encode()], fds)
        if not wp.started.wait(60) or wp.pid is None:
            raise OSError("the warm worker did not start the execution")
        return wp


class _WarmRecentlyFailed(OSError):
    pass


_zygote: _Zygote | None = None
_zygote_lock = threading.Lock()
_zygote_failed_at = -1e9  # a worker that failed to start is not tried again for a minute


def _get_zygote(caps: dict) -> _Zygote:
    global _zygote, _zygote_failed_at
    with _zygote_lock:
        z = _zygote
        if z is None or z.dead or z.owner != os.getpid() or z.proc.poll() is not None:
            if time.monotonic() - _zygote_failed_at < 60:
                raise _WarmRecentlyFailed("the warm worker failed to start less than a minute ago")
            try:
                _zygote = z = _Zygote(caps)
            except Exception:
                _zygote_failed_at = time.monotonic()
                raise
        return z


def _after_fork_in_child() -> None:
    # a forked evaluator (multiprocessing, data loaders) starts its own worker if it needs one;
    # the parent's worker must still see EOF when the parent exits, and no lock may stay taken
    global _zygote, _zygote_lock
    z, _zygote = _zygote, None
    if z is not None:
        try:
            z.sock.close()
        except OSError:
            pass
    _zygote_lock = threading.Lock()  # (the uid lock: uids.py)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def warm_up() -> bool:
    """Start the warm worker now (it takes a few seconds to import the libraries) instead of at
    the first warm execution. False where it cannot run (not root with namespaces)."""
    caps = _effective(_probe())
    if not (caps["backend"] == "namespaces" and caps["unique_uid"]):
        return False
    _get_zygote(caps)
    return True


def _start_warm(caps: dict, scratch: str, uid: int, limits: Limits, env: dict, rl: list) -> _WarmProc:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    code_r, code_w = os.pipe()
    req = {
        "uid": uid,
        "tmp_mb": int(limits.private_tmp_mb),
        "work": INNER_WORKDIR,
        "scratch": scratch,
        "hide": caps["plan"]["hide"],
        "private": caps["private_dirs"],
        "keep": caps["plan"]["keep"],
        "env": env,
        "rl": rl,
        "wall_s": float(limits.wall_s),
        "margin_s": WATCHDOG_MARGIN_S,
    }
    try:
        wp = _get_zygote(caps).spawn(req, [out_w, err_w, code_r])
    except BaseException:
        for fd in (out_r, err_r, code_w):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, code_r):
            os.close(fd)
    wp.stdin = os.fdopen(code_w, "wb")
    wp.stdout = os.fdopen(out_r, "rb")
    wp.stderr = os.fdopen(err_r, "rb")
    return wp

