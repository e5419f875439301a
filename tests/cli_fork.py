"""The lmms-eval CLI in a forked process whose heavy imports are already done (tests only).

Every end-to-end test runs the real ``lmms-eval`` command line; as a fresh subprocess each run
paid 6-15 s importing torch, transformers and datasets before doing anything. Here a
``multiprocessing`` fork server imports those once per test session, and each run is a fork of
it: a new process with its own environment, working directory, argv, stdout/stderr and exit
status, exactly what the console script gets. lmms-eval, `datasets` and this package are NOT
preloaded (they read settings from the environment when imported); every run imports them fresh.

The preloaded libraries read the hub's ``HF_HOME`` and offline switches at import, so the fork
server starts with the offline environment and one Hugging Face folder for the session (no test
reads models from the hub cache: the tiny checkpoints are local folders). Tests about the console
script itself (entry points, the ``.pth`` start-up hook, packaging, torchrun) keep a subprocess, and
so do tests that compare model pixels across processes: a forked run of the tiny diffusion
pipeline drew pixels 1 of 255 off a fresh process's (cause not found; threads, denormals and a
plain convolution were checked and equal).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# imported once in the fork server: the slow third-party part of `import lmms_eval.evaluator`
# (about 70 % of it). Not `datasets`: it fixes its cache folder from HF_HOME when imported, and a
# cache shared between runs served one run another local folder's rows for the same config.
PRELOAD = ["torch", "torchvision", "transformers.pipelines"]

_context = None


def _start(offline_env: dict) -> multiprocessing.context.BaseContext:
    global _context
    if _context is not None:
        return _context
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    hf_home = tempfile.mkdtemp(prefix="lmms_plugins_tests_hf_")
    saved = dict(os.environ)
    os.environ.update({**offline_env, "HF_HOME": hf_home})
    try:  # the server inherits the environment of this moment
        forkserver.ensure_running()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    _context = ctx
    return ctx


def _run(argv: list, env: dict, cwd: str, out_path: str, err_path: str) -> None:
    """In the fork: become the console script (environment, folder, argv, standard streams)."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    for fd, path in ((1, out_path), (2, err_path)):
        f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(f, fd)
        os.close(f)
    sys.stdin = open(os.devnull)
    sys.argv = list(argv)
    from lmms_eval.cli.dispatch import main  # what the `lmms-eval` console script runs

    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)


def run_cli(argv: list, *, env: dict, cwd: Path, timeout: float, offline_env: dict) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``lmms-eval <argv[1:]>`` run in a fork of the server."""
    ctx = _start(offline_env)
    with tempfile.TemporaryDirectory(prefix="lmms_eval_cli_") as streams:  # not in cwd: tests list it
        out_path, err_path = Path(streams, "stdout"), Path(streams, "stderr")
        proc = ctx.Process(target=_run, args=(list(argv), dict(env), str(cwd), str(out_path), str(err_path)))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            raise subprocess.TimeoutExpired(argv, timeout)
        out = out_path.read_text(errors="replace") if out_path.exists() else ""
        err = err_path.read_text(errors="replace") if err_path.exists() else ""
    return proc.exitcode, out, err
