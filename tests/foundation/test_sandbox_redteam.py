"""Red-team findings on the bubblewrap sandbox, each as root (this process) and as an ordinary
user whose home is private (the user arm of test_sandbox_attacks.py: ``python
test_sandbox_redteam.py NAME`` run by that user prints the observations as JSON).

* a root evaluator's sandbox is uid 0 outside, and the kernel lets uid 0 write most sysctls by
  file mode alone (``kernel.core_pattern``, ``kernel.modprobe``: a command run as host root);
* a socket pair's buffers live in the kernel, outside RLIMIT_AS (a GB from one process);
* files and folders on a tmpfs cost kernel memory that its size does not count (half a million
  folders in 8 s from one process);
* /proc/keys listed the evaluator's session keyring (the names of its keys);
* for a root evaluator, the files of /proc only uid 0 may read (slabinfo, timer_list: the host
  kernel's state) were readable;
* pseudo-terminals (one pool for the whole host: 253 from one process, 3,072 for all namespaces
  but the host's own) could be opened;
* inotify instances are counted per user across namespaces: one execution took all 128 of the
  evaluator's user (as root: the host's root could not make one while it ran);
* the kernel exempts uid 0 from RLIMIT_NPROC: a root evaluator without a cgroup (cgroup v2
  without delegation, a container) let the program fork without bound.

No attack here changes the host: a sysctl is only opened for writing, never written.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from lmms_plugins.utils.sandbox import Limits, run_python

LIMITS = Limits(wall_s=20, memory_mb=256, max_scratch_mb=32, private_tmp_mb=16)


def _r(r) -> dict:
    return {"status": r.status, "stdout": r.stdout, "stderr": r.stderr[-600:], "reason": r.reason,
            "files": sorted(r.files), "sandbox": r.sandbox}


def proc_sys() -> dict:
    """Every /proc/sys file it can open for writing (opened only, nothing written)."""
    code = """
import os
w = []
for dp, dns, fns in os.walk('/proc/sys'):
    for f in fns:
        try:
            os.close(os.open(os.path.join(dp, f), os.O_WRONLY | os.O_NONBLOCK))
            w.append(os.path.join(dp, f))
        except OSError:
            pass
print(len(w), w[:5])
"""
    return _r(run_python(code, {}, LIMITS))


def root_only_proc() -> dict:
    """Every file of /proc that only its owner may read, read."""
    code = """
import os, stat
read = []
for name in os.listdir('/proc'):
    p = '/proc/' + name
    try:
        st = os.lstat(p)
        if name.isdigit() or not stat.S_ISREG(st.st_mode) or st.st_mode & 0o044:
            continue
        with open(p, 'rb', buffering=0) as f:
            os.set_blocking(f.fileno(), False)
            if f.read(64):
                read.append(p)
    except OSError:
        pass
print(read)
"""
    return _r(run_python(code, {}, LIMITS))


def ptys() -> dict:
    """Pseudo-terminals come from one pool for every namespace of the host (kernel.pty.max)."""
    code = "import os\ntry:\n    print(os.openpty())\nexcept OSError as e:\n    print('refused', e.errno)"
    return _r(run_python(code, {}, LIMITS))


FORKS = """
import os, time
n = 0
for i in range(40):
    try:
        if os.fork() == 0:
            time.sleep(1)
            os._exit(0)
        n += 1
    except OSError:
        break
print('forked', n)
"""


def per_user_counts() -> dict:
    """inotify instances and POSIX message queues are counted per user across every namespace."""
    code = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print('inotify', libc.inotify_init(), ctypes.get_errno())
print('mq_open', libc.syscall(240, b'rt28', os.O_CREAT | os.O_RDWR, 0o600, None), ctypes.get_errno())
"""
    return _r(run_python(code, {}, LIMITS))


def socket_buffers() -> dict:
    """Fill socket pairs' send buffers until something stops it; prints the MB held."""
    code = """
import socket
n, socks = 0, []
try:
    while n < (1 << 30):
        a, b = socket.socketpair()
        a.setblocking(False)
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 24)
        try:
            while True:
                n += a.send(b'x' * 65536)
        except BlockingIOError:
            pass
        socks.append((a, b))
except OSError as e:
    print('stopped:', e)
print('held_mb', n >> 20)
"""
    return _r(run_python(code, {}, LIMITS))


def many_inodes() -> dict:
    """Folders, files, hard links and symbolic links on the three tmpfs, as fast as it can."""
    code = """
import os, time
open('/work/f', 'w').close()
n, t = 0, time.time()
while time.time() - t < 15:
    for d in ('/tmp', '/work', '/dev/shm'):
        for i in range(500):
            os.mkdir(f'{d}/d{n}_{i}')
            os.link('/work/f', f'/work/l{n}_{d[1]}_{i}')
            os.symlink('x', f'{d}/s{n}_{i}')
    n += 1
print('made', n * 4500)
"""
    return _r(run_python(code, {}, LIMITS))


def keyring_names() -> dict:
    """The evaluator keeps a key in its session keyring; the execution lists /proc/keys."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    key = libc.syscall(248, b"user", b"rt28_evaluator_secret_name", b"payload", 7, -3)  # add_key(..., session)
    try:
        code = "try:\n    print(open('/proc/keys').read())\nexcept OSError as e:\n    print(e)"
        return {"key": key, **_r(run_python(code, {}, LIMITS))}
    finally:
        if key > 0:
            libc.syscall(250, 3, key)  # keyctl(KEYCTL_REVOKE)


def files_back_still_work() -> dict:
    """A program that saves a few files in folders still gets them back (max_files is not hit)."""
    code = "import os\nos.makedirs('/work/a/b')\nfor i in range(3): open(f'/work/a/b/{i}.png', 'wb').write(b'x')\n"
    return _r(run_python(code, {"image.png": b"png"}, LIMITS))


@pytest.fixture(params=["root", "user"])
def attack(request, monkeypatch, tmp_path):
    if request.param == "root":
        if os.geteuid() != 0:
            pytest.skip("this arm runs as root (CI); the user arm covers a non-root evaluator")
        monkeypatch.chdir(tmp_path)
        return lambda name: json.loads(json.dumps(globals()[name]()))
    return request.getfixturevalue("redteam_user")


@pytest.fixture(scope="module")
def redteam_user():
    from test_sandbox_attacks import user_runner

    return user_runner(os.path.abspath(__file__))


def test_no_sysctl_is_writable(attack):
    out = attack("proc_sys")
    assert out["status"] == "ok" and out["sandbox"] == "bwrap", out
    assert out["stdout"].split()[0] == "0", out["stdout"]  # was 769 for a root evaluator


def test_root_only_proc_files_are_not_read(attack):
    out = attack("root_only_proc")
    assert out["status"] == "ok" and out["stdout"].strip() == "[]", out  # was slabinfo, timer_list, ... for root


def test_no_pseudo_terminal(attack):
    out = attack("ptys")
    assert out["status"] == "ok" and out["stdout"].startswith("refused"), out  # was 253 a process (256 files)


def test_per_user_counts_are_not_taken(attack):
    out = attack("per_user_counts")  # was: 128 inotify instances, all the host's root had
    assert out["status"] == "ok" and "inotify -1 1" in out["stdout"] and "mq_open -1 1" in out["stdout"], out


def test_max_processes_holds_for_root_without_a_cgroup(monkeypatch):
    """The kernel exempts uid 0 from RLIMIT_NPROC: a root evaluator's sandbox without a cgroup
    (cgroup v2 without delegation, a container) forked 40 processes under max_processes=8."""
    if os.geteuid() != 0:
        pytest.skip("the exemption is root's")
    from lmms_plugins.utils.sandbox import cgroup

    monkeypatch.setattr(cgroup, "_parents", lambda: ("", {}))
    r = run_python(FORKS, {}, LIMITS)
    assert r.status == "ok" and r.stdout.split() == ["forked", "0"], r  # threads only
    monkeypatch.undo()
    if cgroup.describe().startswith("cgroup"):  # with one, pids.max: up to max_processes
        r = run_python(FORKS, {}, LIMITS)
        assert r.status == "ok" and 0 < int(r.stdout.split()[1]) < LIMITS.max_processes, r


def test_socket_buffers_cannot_hold_memory(attack):
    out = attack("socket_buffers")
    assert out["sandbox"] == "bwrap", out
    if out["status"] == "ok":
        held = int(out["stdout"].split("held_mb")[1])
        assert held < 256, out  # was 988 MB under memory_mb=256 for a user (no cgroup)
        assert "Operation not permitted" in out["stdout"]
    else:
        assert out["status"] == "memory", out


def test_files_on_the_tmpfs_are_bounded(attack):
    out = attack("many_inodes")
    # killed near max_files (a cgroup may stop it first, for the memory those files take)
    assert out["status"] in ("output_limit", "memory") and out["sandbox"] == "bwrap", out
    if out["status"] == "output_limit":
        assert "more than 50000 files and folders" in out["reason"], out
    assert "made" not in out["stdout"]


def test_the_evaluators_keyring_is_not_listed(attack):
    out = attack("keyring_names")
    assert out["key"] > 0 and out["status"] == "ok", out
    assert "rt28_evaluator_secret_name" not in out["stdout"] and "_ses" not in out["stdout"], out["stdout"]


def test_files_back_still_come_back(attack):
    out = attack("files_back_still_work")
    assert out["status"] == "ok" and out["files"] == ["a/b/0.png", "a/b/1.png", "a/b/2.png"], out


HOSTILE = """```python
import os
from PIL import Image
root = os.environ.get('LMMS_PLUGINS_CWI_ROOT') or '%s'
found = []
for top in ('/', root):
    for dp, dns, fns in os.walk(top):
        if dp.startswith(('/proc', '/dev')):
            dns[:] = []
        found += [os.path.join(dp, f) for f in fns if f.endswith('.parquet')]
print('FOUND', found)
parquet = os.path.join(root, 'alignment', 'test-00000-of-00001.parquet')
os.symlink(parquet, 'gold.png')
os.symlink('/etc/passwd', 'passwd.png')
Image.new('RGB', (8, 8), (1, 2, 3)).save(b'bad\\xff.png', format='PNG')
Image.new('RGB', (8, 8), (4, 5, 6)).save('line\\nbreak.png', format='PNG')
Image.new('RGB', (8, 8), (7, 8, 9)).save('ok.png')
```"""


class HostileModel:
    """Round 1: looks for the answers and leaves links and odd names; round 2: answers 0 outside
    code, 17 inside a code comment."""

    def __init__(self, root: str, answer: tuple[int, int]):
        self.root, self.answer, self.round2 = root, answer, []

    def __call__(self, request: dict) -> str:
        from judge_server import image_urls, message_text

        text = message_text(request)
        if "=== Result of running the code of reply 1 ===" not in text:
            return HOSTILE % self.root
        self.round2.append({"text": text, "n_images": len(image_urls(request))})
        dx, dy = self.answer  # item 0's: right inside a code comment, wrong outside code
        return f"```python\n# <answer>{dx},{dy}</answer>\n```\nSo: <answer>{dx + 50},{dy}</answer>"


@pytest.mark.e2e
def test_the_cli_with_a_hostile_model(tmp_path, run_lmms_eval):
    """The real lmms-eval CLI, root, data root in a private folder: the model's code finds no
    parquet, the links it leaves are not followed, the odd names cost only their images, the
    samples log is whole, and the answer scored is the one outside code."""
    from judge_server import FakeJudgeServer
    from lmms_plugins.tasks.cwi.generate import main as make_data

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    root = private / "cwi"
    assert make_data(["--tasks", "alignment", "--n", "2", "--seed", "3", "--out", str(root)]) == 0
    gold = (root / "alignment" / "test-00000-of-00001.parquet").read_bytes()
    from datasets import load_dataset

    dx, dy = (int(v) for v in load_dataset(str(root), "alignment")["test"][0]["answer"].split(","))
    model = HostileModel(str(root), (dx, dy))
    with FakeJudgeServer(model, model="hostile") as server:
        res = run_lmms_eval("cwi_code_alignment", "openai",
                            f"model=hostile,base_url={server.base_url},api_key=none,max_retries=1,num_concurrent=2",
                            out_dir=private / "run", env={"LMMS_PLUGINS_CWI_ROOT": str(root), "OPENAI_API_KEY": "none"})
    samples = res["_samples"]["cwi_code_alignment"]
    assert len(samples) == 2 and len(model.round2) == 2
    for seen in model.round2:
        assert "FOUND []" in seen["text"], seen["text"][-2000:]
        assert "root:" not in seen["text"] and "PAR1" not in seen["text"]
        assert seen["n_images"] == 2 + 1  # the item's images and ok.png only
    for sample in samples:
        raw = sample["filtered_resps"]
        while isinstance(raw, list):
            raw = raw[0]
        final = json.loads(raw)
        ex = final["cwi_code"]["executions"][0]
        assert ex["status"] == "ok" and [im["name"] for im in ex["images"]] == ["ok.png"], ex
        assert sample["accuracy"]["predicted"] == {"dx": dx + 50, "dy": dy}, sample["accuracy"]  # not the comment's
        assert sample["accuracy"]["value"] == 0.0
    assert gold not in json.dumps(samples).encode()


if __name__ == "__main__":
    print(json.dumps(globals()[sys.argv[1]]()))
