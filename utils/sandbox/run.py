"""The one entry point, :func:`run_python`: checks the input, has the provider start the
program, watches its output and time, kills it, reads back its new files and classifies the
outcome. It never raises: every failure is an :class:`ExecResult` with a status."""

from __future__ import annotations

import os
import selectors
import signal
import time
from collections.abc import Mapping

from .limits import (
    ERROR,
    KILLED,
    MEMORY,
    OK,
    OUTPUT_LIMIT,
    SANDBOX_ERROR,
    TIMEOUT,
    ExecResult,
    Limits,
)
from .output import _Capped
from .provider import SandboxStartError, Started, get
from .scratch import check_name, collect

_LIMIT_FIELDS = ("wall_s", "cpu_s", "memory_mb", "file_size_mb", "max_processes", "max_open_files",
                 "max_output_bytes", "max_scratch_mb", "private_tmp_mb", "max_files")
TOO_MANY_FILES = "too_many_files"  # killed_for only: reported as output_limit
_COUNT_EVERY_S = 0.05  # how often the files an execution holds are counted
_MEMORY_TEXT = ("MemoryError", "Unable to allocate", "Cannot allocate memory", "std::bad_alloc",
                "Insufficient memory", "Failed to allocate")


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip()[:300] if lines else ""


def run_python(code: str, files: Mapping[str, bytes | str | os.PathLike], limits: Limits = Limits()) -> ExecResult:  # noqa: B008 (frozen)
    """Run ``code`` as ``__main__`` in the sandbox; never raises.

    ``files`` maps names (relative paths, e.g. ``"image.png"``) to contents: ``bytes`` are
    written as is; ``str`` / ``PathLike`` are paths of files to copy. The code finds them in its
    working directory (``/work`` in the bubblewrap sandbox).

    Status: ``ok`` (exit 0), ``error`` (non-zero exit or uncaught exception: traceback in
    stderr; reason = its last line; also a file larger than ``file_size_mb``), ``timeout`` (wall
    clock or CPU limit), ``memory`` (an allocation failure under ``memory_mb``, or killed by the
    whole-execution memory limit), ``output_limit`` (more than ``max_output_bytes`` on stdout or
    stderr: killed; or the scratch folder / ``/tmp`` full), ``killed`` (ended by a signal it did not
    get from the limits), ``sandbox_error`` (the sandbox could not run it: bad input name or
    limits, no confinement to be had here; reason says which). ``exit_code`` is negative
    (-signal) when a signal ended it. ``files`` holds new or changed regular files of the scratch
    folder whose names are safe (see scratch.py), at most ``max_returned_files`` /
    ``max_returned_mb``; the rest are named in ``skipped_files``. Everything the program started is
    killed before this returns, and its scratch folder is gone.
    """
    t0 = time.monotonic()
    try:
        provider = get()
    except ValueError as e:
        return _fail(str(e), t0, "")

    bad = [f"{f}={getattr(limits, f)!r}" for f in _LIMIT_FIELDS
           if not isinstance(getattr(limits, f), (int, float)) or getattr(limits, f) <= 0]
    if bad:
        return _fail(f"bad limits: {', '.join(bad)} (each must be a positive number)", t0, provider.name)
    try:
        names = {check_name(str(n)): src for n, src in files.items()}
    except (ValueError, TypeError) as e:
        return _fail(f"could not prepare the scratch folder: {e}", t0, provider.name)
    try:
        started = provider.start(code, names, limits)
    except SandboxStartError as e:
        return _fail(f"the sandbox could not start: {e}", t0, provider.name)
    except Exception as e:  # noqa: BLE001 - a missing input file, an odd machine: still a result
        return _fail(f"the sandbox could not start: {type(e).__name__}: {e}", t0, provider.name)
    try:
        return _watch(started, limits, t0, provider.name)
    except Exception as e:  # noqa: BLE001 - a bug or an odd machine: still a result, never an exception
        _kill(started)
        return _fail(f"the sandbox failed: {type(e).__name__}: {e}", t0, provider.name)
    finally:
        try:
            os.close(started.scratch_fd)
        except OSError:
            pass
        started.cleanup()


def _fail(reason: str, t0: float, provider: str) -> ExecResult:
    return ExecResult(SANDBOX_ERROR, None, "", "", False, False, {}, time.monotonic() - t0, reason,
                      provider == "bwrap", sandbox=provider)


def _kill(started: Started) -> None:
    if started.kill is not None:
        started.kill()
    try:
        started.proc.kill()
    except OSError:
        pass


def _watch(started: Started, limits: Limits, t0: float, provider: str) -> ExecResult:
    proc = started.proc
    out, err = _Capped(limits.max_output_chars), _Capped(limits.max_output_chars)
    deadline = time.monotonic() + limits.wall_s
    killed_for = None
    sel = selectors.DefaultSelector()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    for fd in streams:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    pidfd = os.pidfd_open(proc.pid)
    sel.register(pidfd, selectors.EVENT_READ)
    open_fds = set(streams)
    exited = False
    next_count = time.monotonic()
    try:
        while True:
            now = time.monotonic()
            if not exited and proc.poll() is not None:
                exited = True
                sel.unregister(pidfd)
                _kill(started)  # nothing it started outlives it
                deadline = min(deadline, now + 2.0)  # drain what is left in the pipes
            if exited and not open_fds:
                break
            if now >= deadline:
                if not exited:
                    killed_for = killed_for or TIMEOUT
                    _kill(started)
                    proc.wait()
                break
            if not exited and killed_for is None and now >= next_count:
                next_count = now + _COUNT_EVERY_S
                if started.files_held() > limits.max_files:
                    killed_for = TOO_MANY_FILES
                    _kill(started)
                    deadline = min(deadline, now + 2.0)
            for key, _ in sel.select(timeout=max(0.0, min(deadline, next_count) - now)):
                if key.fd == pidfd:
                    continue
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(key.fd)
                    open_fds.discard(key.fd)
                    continue
                streams[key.fd].add(chunk)
                if streams[key.fd].total > limits.max_output_bytes and killed_for is None:
                    killed_for = OUTPUT_LIMIT
                    _kill(started)
                    deadline = min(deadline, time.monotonic() + 2.0)
    finally:
        if proc.poll() is None:
            _kill(started)
        proc.wait()
        sel.close()
        os.close(pidfd)
        proc.stdout.close()
        proc.stderr.close()

    stdout, out_cut = out.text()
    stderr, err_cut = err.text()
    rc = proc.returncode
    if started.signal_base and rc is not None and started.signal_base < rc <= started.signal_base + 64:
        rc = -(rc - started.signal_base)  # bwrap reports death by signal N as 128 + N
    if killed_for is None and started.memory_exceeded():
        killed_for = MEMORY
    status, reason = _classify(rc, killed_for, stderr, limits)
    got, skipped = collect(started.scratch_fd, started.inputs, limits)
    return ExecResult(status, rc, stdout, stderr, out_cut, err_cut, got, time.monotonic() - t0, reason,
                      provider == "bwrap", skipped, sandbox=provider)


def _classify(rc, killed_for, stderr: str, limits: Limits) -> tuple[str, str]:
    if killed_for == TIMEOUT:
        return TIMEOUT, f"killed after {limits.wall_s:g} s wall clock"
    if killed_for == OUTPUT_LIMIT:
        return OUTPUT_LIMIT, f"killed: more than {limits.max_output_bytes} bytes of output"
    if killed_for == TOO_MANY_FILES:
        return OUTPUT_LIMIT, f"killed: more than {limits.max_files} files and folders in /work, /tmp and /dev/shm"
    if killed_for == MEMORY:
        return MEMORY, f"killed: the execution used more than {limits.memory_mb} MB of memory"
    if rc == 0:
        return OK, ""
    if rc is not None and rc < 0:
        sig = -rc
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        if sig == signal.SIGXCPU:
            return TIMEOUT, f"CPU time limit of {limits.cpu_s:g} s exceeded ({name})"
        if sig == signal.SIGXFSZ:
            return ERROR, f"file size limit of {limits.file_size_mb} MB exceeded ({name})"
        return KILLED, f"ended by signal {name}"
    tail = "\n".join(stderr.strip().splitlines()[-3:])  # the exception line of a traceback
    last = _last_line(stderr)
    if any(s in tail for s in _MEMORY_TEXT):
        return MEMORY, f"out of memory under the {limits.memory_mb} MB limit: {last}"
    if "No space left on device" in tail:
        return OUTPUT_LIMIT, (f"the scratch folder ({limits.max_scratch_mb} MB) or /tmp ({limits.private_tmp_mb} MB) "
                              f"is full: {last}")
    if "Resource temporarily unavailable" in last and ("fork" in stderr or "BlockingIOError" in last):
        return ERROR, f"process limit of {limits.max_processes} reached: {last}"
    return ERROR, f"exit code {rc}" + (f": {last}" if last else "")
