"""``lmms-plugins compare RESULTS...``: your runs next to the published numbers.

Reads lmms-eval output (a results folder or a ``*_results.json``; the ``*_samples_<task>.jsonl``
beside it when the run used ``--log_samples``), maps each task's metrics to the benchmarks'
published metrics (:mod:`lmms_plugins.baselines.mapping`), and writes, per benchmark, a table with
the community rows (rank among them, deltas), the protocol differences, confidence intervals where
the results or samples allow one, a PNG bar chart and Markdown/CSV copies. With two or more runs,
each later run is tested against the first on the samples they share (McNemar exact test for 0/1
metrics, paired bootstrap otherwise).

Use from Python: ``compare([path1, path2], out_dir=...)`` returns a :class:`Comparison`.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import re
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmms_plugins.baselines import Baseline, lookup
from lmms_plugins.baselines.mapping import PROTOCOL_NOTES, MetricMap, benchmark_of, map_metric, settings_of

BENCH_ORDER = ("dod", "abacus", "grade", "cwi")
BENCH_NAMES = {"dod": "Draw-or-Decline", "abacus": "ABACUS", "grade": "GRADE", "cwi": "CwI-Bench"}
N_BOOT = 2000
SEED = 0


class ResultsError(Exception):
    """A path given to compare/report holds no readable lmms-eval results."""


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


@dataclass
class Run:
    label: str
    path: Path
    model: str
    tasks: dict[str, TaskResult]
    config: dict = field(default_factory=dict)  # of the newest results file
    configs: list = field(default_factory=list)  # of every results file, oldest first (one per lmms-eval call)


def _results_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("*_results.json"), key=lambda p: (p.stat().st_mtime, p.name))
    raise ResultsError(f"{path}: no such file or folder")


def _samples_file(results_file: Path, task: str) -> Path | None:
    prefix = results_file.name[: -len("_results.json")]
    exact = results_file.with_name(f"{prefix}_samples_{task}.jsonl")
    if exact.exists():
        return exact
    others = sorted(results_file.parent.glob(f"*_samples_{task}.jsonl"), key=lambda p: p.stat().st_mtime)
    return others[-1] if others else None


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ResultsError(f"{path}:{i}: not JSON ({exc.msg})") from None
    return rows


def load_run(path: str | Path, label: str | None = None) -> Run:
    """One run: a ``*_results.json`` or a folder of them (for each task the newest file wins)."""
    path = Path(path)
    files = _results_files(path)
    if not files:
        raise ResultsError(f"{path}: no *_results.json (run lmms-eval with --output_path {path})")
    tasks: dict[str, TaskResult] = {}
    model, config, calls = "", {}, []
    for rf in files:  # oldest first: newer files overwrite a task's entry
        try:
            data = json.loads(rf.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ResultsError(f"{rf}: not an lmms-eval results JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
            raise ResultsError(f"{rf}: no 'results' object; is this an lmms-eval *_results.json?")
        config = data.get("config") or {}
        calls.append(config)
        model = str(config.get("model") or data.get("model_name") or model)
        n_samples = data.get("n-samples") or {}
        configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
        for task, entries in data["results"].items():
            values, stderr = {}, {}
            for key, value in entries.items():
                if "," not in key:
                    continue
                name, _, _filter = key.partition(",")
                if name.endswith("_stderr") or "_stderr_" in name:
                    if name.endswith("_stderr") and isinstance(value, (int, float)):
                        stderr[name[: -len("_stderr")]] = float(value)
                    continue
                values[name] = value
            ns = n_samples.get(task) or {}
            n = ns.get("effective") if isinstance(ns, dict) else None
            if n is None and isinstance(entries.get("samples"), int):
                n = entries["samples"]
            sf = _samples_file(rf, task)
            samples = _read_jsonl(sf) if sf else None
            if n is None and samples is not None:
                n = len(samples)
            cfg = configs.get(task) if isinstance(configs.get(task), dict) else {}
            tasks[task] = TaskResult(task, values, stderr, n, samples, rf, sf, config=cfg)
    if label is None:
        name = path.stem if path.is_file() else path.name
        label = f"{model} ({name})" if model else name
    return Run(label=label, path=path, model=model, tasks=tasks, config=config, configs=calls)


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


# ------------------------------------------------------------------------------------ same inputs?
@dataclass(frozen=True)
class SampleInputs:
    """What a logged sample's model was given, comparable across runs."""

    doc_hash: str | None  # lmms-eval's sha256 of the whole doc (image columns included)
    visible: dict  # the parts of it the samples file shows: prompt, target, input images


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


NULL_DOC_HASH = _sha(json.dumps(None))  # lmms-eval 0.7.3's own requests: Instance.doc is None


def _contentless_hashes(task: str, doc_id: Any, splits: list[str]) -> set[str]:
    """The doc_hash values that name no content: a request without doc (plain lmms-eval), and this
    package's request docs before they carried a fingerprint (task, split and index only)."""
    return {NULL_DOC_HASH} | {_sha(json.dumps(f"RequestDoc(task={task!r}, split={s!r}, doc_id={doc_id})", indent=2,
                                              ensure_ascii=False)) for s in splits}


def sample_inputs(line: dict, task: str = "", splits: list[str] | tuple = ()) -> SampleInputs:
    """The inputs of one logged sample. lmms-eval 0.7.3 writes ``doc_hash``: sha256 of the
    request's doc as JSON text; for this package's tasks that text holds a fingerprint of the
    doc's content (lmms_plugins/doc_fingerprint.py: images by their pixels or file bytes, folder
    paths left out), so the same id in another dataset hashes differently and the same data in
    another folder alike. A hash that names no content is not used (None)."""
    visible = {"prompt": line.get("input"), "target": line.get("target"), "input images": line.get("input_media")}
    h = line.get("doc_hash")
    if not (isinstance(h, str) and h) or h in _contentless_hashes(task, line.get("doc_id"), list(splits)):
        h = None
    return SampleInputs(h, visible)


def inputs_of(tr: TaskResult) -> dict[str, SampleInputs]:
    """sample key -> its inputs, for a task's logged samples (computed once per task)."""
    if tr.inputs is None:
        splits = [s for s in (tr.config.get("test_split"), tr.config.get("validation_split"), "test", "validation", "train") if s]
        splits = list(dict.fromkeys(splits))
        tr.inputs = {sample_key(line): sample_inputs(line, tr.task, splits) for line in tr.samples or []}
    return tr.inputs


@dataclass(frozen=True)
class Pairing:
    keys: list  # the sample keys both runs scored on the same inputs
    shared_ids: int  # keys both runs scored
    dropped: int  # shared ids whose inputs differ
    differing: tuple  # what differs, most frequent first ("prompt", "input images", ...)
    unchecked: int  # shared ids kept without a check (no doc_hash, or one that names no content)


HIDDEN_DIFFERENCE = "doc fields the samples file does not show (image content, other fields)"


def pair_samples(ta: TaskResult, tb: TaskResult, va: dict, vb: dict) -> Pairing:
    """The samples two runs can be compared on: the same id and the same ``doc_hash``."""
    ia, ib = inputs_of(ta), inputs_of(tb)
    keys, dropped, unchecked, what = [], 0, 0, Counter()
    shared = sorted(set(va) & set(vb))
    for k in shared:
        a, b = ia.get(k), ib.get(k)
        if a is None or b is None or a.doc_hash is None or b.doc_hash is None:
            unchecked += 1
            keys.append(k)
        elif a.doc_hash == b.doc_hash:
            keys.append(k)
        else:
            dropped += 1
            diff = [f for f in a.visible if a.visible[f] != b.visible[f]]
            what.update(diff or [HIDDEN_DIFFERENCE])
    return Pairing(keys, len(shared), dropped, tuple(f for f, _ in what.most_common()), unchecked)


TIER_SUFFIX = re.compile(r"_(easy|medium|hard|expert)$")


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


def _is_sample_mean(values: dict[str, float] | None, reported: Any) -> bool:
    """True when the reported number is the plain mean of the per-sample values (so a bootstrap or a
    paired test over samples is about the reported number)."""
    if not values or not isinstance(reported, (int, float)) or isinstance(reported, bool):
        return False
    mean = sum(values.values()) / len(values)
    return math.isclose(mean, float(reported), rel_tol=1e-6, abs_tol=1e-9)


# ------------------------------------------------------------------------------------ intervals
@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float
    method: str


def wilson(success: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    if total <= 0:
        return (math.nan, math.nan)
    p = success / total
    den = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / den
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def counts_of(tr: TaskResult, metric: str) -> tuple[int, int] | None:
    """(success, total) of a rate metric, where the task reports them: a ``<metric>_counts`` dict, or
    a summary dict keyed by metric name ({"E": {"success": .., "total": ..}, ...})."""
    candidates = [tr.values.get(f"{metric}_counts")]
    candidates += [v.get(metric) for v in tr.values.values() if isinstance(v, dict)]
    for c in candidates:
        if isinstance(c, dict) and isinstance(c.get("success"), (int, float)) and isinstance(c.get("total"), int):
            return int(c["success"]), c["total"]
    return None


def interval_of(tr: TaskResult, metric: str, mm: MetricMap) -> Interval | None:
    """A 95 % interval of the reported value, in the result's unit, from what the run carries."""
    # 1. a bootstrap interval the task wrote itself (GRADE's breakdown)
    if mm.ci_name:
        for v in tr.values.values():
            if not isinstance(v, dict):
                continue
            scope = v["overall"] if isinstance(v.get("overall"), dict) else v  # GRADE nests it, ABACUS does not
            table = scope.get("ci95")
            ci = table.get(mm.ci_name) if isinstance(table, dict) else None
            if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
                return Interval(float(ci[0]), float(ci[1]), "task's bootstrap")
    # 2. success / total counts (DoD's <metric>_counts): Wilson score interval
    c = counts_of(tr, metric)
    if c is not None and c[1] > 0:
        lo, hi = wilson(*c)
        return Interval(lo, hi, "Wilson on counts")
    # 3. percentile bootstrap over the logged samples, when the value is their mean
    vals = sample_values(tr.samples, metric)
    if _is_sample_mean(vals, tr.values.get(metric)) and len(vals) > 1:
        from lmms_plugins.utils.stats import bootstrap_ci

        lo, hi = bootstrap_ci(list(vals.values()), n_resamples=N_BOOT, seed=SEED)
        return Interval(lo, hi, "bootstrap over samples")
    # 4. lmms-eval's standard error
    se = tr.stderr.get(metric)
    value = tr.values.get(metric)
    if se is not None and isinstance(value, (int, float)):
        return Interval(value - 1.96 * se, value + 1.96 * se, "±1.96 SE (lmms-eval)")
    return None


# ------------------------------------------------------------------------------------ paired tests
@dataclass(frozen=True)
class PairedTest:
    task: str
    metric: str
    label: str
    run_a: str
    run_b: str
    n_shared: int
    mean_a: float | None  # display unit
    mean_b: float | None
    diff: float | None  # b - a, display unit
    ci: tuple[float, float] | None  # of diff, display unit
    test: str
    p_value: float | None
    discordant: tuple[int, int] | None = None  # (a wins, b wins) for McNemar
    note: str = ""
    dropped: int = 0  # samples with the same id in both runs but different inputs (not tested)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: binomial test of the discordant pairs against 1/2."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def _binary(values: list[float]) -> float | None:
    """The success value when every value is 0 or one same positive value, else None."""
    positive = {v for v in values if v != 0.0}
    if len(positive) > 1:
        return None
    return positive.pop() if positive else 1.0


def paired_test(task: str, metric: str, mm: MetricMap, a: Run, b: Run) -> PairedTest:
    ta, tb = a.tasks[task], b.tasks[task]
    va, vb = sample_values(ta.samples, metric), sample_values(tb.samples, metric)
    base = dict(task=task, metric=metric, label=mm.label, run_a=a.label, run_b=b.label)
    if ta.samples is None or tb.samples is None:
        missing = " and ".join(r.label for r, t in ((a, ta), (b, tb)) if t.samples is None)
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note=f"no samples file for {missing} (a group has none; for a task, run lmms-eval with --log_samples)")
    if va is None or vb is None:
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="the metric has no per-sample values (it is computed over pairs or groups)")
    if not (_is_sample_mean(va, ta.values.get(metric)) and _is_sample_mean(vb, tb.values.get(metric))):
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="the reported value is not a mean over samples; no per-sample test")
    pairing = pair_samples(ta, tb, va, vb)
    keys = pairing.keys
    notes = []
    if pairing.shared_ids < max(len(va), len(vb)):
        notes.append(f"{len(va)} vs {len(vb)} scored samples, {pairing.shared_ids} with the same id")
    if pairing.dropped:
        notes.append(f"{pairing.dropped} of {pairing.shared_ids} samples with the same id dropped: their inputs differ "
                     f"(doc_hash; differing: {', '.join(pairing.differing)}): the runs used different data")
    if pairing.unchecked:
        notes.append(f"{pairing.unchecked} samples paired by id only (their doc_hash names no content: "
                     f"a run logged by plain lmms-eval or before this package fingerprinted its docs)")
    if not keys:
        why = "the runs share no sample" if not pairing.shared_ids else "the runs share no sample with the same inputs"
        return PairedTest(**base, n_shared=0, mean_a=None, mean_b=None, diff=None, ci=None, test="none", p_value=None,
                          note="; ".join([why] + notes), dropped=pairing.dropped)
    import numpy as np

    xa = np.array([va[k] for k in keys], dtype=float)
    xb = np.array([vb[k] for k in keys], dtype=float)
    d = xb - xa
    rng = np.random.default_rng(SEED)
    boot = d[rng.integers(0, len(d), size=(N_BOOT, len(d)))].mean(axis=1)
    lo, hi = (float(q) for q in np.quantile(boot, [0.025, 0.975]))
    show = mm.to_display
    if notes:
        notes.append(f"tested on the {len(keys)} paired")
    note = "; ".join(notes)
    one = _binary(list(xa) + list(xb))
    if one is not None:
        a_only = int(np.sum((xa == one) & (xb == 0)))
        b_only = int(np.sum((xb == one) & (xa == 0)))
        test, p, disc = "McNemar exact", mcnemar_exact(a_only, b_only), (a_only, b_only)
    else:
        # two-sided percentile-bootstrap p-value of "mean difference = 0"
        p = min(1.0, 2.0 * min(float(np.mean(boot <= 0)), float(np.mean(boot >= 0))))
        p = max(p, 1.0 / N_BOOT) if np.any(d != 0) else 1.0
        test, disc = f"paired bootstrap ({N_BOOT})", None
    return PairedTest(**base, n_shared=len(keys), mean_a=show(float(xa.mean())), mean_b=show(float(xb.mean())),
                      diff=show(float(d.mean())), ci=(show(lo), show(hi)), test=test, p_value=p, discordant=disc, note=note,
                      dropped=pairing.dropped)


# ------------------------------------------------------------------------------------ the comparison
@dataclass(frozen=True)
class Entry:
    """One value of one run, in display units."""

    run: str
    value: float
    ci: tuple[float, float] | None
    ci_method: str
    n: int | None
    rank: int | None  # among the community rows of the block (1 = best); None: not ranked
    deltas: dict[str, float]  # community model -> this value minus theirs
    pending: tuple[int, int] | None = None  # (pending, total) where the run reports it (DoD)
    unranked: str = ""  # why a value with published rows is not ranked

    def pending_text(self, unit: str, higher_is_better: bool = True) -> str:
        """'pending 900/1050 (85.7 %), ceiling 14.3' (the best value the run could show once the
        pending samples, kept in the denominator at 0, were decided)."""
        if self.pending is None:
            return "pending not reported"
        p, t = self.pending
        share = p / t if t else 0.0
        best = (t - p) / t if t else 0.0
        bound = _fmt(100.0 * best if unit == "%" else best, unit)
        if higher_is_better:
            return f"pending {p}/{t} ({100 * share:.1f} %), ceiling {bound}"
        return f"pending {p}/{t} ({100 * share:.1f} %), up to {_fmt(100.0 * share if unit == '%' else share, unit)} more once decided"


@dataclass
class Block:
    benchmark: str
    task: str
    metric: str  # the task's metric name
    mm: MetricMap
    settings: tuple[str, ...]
    community: list[Baseline]
    entries: list[Entry]
    notes: list[str] = field(default_factory=list)

    @property
    def unit_suffix(self) -> str:
        return "%" if self.mm.display_unit == "percent" else ""


@dataclass
class Comparison:
    runs: list[Run]
    blocks: list[Block]
    paired: list[PairedTest]
    protocol: dict[str, str]
    files: dict[str, Path] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return render_text(self)

    @property
    def markdown(self) -> str:
        return render_markdown(self)


def _fmt(v: float | None, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.1f}" if unit == "%" else f"{v:.3f}"


def _rank(value: float, published: list[float], mm: MetricMap) -> int:
    """1 + the number of published values strictly better than ``value``."""
    return 1 + sum(1 for v in published if (v > value if mm.higher_is_better else v < value))


def _community_value(r: Baseline, mm: MetricMap) -> float:
    """A published value in the block's display unit."""
    return r.value / r.scale * (100.0 if mm.display_unit == "percent" else 1.0)


PENDING_RANK_LIMIT = 0.05  # a value with more of its samples pending is shown but not ranked


def pending_of(tr: TaskResult, metric: str) -> tuple[int, int] | None:
    """(pending, total) of a metric: from the counts the task reports (DoD's ``<metric>_counts``
    or summary dict), else from logged samples (value None = pending); None when unknown."""
    candidates = [tr.values.get(f"{metric}_counts")]
    candidates += [v.get(metric) for v in tr.values.values() if isinstance(v, dict)]
    for c in candidates:
        if isinstance(c, dict) and isinstance(c.get("pending"), int) and isinstance(c.get("total"), int):
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


def _metric_n(tr: TaskResult, metric: str) -> int | None:
    """How many samples a metric is computed over (DoD's E counts only feasible requests)."""
    vals = sample_values(tr.samples, metric)
    if vals:
        return len(vals)
    c = counts_of(tr, metric)
    return c[1] if c else tr.n


def task_values(task: str, tr: TaskResult) -> dict[str, float]:
    """A task's numeric metrics, plus a headline number a benchmark keeps only inside its summary dict:
    ABACUS groups report Score (a product of pooled means, not a mean) only in ``abacus_leaderboard``."""
    out = {m: float(v) for m, v in tr.values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if benchmark_of(task) == "abacus" and not any((map_metric(task, m) or MetricMap("", "", "", "")).community_metric == "Score" for m in out):
        for v in tr.values.values():
            if isinstance(v, dict) and isinstance(v.get("score"), (int, float)) and not isinstance(v.get("score"), bool):
                out["abacus_score"] = float(v["score"])
                break
    return out


def build(runs: list[Run]) -> Comparison:
    blocks: list[Block] = []
    warnings: list[str] = []
    protocol: dict[str, str] = {}
    tasks = sorted({t for r in runs for t in r.tasks},
                   key=lambda t: (BENCH_ORDER.index(benchmark_of(t)) if benchmark_of(t) in BENCH_ORDER else 99, t))
    for task in tasks:
        bench = benchmark_of(task)
        if bench is None:
            warnings.append(f"{task}: not a task of this package; skipped")
            continue
        settings = settings_of(task)
        metrics = []
        for r in runs:
            tr = r.tasks.get(task)
            for m in (task_values(task, tr) if tr else {}):
                if m not in metrics:
                    metrics.append(m)
        for metric in metrics:
            mm = map_metric(task, metric)
            if mm is None:
                continue
            protocol[bench] = PROTOCOL_NOTES.get(bench, "")
            community = lookup(bench, mm.community_metric, settings) if settings else []
            scored = [c for c in community if c.kind == "score"]
            entries, notes = [], []
            for r in runs:
                tr = r.tasks.get(task)
                raw = task_values(task, tr).get(metric) if tr else None
                if raw is None:
                    continue
                if math.isnan(raw):
                    notes.append(f"{r.label}: no value (NaN: no sample the metric applies to)")
                    continue
                if mm.result_unit == "fraction" and raw > 1.0 + 1e-9:
                    notes.append(f"{r.label}: value {raw} is above 1 for a 0-1 metric; shown as it is")
                value = mm.to_display(raw)
                iv = interval_of(tr, metric, mm)
                ci = (mm.to_display(iv.lo), mm.to_display(iv.hi)) if iv else None
                deltas = {c.model: value - _community_value(c, mm) for c in community}
                rank = _rank(value, [_community_value(c, mm) for c in scored], mm) if scored else None
                n = _metric_n(tr, metric)
                pending = pending_of(tr, metric) if bench == "dod" else None
                unranked = ""
                if pending and pending[1] and pending[0] / pending[1] > PENDING_RANK_LIMIT and rank is not None:
                    rank = None  # a rate whose undecided samples count as failures is not a result to rank
                    unranked = (f"{r.label}: not ranked: {pending[0]} of {pending[1]} samples are pending "
                                f"({100 * pending[0] / pending[1]:.1f} % > {100 * PENDING_RANK_LIMIT:.0f} %)")
                    notes.append(unranked)
                entries.append(Entry(r.label, value, ci, iv.method if iv else "", n, rank, deltas, pending, unranked))
                ns = {c.n for c in scored if c.n}
                if scored and n and ns and n < min(ns):
                    notes.append(f"{r.label}: {n} samples against {min(ns)} in the paper: a subset, the gap may be noise or selection")
            if not entries:
                continue
            if any(c.setting == "unstated" for c in community):
                notes.append("rows marked (setting?) do not state their prompt setting")
            if mm.note:
                notes.append(mm.note)
            if bench == "dod":
                modes = {}
                for r in runs:
                    for v in (r.tasks[task].values.values() if task in r.tasks else ()):
                        if isinstance(v, dict) and isinstance(v.get("refusal_mode"), str):
                            # which text decided (DoD README, "Which text decides a refusal"); runs
                            # made before the key existed read the whole output
                            modes[r.label] = v["refusal_mode"] + {
                                "reasoning": " on the reasoning (official)",
                                "all": " on the reasoning and final answer"}.get(v.get("refusal_text"), "")
                if modes:
                    protocol[bench] = PROTOCOL_NOTES["dod"] + " Refusal detection in these runs: " + ", ".join(
                        f"{label}: {mode}" for label, mode in modes.items()) + "."
            blocks.append(Block(bench, task, metric, mm, settings, community, entries, notes))
    paired: list[PairedTest] = []
    for b in runs[1:]:
        for blk in blocks:
            if not blk.mm.headline:
                continue
            if blk.task in runs[0].tasks and blk.task in b.tasks:
                paired.append(paired_test(blk.task, blk.metric, blk.mm, runs[0], b))
    return Comparison(runs=runs, blocks=blocks, paired=paired, protocol=protocol, warnings=warnings)


# ------------------------------------------------------------------------------------ rendering
def _ci_text(e: Entry, unit: str) -> str:
    return f"[{_fmt(e.ci[0], unit)}, {_fmt(e.ci[1], unit)}]" if e.ci else ""


def _block_rows(blk: Block) -> list[dict]:
    """Rows of one block, best first: community rows and the runs' entries."""
    unit = blk.unit_suffix
    rows = []
    for c in blk.community:
        v = _community_value(c, blk.mm)
        tag = " (ceiling)" if c.kind == "upper_bound" else (" (setting?)" if c.setting == "unstated" else "")
        rows.append(dict(kind=c.kind, who=c.model + tag, value=v, ci="", source=c.source, n=c.n,
                         deltas={e.run: e.value - v for e in blk.entries}))
    for e in blk.entries:
        source = f"your run; CI: {e.ci_method}" if e.ci_method else "your run"
        if blk.benchmark == "dod":
            source += "; " + e.pending_text(unit, blk.mm.higher_is_better)
        rows.append(dict(kind="yours", who="▶ " + e.run, value=e.value, ci=_ci_text(e, unit),
                         source=source, n=e.n, deltas={}, rank=e.rank))
    sign = -1 if blk.mm.higher_is_better else 1
    rows.sort(key=lambda r: (sign * r["value"], r["kind"] != "yours"))
    return rows


def _title(blk: Block) -> str:
    direction = "higher is better" if blk.mm.higher_is_better else "lower is better"
    setting = f", setting {blk.settings[0]}" if blk.settings else ""
    return f"{blk.task} · {blk.mm.label} ({'%' if blk.unit_suffix else '0-1'}, {direction}{setting})"


def _runs_in(cmp: Comparison, blocks: list[Block]) -> list[str]:
    """Labels of the runs with a value in any of ``blocks``, in run order (the columns of a compact table)."""
    have = {e.run for b in blocks for e in b.entries}
    return [r.label for r in cmp.runs if r.label in have]


COLUMN_WIDTH = 22  # a run's column header in the printed tables


def column_names(labels: list[str], width: int = COLUMN_WIDTH) -> dict[str, str]:
    """A unique header of at most ``width`` characters per run: the label itself when every label
    fits, else ``#i`` and the label's start (the 'Runs:' line spells each run out with its #i).
    Cutting labels alone made two runs 'replay (grade_...' read the same."""
    if all(len(label) <= width for label in labels):
        return {label: label for label in labels}
    out = {}
    for i, label in enumerate(labels, 1):
        tag = f"#{i} "
        room = width - len(tag)
        out[label] = tag + (label if len(label) <= room else label[: room - 1] + "…")
    return out


def render_text(cmp: Comparison) -> str:
    out = io.StringIO()
    w = out.write
    names = column_names([r.label for r in cmp.runs])
    tagged = any(names[r.label] != r.label for r in cmp.runs)
    w("Runs: " + "; ".join(f"{f'#{i} ' if tagged else ''}{r.label} = {r.path}" for i, r in enumerate(cmp.runs, 1)) + "\n")
    for bench in BENCH_ORDER:
        blks = [b for b in cmp.blocks if b.benchmark == bench]
        if not blks:
            continue
        w(f"\n=== {BENCH_NAMES[bench]} ===\n")
        if cmp.protocol.get(bench):
            w(f"Protocol differences: {cmp.protocol[bench]}\n")
        with_rows = [b for b in blks if b.community]
        for blk in with_rows:
            unit = blk.unit_suffix
            w(f"\n{_title(blk)}\n")
            runs = [e.run for e in blk.entries]
            heads = [f"Δ {names.get(r, r)}" for r in runs]
            rows = _block_rows(blk)
            who_w = max([34] + [len(row["who"]) for row in rows])
            w(f"  {'rank':>5}  {'model':<{who_w}} {'value':>7} {'95% CI':<17}" + "".join(f" {h:>{max(9, len(h))}}" for h in heads) + "  source\n")
            n_sc = sum(1 for c in blk.community if c.kind == "score")
            for row in rows:
                rank = f"{row['rank']}/{n_sc + 1}" if row["kind"] == "yours" and row.get("rank") else ""
                deltas = "".join(f" {('%+.1f' if unit else '%+.3f') % row['deltas'][r] if r in row['deltas'] else '':>{max(9, len(h))}}"
                                 for r, h in zip(runs, heads))
                w(f"  {rank:>5}  {row['who']:<{who_w}} {_fmt(row['value'], unit):>7} {row['ci']:<17}{deltas}  {row['source']}\n")
            for c in blk.community:
                if c.kind == "upper_bound":
                    for e in blk.entries:
                        above = e.value > _community_value(c, blk.mm)
                        w(f"  {e.run}: {'above' if above else 'within'} the published ceiling {_fmt(_community_value(c, blk.mm), unit)} ({c.notes})\n")
            for note in dict.fromkeys(blk.notes):
                w(f"  note: {note}\n")
        rest = [b for b in blks if not b.community and b.mm.headline]
        if rest:
            w("\nNo published numbers for these metrics; your runs:\n")
            runs = _runs_in(cmp, rest)
            mw = max([26] + [len(b.mm.label) for b in rest])
            w(f"  {'task':<28} {'metric':<{mw}}" + "".join(f" {names.get(r, r):>30}" for r in runs) + "\n")
            for blk in rest:
                unit = blk.unit_suffix
                cells = []
                for r in runs:
                    e = next((e for e in blk.entries if e.run == r), None)
                    cells.append(f"{_fmt(e.value, unit)} {_ci_text(e, unit)}".strip() if e else "-")
                w(f"  {blk.task:<28} {blk.mm.label:<{mw}}" + "".join(f" {c:>30}" for c in cells) + "\n")
                if bench == "dod":
                    for e in blk.entries:
                        w(f"  {'':<28} {'':<{mw}} {e.run}: {e.pending_text(unit, blk.mm.higher_is_better)}\n")
    if cmp.paired:
        w("\n=== Paired tests on shared samples (second run minus first) ===\n")
        for p in cmp.paired:
            unit = "%" if map_metric(p.task, p.metric).display_unit == "percent" else ""
            if p.test == "none":
                w(f"  {p.task} · {p.label}: {p.note}\n")
                continue
            disc = f", discordant {p.discordant[0]} vs {p.discordant[1]}" if p.discordant else ""
            w(f"  {p.task} · {p.label}: {p.run_b} {_fmt(p.mean_b, unit)} vs {p.run_a} {_fmt(p.mean_a, unit)}: "
              f"Δ {('%+.1f' if unit else '%+.3f') % p.diff} (95% CI [{_fmt(p.ci[0], unit)}, {_fmt(p.ci[1], unit)}]), "
              f"{p.test} p = {p.p_value:.3g}, n = {p.n_shared}{disc}{'; ' + p.note if p.note else ''}\n")
    for warn in cmp.warnings:
        w(f"\nwarning: {warn}\n")
    if cmp.files:
        w("\nWrote: " + ", ".join(str(p) for p in cmp.files.values()) + "\n")
    return out.getvalue()


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(cmp: Comparison) -> str:
    lines = ["# Comparison with published results", ""]
    lines += [f"- **{_md_escape(r.label)}**: `{r.path}`" for r in cmp.runs]
    for bench in BENCH_ORDER:
        blks = [b for b in cmp.blocks if b.benchmark == bench and b.mm.headline]
        if not blks:
            continue
        lines += ["", f"## {BENCH_NAMES[bench]}", ""]
        if cmp.protocol.get(bench):
            lines += [f"> Protocol differences: {cmp.protocol[bench]}", ""]
        if "png_" + bench in cmp.files:
            lines += [f"![{bench} chart]({cmp.files['png_' + bench].name})", ""]
        for blk in [b for b in blks if b.community]:
            unit = blk.unit_suffix
            runs = [e.run for e in blk.entries]
            lines += [f"### {_md_escape(_title(blk))}", ""]
            lines.append("| rank | model | value | 95% CI | " + " | ".join(f"Δ {_md_escape(r)}" for r in runs) + " | source |")
            lines.append("|---:|---|---:|---|" + "---:|" * len(runs) + "---|")
            n_sc = sum(1 for c in blk.community if c.kind == "score")
            for row in _block_rows(blk):
                rank = f"{row['rank']}/{n_sc + 1}" if row["kind"] == "yours" and row.get("rank") else ""
                who = f"**{_md_escape(row['who'])}**" if row["kind"] == "yours" else _md_escape(row["who"])
                deltas = " | ".join((('%+.1f' if unit else '%+.3f') % row["deltas"][r]) if r in row["deltas"] else "" for r in runs)
                lines.append(f"| {rank or ''} | {who} | {_fmt(row['value'], unit)} | {row['ci']} | {deltas} | {_md_escape(row['source'])} |")
            for note in dict.fromkeys(blk.notes):
                lines.append(f"\n_note: {_md_escape(note)}_")
            lines.append("")
        rest = [b for b in blks if not b.community]
        if rest:
            runs = _runs_in(cmp, rest)
            lines += ["### No published numbers for these metrics", "",
                      "| task | metric | " + " | ".join(_md_escape(r) for r in runs) + " |", "|---|---|" + "---:|" * len(runs)]
            for blk in rest:
                cells = []
                for r in runs:
                    e = next((e for e in blk.entries if e.run == r), None)
                    cell = f"{_fmt(e.value, blk.unit_suffix)} {_ci_text(e, blk.unit_suffix)}".strip() if e else ""
                    if e and bench == "dod":
                        cell += f" ({e.pending_text(blk.unit_suffix, blk.mm.higher_is_better)})"
                    cells.append(cell)
                lines.append(f"| {blk.task} | {_md_escape(blk.mm.label)} | " + " | ".join(cells) + " |")
            lines.append("")
    if cmp.paired:
        lines += ["## Paired tests (second run minus first, shared samples)", "",
                  "| task | metric | A | B | Δ (B−A) | 95% CI | test | p | n | note |", "|---|---|---:|---:|---:|---|---|---:|---:|---|"]
        for p in cmp.paired:
            unit = "%" if map_metric(p.task, p.metric).display_unit == "percent" else ""
            if p.test == "none":
                lines.append(f"| {p.task} | {_md_escape(p.label)} | | | | | none | | | {_md_escape(p.note)} |")
                continue
            lines.append(f"| {p.task} | {_md_escape(p.label)} | {_fmt(p.mean_a, unit)} | {_fmt(p.mean_b, unit)} | "
                         f"{('%+.1f' if unit else '%+.3f') % p.diff} | [{_fmt(p.ci[0], unit)}, {_fmt(p.ci[1], unit)}] | {p.test} | "
                         f"{p.p_value:.3g} | {p.n_shared} | {_md_escape(p.note)} |")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ["benchmark", "task", "setting", "metric", "community_metric", "unit", "higher_is_better", "row", "model",
               "value", "ci_lo", "ci_hi", "ci_method", "rank", "n", "pending", "pending_total", "delta_vs", "delta", "source",
               "protocol", "notes"]


def csv_rows(cmp: Comparison) -> list[dict]:
    rows = []
    for blk in cmp.blocks:
        common = dict(benchmark=blk.benchmark, task=blk.task, setting=blk.settings[0] if blk.settings else "",
                      metric=blk.metric, community_metric=blk.mm.community_metric, unit=blk.mm.display_unit,
                      higher_is_better=blk.mm.higher_is_better)
        for e in blk.entries:
            rows.append({**common, "row": "yours", "model": e.run, "value": e.value, "ci_lo": e.ci[0] if e.ci else "",
                         "ci_hi": e.ci[1] if e.ci else "", "ci_method": e.ci_method, "rank": e.rank or "", "n": e.n or "",
                         "pending": e.pending[0] if e.pending else "", "pending_total": e.pending[1] if e.pending else "",
                         "protocol": "this package", "notes": "; ".join(dict.fromkeys(blk.notes))})
        for c in blk.community:
            for e in blk.entries or [None]:
                rows.append({**common, "row": c.kind, "model": c.model, "value": _community_value(c, blk.mm), "n": c.n or "",
                             "delta_vs": e.run if e else "", "delta": (e.value - _community_value(c, blk.mm)) if e else "",
                             "source": c.source, "protocol": c.protocol, "notes": c.notes})
    for p in cmp.paired:
        rows.append(dict(benchmark=benchmark_of(p.task), task=p.task, metric=p.metric, row="paired_test",
                         model=f"{p.run_b} - {p.run_a}", value=p.diff if p.diff is not None else "",
                         ci_lo=p.ci[0] if p.ci else "", ci_hi=p.ci[1] if p.ci else "", ci_method=p.test,
                         n=p.n_shared, notes=(f"p={p.p_value:.4g}; " if p.p_value is not None else "") + p.note))
    return rows


def write_csv(cmp: Comparison, path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in csv_rows(cmp):
            writer.writerow({k: row.get(k, "") for k in CSV_COLUMNS})
    return path


# ------------------------------------------------------------------------------------ chart
YOURS = ["#d9480f", "#1971c2", "#2f9e44", "#9c36b5"]
COMMUNITY = "#adb5bd"


def write_chart(cmp: Comparison, bench: str, path: Path) -> Path | None:
    """One PNG per benchmark: a horizontal bar panel per metric, your runs coloured, intervals drawn."""
    fig = chart_figure(cmp, bench)
    if fig is None:
        return None
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def chart_figure(cmp: Comparison, bench: str):
    """The matplotlib figure of ``write_chart`` (None when the benchmark has no headline metric)."""
    blks = [b for b in cmp.blocks if b.benchmark == bench and b.mm.headline]
    if not blks:
        return None
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    colours = {r.label: YOURS[i % len(YOURS)] for i, r in enumerate(cmp.runs)}
    if not any(b.community for b in blks):
        return _runs_only_chart(cmp, bench, blks, colours, plt)
    blks = [b for b in blks if b.community]
    ncols = min(3, len(blks))
    nrows = math.ceil(len(blks) / ncols)
    # a row's height follows its tallest panel, counting the lines of wrapped names
    heights = [max(sum(len(_wrap(r["who"])) for r in _block_rows(b)) for b in blks[i * ncols:(i + 1) * ncols])
               for i in range(nrows)]
    # constrained layout keeps the suptitle, tick labels and panel titles apart (tight_layout let
    # the title overlap the top panels)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.6 * ncols, 0.9 + sum(0.22 * h + 0.9 for h in heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights}, layout="constrained")
    for ax in axes.flat[len(blks):]:
        ax.axis("off")
    for ax, blk in zip(axes.flat, blks):
        rows = [r for r in _block_rows(blk) if r["kind"] != "upper_bound"][::-1]
        ys = list(range(len(rows)))
        names, vals, cols = [], [], []
        for y, r in zip(ys, rows):
            yours = r["kind"] == "yours"
            run = r["who"][2:] if yours else None
            names.append("\n".join(_wrap(r["who"])))
            vals.append(r["value"])
            cols.append(colours.get(run, YOURS[0]) if yours else COMMUNITY)
            e = next((e for e in blk.entries if e.run == run), None) if yours else None
            if e is not None and e.ci:  # intervals only where the run carries one
                ax.errorbar([r["value"]], [y], xerr=[[max(0.0, r["value"] - e.ci[0])], [max(0.0, e.ci[1] - r["value"])]],
                            fmt="none", ecolor="black", elinewidth=1, capsize=3, zorder=3)
        ax.barh(ys, vals, color=cols)
        ax.set_yticks(ys, names, fontsize=8)
        for tick, r in zip(ax.get_yticklabels(), rows):
            if r["kind"] == "yours":
                tick.set_fontweight("bold")
        for c in blk.community:
            if c.kind == "upper_bound":
                ax.axvline(_community_value(c, blk.mm), color="black", linestyle="--", linewidth=1, label="published ceiling")
                ax.legend(fontsize=7, loc="lower right")
        ax.set_xlim(0, 100 if blk.mm.display_unit == "percent" else 1.0)
        ax.set_title("\n".join(textwrap.wrap(f"{blk.task} · {blk.mm.label}", 48)), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle("\n".join(textwrap.wrap(f"{BENCH_NAMES[bench]}: your runs (coloured) and published results (grey); "
                                         "bars show 95% CIs where known", int(16 * 5.6 * ncols / 1.4))), fontsize=10)
    return fig


def _wrap(name: str, width: int = 26) -> list[str]:
    """A chart label on at most three lines, whole words where possible (names are not cut short)."""
    lines = textwrap.wrap(name, width, break_long_words=True) or [""]
    return lines if len(lines) <= 3 else lines[:2] + [textwrap.shorten(" ".join(lines[2:]), width, placeholder="…")]


def _runs_only_chart(cmp: Comparison, bench: str, blks: list[Block], colours: dict, plt):
    """No published numbers (CwI): one panel, a row per task, a bar per run, for each task's first
    higher-is-better metric (accuracy)."""
    chosen: dict[str, Block] = {}
    for b in blks:
        if b.mm.higher_is_better and b.task not in chosen:
            chosen[b.task] = b
    tasks = list(chosen)[::-1]
    runs = _runs_in(cmp, list(chosen.values()))
    height = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.28 * len(tasks) * max(1, len(runs))), layout="constrained")
    for j, run in enumerate(runs):
        ys, vals, lo, hi = [], [], [], []
        for i, task in enumerate(tasks):
            e = next((e for e in chosen[task].entries if e.run == run), None)
            if e is None:
                continue
            ys.append(i + (j - (len(runs) - 1) / 2) * height)
            vals.append(e.value)
            lo.append(max(0.0, e.value - e.ci[0]) if e.ci else 0.0)
            hi.append(max(0.0, e.ci[1] - e.value) if e.ci else 0.0)
        ax.barh(ys, vals, height=height, color=colours[run], label=run)
        ax.errorbar(vals, ys, xerr=[lo, hi], fmt="none", ecolor="black", elinewidth=1, capsize=2)
    ax.set_yticks(range(len(tasks)), [f"{t} · {chosen[t].mm.label}" for t in tasks], fontsize=8)
    unit = chosen[tasks[0]].mm.display_unit if tasks else "fraction"
    ax.set_xlim(0, 100 if unit == "percent" else 1.0)
    # the legend (full run names) below the panel: inside it, it covered the bars that reach 100 %
    fig.legend(loc="outside lower center", ncols=min(2, max(1, len(runs))), fontsize=8)
    ax.set_title(f"{BENCH_NAMES[bench]}: your runs with 95% CIs (no published numbers)", fontsize=10)
    return fig


# ------------------------------------------------------------------------------------ entry points
def compare(paths: list[str | Path], *, labels: list[str] | None = None, out_dir: str | Path | None = None,
            chart: bool = True) -> Comparison:
    """Load the runs, build the comparison, and (with ``out_dir``) write Markdown, CSV and PNG files."""
    labels = list(labels or [])
    runs = [load_run(p, labels[i] if i < len(labels) else None) for i, p in enumerate(paths)]
    seen: dict[str, int] = {}
    for r in runs:  # labels must be unique: they key the columns and the paired tests
        if r.label in seen:
            seen[r.label] += 1
            r.label = f"{r.label} #{seen[r.label]}"
        else:
            seen[r.label] = 1
    cmp = build(runs)
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        if chart:
            for bench in BENCH_ORDER:
                png = write_chart(cmp, bench, out / f"compare_{bench}.png")
                if png:
                    cmp.files["png_" + bench] = png
        cmp.files["csv"] = write_csv(cmp, out / "compare.csv")
        md = out / "compare.md"
        md.write_text(render_markdown(cmp), encoding="utf-8")
        cmp.files["markdown"] = md
    return cmp


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lmms-plugins compare",
        description="Compare lmms-eval runs of this package's tasks with the published numbers "
                    "(and with each other: paired tests on shared samples).")
    p.add_argument("results", nargs="+", help="lmms-eval output folders or *_results.json files (the first is the reference run)")
    p.add_argument("--label", action="append", default=[], help="a name for each run, in order (default: model and folder)")
    p.add_argument("--out", default="lmms-plugins-compare", help="folder for compare.md, compare.csv and the PNG charts")
    p.add_argument("--no-chart", action="store_true", help="do not draw the PNG charts (no matplotlib needed)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        cmp = compare(args.results, labels=args.label, out_dir=args.out, chart=not args.no_chart)
    except ResultsError as exc:
        print(f"lmms-plugins compare: {exc}", file=sys.stderr)
        return 2
    if not cmp.blocks:
        print("lmms-plugins compare: the results hold no metric of this package's tasks "
              f"({', '.join(sorted({t for r in cmp.runs for t in r.tasks})) or 'no task'})", file=sys.stderr)
        return 1
    print(cmp.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
