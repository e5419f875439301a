"""The one entry point, :func:`run_python`: prepares the scratch folder, starts the program (in
new namespaces, in the warm worker, or as a plain subprocess under its own uid), watches its
output, time and scratch size, kills everything it started, and classifies the outcome.
The package docstring (``__init__.py``) says what confinement applies where."""

from __future__ import annotations

import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from functools import lru_cache

from .bootstrap import _BOOTSTRAP
from .environment import _env
from .limits import (
    ERROR,
    KILLED,
    MEMORY,
    OK,
    OUTPUT_LIMIT,
    SANDBOX_ERROR,
    SCRATCH_FULL,
    TIMEOUT,
    WATCHDOG_MARGIN_S,
    ExecResult,
    Limits,
)
from .namespaces import INNER_WORKDIR, _init_argv
from .ns_init import _INIT_FAILED
from .output import _Capped
from .probe import _effective, _probe
from .processes import _descendants, _kill_all, _tasks_of_uid
from .scratch import _check_name, _collect, _remove, _tree_bytes
from .uids import _release_uid, _take_uid
from .warm import WARM_ENV, _start_warm, _WarmProc, _WarmRecentlyFailed


@lru_cache(maxsize=1)
def _warn_root_plain() -> None:
    logging.getLogger("lmms_plugins").warning(
        "[lmms_plugins] sandbox: no namespaces and no separate uid, so model code runs as root: only rlimits "
        "(which root can raise) and the wall-clock kill confine it; see capabilities() and the README's Sandbox section"
    )


def _memory_text(stderr_tail: str) -> bool:
    tail = "\n".join(stderr_tail.strip().splitlines()[-3:])  # the exception line of a traceback
    return any(
        s in tail
        for s in (
            "MemoryError",
            "Unable to allocate",
            "Cannot allocate memory",
            "std::bad_alloc",
            "Insufficient memory",
            "Failed to allocate",
        )
    )


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip()[:300] if lines else ""



def run_python(
    code: str, files: Mapping[str, bytes | str | os.PathLike], limits: Limits = Limits(), *, warm: bool | None = None  # noqa: B008 (frozen)
) -> ExecResult:
    """Run ``code`` as ``__main__`` in a confined process; never raises for the code's behaviour.

    ``files`` maps names (relative paths, e.g. ``"image.png"``) to contents: ``bytes`` are
    written as is; ``str`` / ``PathLike`` are paths of files to copy. The code sees them in its
    working directory (also HOME and TMPDIR), ``/tmp/work`` where a mount namespace is
    available, else the host path of the scratch folder.

    Status: ``ok`` (exit 0), ``error`` (non-zero exit or uncaught exception: traceback in
    stderr, with ``main.py`` as the file name and the program's own lines; reason = its last
    line; also a file larger than ``file_size_mb``: "File too large"), ``timeout`` (wall clock or
    CPU limit), ``memory`` (a MemoryError / allocation failure under the memory limit),
    ``output_limit`` (more than ``max_output_bytes`` on stdout or stderr, or more than
    ``max_scratch_mb`` in the scratch folder: killed), ``killed`` (ended by a signal it did not
    get from the limits: it killed itself, a segfault), ``sandbox_error`` (the sandbox could
    not run it: bad input file name, missing input file, bad limits, failed process start;
    reason says which). ``exit_code`` is negative (-signal) when a signal ended it.
    ``stdout``/``stderr`` keep the head and the tail within ``max_output_chars`` each, with a
    line saying how many bytes were cut (``*_truncated`` then True). ``files`` holds new or
    changed regular files of the scratch folder (relative names), at most
    ``max_returned_files`` / ``max_returned_mb``; the rest are named in ``skipped_files``.
    The program's text reaches the interpreter on stdin; the program itself finds stdin at its end.
    Everything it started is killed before this returns; the scratch folder is removed.

    ``warm=True`` (default: ``LMMS_PLUGINS_SANDBOX_WARM=1`` in the environment) runs it in a fork
    of a worker that has already imported numpy, Pillow, OpenCV, SciPy and scikit-image
    (:data:`WARM_PRELOAD`), with the same confinement, where the machine has namespaces and the
    evaluator is root; elsewhere, or if the worker cannot start, the normal path is used. There
    ``memory_mb`` is counted on top of what the warm interpreter already maps, and the program
    finds those modules already imported.
    """
    t0 = time.monotonic()
    if warm is None:
        warm = os.environ.get(WARM_ENV, "").strip().lower() in ("1", "true", "yes")
    caps = _effective(_probe())
    use_ns = caps["backend"] == "namespaces"
    uid = _take_uid() if caps["unique_uid"] else None
    run_dir = None

    def fail(reason: str) -> ExecResult:
        return ExecResult(SANDBOX_ERROR, None, "", "", False, False, {}, time.monotonic() - t0, reason, use_ns)

    bad = [
        f"{f}={getattr(limits, f)!r}"
        for f in (
            "wall_s",
            "cpu_s",
            "memory_mb",
            "file_size_mb",
            "max_processes",
            "max_open_files",
            "max_output_bytes",
            "max_scratch_mb",
        )
        if not isinstance(getattr(limits, f), (int, float)) or getattr(limits, f) <= 0
    ]
    if bad:
        if uid is not None:
            _release_uid(uid)
        return fail(f"bad limits: {', '.join(bad)} (each must be a positive number)")
    try:
        try:
            names = {_check_name(str(n)): src for n, src in files.items()}
            run_dir = tempfile.mkdtemp(prefix="lmms_sandbox_")
            os.chmod(run_dir, 0o711)
            scratch = os.path.join(run_dir, "work")
            os.mkdir(scratch, 0o700)
            os.mkdir(os.path.join(run_dir, "cache"), 0o700)
            for name, src in names.items():
                dest = os.path.join(scratch, name)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                if isinstance(src, (bytes, bytearray, memoryview)):
                    with open(dest, "wb") as f:
                        f.write(src)
                else:
                    shutil.copyfile(os.fspath(src), dest)
            if uid is not None:
                os.chown(os.path.join(run_dir, "cache"), uid, uid)
                for dirpath, dirnames, filenames in os.walk(scratch):
                    for n in [dirpath] + [os.path.join(dirpath, x) for x in dirnames + filenames]:
                        os.chown(n, uid, uid, follow_symlinks=False)
            inputs = {}
            for name in names:
                st = os.stat(os.path.join(scratch, name))
                inputs[name] = (st.st_size, st.st_mtime_ns)
        except (OSError, ValueError, TypeError) as e:
            return fail(f"could not prepare the scratch folder: {type(e).__name__}: {e}")

        try:
            return _execute(code, scratch, inputs, limits, caps, uid, t0, warm)
        except Exception as e:  # noqa: BLE001 - a bug or an odd machine: still a result, never an exception
            return fail(f"the sandbox failed: {type(e).__name__}: {e}")
    finally:
        if uid is not None:
            _release_uid(uid)
        if run_dir is not None:
            _remove(run_dir)


def _execute(code, scratch, inputs, limits: Limits, caps: dict, uid, t0, warm: bool = False) -> ExecResult:
    use_ns = caps["backend"] == "namespaces"
    nproc = int(limits.max_processes)
    if uid is None:
        # RLIMIT_NPROC counts every process of the uid: leave room for what this user already runs
        nproc += _tasks_of_uid(os.getuid())
        if os.geteuid() == 0:
            _warn_root_plain()
    rl = [
        int(max(1, limits.cpu_s + 0.999)),
        int(limits.memory_mb) << 20,
        int(limits.file_size_mb) << 20,
        nproc,
        int(limits.max_open_files),
    ]
    # -I -S: no site module (it costs 30-50 ms a start, mostly .pth import hooks such as editable
    # installs); the bootstrap puts the evaluator's site-packages on the path itself
    py = [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, *map(str, rl), *caps["site_paths"]]
    home = INNER_WORKDIR if use_ns else scratch
    # in a mount namespace /tmp is private; otherwise a folder next to the scratch folder
    cache = "/tmp/.cache" if use_ns else os.path.join(os.path.dirname(scratch), "cache")
    # a watchdog of its own: kills it even if this evaluator dies without cleaning up
    watchdog = [caps["timeout"], "-s", "KILL", f"{limits.wall_s + WATCHDOG_MARGIN_S:g}"] if caps["timeout"] else []
    popen_kw: dict = {}
    if use_ns:
        argv = watchdog + _init_argv(
            caps["unshare"],
            -1 if uid is None else uid,
            int(limits.private_tmp_mb),
            caps["plan"]["hide"],
            caps["private_dirs"],
            caps["plan"]["keep"],
            py,
        )
    else:
        argv = watchdog + py
        if uid is not None:
            popen_kw = {"user": uid, "group": uid, "extra_groups": []}
    proc = None
    if warm and use_ns and uid is not None:
        try:
            proc = _start_warm(caps, scratch, uid, limits, _env(home, cache), rl)
        except _WarmRecentlyFailed:
            pass  # said when it failed
        except Exception as e:  # noqa: BLE001 - no warm worker: the normal path still runs it
            logging.getLogger("lmms_plugins").warning(
                "[lmms_plugins] sandbox: warm worker unavailable (%s); starting a new interpreter", e
            )
    try:
        if proc is None:
            proc = subprocess.Popen(
                argv,
                cwd=scratch,
                env=_env(home, cache),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                **popen_kw,
            )
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return ExecResult(
            SANDBOX_ERROR,
            None,
            "",
            "",
            False,
            False,
            {},
            time.monotonic() - t0,
            f"could not start the sandbox process: {type(e).__name__}: {e}",
            use_ns,
        )

    # the program text goes in on stdin (then /dev/null); a thread, so a huge text cannot block us
    data = code.encode("utf-8", errors="replace")

    def feed():
        try:
            proc.stdin.write(data)
        except (OSError, ValueError):
            pass
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()

    out, err = _Capped(limits.max_output_chars), _Capped(limits.max_output_chars)
    deadline = time.monotonic() + limits.wall_s  # from the process start (not the warm worker's start-up)
    killed_for = None  # TIMEOUT / OUTPUT_LIMIT when we killed it
    tree: list[int] = []  # descendants seen while it ran (plain backend: to find escapees)
    sel = selectors.DefaultSelector()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    for fd in streams:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    try:
        pidfd = proc.wake_r if isinstance(proc, _WarmProc) else os.pidfd_open(proc.pid)
        sel.register(pidfd, selectors.EVENT_READ)
    except (AttributeError, OSError):
        pidfd = None
    open_fds = set(streams)
    exited = False
    last_scan = time.monotonic()
    scratch_cap = int(limits.max_scratch_mb) << 20
    try:
        while True:
            now = time.monotonic()
            if not exited and proc.poll() is not None:
                exited = True
                if pidfd is not None:
                    sel.unregister(pidfd)
                # the program ended: nothing it started may outlive it
                _kill_all(proc, uid, tree, use_ns)
                deadline = min(deadline, now + 2.0)  # drain what is left in the pipes
            if not open_fds and exited:
                break
            if now >= deadline:
                if not exited:
                    killed_for = killed_for or TIMEOUT
                    _kill_all(proc, uid, tree, use_ns)
                    proc.wait()
                    exited = True
                break
            if not exited and now - last_scan > 0.5:
                last_scan = now
                if not use_ns:
                    tree = list(dict.fromkeys(tree + _descendants(proc.pid)))
                if killed_for is None and _tree_bytes(scratch, scratch_cap) > scratch_cap:
                    killed_for = SCRATCH_FULL
                    _kill_all(proc, uid, tree, use_ns)
                    deadline = min(deadline, time.monotonic() + 2.0)
            for key, _ in sel.select(timeout=min(0.5, max(0.0, deadline - now))):
                fd = key.fd
                if fd == pidfd:
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(fd)
                    open_fds.discard(fd)
                    continue
                streams[fd].add(chunk)
                if streams[fd].total > limits.max_output_bytes and killed_for is None:
                    killed_for = OUTPUT_LIMIT
                    _kill_all(proc, uid, tree, use_ns)
                    deadline = min(deadline, time.monotonic() + 2.0)
    finally:
        if proc.poll() is None:
            _kill_all(proc, uid, tree, use_ns)
        proc.wait()
        sel.close()
        if isinstance(proc, _WarmProc):
            proc.close()
        elif pidfd is not None:
            os.close(pidfd)
        proc.stdout.close()
        proc.stderr.close()
        writer.join(timeout=1.0)
    wall = time.monotonic() - t0

    stdout, out_cut = out.text()
    stderr, err_cut = err.text()
    rc = proc.returncode
    if use_ns and rc is not None and 128 < rc < 128 + 65:
        rc = -(rc - 128)  # the namespace's init reports the program's death by signal N as 128 + N
    status, reason = _classify(rc, killed_for, stderr, limits)
    if use_ns and proc.returncode == _INIT_FAILED and "[sandbox-init]" in stderr and not killed_for:
        status, reason = SANDBOX_ERROR, _last_line(stderr)
    got, skipped = _collect(scratch, inputs, limits, uid)
    return ExecResult(status, rc, stdout, stderr, out_cut, err_cut, got, wall, reason, use_ns, skipped)


def _classify(rc, killed_for, stderr: str, limits: Limits) -> tuple[str, str]:
    if killed_for == TIMEOUT:
        return TIMEOUT, f"killed after {limits.wall_s:g} s wall clock"
    if killed_for == OUTPUT_LIMIT:
        return OUTPUT_LIMIT, f"killed: more than {limits.max_output_bytes} bytes of output"
    if killed_for == SCRATCH_FULL:
        return OUTPUT_LIMIT, f"killed: more than {limits.max_scratch_mb} MB written into the scratch folder"
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
    if _memory_text(stderr):
        return MEMORY, f"out of memory under the {limits.memory_mb} MB limit: {_last_line(stderr)}"
    last = _last_line(stderr)
    if "Resource temporarily unavailable" in last and ("fork" in stderr or "BlockingIOError" in last):
        return ERROR, f"process limit of {limits.max_processes} reached: {last}"
    return ERROR, f"exit code {rc}" + (f": {last}" if last else "")
