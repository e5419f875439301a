"""What confinement this machine allows: probed once per process; :func:`capabilities`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache

from .namespaces import PRIVATE_DIRS, _init_argv, _mount_plan, _site_paths
from .uids import _UID_BASE

#: ``LMMS_PLUGINS_SANDBOX=plain`` turns the namespaces off (for a machine where they misbehave)
BACKEND_ENV = "LMMS_PLUGINS_SANDBOX"


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
