"""Small synthetic lmms-eval output folders, in the format lmms-eval 0.7.3 writes.

``<out>/<timestamp>_results.json`` with ``results[task]["<metric>,none"]`` (+ ``_stderr`` keys,
"N/A" for custom aggregations), ``config``, ``n-samples``; and with samples,
``<out>/<timestamp>_samples_<task>.jsonl``: one line per doc with ``doc_id``, ``target``,
``filtered_resps``, ``input_media`` and one per-sample dict per metric (utils/status.sample).
"""

from __future__ import annotations

import json
from pathlib import Path

from lmms_plugins.utils import status as st


def write_run(out: Path, results: dict[str, dict], samples: dict[str, list[dict]] | None = None, *,
              model: str = "replay", timestamp: str = "20260101_120000") -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    res = {}
    for task, metrics in results.items():
        entry = {"alias": task}
        for name, value in metrics.items():
            entry[f"{name},none"] = value
            entry[f"{name}_stderr,none"] = "N/A"
            entry[f"{name}_stderr_clt,none"] = "N/A"
        res[task] = entry
    n_samples = {t: {"original": len(v), "effective": len(v)} for t, v in (samples or {}).items()}
    data = {
        "results": res, "group_subtasks": {t: [] for t in results}, "configs": {}, "versions": {},
        "n-samples": n_samples, "higher_is_better": {},
        "config": {"model": model, "model_args": "outputs=run.jsonl", "batch_size": "1", "limit": None},
        "model_name": model, "lmms_eval_version": "0.7.3", "date": timestamp,
    }
    path = out / f"{timestamp}_results.json"
    path.write_text(json.dumps(data, indent=1))
    for task, lines in (samples or {}).items():
        (out / f"{timestamp}_samples_{task}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def sample_line(doc_id: int, metrics: dict[str, dict], *, output: str = "", media: list[str] | None = None,
                target: str = "", doc_hash: str = "0" * 64, prompt: str | None = None) -> dict:
    line = {"doc_id": doc_id, "target": target, "filtered_resps": output, "token_counts": [None],
            "doc_hash": doc_hash, "input_media": media or []}
    if prompt is not None:
        line["input"] = prompt
    line.update(metrics)
    return line


def cwi_run(out: Path, correct: list[bool], *, task: str = "cwi_alignment", model: str = "replay",
            unparsable: set[int] = frozenset(), timestamp: str = "20260101_120000", other_data: set[int] = frozenset()) -> Path:
    """A CwI task with one 0/1 accuracy per item (ids item-000 ...). Items in ``other_data`` come
    from another dataset: same id, another doc (its doc_hash and prompt differ)."""
    lines = []
    for i, ok in enumerate(correct):
        sid = f"item-{i:03d}"
        if i in unparsable:
            acc = st.sample(0.0, st.UNPARSABLE, "no <answer> span", sid, predicted=None, gold="3,-2", tier="easy")
        else:
            acc = st.sample(1.0 if ok else 0.0, st.OK, "within tolerance" if ok else "dx off by 5", sid,
                            predicted="3,-2" if ok else "8,-2", gold="3,-2", tier="easy")
        fail = st.sample(1.0 if i in unparsable else 0.0, acc["status"], "", sid)
        other = i in other_data
        lines.append(sample_line(i, {"accuracy": acc, "accuracy_easy": acc, "extraction_failure_rate": fail},
                                 output=f"<answer>{acc['predicted']}</answer>", doc_hash=f"{'other' if other else 'same'}-{i:03d}",
                                 prompt=f"Find the shift of pair {i}{' (another set)' if other else ''}."))
    acc_mean = sum(line["accuracy"]["value"] for line in lines) / len(lines)
    fail_mean = sum(line["extraction_failure_rate"]["value"] for line in lines) / len(lines)
    return write_run(out, {task: {"accuracy": acc_mean, "accuracy_easy": acc_mean, "extraction_failure_rate": fail_mean}},
                     {task: lines}, model=model, timestamp=timestamp)
