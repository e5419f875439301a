"""No confinement, only by an explicit ``LMMS_PLUGINS_SANDBOX=unconfined``: the program runs as
the evaluator's user, sees what that user sees, with the same per-process rlimits (``prlimit``),
a scratch folder under the temporary folder, an empty environment, and its process group killed
at the end. For machines where bubblewrap cannot run and the model's code is trusted; every
result records that the run was unconfined.
"""

from __future__ import annotations

import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
from collections.abc import Mapping

from .bwrap import PYTHON_FLAGS
from .environment import env
from .limits import Limits
from .provider import Provider, SandboxStartError, Started
from .scratch import write_inputs


def _rlimits(limits: Limits) -> list[str]:
    """The default provider's rlimits, as ``prlimit`` options."""
    import resource

    from .bwrap import rlimits

    names = {resource.RLIMIT_CPU: "cpu", resource.RLIMIT_AS: "as", resource.RLIMIT_FSIZE: "fsize",
             resource.RLIMIT_NPROC: "nproc", resource.RLIMIT_NOFILE: "nofile", resource.RLIMIT_CORE: "core"}
    return [f"--{names[res]}={soft}:{hard}" for res, (soft, hard) in rlimits(limits).items()]


class Unconfined(Provider):
    name = "unconfined"

    def missing(self) -> str | None:
        return None if shutil.which("prlimit") else "prlimit (util-linux) was not found: install util-linux"

    def describe(self) -> dict:
        return {"provider": self.name, "namespaces": [], "seccomp": False, "memory": "per-process rlimits",
                "missing": self.missing()}

    def start(self, code: str, files: Mapping, limits: Limits) -> Started:
        run_dir = tempfile.mkdtemp(prefix="lmms_sandbox_")
        scratch = os.path.join(run_dir, "work")
        os.mkdir(scratch)
        home = os.path.join(run_dir, "home")
        os.mkdir(home)
        program = os.path.join(run_dir, "main.py")
        with open(program, "w", encoding="utf-8", errors="replace") as f:
            f.write(code)

        def cleanup():
            subprocess.run(["chmod", "-R", "u+rwX", run_dir], check=False, capture_output=True)
            subprocess.run(["rm", "-rf", "--one-file-system", run_dir], check=False, capture_output=True)

        fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
        try:
            inputs = write_inputs(fd, files)
            proc = subprocess.Popen(
                [shutil.which("prlimit") or "prlimit", *_rlimits(limits), "--", sys.executable, *PYTHON_FLAGS, program],
                cwd=scratch, env=env(home, os.path.join(home, ".cache"), os.pathsep.join(site.getsitepackages())), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except (OSError, ValueError) as e:
            os.close(fd)
            cleanup()
            raise SandboxStartError(f"could not start the program: {e}") from None
        pgid = proc.pid

        def kill():
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass

        return Started(proc, fd, inputs, cleanup=cleanup, kill=kill)


UNCONFINED = Unconfined()
