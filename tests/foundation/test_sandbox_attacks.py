"""Each attack class of sandbox_attacks.py, as root (this process) and as an ordinary user (a
process of a fresh user whose home is private, started with runuser).

CI runs as root in a private clone folder, which an ordinary user cannot enter: the user's
process runs in a mount namespace of its own where every private folder above the interpreter,
the venv and this checkout is covered by a world-readable tmpfs holding only the way down to
them (nothing on the host changes). Without root, or where runuser/unshare are missing, the
user arm is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import pwd
import shlex
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sandbox_attacks as attacks

USER = "lmmssbx"
ROOT = os.path.dirname(os.path.dirname(HERE))


def _user_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (to create a user and start its process)"
    for tool in ("useradd", "runuser", "unshare", "mount"):
        if not shutil.which(tool):
            return f"{tool} not found"
    return None


def _private_ancestors(paths: list[str]) -> list[str]:
    """Folders above ``paths`` that others cannot enter, outermost first."""
    out: list[str] = []
    for p in paths:
        parts = os.path.realpath(p).split("/")[1:]
        for i in range(1, len(parts) + 1):
            d = "/" + "/".join(parts[:i])
            if os.path.isdir(d) and not os.stat(d).st_mode & 0o001 and d not in out:
                out.append(d)
    return sorted(out, key=lambda d: d.count("/"))


def _mount_script(needed: list[str]) -> str:
    """sh lines: cover each private folder with a 0755 tmpfs holding binds of the way down."""
    lines = ["set -e", "mount --make-rprivate /"]
    for i, d in enumerate(_private_ancestors(needed)):
        keep = sorted({os.path.realpath(n)[len(d) + 1:].split("/")[0] for n in needed
                       if os.path.realpath(n).startswith(d + "/")})
        stash = f"/tmp/.lmms_stash_{os.getpid()}_{i}"
        lines += [f"mkdir -p {stash}", f"mount --bind {shlex.quote(d)} {stash}",
                  f"mount -t tmpfs -o mode=0755,size=1m tmpfs {shlex.quote(d)}"]
        for k in keep:
            src, dst = f"{stash}/{k}", shlex.quote(f"{d}/{k}")
            lines.append(f"if [ -d {src} ]; then mkdir -p {dst}; else touch {dst}; fi; mount --bind {src} {dst}")
        lines.append(f"umount -l {stash}; rmdir {stash}")
    return "\n".join(lines)


def user_runner(source: str):
    """``run(name)``: ``python <source> name`` as the user, from its private home; its JSON line."""
    why = _user_reason()
    if why:
        pytest.skip(why)
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/false", USER], check=True, capture_output=True)
    home = pwd.getpwnam(USER).pw_dir
    os.makedirs(home, exist_ok=True)
    shutil.chown(home, USER, USER)
    os.chmod(home, 0o700)  # a private home: the evaluator runs from it
    needed = [os.path.realpath(sys.executable), sys.prefix, sys.base_prefix, ROOT]
    import lmms_plugins

    needed += list(lmms_plugins.__path__)
    script = _mount_script(needed)
    base = os.path.basename(source)

    def run(name: str) -> dict:
        # the attack module is copied into the user's private home and run from there
        target = os.path.join(home, base)
        shutil.copy(source, target)
        shutil.chown(target, USER, USER)
        cmd = (f"{script}\ncd {shlex.quote(home)}\nexec runuser -u {USER} -- env -i HOME={shlex.quote(home)} "
               f"PATH=/usr/bin:/bin {shlex.quote(sys.executable)} {base} {name}")
        p = subprocess.run(["unshare", "--mount", "--", "sh", "-c", cmd], check=False, capture_output=True, text=True, timeout=180)
        assert p.returncode == 0, p.stderr[-3000:]
        return json.loads(p.stdout.strip().splitlines()[-1])

    return run


@pytest.fixture(scope="module")
def as_user():
    return user_runner(os.path.join(HERE, "sandbox_attacks.py"))


@pytest.fixture(params=["root", "user"])
def attack(request, monkeypatch, tmp_path):
    if request.param == "root":
        if os.geteuid() != 0:
            pytest.skip("this arm runs as root (CI); the user arm covers a non-root evaluator")
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(sys, "path", list(sys.path))
        # the attacks set variables in os.environ (a secret, a data root): all of them go afterwards
        # (monkeypatch.delenv records nothing for a variable that was not set)
        saved = dict(os.environ)
        request.addfinalizer(lambda: (os.environ.clear(), os.environ.update(saved)))
        for k in ("LMMS_PLUGINS_DATA_ROOT", "OPENAI_API_KEY"):
            os.environ.pop(k, None)
        return lambda name: json.loads(json.dumps(getattr(attacks, name)()))
    return request.getfixturevalue("as_user")


def test_gold_answers_and_the_host_are_out_of_view(attack):
    out = attack("gold_in_view")
    assert out["status"] == "ok" and out["sandbox"] == "bwrap", out
    seen = json.loads(out["stdout"])
    assert seen["seen"] == [] and seen["found"] == [], seen  # no data root, sys.path folder, cwd, home
    assert seen["writes"] == []  # nothing of the interpreter or the host is writable
    assert "OPENAI_API_KEY" not in seen["env"] and "LMMS_PLUGINS_DATA_ROOT" not in seen["env"]
    assert not seen["shadow"] and not seen["run"] and seen["uid"] != 0


def test_confinement_is_kept_from_a_private_folder(attack):
    out = attack("confinement_kept")
    assert out["provider"] == "bwrap" and out["sandbox"] == "bwrap" and out["status"] == "ok", out
    cwd, uid, nprocs = out["stdout"].splitlines()[0].split()
    assert cwd == "/work" and uid != "0" and int(nprocs) <= 3  # its own PID namespace
    assert "evaluator 3" in out["stdout"]  # ESRCH: the evaluator is not even visible


def test_kernel_state_is_not_shared(attack):
    out = attack("kernel_state")
    r1 = out["run1"]
    assert r1["status"] == "ok", r1
    assert "search -1 1" in r1["stdout"] and "read -1 1" in r1["stdout"] and "add -1 1" in r1["stdout"]  # EPERM
    assert "CONNECTED" not in r1["stdout"] and out["hits"] == []
    assert out["run2"]["stdout"].strip() == "find -1" and out["evaluator_finds_run1_key"] == -1


def test_memory_is_bounded(attack):
    out = attack("memory")
    assert out["memfd"]["status"] == "error" and "Operation not permitted" in out["memfd"]["stderr"]
    assert out["shm"]["stdout"].split() == ["-1", "1"]
    assert out["one_big"]["status"] == "memory"
    procs = out["procs"]
    if out["memory"].startswith("cgroup"):
        # 6 x 200 MB under 256 MB for the whole execution: some of them are stopped
        assert procs["status"] == "memory" or any(c != 0 for c in json.loads(procs["stdout"] or "[0]")), procs
    else:
        # per-process limits: each process stays under memory_mb, at most max_processes of them
        assert procs["status"] == "ok", procs
    u = out["unlinked"]["stdout"]
    assert "stopped at" in u and int(u.split("stopped at")[1].split()[0]) <= 4  # 32 MB scratch, 8 MB each
    assert "/tmp 28" in u and "/dev/shm 28" in u  # ENOSPC: 16 MB each


def test_the_scratch_folder_cannot_break_the_evaluator(attack):
    out = attack("robustness")
    assert out["deep"]["status"] == "ok" and out["deep"]["files"] == [], out["deep"]
    names = out["names"]
    assert names["status"] == "ok", names
    assert names["files"] == ["good.png", "sub/also.png"]  # no link, no hard link, no unsafe name
    assert sorted(names["skipped"]) == ["bad\\xff.png", "line\\nbreak.png"]
    assert out["left"] == []


def test_without_bubblewrap_code_tasks_stop_and_nothing_runs_unconfined(monkeypatch, tmp_path):
    from lmms_plugins.utils import sandbox
    from lmms_plugins.utils.sandbox import bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: (None, ""))
    monkeypatch.setattr(sandbox, "_missing", lambda name: sandbox.get(name).missing())  # not the cached answer
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap.*LMMS_PLUGINS_SANDBOX=unconfined"):
        sandbox.require()
    marker = tmp_path / "ran"
    r = sandbox.run_python(f"open({str(marker)!r}, 'w').write('x')", {}, attacks.SHORT)
    assert r.status == "sandbox_error" and "bwrap" in r.reason and not marker.exists()

    monkeypatch.setenv("LMMS_PLUGINS_SANDBOX", "unconfined")
    assert sandbox.require() == "unconfined"
    r = sandbox.run_python(f"open({str(marker)!r}, 'w').write('x')", {}, attacks.SHORT)
    assert r.status == "ok" and r.sandbox == "unconfined" and marker.exists()

    monkeypatch.setenv("LMMS_PLUGINS_SANDBOX", "plain")
    with pytest.raises(sandbox.SandboxUnavailable, match="not a sandbox provider"):
        sandbox.require()
    assert sandbox.run_python("print(1)", {}, attacks.SHORT).status == "sandbox_error"


def test_private_ancestors_are_found(tmp_path):
    d = tmp_path / "a" / "b"
    d.mkdir(parents=True)
    os.chmod(tmp_path / "a", 0o700)
    assert str(tmp_path / "a") in _private_ancestors([str(d)])

