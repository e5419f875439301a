"""Run untrusted Python (a model's code) in a separate, confined process.

Usage::

    from lmms_plugins.utils.sandbox import Limits, run_python
    r = run_python(code, {"image.png": png_bytes}, Limits(wall_s=20))
    r.status, r.stdout, r.stderr, r.files  # files = new files the code saved, e.g. plots

Every call starts a new process of the current interpreter (``sys.executable``: numpy, Pillow,
OpenCV, SciPy and scikit-image import as in the evaluator) in a fresh scratch folder holding only
the given files under the given names; the folder is removed afterwards. Calls share no state and
may run in parallel threads. ``run_python`` never raises for what the code does: every outcome is
an :class:`ExecResult` with a status.

Confinement (``capabilities()`` says what is active here; the README's "Sandbox" section says it
in words):

* always: a new session; an empty environment (PATH, HOME = TMPDIR = the scratch folder, LANG,
  one-thread BLAS/OpenMP settings; nothing of the evaluator's, so no API key); stdin /dev/null;
  rlimits (CPU time, address space, file size, open files, processes) lowered before the code
  runs; a wall-clock deadline; stdout/stderr read as they come with a cap; the scratch folder's
  size watched; everything the program started is killed when it ends or is killed; a
  ``timeout`` watchdog kills it even if the evaluator itself dies.
* with namespaces (Linux, ``unshare`` works: as root, or via an unprivileged user namespace):
  new network (nothing but a down loopback), PID, IPC, UTS and mount namespaces; as root, its own
  unused uid (no capabilities, no_new_privs); otherwise the user namespace's root with no
  capability; /tmp, /var/tmp, /dev/shm, /run/lock are private tmpfs; folders a stranger cannot
  enter (e.g. /root) are an empty tmpfs except the interpreter's own folders; the scratch folder
  is /tmp/work. When its PID namespace's init exits, the kernel kills everything left in it.
* warm (opt-in: ``warm=True`` / ``LMMS_PLUGINS_SANDBOX_WARM=1``; root with namespaces): the
  same confinement, but the program runs in a fork of a worker that imported numpy, Pillow,
  OpenCV, SciPy and scikit-image once (~3.5x faster for an import-heavy script).
* without them (``LMMS_PLUGINS_SANDBOX=plain`` forces this): as root with an interpreter a
  stranger can reach, still its own uid (found and killed by uid); otherwise the evaluator's uid.
  No network or file-system confinement beyond ordinary permissions.
"""

from __future__ import annotations

import logging
import os
import secrets
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

OK = "ok"
ERROR = "error"
TIMEOUT = "timeout"
MEMORY = "memory"
OUTPUT_LIMIT = "output_limit"
KILLED = "killed"
SANDBOX_ERROR = "sandbox_error"
SCRATCH_FULL = "scratch_full"  # internal: why it was killed (reported as output_limit)

#: where the scratch folder appears inside a mount namespace
INNER_WORKDIR = "/tmp/work"
#: world-writable folders made private (tmpfs) inside a mount namespace
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock")
#: replaced by an empty tmpfs inside a mount namespace: the host's Unix sockets (D-Bus, databases)
ALWAYS_HIDDEN = ("/run",)
#: ``LMMS_PLUGINS_SANDBOX=plain`` turns the namespaces off (for a machine where they misbehave)
BACKEND_ENV = "LMMS_PLUGINS_SANDBOX"
#: the watchdog kills an execution this long after its wall-clock limit (if the evaluator did not)
WATCHDOG_MARGIN_S = 3.0


@dataclass(frozen=True)
class Limits:
    """Per-execution limits. CPU, memory and file size are per process."""

    wall_s: float = 30.0  # wall clock, whole execution
    cpu_s: float = 30.0  # RLIMIT_CPU of each process
    memory_mb: int = 2048  # RLIMIT_AS of each process (warm: on top of what the warm interpreter maps)
    file_size_mb: int = 64  # RLIMIT_FSIZE: largest file it may write
    max_processes: int = 64  # RLIMIT_NPROC (processes + threads of the execution's uid)
    max_open_files: int = 256  # RLIMIT_NOFILE
    max_output_chars: int = 8000  # kept of stdout and of stderr each (head and tail)
    max_output_bytes: int = 8_000_000  # more than this on stdout or stderr: killed, output_limit
    max_returned_files: int = 16  # new files returned in ExecResult.files ...
    max_returned_mb: float = 16.0  # ... at most this much in total (larger ones are skipped)
    private_tmp_mb: int = 64  # size of each private tmpfs (/tmp, /dev/shm, ...) in a mount namespace
    max_scratch_mb: int = 256  # more than this in the scratch folder (checked every 0.5 s): killed, output_limit


@dataclass(frozen=True)
class ExecResult:
    status: str  # ok | error | timeout | memory | output_limit | killed | sandbox_error
    exit_code: int | None  # the program's exit code; negative: killed by that signal; None: not started
    stdout: str  # at most max_output_chars (+ one line saying what was cut)
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    files: dict[str, bytes]  # files it wrote in the scratch folder that were not inputs (relative names)
    wall_s: float
    reason: str  # why, in words ("killed after 30 s wall clock", "MemoryError: ...")
    network_isolated: bool
    skipped_files: tuple[str, ...] = field(default=())  # new files not returned (too many / too large)


# The first code the sandboxed interpreter runs: read the program from stdin, make stdin
# /dev/null, lower the rlimits (soft = hard: the program cannot raise them back), run it as
# __main__ and print its traceback without this frame.
_BOOTSTRAP = r"""
import os, sys, resource
src = sys.stdin.buffer.read()
fd = os.open(os.devnull, os.O_RDONLY); os.dup2(fd, 0); os.close(fd)
a = [int(x) for x in sys.argv[1:6]]
sys.path.extend(p for p in sys.argv[6:] if p not in sys.path)  # the evaluator's site-packages (run with -S)
for r, v in ((resource.RLIMIT_CPU, None), (resource.RLIMIT_AS, a[1]), (resource.RLIMIT_FSIZE, a[2]),
             (resource.RLIMIT_NPROC, a[3]), (resource.RLIMIT_NOFILE, a[4]), (resource.RLIMIT_CORE, 0)):
    lim = (a[0], a[0] + 1) if v is None else (v, v)
    try:
        resource.setrlimit(r, lim)
    except (ValueError, OSError) as e:
        sys.stderr.write("[sandbox] could not set rlimit %d: %s\n" % (r, e))
del a, r, v, lim, fd
sys.argv = ["main.py"]
sys.dont_write_bytecode = True  # no __pycache__ among the files it wrote
sys.path.insert(0, os.getcwd())
g = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
try:
    exec(compile(src, "main.py", "exec"), g)
except SystemExit:
    raise
except BaseException as e:
    g.clear()  # frees what the program held (a MemoryError leaves no room to print otherwise)
    import linecache, traceback  # only now: they cost a few ms at every start
    linecache.cache["main.py"] = (len(src), None, src.decode("utf-8", "replace").splitlines(True), "main.py")
    traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
    sys.stderr.flush()
    sys.exit(1)
"""

# PID 1 of the new namespaces, run as root with ``python -I -S`` (cwd = the scratch folder):
# makes the world-writable folders private tmpfs, hides folders the execution's uid could not
# enter anyway (e.g. /root) behind an empty tmpfs while re-exposing the interpreter's own
# folders inside them, binds the scratch folder at /tmp/work, then forks the program as the
# execution's uid (no groups, no capabilities, no_new_privs) and waits for it. It stays PID 1
# so that the kernel's signals to the program (SIGXCPU) are not ignored as they are for a
# namespace's init; when it exits the kernel kills whatever is left in the namespace.
_NS_SETUP = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
def mount(src, tgt, fstype, flags, data):
    if libc.mount(src.encode() if src else None, tgt.encode(), fstype.encode() if fstype else None,
                  ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src, tgt, os.strerror(e)))
def setup_mounts(cfg):
    # cwd = the scratch folder; ends in cfg["work"]
    work_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    keep = [(p, os.open(p, os.O_PATH)) for p in cfg["keep"]]
    for d in cfg["hide"]:
        mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for d in cfg["private"]:
        os.makedirs(d, exist_ok=True)  # /run/lock inside the emptied /run
        mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=%dm,mode=1777" % cfg["tmp_mb"])
    os.umask(0o022)
    for p, fd in keep:
        os.makedirs(p, exist_ok=True)
        mount("/proc/self/fd/%d" % fd, p, None, MS_BIND | MS_REC, None)
        os.close(fd)
    os.makedirs(cfg["work"], exist_ok=True)
    mount("/proc/self/fd/%d" % work_fd, cfg["work"], None, MS_BIND, None)
    os.close(work_fd)
    os.chdir(cfg["work"])
    os.environ["PWD"] = cfg["work"]
def drop_privileges(uid):
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    else:  # a user namespace's root: stays uid 0 there, but without any capability
        for c in range(64):
            libc.prctl(24, c, 0, 0, 0)  # PR_CAPBSET_DROP (EINVAL past the last capability)
        libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
        hdr, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
        if libc.capset(hdr, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS: no setuid binary gives root back
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
def reap_until(pid):
    # as PID 1: reap every orphan; return the exit status the way a shell does (128 + signal)
    while True:
        try:
            p, st = os.wait()
        except ChildProcessError:
            return 125
        if p == pid:
            code = os.waitstatus_to_exitcode(st)
            return 128 - code if code < 0 else code
"""

_NS_INIT = (
    _NS_SETUP
    + r"""
a = sys.argv
cfg = {"uid": int(a[1]), "tmp_mb": int(a[2]), "work": a[3], "hide": a[4].split("\n") if a[4] else [],
       "private": a[5].split("\n") if a[5] else [], "keep": a[6].split("\n") if a[6] else [], "argv": a[7:]}
try:
    setup_mounts(cfg)
except OSError as e:
    sys.stderr.write("[sandbox-init] %s\n" % e)
    os._exit(125)
pid = os.fork()
if pid == 0:
    try:
        drop_privileges(cfg["uid"])
        os.execv(cfg["argv"][0], cfg["argv"])
    except OSError as e:
        sys.stderr.write("[sandbox-init] %s\n" % e)
        os._exit(125)
os._exit(reap_until(pid))
"""
)
# The warm worker (opt-in, root with namespaces only): one long-lived interpreter per evaluator
# process that has imported the usual libraries once, and forks for every execution. The fork
# (C1) enters new namespaces and forks their PID 1 (C2, which sets the mounts up as _NS_INIT
# does), which forks the program (C3): it drops to the execution's uid, lowers its rlimits, takes
# its stdout/stderr/program pipes from the evaluator (passed over the socket) and runs the program
# in the already warm interpreter. The worker reports each C1's pid and exit status; it exits,
# and its children with it, when the evaluator's end of the socket closes.
_ZYGOTE = (
    _NS_SETUP
    + r"""
import json, resource, selectors, signal, socket
sock = socket.socket(fileno=int(sys.argv[1]))
sys.path.extend(p for p in sys.argv[3:] if p not in sys.path)
for name in sys.argv[2].split(","):
    try:
        __import__(name)
    except Exception:
        pass
import linecache, threading, traceback, atexit
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000

def program(req, fds):
    out_w, err_w, code_r = fds
    drop_privileges(req["uid"])
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, as an exec would leave it: its /proc/self is its own
    with os.fdopen(code_r, "rb") as f:
        src = f.read()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0); os.dup2(out_w, 1); os.dup2(err_w, 2)
    os.closerange(3, 65536)
    os.environ.clear(); os.environ.update(req["env"]); os.environ["PWD"] = req["work"]
    cpu, mem, fsize, nproc, nofile = req["rl"]
    with open("/proc/self/status") as f:
        vm = int(f.read().split("VmSize:")[1].split()[0]) * 1024  # what the warm interpreter already maps
    for r, lim in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (vm + mem, vm + mem)),
                   (resource.RLIMIT_FSIZE, (fsize, fsize)), (resource.RLIMIT_NPROC, (nproc, nproc)),
                   (resource.RLIMIT_NOFILE, (nofile, nofile)), (resource.RLIMIT_CORE, (0, 0))):
        resource.setrlimit(r, lim)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()  # a fresh interpreter would draw its own seed
    sys.argv = ["main.py"]
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.getcwd())
    g = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
    code = 0
    try:
        exec(compile(src, "main.py", "exec"), g)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            sys.stderr.write("%s\n" % (e.code,))
            code = 1
    except BaseException as e:
        g.clear()
        linecache.cache["main.py"] = (len(src), None, src.decode("utf-8", "replace").splitlines(True), "main.py")
        traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
        code = 1
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF if code >= 0 else 1)

def c1(req, fds):
    # in the worker's namespaces, as root: enter new ones, become the parent of their PID 1
    signal.alarm(int(req["wall_s"] + req["margin_s"]) + 1)  # the watchdog: SIGALRM ends C1, PDEATHSIG the rest
    os.dup2(fds[1], 2)
    if libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    pid = os.fork()
    if pid == 0:
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: C2 dies with C1
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        os.chdir(req["scratch"])
        setup_mounts(req)
        p3 = os.fork()
        if p3 == 0:
            try:
                program(req, fds)
            except BaseException as e:
                sys.stderr.write("[sandbox-init] %s\n" % e)
                sys.stderr.flush()
                os._exit(125)
        for fd in fds:
            os.close(fd)
        os._exit(reap_until(p3))
    for fd in fds:
        os.close(fd)
    _, st = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(st)
    os._exit(128 - code if code < 0 else code)

r_wake, w_wake = os.pipe()
os.set_blocking(w_wake, False)
signal.set_wakeup_fd(w_wake)
signal.signal(signal.SIGCHLD, lambda *a: None)
sel = selectors.DefaultSelector()
sel.register(sock, selectors.EVENT_READ)
sel.register(r_wake, selectors.EVENT_READ)
children = {}
sock.send(json.dumps({"ready": sorted(m for m in sys.modules if "." not in m)}).encode())
while True:
    for key, _ in sel.select():
        if key.fileobj is sock:
            try:
                msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
            except OSError:
                msg, fds = b"", []
            if not msg:  # the evaluator is gone: so are its executions
                for pid in children:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                os._exit(0)
            req = json.loads(msg)
            sys.stdout.flush(); sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    sock.close(); os.close(r_wake); os.close(w_wake)
                    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: C1 dies with the worker
                    c1(req, fds)
                except BaseException as e:
                    try:
                        os.write(fds[1], ("[sandbox-init] %s\n" % e).encode())
                    except Exception:
                        pass
                    os._exit(125)
            for fd in fds:
                os.close(fd)
            children[pid] = req["id"]
            sock.send(json.dumps({"id": req["id"], "pid": pid}).encode())
        else:
            try:
                os.read(r_wake, 4096)
            except OSError:
                pass
            while True:
                try:
                    pid, st = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                rid = children.pop(pid, None)
                if rid is not None:
                    sock.send(json.dumps({"id": rid, "status": os.waitstatus_to_exitcode(st)}).encode())
"""
)
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


#: exit status of the namespace init when it could not set the sandbox up
_INIT_FAILED = 125


# ---------------------------------------------------------------------------------------------
# what this machine allows


def _others_can_enter(path: str) -> str | None:
    """The first folder on the way to ``path`` that a stranger uid cannot enter, or None."""
    parts = PurePosixPath(path).parts
    for i in range(1, len(parts) + 1):
        d = str(PurePosixPath(*parts[:i]))
        try:
            st = os.stat(d)
        except OSError:
            return d
        if stat.S_ISDIR(st.st_mode) and not st.st_mode & 0o001:
            return d
    return None


def _interpreter_paths() -> list[str]:
    """Folders the sandboxed interpreter needs: its prefixes and the import path."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        os.path.dirname(os.path.abspath(sys.executable)),
    }
    paths.update(p for p in sys.path if p and os.path.isabs(p))
    out = []
    for p in sorted({os.path.realpath(p) for p in paths} | {os.path.abspath(p) for p in paths}):
        if os.path.isdir(p) and p != "/":
            out.append(p)
    return out


def _site_paths() -> list[str]:
    """The evaluator's package folders (site-packages and the like, with the plain paths their
    .pth files add), for an interpreter started without the site module."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.exec_prefix)}
    out = []
    for p in sys.path:
        if not p or not os.path.isabs(p) or not os.path.isdir(p):
            continue
        rp = os.path.realpath(p)
        parts = PurePosixPath(rp).parts
        if "site-packages" in parts or "dist-packages" in parts or any(rp.startswith(q + "/") for q in prefixes):
            out.append(p)
    return list(dict.fromkeys(out))


def _mount_plan(private: list[str]) -> dict:
    """Which folders to hide behind an empty tmpfs and which interpreter folders to re-expose."""
    need = _interpreter_paths()

    def under(p: str, d: str) -> bool:
        return p == d or p.startswith(d.rstrip("/") + "/")

    hide: set[str] = set()
    keep: list[str] = []
    always = [d for d in ALWAYS_HIDDEN if os.path.isdir(d) and not os.path.islink(d)]
    hide.update(always)
    for p in need:
        blocked = _others_can_enter(p) or next((d for d in always if under(p, d)), None)
        in_private = any(under(p, d) for d in private)
        if blocked and not any(under(blocked, d) for d in private):
            hide.add(blocked)
        if blocked or in_private:
            keep.append(p)
    # a hidden folder inside another hidden one is covered by the outer tmpfs
    hide_list = sorted(h for h in hide if not any(h != o and under(h, o) for o in hide))
    keep = sorted(set(keep), key=len)
    keep = [p for i, p in enumerate(keep) if not any(under(p, q) for q in keep[:i])]
    # without a mount namespace a stranger uid can only run an interpreter it can reach
    reachable = not any(_others_can_enter(p) for p in need)
    return {"hide": hide_list, "keep": keep, "reachable": reachable}


@lru_cache(maxsize=1)
def _probe() -> dict:
    is_root = os.geteuid() == 0
    unshare = shutil.which("unshare")
    private = [d for d in PRIVATE_DIRS if os.path.isdir(d) and not os.path.islink(d) and os.stat(d).st_mode & 0o002]
    plan = _mount_plan(private)
    ns_ok, ns_why = False, ""
    if sys.platform != "linux":
        ns_why = "not Linux"
    elif not unshare:
        ns_why = "unshare (util-linux) not found"
    else:
        probe_uid = _UID_BASE - 1 if is_root else -1
        argv = _init_argv(
            unshare,
            probe_uid,
            1,
            plan["hide"],
            private,
            plan["keep"],
            [sys.executable, "-I", "-S", "-c", "import sys; print(sys.path)"],
        )
        try:
            with tempfile.TemporaryDirectory() as d:
                p = subprocess.run(
                    argv, check=False, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, cwd=d, env={}
                )
            ns_ok = p.returncode == 0 and p.stdout.strip().startswith(b"[")
            ns_why = (
                ""
                if ns_ok
                else (
                    f"unshare{'' if is_root else ' --user (unprivileged user namespaces)'} failed (exit {p.returncode}): "
                    f"{(p.stderr or p.stdout).decode(errors='replace').strip()[:300]}"
                )
            )
        except (OSError, subprocess.SubprocessError) as e:
            ns_why = f"unshare failed: {e}"
    plain_uid_ok = is_root and plan["reachable"]
    return {
        "backend": "namespaces" if ns_ok else "plain",
        "network_namespace": ns_ok,
        "pid_namespace": ns_ok,
        "mount_namespace": ns_ok,
        "private_dirs": private if ns_ok else [],
        "hidden_dirs": plan["hide"] if ns_ok else [],
        "user_namespace": ns_ok and not is_root,
        "unique_uid": (ns_ok and is_root) or plain_uid_ok,
        "plain_unique_uid": plain_uid_ok,
        "rlimits": ["cpu", "as", "fsize", "nproc", "nofile", "core"],
        "bubblewrap": shutil.which("bwrap"),
        "python": sys.executable,
        "why_not_namespaces": ns_why,
        "watchdog": shutil.which("timeout") is not None,
        "unshare": unshare,
        "timeout": shutil.which("timeout"),
        "site_paths": _site_paths(),
        "plan": plan,
    }


def _init_argv(
    unshare: str, uid: int, tmp_mb: int, hide: list[str], private: list[str], keep: list[str], program: list[str]
) -> list[str]:
    """``unshare`` into new mount/net/pid/ipc/uts namespaces running :data:`_NS_INIT` as PID 1.

    ``uid`` < 0: not root: a new user namespace too, whose root (the evaluator's own uid outside)
    runs the program without capabilities."""
    for p in [*hide, *private, *keep]:
        if "\n" in p:
            raise ValueError(f"folder name with a newline: {p!r}")
    user = ["--user", "--map-root-user"] if uid < 0 else []
    return [
        unshare,
        *user,
        "--mount",
        "--net",
        "--pid",
        "--ipc",
        "--uts",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--propagation",
        "private",
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        _NS_INIT,
        str(uid),
        str(tmp_mb),
        INNER_WORKDIR,
        "\n".join(hide),
        "\n".join(private),
        "\n".join(keep),
        *program,
    ]


def _effective(probe: dict) -> dict:
    caps = dict(probe)
    if os.environ.get(BACKEND_ENV, "").strip().lower() == "plain" and caps["backend"] != "plain":
        caps.update(
            backend="plain",
            network_namespace=False,
            pid_namespace=False,
            mount_namespace=False,
            user_namespace=False,
            private_dirs=[],
            hidden_dirs=[],
            unique_uid=caps["plain_unique_uid"],
            why_not_namespaces=f"turned off by {BACKEND_ENV}=plain",
        )
    return caps


def capabilities() -> dict:
    """What confinement :func:`run_python` applies on this machine now.

    Keys: ``backend`` ("namespaces" or "plain"), ``network_namespace``, ``pid_namespace``,
    ``mount_namespace`` (bools), ``private_dirs`` (folders that are a private tmpfs inside),
    ``hidden_dirs`` (folders replaced by an empty tmpfs inside, except the interpreter's own
    folders in them), ``user_namespace`` (not root: the namespaces hang off a user namespace
    whose root, without capabilities, is the evaluator's own uid outside), ``unique_uid`` (each
    execution runs as its own unused uid, never root: needs root, and without namespaces an
    interpreter that such a uid can reach),
    ``rlimits``, ``bubblewrap`` (path or None; not used: the mount namespace does its job),
    ``python``, ``why_not_namespaces``, ``watchdog`` (coreutils ``timeout`` found: an execution
    is killed even if the evaluator dies), ``warm_available`` (``warm=True`` takes effect here).
    The machine is probed once per process; ``LMMS_PLUGINS_SANDBOX=plain`` in the environment
    turns the namespaces off (read at every call).
    """
    caps = {
        k: v
        for k, v in _effective(_probe()).items()
        if k not in ("unshare", "timeout", "plan", "plain_unique_uid", "site_paths")
    }
    caps["warm_available"] = caps["backend"] == "namespaces" and caps["unique_uid"]
    return caps


# ---------------------------------------------------------------------------------------------
# helpers

_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()
_UID_BASE, _UID_SPAN = 1_900_000_000, 200_000_000


def _take_uid() -> int:
    with _uid_lock:
        while True:
            uid = _UID_BASE + secrets.randbelow(_UID_SPAN)
            # unused here and by any process (another evaluator process on this machine)
            if uid not in _uids_in_use and not _procs_of_uid(uid):
                _uids_in_use.add(uid)
                return uid


def _release_uid(uid: int) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


def _remove(path: str) -> None:
    """rmtree that also removes folders the program made unreadable (chmod 000)."""

    def retry(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
                shutil.rmtree(p, ignore_errors=True)
            else:
                func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)
    if os.path.exists(path):
        shutil.rmtree(path, ignore_errors=True)


def _check_name(name: str) -> str:
    p = PurePosixPath(name)
    if not name or "\x00" in name or p.is_absolute() or ".." in p.parts or str(p) in (".", ""):
        raise ValueError(f"input file name {name!r} must be a relative path inside the scratch folder")
    return str(p)


def _env(home: str, cache: str) -> dict[str, str]:
    path_dirs = [os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]
    return {
        "PATH": ":".join(dict.fromkeys(path_dirs)),
        "HOME": home,
        "TMPDIR": home,
        # caches (matplotlib's font list, ...) go outside the scratch folder, so they are not
        # returned as files the program wrote
        "XDG_CACHE_HOME": cache,
        "XDG_CONFIG_HOME": cache,
        "MPLCONFIGDIR": cache,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        # one thread per library: parallel executions do not oversubscribe the cores, and the
        # process limit is not eaten by BLAS/OpenMP pools
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "OPENCV_FOR_THREADS_NUM": "1",
    }


class _Capped:
    """Keeps the head and the tail of a stream within ``keep`` characters; counts the rest."""

    def __init__(self, keep_chars: int):
        self.keep = max(0, keep_chars)
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0
        # bytes, generously: up to 4 bytes per character in UTF-8
        self.head_cap = self.keep * 4 * 2 // 3
        self.tail_cap = self.keep * 4 - self.head_cap

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap > 0:
            self.tail.append(chunk)
            self.tail_len += len(chunk)
            while self.tail_len - len(self.tail[0]) >= self.tail_cap:
                self.tail_len -= len(self.tail.popleft())

    def text(self) -> tuple[str, bool]:
        tail = b"".join(self.tail)
        if len(self.head) + len(tail) == self.total:
            full = (bytes(self.head) + tail).decode("utf-8", errors="replace")
            if len(full) <= self.keep:
                return full, False
            head_s, tail_s = full, ""
        else:
            head_s = bytes(self.head).decode("utf-8", errors="replace")
            tail_s = tail[-self.tail_cap :].decode("utf-8", errors="replace") if tail else ""
        n_head = self.keep * 2 // 3
        n_tail = self.keep - n_head
        kept_head = head_s[:n_head]
        kept_tail = (head_s[n_head:] + tail_s)[-n_tail:] if n_tail else ""
        cut = (
            self.total
            - len(kept_head.encode("utf-8", errors="replace"))
            - len(kept_tail.encode("utf-8", errors="replace"))
        )
        note = f"\n[... output truncated: {max(cut, 0)} bytes of {self.total} not shown ...]\n"
        return kept_head + note + kept_tail, True


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _descendants(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        seen += kids
        todo += kids
    return seen


def _uid_sweep(uid: int) -> None:
    """SIGKILL every process of ``uid`` (the execution's own uid): ``kill -1`` as that uid."""
    try:
        subprocess.run(
            ["kill", "-KILL", "-1"],
            check=False,
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError):
        pass


def _tasks_of_uid(uid: int) -> int:
    """Processes and threads running as ``uid`` (what RLIMIT_NPROC counts)."""
    n = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    txt = f.read()
                if f"\nUid:\t{uid}\t" in txt:
                    n += int(txt.split("\nThreads:")[1].split()[0])
            except (OSError, IndexError, ValueError):
                pass
    return n


@lru_cache(maxsize=1)
def _warn_root_plain() -> None:
    logging.getLogger("lmms_plugins").warning(
        "[lmms_plugins] sandbox: no namespaces and no separate uid, so model code runs as root: only rlimits "
        "(which root can raise) and the wall-clock kill confine it; see capabilities() and the README's Sandbox section"
    )


def _procs_of_uid(uid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    found.append(int(name))
            except OSError:
                pass
    return found


def _kill_all(proc: subprocess.Popen, uid: int | None, tree: list[int], use_ns: bool) -> None:
    """Kill the execution and everything it started; return when they are gone.

    Its descendants (with namespaces: the namespace's init among them, whose death makes the
    kernel kill every process in its PID namespace), its process group, the descendants seen
    while it ran, and every process of its own uid (until none is left)."""
    warm = isinstance(proc, _WarmProc)
    for pid in _descendants(proc.pid) + tree + ([proc.pid] if warm and proc.poll() is None else []):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if not warm:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if uid is not None:
        end = time.monotonic() + 5
        while True:
            left = _procs_of_uid(uid)
            if not left or time.monotonic() > end:
                break
            _uid_sweep(uid)
            time.sleep(0.02)  # killed processes need a moment to be reaped


def _tree_bytes(root: str, stop_above: int) -> int:
    """Bytes of the files under ``root`` (not following links); stops counting above ``stop_above``."""
    total = 0
    todo = [root]
    while todo:
        try:
            with os.scandir(todo.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            todo.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
                    if total > stop_above:
                        return total
        except OSError:
            pass
    return total


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


# ---------------------------------------------------------------------------------------------
# the warm worker, evaluator side


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
    global _zygote, _zygote_lock, _uid_lock
    z, _zygote = _zygote, None
    if z is not None:
        try:
            z.sock.close()
        except OSError:
            pass
    _zygote_lock = threading.Lock()
    _uid_lock = threading.Lock()
    _uids_in_use.clear()


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


# ---------------------------------------------------------------------------------------------
# the one entry point


def run_python(
    code: str, files: Mapping[str, bytes | str | os.PathLike], limits: Limits = Limits(), *, warm: bool | None = None
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


def _collect(scratch: str, inputs: dict, limits: Limits, uid) -> tuple[dict[str, bytes], tuple[str, ...]]:
    """New regular files in the scratch folder (never following links), within the caps."""
    got: dict[str, bytes] = {}
    skipped: list[str] = []
    budget = int(limits.max_returned_mb * (1 << 20))
    for dirpath, dirnames, filenames in os.walk(scratch, followlinks=False):
        dirnames.sort()
        for fn in sorted(filenames):
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, scratch)
            try:
                fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink, fifo without writer, ...: not returned
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or (uid is not None and st.st_uid != uid):
                    continue  # a device, a hard link (perhaps to a file outside), someone else's file
                if rel in inputs and inputs[rel] == (st.st_size, st.st_mtime_ns):
                    continue  # an input, unchanged
                if len(got) >= limits.max_returned_files or st.st_size > budget:
                    skipped.append(rel)
                    continue
                data = b""
                with os.fdopen(os.dup(fd), "rb") as f:
                    data = f.read(budget + 1)
                if len(data) > budget:
                    skipped.append(rel)
                    continue
                budget -= len(data)
                got[rel] = data
            finally:
                os.close(fd)
    return got, tuple(skipped)
