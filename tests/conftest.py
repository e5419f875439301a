"""Shared test fixtures. Everything runs offline: the hub is switched off for every subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmms_plugins.demo import OFFLINE_ENV  # one definition of "offline" for the demo and the tests
from lmms_plugins.utils.jsonl import read_jsonl

# CI (CI=true) sees the same property-test cases on every run; a developer's run keeps exploring
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True)
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        _hypothesis_settings.load_profile("ci")
except ImportError:  # hypothesis comes with the [test] extra
    pass


def lmms_eval_executable() -> str:
    """The `lmms-eval` console script of the interpreter running the tests."""
    script = Path(sys.executable).with_name("lmms-eval")
    return str(script) if script.exists() else "lmms-eval"


def read_results(out_dir: Path) -> dict:
    """The newest *_results.json under out_dir, with the samples of each task when logged."""
    found = sorted(out_dir.rglob("*_results.json"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise FileNotFoundError(f"no *_results.json under {out_dir}")
    results = json.loads(found[-1].read_text())
    samples = {}
    for path in found[-1].parent.glob("*_samples_*.jsonl"):
        task = path.name.split("_samples_", 1)[1].rsplit(".", 1)[0]
        samples[task] = read_jsonl(path)
    results["_samples"] = samples
    results["_path"] = str(found[-1])
    return results


def lmms_eval_process(cmd: list, *, env: dict, cwd: Path, timeout: float, fork: bool = True) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True, ...)`` for an ``lmms-eval`` command line.

    ``fork`` (the default): in a fork of a server that imported torch & co. once (``cli_fork``:
    same argv, environment, folder, streams and exit status as the console script); ``fork=False``
    or ``LMMS_PLUGINS_TESTS_CLI=subprocess``: the console script in a new subprocess. A run whose
    ``PYTHONPATH`` differs from this process's gets a subprocess too (only a new interpreter reads it:
    a fake package, a ``sitecustomize``).
    """
    own_path = env.get("PYTHONPATH", "") == os.environ.get("PYTHONPATH", "")
    if fork and own_path and os.environ.get("LMMS_PLUGINS_TESTS_CLI", "fork") != "subprocess":
        from cli_fork import run_cli

        code, out, err = run_cli(cmd, env=env, cwd=cwd, timeout=timeout, offline_env=OFFLINE_ENV)
        return subprocess.CompletedProcess(cmd, code, out, err)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)


def run_lmms_eval_cli(
    tasks: str,
    model: str,
    model_args: str = "",
    *,
    out_dir: Path,
    include_path: str | None = None,
    env: dict | None = None,
    extra_args: list[str] | tuple = (),
    log_samples: bool = True,
    timeout: float = 900,
    fork: bool = True,
) -> dict:
    """Run the real `lmms-eval` CLI (``lmms_eval_process``), offline, and return its results JSON.

    The CLI exits 0 even when the run failed, so success is judged by the results file: when
    none is written the assertion error carries the tail of the CLI's output.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [lmms_eval_executable(), "--model", model, "--tasks", tasks, "--output_path", str(out_dir), "--batch_size", "1"]
    if model_args:
        cmd += ["--model_args", model_args]
    if include_path:
        cmd += ["--include_path", include_path]
    if log_samples:
        cmd += ["--log_samples"]
    cmd += list(extra_args)
    # the run's caches (datasets, judge replies) in its own folder, as HF_HOME is
    full_env = {**os.environ, **OFFLINE_ENV, "HF_HOME": str(out_dir / ".hf_home"),
                "LMMS_PLUGINS_CACHE_DIR": str(out_dir / ".cache"), **(env or {})}
    proc = lmms_eval_process(cmd, env=full_env, cwd=out_dir, timeout=timeout, fork=fork)
    code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    try:
        results = read_results(out_dir)
    except FileNotFoundError:
        tail = (stdout[-4000:] + "\n--- stderr ---\n" + stderr[-6000:])
        raise AssertionError(f"lmms-eval wrote no results (exit {code}): {' '.join(cmd)}\n{tail}") from None
    results["_stdout"] = stdout
    results["_stderr"] = stderr
    return results


@pytest.fixture
def run_lmms_eval():
    """`run_lmms_eval(tasks, model, model_args, out_dir=..., include_path=None, env=None)` -> results dict."""
    return run_lmms_eval_cli


def write_hub_dataset(root: Path, config: str, split: str, rows: list[dict], features=None) -> Path:
    """Write ``rows`` as ``root/<config>/<split>-00000-of-00001.parquet`` and (re)write root/README.md
    with a ``configs:`` header listing every config/split folder present: the hub layout that
    ``datasets.load_dataset(root, config)`` reads like the hub copy."""
    import datasets

    root = Path(root)
    folder = root / config
    folder.mkdir(parents=True, exist_ok=True)
    ds = datasets.Dataset.from_list(rows, features=features)
    ds.to_parquet(str(folder / f"{split}-00000-of-00001.parquet"))
    lines = ["---", "configs:"]
    for cfg in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        lines += [f"- config_name: {cfg.name}", "  data_files:"]
        for parquet in sorted(cfg.glob("*-00000-of-*.parquet")):
            name = parquet.name.split("-00000-of-")[0]
            lines += [f"  - split: {name}", f"    path: {cfg.name}/{name}-*.parquet"]
    lines += ["---", ""]
    (root / "README.md").write_text("\n".join(lines))
    return root


@pytest.fixture
def hub_dataset():
    """`hub_dataset(root, config, split, rows, features=None)`: a local copy in the hub layout."""
    return write_hub_dataset


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (LMMS_PLUGINS_REQUIRE_BROWSER=1, set by .ci/run) the browser test may not skip."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("LMMS_PLUGINS_REQUIRE_BROWSER") == "1":
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if "chromium" in reason.lower():
            report.outcome = "failed"
            report.longrepr = f"LMMS_PLUGINS_REQUIRE_BROWSER=1 but the browser test was skipped: {reason}"
