"""The code sandbox (utils/sandbox/) on real hostile programs: every one is contained and gets a
specific status. Assertions that need a confinement the machine lacks (namespaces, running as
root) are skipped with the reason, never faked."""

from __future__ import annotations

import io
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from lmms_plugins.utils import sandbox
from lmms_plugins.utils.sandbox import Limits, run_python

CAPS = sandbox.capabilities()
needs_ns = pytest.mark.skipif(not CAPS["network_namespace"], reason=f"no namespaces here: {CAPS['why_not_namespaces']}")
needs_uid = pytest.mark.skipif(not CAPS["unique_uid"], reason="not root: executions share the evaluator's uid")
SHORT = Limits(wall_s=3.0, cpu_s=10.0)
# every machine runs the plain backend's tests; a machine with namespaces runs both, and as
# root also the warm worker (a fork of a pre-imported interpreter, same confinement)
BACKENDS = ["plain"]
if CAPS["backend"] == "namespaces":
    BACKENDS = ["namespaces", "plain"] + (["warm"] if CAPS["unique_uid"] else [])
both = pytest.mark.parametrize("backend", BACKENDS, indirect=True)
ns_kinds = pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "plain"] or ["plain"], indirect=True)


@pytest.fixture
def backend(request, monkeypatch):
    if request.param == "plain":
        monkeypatch.setenv(sandbox.BACKEND_ENV, "plain")
    else:
        monkeypatch.delenv(sandbox.BACKEND_ENV, raising=False)
    if request.param == "warm":
        monkeypatch.setenv(sandbox.WARM_ENV, "1")
        assert sandbox.warm_up()
    else:
        monkeypatch.delenv(sandbox.WARM_ENV, raising=False)
    caps = sandbox.capabilities()
    assert caps["backend"] == ("namespaces" if request.param == "warm" else request.param)
    return caps


from lmms_plugins.utils.sandbox import _procs_of_uid  # noqa: E402  (the sandbox's own reading of /proc)


def _uid_from(stdout: str) -> int:
    return int(stdout.split("UID=")[1].split()[0])


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """Scratch folders go under tmp_path, so the test can see that they are removed."""
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


# --- normal programs ---------------------------------------------------------------------------


@both
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
    assert r.network_isolated == backend["network_namespace"]
    assert os.listdir(own_tmp) == []  # the scratch folder is gone


def test_input_given_as_a_path(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(b"\x00\x01payload")
    r = run_python("print(open('copy.bin','rb').read()[2:].decode())", {"copy.bin": src}, SHORT)
    assert r.status == "ok" and r.stdout == "payload\n"


@both
def test_exit_code_and_exception(backend):
    r = run_python("import sys\nprint('before')\nsys.exit(3)", {}, SHORT)
    assert (r.status, r.exit_code, r.stdout) == ("error", 3, "before\n")
    assert r.reason == "exit code 3"
    r = run_python("x = 1\ny = {}['missing']\n", {}, SHORT)
    assert r.status == "error" and r.exit_code == 1
    assert 'File "main.py", line 2' in r.stderr and "y = {}['missing']" in r.stderr
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


@both
def test_parallel_executions_are_independent(backend):
    code = "import time, os\ntime.sleep(0.3)\nprint(open('id.txt').read(), sorted(os.listdir('.')))"
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda i: run_python(code, {"id.txt": f"item{i}".encode()}, SHORT), range(6)))
    for i, r in enumerate(results):
        assert r.status == "ok", r
        assert r.stdout == f"item{i} ['id.txt']\n"


# --- hostile programs --------------------------------------------------------------------------


@both
def test_infinite_loop_times_out(backend):
    r = run_python("while True:\n    pass", {}, Limits(wall_s=0.5, cpu_s=30))
    assert r.status == "timeout" and r.reason == "killed after 0.5 s wall clock"
    assert r.wall_s >= 0.5


def test_cpu_limit_is_a_timeout():
    r = run_python("while True:\n    pass", {}, Limits(wall_s=20, cpu_s=1))
    assert r.status == "timeout" and "CPU time limit of 1 s" in r.reason


@both
def test_closed_stdout_and_never_exits_times_out(backend):
    r = run_python(
        "import os, time\nprint('bye', flush=True)\nos.close(1)\nos.close(2)\nwhile True:\n    time.sleep(0.05)",
        {},
        Limits(wall_s=0.5),
    )
    assert r.status == "timeout" and r.stdout == "bye\n"


@ns_kinds
def test_fork_bomb_is_contained(backend):
    code = (
        "import os\nprint('UID=%d' % os.getuid(), flush=True)\n"
        "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    r = run_python(code, {}, Limits(wall_s=1.5, max_processes=32))
    assert r.status == "timeout", r
    if backend["unique_uid"]:
        assert _procs_of_uid(_uid_from(r.stdout)) == []  # every forked process is gone
    assert os.fork is not None  # the evaluator is still here and can run the next test


def test_fork_bomb_that_gives_up_is_an_error_naming_the_process_limit():
    r = run_python("import os\nwhile True:\n    os.fork()", {}, Limits(wall_s=5, max_processes=16))
    assert r.status in ("error", "timeout"), r
    if r.status == "error":
        assert "process limit of 16" in r.reason or "BlockingIOError" in r.stderr


@both
def test_memory_bomb(backend):
    r = run_python(
        "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 2**20))", {}, Limits(wall_s=10, memory_mb=512)
    )
    assert r.status == "memory" and "512 MB" in r.reason and "MemoryError" in r.stderr


def test_numpy_memory_bomb():
    r = run_python("import numpy as np\na = np.ones((100000, 100000))", {}, Limits(wall_s=10, memory_mb=1024))
    assert r.status == "memory", r


@both
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


@both
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
    if not backend["unique_uid"] and not backend["pid_namespace"]:
        # documented: as the evaluator's own user without namespaces it may read other processes' environ
        assert "FOUND []" in r.stdout or "/environ" in r.stdout
        pytest.skip("same uid as the evaluator and no PID namespace: /proc/*/environ is readable (documented)")
    assert "FOUND []" in r.stdout


@both
def test_stdin_is_closed(backend):
    r = run_python("import sys\nprint(repr(sys.stdin.read()))", {}, SHORT)
    assert r.status == "ok" and r.stdout == "''\n"


@needs_ns
@ns_kinds
def test_writing_outside_the_scratch_folder_does_not_reach_the_host(tmp_path, backend):
    marker = f"/tmp/lmms_sandbox_escape_{uuid.uuid4().hex}"
    target_dir = tmp_path / "host_dir"
    target_dir.mkdir()
    code = (
        f"open({marker!r}, 'w').write('escaped')\n"
        "print('tmp write ok')\n"
        "import os\n"
        "print('RUN', sorted(os.listdir('/run')))\n"
        "for p in (" + repr(str(target_dir / "x.txt")) + ", '/etc/lmms_x', '/root/lmms_x', '/usr/lmms_x'):\n"
        "    try:\n        open(p, 'w').write('x'); print('WROTE', p)\n"
        "    except OSError as e:\n        print('refused', p, type(e).__name__)\n"
    )
    r = run_python(code, {}, SHORT)
    assert r.status == "ok", r
    assert "tmp write ok" in r.stdout and "WROTE" not in r.stdout
    assert not os.path.exists(marker)  # the /tmp it wrote was a private tmpfs
    assert os.listdir(target_dir) == [] and not os.path.exists("/etc/lmms_x")
    if os.path.isdir("/run") and not os.path.islink("/run"):
        assert "RUN ['lock']" in r.stdout or "RUN []" in r.stdout  # the host's sockets in /run are hidden


@needs_uid
def test_code_never_runs_as_root():
    r = run_python("import os\nprint(os.getuid(), os.geteuid())\nos.setuid(0)", {}, SHORT)
    uid, euid = map(int, r.stdout.split())
    assert uid != 0 and euid != 0
    assert r.status == "error" and "PermissionError" in r.stderr


@needs_ns
@ns_kinds
def test_tcp_to_a_loopback_listener_gets_nowhere(backend):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    got = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                got.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    code = (
        "import socket\n"
        f"try:\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=2); s.sendall(b'leak'); print('CONNECTED')\n"
        "except OSError as e:\n    print('refused', type(e).__name__, e)\n"
    )
    try:
        r = run_python(code, {}, SHORT)
    finally:
        stop.set()
        t.join(2)
        server.close()
    assert r.status == "ok" and r.stdout.startswith("refused") and r.network_isolated
    assert got == []  # the listener never saw a connection


@ns_kinds
def test_killing_the_parent_leaves_the_evaluator_alive(backend):
    me = os.getpid()
    code = (
        "import os, signal\n"
        f"for pid in (os.getppid(), {me}):\n"
        "    try:\n        os.kill(pid, signal.SIGKILL); print('sent', pid)\n"
        "    except OSError as e:\n        print('could not kill', pid, type(e).__name__)\n"
        "print('still here')\n"
    )
    r = run_python(code, {}, SHORT)
    if not backend["unique_uid"] and not backend["pid_namespace"]:
        pytest.skip("same uid and no PID namespace: the code could signal the evaluator (documented)")
    assert r.status == "ok" and "still here" in r.stdout, r
    os.kill(me, 0)  # this process is alive
    r2 = run_python("print('next')", {}, SHORT)
    assert r2.status == "ok" and r2.stdout == "next\n"


def _escape_code(main_waits: bool) -> str:
    return (
        "import os, sys, time\n"
        "print('UID=%d' % os.getuid(), flush=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(600)\n"
        "    os._exit(0)\n"
        "time.sleep(0.5)\n" + ("time.sleep(600)\n" if main_waits else "print('main done')\n")
    )


@needs_uid
@ns_kinds
@pytest.mark.parametrize("main_waits", [True, False], ids=["killed_at_timeout", "killed_when_main_exits"])
def test_setsid_escape_is_killed(main_waits, backend):
    r = run_python(_escape_code(main_waits), {}, Limits(wall_s=1.2))
    assert r.status == ("timeout" if main_waits else "ok"), r
    uid = _uid_from(r.stdout)
    assert _procs_of_uid(uid) == []  # the escaped grandchild is gone too


def test_capabilities_describe_this_machine():
    caps = sandbox.capabilities()
    assert caps["backend"] in ("namespaces", "plain")
    assert (
        caps["network_namespace"]
        == caps["pid_namespace"]
        == caps["mount_namespace"]
        == (caps["backend"] == "namespaces")
    )
    assert set(caps["rlimits"]) >= {"cpu", "as", "fsize", "nproc", "nofile"}
    if caps["backend"] == "plain":
        assert caps["why_not_namespaces"]


@needs_uid
def test_an_evaluator_killed_mid_run_leaves_nothing_behind(tmp_path):
    """The watchdog (coreutils timeout) ends a sleeping program whose evaluator died without cleaning up."""
    helper = (
        "import os, sys, tempfile, threading, time\n"
        "from lmms_plugins.utils import sandbox\n"
        f"tempfile.tempdir = {str(tmp_path)!r}  # the dead evaluator's scratch folder stays here, not in /tmp\n"
        "if os.environ.get(sandbox.WARM_ENV): sandbox.warm_up()\n"
        "t = threading.Thread(target=sandbox.run_python, args=('import time\\ntime.sleep(600)', {}, sandbox.Limits(wall_s=1)))\n"
        "t.start()\n"
        "for _ in range(100):\n"
        "    time.sleep(0.1)\n"
        "    kids = sandbox._descendants(os.getpid())\n"
        "    if len(kids) >= 3: break\n"
        "time.sleep(0.3)\n"
        "print(' '.join(map(str, sandbox._descendants(os.getpid()))), flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", helper], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
    finally:
        proc.kill()  # the evaluator dies: no cleanup runs
        proc.wait()
    assert len(pids) >= 3  # the watchdog, the sandbox process(es) and the program
    end = time.monotonic() + 1 + sandbox.WATCHDOG_MARGIN_S + 10
    while time.monotonic() < end and any(os.path.exists(f"/proc/{p}") for p in pids):
        time.sleep(0.2)
    assert not [p for p in pids if os.path.exists(f"/proc/{p}")]


_STRANGER_PY = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)), None)


@pytest.mark.skipif(
    os.geteuid() != 0
    or _STRANGER_PY is None
    or sandbox._others_can_enter(sandbox.__file__) is not None
    or not os.stat(sandbox.__file__).st_mode & 0o004,
    reason="needs root (to start an unprivileged evaluator), a system python3, and this checkout readable by others",
)
def test_unprivileged_evaluator_gets_user_namespaces():
    """The non-root path: an evaluator running as an ordinary user (a system python3 loading this
    package by path) gets network/PID/mount namespaces under a user namespace, and the code runs
    there as a root without capabilities."""
    marker = f"/tmp/lmms_userns_escape_{uuid.uuid4().hex}"
    helper = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('sbx', {sandbox.__file__!r}, submodule_search_locations=[{os.path.dirname(sandbox.__file__)!r}])\n"
        "sbx = importlib.util.module_from_spec(spec); sys.modules['sbx'] = sbx; spec.loader.exec_module(sbx)\n"
        "out = {'caps': sbx.capabilities()}\n"
        "code = '''\n"
        "import ctypes, os, resource\n"
        "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
        "try:\n    resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6)); print('RAISED')\n"
        "except (ValueError, OSError):\n    print('cannot raise')\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('umount', libc.umount2(b'/tmp', 2))\n"
        f"open({marker!r}, 'w').write('x')\n"
        "print('procs', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "'''\n"
        "r = sbx.run_python(code, {}, sbx.Limits(wall_s=5))\n"
        "out['run'] = [r.status, r.stdout, r.stderr, r.network_isolated]\n"
        "r = sbx.run_python('import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n    time.sleep(600)\\n', {}, sbx.Limits(wall_s=5))\n"
        "out['escape'] = r.status\n"
        "print(json.dumps(out))\n"
    )
    stranger = sandbox._UID_BASE - 2
    p = subprocess.run(
        [_STRANGER_PY, "-c", helper],
        check=False,
        user=stranger,
        group=stranger,
        extra_groups=[],
        cwd="/",
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    out = __import__("json").loads(p.stdout.strip().splitlines()[-1])
    if out["caps"]["backend"] != "namespaces":
        pytest.skip(f"no unprivileged user namespaces here: {out['caps']['why_not_namespaces']}")
    assert out["caps"]["user_namespace"] and not out["caps"]["unique_uid"]
    status, stdout, stderr, isolated = out["run"]
    assert status == "ok", stderr
    assert stdout.splitlines()[0] == "0000000000000000"  # no capability at all
    assert "cannot raise" in stdout and "umount -1" in stdout and "procs [1, 2]" in stdout and isolated
    assert not os.path.exists(marker)
    assert out["escape"] == "ok"
    assert _procs_of_uid(stranger) == []  # the setsid'd child died with its PID namespace


def test_bad_limits_are_a_sandbox_error():
    r = run_python("print(1)", {}, Limits(wall_s=0))
    assert r.status == "sandbox_error" and "wall_s=0" in r.reason


def test_caches_and_bytecode_are_not_returned_as_files():
    code = (
        "import os\nos.makedirs(os.environ['MPLCONFIGDIR'], exist_ok=True)\n"
        "open(os.path.join(os.environ['MPLCONFIGDIR'], 'fontlist.json'), 'w').write('{}')\n"
        "open('helper.py', 'w').write('X = 41')\nimport helper\nprint(helper.X + 1)\n"
    )
    r = run_python(code, {}, SHORT)
    assert r.status == "ok" and r.stdout == "42\n"
    assert set(r.files) == {"helper.py"}  # no __pycache__, no cache files


@both
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


@pytest.mark.skipif("warm" not in BACKENDS, reason="the warm worker needs root with namespaces")
def test_warm_worker_preimports_and_survives_its_own_death():
    assert sandbox.warm_up()
    r = run_python(
        "import sys, numpy\nprint('numpy' in sys.modules, numpy.random.rand() != numpy.random.rand())",
        {},
        SHORT,
        warm=True,
    )
    assert r.status == "ok" and r.stdout == "True True\n"
    seeds = {
        run_python("import numpy\nprint(numpy.random.randint(10**9))", {}, SHORT, warm=True).stdout for _ in range(3)
    }
    assert len(seeds) == 3  # each execution draws its own seed, as a fresh interpreter would
    worker = sandbox.warm._zygote
    result = {}
    t = threading.Thread(
        target=lambda: result.setdefault(
            "r", run_python("import time\ntime.sleep(30)", {}, Limits(wall_s=20), warm=True)
        )
    )
    t.start()
    for _ in range(100):  # wait until the execution runs, then kill the worker under it
        if worker.waiting and all(w.pid for w in worker.waiting.values()):
            break
        time.sleep(0.05)
    os.kill(worker.proc.pid, signal.SIGKILL)
    t.join(30)
    assert result["r"].status == "killed"
    r = run_python("print('again')", {}, SHORT, warm=True)  # a new worker takes over
    assert r.status == "ok" and r.stdout == "again\n" and sandbox.warm._zygote is not worker
