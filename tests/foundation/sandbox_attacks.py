"""Attacks on the code sandbox, one function per class of the threat model (model code that
reads answers, escapes, shares kernel state with the evaluator or another run, eats memory or
disk, or breaks the evaluator with what it leaves in its scratch folder).

Each function plays the evaluator: it sets up what an evaluator would have (a private data root,
an environment secret, a keyring key, a listening socket, ...), runs model code through
``run_python`` and returns plain observations (JSON-able). test_sandbox_attacks.py calls them in
its own process (root) and in a process of an ordinary user whose home is private
(``python sandbox_attacks.py NAME`` prints the observations as JSON).
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
import tempfile
import threading

from lmms_plugins.utils.sandbox import Limits, run_python

SHORT = Limits(wall_s=20, memory_mb=512, max_scratch_mb=32, private_tmp_mb=16)


def _r(r) -> dict:
    return {"status": r.status, "stdout": r.stdout, "stderr": r.stderr[-600:], "files": sorted(r.files),
            "skipped": list(r.skipped_files), "reason": r.reason, "sandbox": r.sandbox}


def _private_dir(prefix: str) -> str:
    d = tempfile.mkdtemp(prefix=prefix, dir=os.path.expanduser("~") if os.geteuid() else None)
    os.chmod(d, 0o700)
    return d


def gold_in_view() -> dict:
    """Answers under a private data root, a folder on sys.path, the working directory, the
    environment: none of it is in view, and nothing of the evaluator's can be written."""
    data = _private_dir("lmms_gold_")
    with open(os.path.join(data, "test.parquet"), "w") as f:
        f.write("answer=17")
    sys.path.insert(0, data)
    os.environ["LMMS_PLUGINS_DATA_ROOT"] = data
    os.environ["OPENAI_API_KEY"] = "sk-secret-of-the-evaluator"
    paths = [data, os.getcwd(), os.path.expanduser("~"), sys.prefix, *[p for p in sys.path if p]]
    code = (
        "import os, sys, json\n"
        f"paths = {paths!r}\n"
        "seen = [p for p in paths if os.path.exists(p) and p not in sys.path and not sys.executable.startswith(p + '/')]\n"
        "found = []\n"
        "for top in ('/', '/tmp', '/work'):\n"
        "    for dirpath, dirs, files in os.walk(top):\n"
        "        dirs[:] = [d for d in dirs if not (dirpath == '/' and d in ('proc', 'dev', 'usr')) and os.path.join(dirpath, d) != sys.prefix]\n"
        "        found += [os.path.join(dirpath, f) for f in files if f.endswith(('.parquet', '.jsonl', '.json'))]\n"
        "writes = []\n"
        "for p in sys.path + ['/', '/etc', '/usr/lib']:\n"
        "    try:\n"
        "        open(os.path.join(p, 'evil.pth'), 'w').write('import os')\n"
        "        writes.append(p)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(json.dumps({'seen': seen, 'found': found, 'writes': writes, 'env': dict(os.environ),\n"
        "                  'shadow': os.path.exists('/etc/shadow'), 'run': os.path.exists('/run'), 'uid': os.getuid()}))\n"
    )
    r = run_python(code, {"image.png": b"png"}, SHORT)
    return {**_r(r), "data": data}


def confinement_kept() -> dict:
    """From a private working directory: the code still runs confined (never plainly)."""
    here = _private_dir("lmms_cwd_")
    os.chdir(here)
    code = ("import os\nprint(os.getcwd(), os.getuid(), len([p for p in os.listdir('/proc') if p.isdigit()]))\n"
            "import signal\ntry:\n    os.kill(1, 0); print('pid1 visible')\nexcept OSError as e:\n    print('pid1', e.errno)\n"
            f"try:\n    os.kill({os.getpid()}, signal.SIGKILL); print('evaluator killed?')\n"
            "except OSError as e:\n    print('evaluator', e.errno)\n")
    r = run_python(code, {}, SHORT)
    from lmms_plugins.utils import sandbox

    return {**_r(r), "provider": sandbox.require(), "cwd": here}


def _keyctl(op: int, *args) -> tuple[int, int]:
    libc = ctypes.CDLL(None, use_errno=True)
    n = libc.syscall(250, op, *args)  # keyctl (x86_64)
    return n, ctypes.get_errno()


def kernel_state() -> dict:
    """A secret in the evaluator's session keyring; a run that leaves a key for the next one; a
    Unix socket in a world-reachable folder and an abstract one; a TCP listener on loopback."""
    libc = ctypes.CDLL(None, use_errno=True)
    key = libc.syscall(248, b"user", b"lmms_secret", b"hunter2", 7, ctypes.c_int(-3))  # add_key to @s
    folder = tempfile.mkdtemp(prefix="lmms_sock_")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "s")
    abstract = f"\0lmms_abstract_{os.getpid()}"
    servers = []
    for addr in (path, abstract):
        s = socket.socket(socket.AF_UNIX)
        s.bind(addr)
        s.listen()
        servers.append(s)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    servers.append(tcp)
    hits = []

    def accept(s):
        try:
            s.settimeout(8)
            s.accept()
            hits.append(str(s.getsockname()))
        except OSError:
            pass

    threads = [threading.Thread(target=accept, args=(s,), daemon=True) for s in servers]
    for t in threads:
        t.start()
    code = (
        "import ctypes, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "buf = ctypes.create_string_buffer(64)\n"
        "print('search', libc.syscall(250, 10, ctypes.c_int(-3), b'user', b'lmms_secret', 0), ctypes.get_errno())\n"
        f"print('read', libc.syscall(250, 11, {key}, buf, 64), ctypes.get_errno())\n"
        "print('add', libc.syscall(248, b'user', b'from_run1', b'x', 1, ctypes.c_int(-3)), ctypes.get_errno())\n"
        f"for addr in ({path!r}, {abstract!r}):\n"
        "    try:\n"
        "        c = socket.socket(socket.AF_UNIX); c.settimeout(2); c.connect(addr); print('CONNECTED', addr)\n"
        "    except OSError as e:\n"
        "        print('unix', e.errno)\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {tcp.getsockname()[1]}), timeout=2); print('CONNECTED tcp')\n"
        "except OSError as e:\n"
        "    print('tcp', e.errno)\n"
    )
    r1 = run_python(code, {}, SHORT)
    r2 = run_python("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                    "print('find', libc.syscall(250, 10, ctypes.c_int(-3), b'user', b'from_run1', 0))", {}, SHORT)
    for s in servers:
        s.close()
    return {"run1": _r(r1), "run2": _r(r2), "hits": hits, "key": key,
            "evaluator_finds_run1_key": _keyctl(10, ctypes.c_int(-3), b"user", b"from_run1", 0)[0]}


def memory() -> dict:
    """memfd, SysV shared memory, several processes, unlinked files: all within the limits."""
    lim = Limits(wall_s=30, memory_mb=256, max_scratch_mb=32, private_tmp_mb=16, max_processes=8)
    memfd = run_python("import os\nfds = []\nfor i in range(24):\n    fd = os.memfd_create('m')\n"
                       "    os.ftruncate(fd, 64 << 20); os.write(fd, b'x' * (64 << 20)); fds.append(fd)\nprint(len(fds))", {}, lim)
    shm = run_python("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                     "print(libc.shmget(0, 1 << 30, 0o1000 | 0o600), ctypes.get_errno())", {}, lim)
    procs = run_python(
        "import os\nkids = []\nfor i in range(6):\n    pid = os.fork()\n    if pid == 0:\n"
        "        try:\n            b = bytearray(200 << 20)\n            for j in range(0, len(b), 4096): b[j] = 1\n"
        "            import time; time.sleep(2); os._exit(0)\n        except MemoryError:\n            os._exit(3)\n"
        "    kids.append(pid)\nprint(sorted(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in kids))", {}, lim)
    one_big = run_python("b = bytearray(400 << 20)\nprint('allocated')", {}, lim)
    unlinked = run_python(
        "import os\nkept = []\nfor i in range(40):\n    f = open(f'f{i}', 'wb'); os.unlink(f'f{i}')\n"
        "    try:\n        f.write(b'x' * (8 << 20)); f.flush()\n    except OSError as e:\n"
        "        print('stopped at', i, e.errno); break\n    kept.append(f)\n"
        "for d in ('/tmp', '/dev/shm'):\n    try:\n        open(d + '/big', 'wb').write(b'x' * (64 << 20)); print('wrote', d)\n"
        "    except OSError as e:\n        print(d, e.errno)\n", {}, lim)
    from lmms_plugins.utils import sandbox

    return {"memfd": _r(memfd), "shm": _r(shm), "procs": _r(procs), "one_big": _r(one_big), "unlinked": _r(unlinked),
            "memory": sandbox.capabilities()["memory"]}


def robustness() -> dict:
    """1,500 nested folders, names that are not UTF-8 or not printable, links out of the scratch
    folder: run_python never raises, returns only safe names, and leaves nothing behind."""
    before = set(os.listdir(tempfile.gettempdir()))
    deep = run_python("import os\nfor i in range(1500):\n    os.mkdir('d'); os.chdir('d')\n"
                      "open('deep.txt', 'w').write('x')\nprint('ok')", {}, SHORT)
    names = run_python(
        "import os\nopen(b'bad\\xff.png', 'wb').write(b'x')\nopen('line\\nbreak.png', 'w').write('x')\n"
        "open('good.png', 'wb').write(b'ok')\nos.mkdir('sub'); open('sub/also.png', 'w').write('y')\n"
        "os.symlink('/etc/passwd', 'link.txt')\nopen('one.txt', 'w').write('1')\nos.link('one.txt', 'hard.png')\n", {}, SHORT)
    after = set(os.listdir(tempfile.gettempdir()))
    return {"deep": _r(deep), "names": _r(names), "json": json.dumps(_r(names)) != "",
            "left": sorted(n for n in after - before if n.startswith("lmms_sandbox"))}


if __name__ == "__main__":
    print(json.dumps(globals()[sys.argv[1]]()))
