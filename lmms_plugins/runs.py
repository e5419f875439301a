"""Reading runs: what lmms-eval wrote with ``--output_path`` (``<date>_results.json`` and, with
``--log_samples``, ``<date>_samples_<task>.jsonl``) or what EleutherAI's lm-eval 0.4.x wrote
(``<model>/results_<date>.json`` and ``<model>/samples_<task>_<date>.jsonl``), and what a run says
about one metric (its per-sample values, success/total and pending counts, how many samples a value
is computed over).

Used by ``lmms-plugins compare`` (:mod:`lmms_plugins.compare`) and ``lmms-plugins report``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmms_plugins.utils.jsonl import iter_jsonl


class ResultsError(Exception):
    """A path given to compare/report holds no readable lmms-eval or lm-eval results."""


def is_regular(path: str | os.PathLike) -> bool:
    """True for a regular file (symlinks followed). A FIFO, socket or device named like a results,
    samples or image file is never opened: reading a FIFO blocks until a writer comes."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _read_regular(path: Path) -> str:
    """The text of a regular file, checked on the open descriptor (no window for a swap)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ResultsError(f"{path}: not a regular file; not read")
        return handle.read().decode("utf-8")


LMMS_EVAL, LM_EVAL = "lmms-eval", "lm-eval"


# ------------------------------------------------------------------------------------ reading runs
@dataclass
class TaskResult:
    task: str
    values: dict[str, Any]  # metric -> aggregated value (number, dict, or "N/A")
    stderr: dict[str, float]  # metric -> standard error, where lmms-eval computed one
    n: int | None  # samples evaluated
    samples: list[dict] | None  # the logged samples, or None without --log_samples
    results_file: Path
    samples_file: Path | None = None
    inputs: dict | None = field(default=None, repr=False, compare=False)  # key -> SampleInputs, on first use
    config: dict = field(default_factory=dict, repr=False)  # the task's config in the results (dataset_name, splits)
    harness: str = LMMS_EVAL  # which harness wrote it: LMMS_EVAL or LM_EVAL


def task_version(tr: TaskResult) -> str | None:
    """The task's ``metadata.version`` as the results file's config records it (both harnesses)."""
    metadata = tr.config.get("metadata") if isinstance(tr.config, dict) else None
    version = metadata.get("version") if isinstance(metadata, dict) else None  # a hand-edited file may hold anything
    return None if version is None or isinstance(version, (dict, list)) else str(version)


def task_settings(tr: TaskResult) -> dict:
    """The task's ``metadata`` as the results file's config records it: its settings (defaults
    included, lmms_plugins.utils.settings), its version, and any key a user's YAML added."""
    metadata = tr.config.get("metadata") if isinstance(tr.config, dict) else None
    return dict(metadata) if isinstance(metadata, dict) else {}


@dataclass
class Run:
    label: str
    path: Path
    model: str
    tasks: dict[str, TaskResult]
    config: dict = field(default_factory=dict)  # of the newest results file
    configs: list = field(default_factory=list)  # of every results file, oldest first (one per lmms-eval call)
    groups: dict = field(default_factory=dict)  # group -> its subtasks (``group_subtasks`` of the results files)


def _results_files(path: Path) -> list[Path]:
    if path.is_dir():  # lmms-eval's <date>_results.json and lm-eval's <model>/results_<date>.json
        found = set(path.rglob("*_results.json")) | set(path.rglob("results_*.json"))
        odd = sorted(p for p in found if not is_regular(p))
        if odd:
            raise ResultsError(f"{odd[0]}: not a regular file (a FIFO, socket, device or dangling link); not read")
        return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))
    if is_regular(path):
        return [path]
    if path.exists() or path.is_symlink():
        raise ResultsError(f"{path}: not a regular file or folder; not read")
    raise ResultsError(f"{path}: no such file or folder")


# lm-eval's date id: datetime.now().isoformat() with ":" replaced by "-"
LM_EVAL_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"


def _harness(data: dict, results_file: Path) -> str:
    """Which harness wrote a results file: by the version key each one writes, else by the file name."""
    if "lmms_eval_version" in data:
        return LMMS_EVAL
    if "lm_eval_version" in data or results_file.name.startswith("results_"):
        return LM_EVAL
    return LMMS_EVAL


_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def _samples_file(results_file: Path, task: str, harness: str = LMMS_EVAL) -> Path | None:
    """The samples file of ``task`` beside its results file. A task name that is not a plain name
    (a path separator, '..', glob characters: a hand-edited file) has none."""
    if not _PLAIN_NAME.fullmatch(task) or ".." in task:
        return None
    if harness == LM_EVAL:
        return _lm_eval_samples_file(results_file, task)
    prefix = results_file.name[: -len("_results.json")]
    exact = results_file.with_name(f"{prefix}_samples_{task}.jsonl")
    if exact.exists() or exact.is_symlink():
        return exact
    others = sorted(results_file.parent.glob(f"*_samples_{task}.jsonl"), key=lambda p: p.lstat().st_mtime)
    return others[-1] if others else None


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _check_results(data: Any, rf: Path) -> None:
    """The parts of a results file the commands read have the shape lmms-eval/lm-eval write:
    else one :class:`ResultsError` naming the file and the key (a hand-edited file)."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ResultsError(f"{rf}: no 'results' object; is this an lmms-eval *_results.json or lm-eval results_*.json?")
    for task, entries in data["results"].items():
        if not isinstance(entries, dict):
            raise ResultsError(f"{rf}: results[{task!r}] is {_kind(entries)}, expected an object of metrics")
    for key in ("config", "configs", "n-samples", "groups", "group_subtasks"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise ResultsError(f"{rf}: {key!r} is {_kind(data[key])}, expected an object")
    for task, ns in (data.get("n-samples") or {}).items():
        if ns is not None and not isinstance(ns, dict):
            raise ResultsError(f"{rf}: n-samples[{task!r}] is {_kind(ns)}, expected an object")


#: per-sample fields and the types the commands accept in them (a missing field is fine)
_LINE_FIELDS = {"input_media": (list,), "input": (str, type(None)), "doc_hash": (str, type(None)),
                "doc_id": (int, str, type(None))}


def check_sample(line: Any, where: str) -> None:
    """One samples line has the shape the commands read (``where``: file:line), else ResultsError.
    A per-sample metric object (one with ``value``) holds a number, true/false or null as its value,
    a string as its status and an object as its record."""
    if not isinstance(line, dict):
        raise ResultsError(f"{where}: a samples line is {_kind(line)}, expected an object")
    for name, types in _LINE_FIELDS.items():
        if name in line and not isinstance(line[name], types) or (name == "doc_id" and isinstance(line.get(name), bool)):
            raise ResultsError(f"{where}: {name!r} is {_kind(line[name])}")
    if any(not isinstance(m, str) for m in line.get("input_media") or ()):
        raise ResultsError(f"{where}: 'input_media' holds {_kind(next(m for m in line['input_media'] if not isinstance(m, str)))}, expected paths")
    for name, item in line.items():
        if not isinstance(item, dict) or "value" not in item:
            continue
        v = item["value"]
        if not (v is None or isinstance(v, (int, float))):
            raise ResultsError(f"{where}: {name}.value is {_kind(v)}, expected a number, true/false or null")
        for key, types in (("status", str), ("record", dict), ("reason", (str, type(None))), ("tier", (str, type(None)))):
            if key in item and not isinstance(item[key], types):
                raise ResultsError(f"{where}: {name}.{key} is {_kind(item[key])}")
        if "applicable" in item and not isinstance(item["applicable"], bool):
            raise ResultsError(f"{where}: {name}.applicable is {_kind(item['applicable'])}, expected true/false")


def read_samples(sf: Path) -> list[dict]:
    """The lines of a samples file, each checked (:func:`check_sample`); a FIFO or device is not opened."""
    if not is_regular(sf):
        raise ResultsError(f"{sf}: not a regular file (a FIFO, socket, device or dangling link); not read")
    out = []
    for number, line in iter_jsonl(sf, error=ResultsError):
        check_sample(line, f"{sf}:{number}")
        out.append(line)
    return out


def load_run(path: str | Path, label: str | None = None) -> Run:
    """One run: a ``*_results.json`` or a folder of them (for each task the newest file wins)."""
    path = Path(path)
    files = _results_files(path)
    if not files:
        raise ResultsError(f"{path}: no *_results.json or results_*.json (run lmms-eval or lm-eval with --output_path {path})")
    tasks: dict[str, TaskResult] = {}
    groups: dict[str, list[str]] = {}
    model, config, calls = "", {}, []
    for rf in files:  # oldest first: newer files overwrite a task's entry
        try:
            data = json.loads(_read_regular(rf))
        except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as exc:
            raise ResultsError(f"{rf}: not an lmms-eval or lm-eval results JSON ({type(exc).__name__}: {exc})") from None
        _check_results(data, rf)
        harness = _harness(data, rf)
        config = data.get("config") or {}
        calls.append(config)
        if harness == LM_EVAL:  # lm-eval's model_name is the model itself (pretrained=/model=), config.model the wrapper
            model = str(data.get("model_name") or config.get("model") or model)
        else:
            model = str(config.get("model") or data.get("model_name") or model)
        n_samples = data.get("n-samples") or {}
        configs = data.get("configs") or {}
        for group, subtasks in (data.get("group_subtasks") or {}).items():
            if isinstance(subtasks, list) and subtasks:
                groups[group] = [str(t) for t in subtasks if isinstance(t, (str, int))]
        entries_of = dict(data["results"])
        if isinstance(data.get("groups"), dict):  # lm-eval 0.4 keeps groups in 'groups' (0.4.13 also in 'results')
            entries_of.update({g: e for g, e in data["groups"].items() if g not in entries_of and isinstance(e, dict)})
        for task, entries in entries_of.items():
            values, stderr = {}, {}
            for key, value in entries.items():
                if "," not in key:
                    continue
                name, _, _filter = key.partition(",")
                if name.endswith("_stderr") or "_stderr_" in name:
                    if name.endswith("_stderr") and isinstance(value, (int, float)) and not isinstance(value, bool):
                        stderr[name[: -len("_stderr")]] = float(value)
                    continue
                values[name] = value
            ns = n_samples.get(task) or {}
            n = ns.get("effective") if isinstance(ns, dict) else None
            n = n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
            if n is None and isinstance(entries.get("samples"), int) and not isinstance(entries["samples"], bool):
                n = entries["samples"]
            if n is None and harness == LM_EVAL and isinstance(entries.get("sample_len"), int):
                n = entries["sample_len"]  # an lm-eval group: the samples of its tasks
            sf = _samples_file(rf, task, harness)
            samples = None
            if sf:
                if harness == LM_EVAL:  # lm-eval's lines are normalised before the shape check
                    samples = [_from_lm_eval(line) for line in _lm_eval_lines(sf)]
                    for i, line in enumerate(samples, 1):
                        check_sample(line, f"{sf}:{i}")
                else:
                    samples = read_samples(sf)
            if n is None and samples is not None:
                n = len(samples)
            cfg = configs.get(task) if isinstance(configs.get(task), dict) else {}
            tasks[task] = TaskResult(task, values, stderr, n, samples, rf, sf, config=cfg, harness=harness)
    for group, members in groups.items():  # a group's n: the samples of its tasks (lmms-eval writes none)
        tr = tasks.get(group)
        leaves = leaves_of(groups, group)
        if tr is not None and tr.n is None and leaves and all(t in tasks and tasks[t].n is not None for t in leaves):
            tr.n = sum(tasks[t].n for t in leaves)
    if label is None:
        name = path.stem if path.is_file() else path.name
        label = f"{model} ({name})" if model else name
    return Run(label=label, path=path, model=model, tasks=tasks, config=config, configs=calls, groups=groups)


def leaves_of(groups: dict[str, list[str]], group: str) -> list[str]:
    """The tasks (not groups) under a group, each once."""
    out, todo, seen = [], list(groups.get(group, [])), {group}
    while todo:
        t = todo.pop(0)
        if t in seen:
            continue
        seen.add(t)
        if groups.get(t):
            todo = list(groups[t]) + todo
        else:
            out.append(t)
    return out


def _lm_eval_lines(sf: Path) -> list:
    if not is_regular(sf):
        raise ResultsError(f"{sf}: not a regular file (a FIFO, socket, device or dangling link); not read")
    return [line for _, line in iter_jsonl(sf, error=ResultsError)]


# ------------------------------------------------------------------------------------ lm-eval's files
def _lm_eval_samples_file(results_file: Path, task: str) -> Path | None:
    """``samples_<task>_<date>.jsonl`` beside ``results_<date>.json`` (or ``<name>_<date>.json`` when
    lm-eval's ``--output_path`` named a file), else the newest samples file of exactly that task
    (``samples_cwi_color_<date>`` must not match ``samples_cwi_color_count_<date>``)."""
    date = re.search(rf"_({LM_EVAL_DATE})\.json$", results_file.name)
    if date:
        exact = results_file.with_name(f"samples_{task}_{date.group(1)}.jsonl")
        if exact.exists() or exact.is_symlink():
            return exact
    same_task = re.compile(rf"samples_{re.escape(task)}_{LM_EVAL_DATE}\.jsonl")
    others = sorted((p for p in results_file.parent.glob(f"samples_{task}_*.jsonl") if same_task.fullmatch(p.name)),
                    key=lambda p: p.lstat().st_mtime)
    return others[-1] if others else None


def _prompt_text(arguments: Any) -> str | None:
    """The prompt of an lm-eval sample (``arguments.gen_args_0.arg_0``): plain text, or for chat
    models the text parts of the JSON message list lm-eval logs."""
    gen = arguments.get("gen_args_0") if isinstance(arguments, dict) else None
    arg = gen.get("arg_0") if isinstance(gen, dict) else None
    if isinstance(arg, list) and len(arg) == 1:
        arg = arg[0]
    if not isinstance(arg, str):
        return None
    try:
        messages = json.loads(arg)
    except ValueError:
        return arg
    if not isinstance(messages, list) or not all(isinstance(m, dict) and "content" in m for m in messages):
        return arg
    parts = []
    for m in messages:
        content = m["content"]  # checked above: every message is an object with content
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
    return "\n".join(parts)


def _from_lm_eval(line: dict) -> dict:
    """An lm-eval sample line with the fields lmms-eval's lines have, so the rest reads both alike:
    ``input`` (the prompt), and each per-sample metric value as an object (lm-eval may log a
    process_results dict as its Python ``str()``). lm-eval's own fields (``doc``, ``arguments``,
    ``resps``, ``filtered_resps``, ``doc_hash``, ...) stay as they are."""
    if not isinstance(line, dict):
        return line
    if "input" not in line:
        line["input"] = _prompt_text(line.get("arguments"))
    metrics = line.get("metrics")
    for metric in metrics if isinstance(metrics, list) else ():
        if not isinstance(metric, str):
            continue
        value = line.get(metric)
        if isinstance(value, str) and value.startswith("{"):
            try:
                parsed = ast.literal_eval(value)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(parsed, dict):
                line[metric] = parsed
    return line


# ------------------------------------------------------------------------------------ per-sample values
def sample_key(line: dict) -> str:
    """The identity of a logged sample across runs: the scorer's id, else lmms-eval's doc_id."""
    for v in line.values():
        if isinstance(v, dict) and v.get("id") is not None and "value" in v:
            return str(v["id"])
    return f"doc_id={line.get('doc_id')}"


def sample_values(samples: list[dict] | None, metric: str) -> dict[str, float] | None:
    """key -> value of ``metric`` for each sample it applies to (pending counts as 0), or None."""
    if not samples:
        return None
    out: dict[str, float] = {}
    for line in samples:
        item = line.get(metric)
        if isinstance(item, dict):
            if item.get("applicable") is False or "value" not in item:
                continue
            v = item.get("value")
            out[sample_key(line)] = 0.0 if v is None else float(v)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            out[sample_key(line)] = float(item)
        elif isinstance(item, bool):
            out[sample_key(line)] = float(item)
    return out or None



TIER_SUFFIX = re.compile(r"_(easy|medium|hard|expert)$")


def metric_values(tr: TaskResult, metric: str) -> dict[str, float] | None:
    """key -> value of ``metric`` over the samples its reported value is computed over: those it
    applies to, pending ones at 0 (they stay in the denominator), a per-tier metric's own tier only,
    a value None with status ok ('does not apply', GRADE C without consistency) left out."""
    if not tr.samples:
        return None
    tier = TIER_SUFFIX.search(metric)
    out: dict[str, float] = {}
    for line in tr.samples:
        item = line.get(metric)
        if isinstance(item, dict):
            if item.get("applicable") is False or "value" not in item:
                continue
            v = item.get("value")
            if v is None and item.get("status", "ok") == "ok":
                continue
            if tier and "tier" in item and item.get("tier") != tier.group(1):
                continue
            out[sample_key(line)] = 0.0 if v is None else float(v)
        elif isinstance(item, (int, float)):
            out[sample_key(line)] = float(item)
    return out or None


def metric_count(tr: TaskResult, metric: str) -> int | None:
    """How many samples a metric's value is computed over: the total of its counts (DoD), else the
    logged samples it applies to (pending ones count: they stay in the denominator; a value None
    with status ok is 'does not apply', e.g. GRADE C for a sample without consistency; a per-tier
    metric keeps its tier's samples), else the task's sample count."""
    c = counts_of(tr, metric)
    if c is not None:
        return c[1]
    if tr.samples:
        tier = TIER_SUFFIX.search(metric)
        n = 0
        for line in tr.samples:
            item = line.get(metric)
            if isinstance(item, dict):
                if item.get("applicable") is False or "value" not in item:
                    continue
                if item.get("value") is None and item.get("status", "ok") == "ok":
                    continue
                if tier and "tier" in item and item.get("tier") != tier.group(1):
                    continue
                n += 1
            elif isinstance(item, (int, float)):
                n += 1
        return n
    return tr.n


def _reported_counts(tr: TaskResult, metric: str) -> list[dict]:
    """The counts a task reports for ``metric``, as dicts with success / pending / total: the row its
    benchmark names (``counts_row``: DoD's ``dod_breakdown``, {metric: [success, pending, total]}), and
    as older runs wrote them, a ``<metric>_counts`` dict or a summary dict keyed by metric name
    ({"E": {"success": .., "total": ..}, ...})."""
    from lmms_plugins.utils.benchmarks import of_task

    out = []
    bench = of_task(tr.task)
    row = tr.values.get(bench.counts_row) if bench is not None and bench.counts_row else None
    c = row.get(metric) if isinstance(row, dict) else None
    if isinstance(c, list) and len(c) == 3 and all(isinstance(x, int) and not isinstance(x, bool) for x in c):
        out.append(dict(zip(("success", "pending", "total"), c)))
    out.append(tr.values.get(f"{metric}_counts"))
    out += [v.get(metric) for v in tr.values.values() if isinstance(v, dict)]
    return [c for c in out if isinstance(c, dict)]


def counts_of(tr: TaskResult, metric: str) -> tuple[int, int] | None:
    """(success, total) of a rate metric, where the task reports them (:func:`_reported_counts`)."""
    for c in _reported_counts(tr, metric):
        if isinstance(c.get("success"), (int, float)) and isinstance(c.get("total"), int):
            return int(c["success"]), c["total"]
    return None



def pending_of(tr: TaskResult, metric: str) -> tuple[int, int] | None:
    """(pending, total) of a metric: from the counts the task reports (DoD's ``dod_breakdown``, or an
    older run's ``<metric>_counts`` or summary dict), else from logged samples (value None =
    pending); None when unknown."""
    for c in _reported_counts(tr, metric):
        if isinstance(c.get("pending"), int) and isinstance(c.get("total"), int):
            return c["pending"], c["total"]
    if tr.samples:
        pending = total = 0
        for line in tr.samples:
            item = line.get(metric)
            if isinstance(item, dict) and item.get("applicable") is not False and "value" in item:
                total += 1
                pending += item.get("value") is None
        if total:
            return pending, total
    return None
