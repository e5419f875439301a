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


# ------------------------------------------------------------------------------------ lm-eval 0.4.x output
LM_EVAL_DATE = "2026-12-01T17-31-33.996099"


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lm_eval_sample(doc_id: int, doc: dict, response: str, metrics: dict[str, dict], *, prompt: str) -> dict:
    """One line of lm-eval 0.4.13's samples_<task>_<date>.jsonl (evaluator.py and
    EvaluationTracker.save_results_samples): the doc itself, the request's arguments (a chat
    model's prompt is the JSON message list), resps / filtered_resps, the hashes, then the metrics."""
    chat = json.dumps([{"role": "user", "content": "<image>" + prompt}], ensure_ascii=False)
    gen = {"until": [], "max_gen_toks": 8192, "temperature": 0.0, "do_sample": False}
    line = {"doc_id": doc_id, "doc": doc, "target": str(doc["answer"]),
            "arguments": {"gen_args_0": {"arg_0": [chat], "arg_1": gen, "arg_2": {"visual": [doc["image"]]}}},
            "resps": [[response]], "filtered_resps": [response], "filter": "none", "metrics": list(metrics),
            "doc_hash": _sha256(json.dumps(doc, indent=2, ensure_ascii=False)),
            "prompt_hash": _sha256(json.dumps([chat])), "target_hash": _sha256(str(doc["answer"]))}
    line.update(metrics)
    return line


def lm_eval_cwi_run(out: Path, tasks: dict[str, list[bool]], *, group: str | None = None, model: str = "fake",
                    date: str = LM_EVAL_DATE, data: str = "set-a", doc_image: str | None = None,
                    str_metrics: bool = False, version: float = 2.0) -> Path:
    """What ``lm_eval --model local-chat-completions --model_args model=<model> --output_path <out>
    --log_samples`` writes for CwI tasks (layout and keys as lm-eval 0.4.13 wrote them in a real run
    of this package's lm-eval tasks): ``<out>/<model>/results_<date>.json`` and one
    ``samples_<task>_<date>.jsonl`` per task. Items have ids ``<task>_test_000`` ..., gold "3,-2".
    ``data`` goes into each doc (another value = another dataset, same ids); ``doc_image`` replaces
    the image's content hash in the doc (e.g. an object's str() with a memory address);
    ``str_metrics`` logs each metric dict as its Python str()."""
    folder = Path(out) / model
    folder.mkdir(parents=True, exist_ok=True)
    results, n_samples, configs, all_acc = {}, {}, {}, []
    for task, correct in tasks.items():
        lines = []
        for i, ok in enumerate(correct):
            sid = f"{task}_test_{i:03d}"
            doc = {"id": sid, "image": doc_image or _sha256(f"{data}/{sid}"), "image_2": None,
                   "prompt": f"Find the shift of pair {i} ({data}).", "answer": "3,-2", "difficulty": "easy", "meta": "{}"}
            acc = st.sample(1.0 if ok else 0.0, st.OK, "exact match" if ok else "dx off by 5", sid,
                            predicted="3,-2" if ok else "8,-2", gold="3,-2", tier="easy")
            fail = st.sample(0.0, st.OK, "", sid)
            metrics = {"accuracy_easy": acc, "accuracy": acc, "generation_failure_rate": fail, "extraction_failure_rate": fail}
            if str_metrics:
                metrics = {k: str(dict(v)) for k, v in metrics.items()}
            lines.append(lm_eval_sample(i, doc, f"<answer>{acc['predicted']}</answer>\u2028done", metrics, prompt=doc["prompt"]))
        acc_mean = sum(correct) / len(correct)
        all_acc += correct
        results[task] = {"name": task, "alias": task, "sample_len": len(correct),
                         "accuracy_easy,none": acc_mean, "accuracy_easy_stderr,none": "N/A",
                         "accuracy,none": acc_mean, "accuracy_stderr,none": 0.25,
                         "generation_failure_rate,none": 0.0, "generation_failure_rate_stderr,none": 0.0,
                         "extraction_failure_rate,none": 0.0, "extraction_failure_rate_stderr,none": 0.0}
        n_samples[task] = {"original": len(correct), "effective": len(correct)}
        configs[task] = {"task": task, "dataset_path": "ytz009/image_pot_bench", "dataset_name": task[len("cwi_"):],
                         "test_split": "test", "output_type": "generate_until", "num_fewshot": 0,
                         "metadata": {"version": version, "lmms_plugins_benchmark": "cwi", "cwi_task": task[len("cwi_"):]}}
        # lm-eval writes JSON with ensure_ascii=False: the U+2028 in the response stays raw
        (folder / f"samples_{task}_{date}.jsonl").write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    groups = {}
    if group:
        mean = sum(all_acc) / len(all_acc)
        groups[group] = {"alias": group, "name": group, "sample_len": len(all_acc), "accuracy,none": mean,
                         "accuracy_stderr,none": 0.1, "sample_count": {"accuracy,none": len(all_acc)}}
        results[group] = dict(groups[group])
    data_out = {
        "results": results, "groups": groups, "group_subtasks": {**({group: list(tasks)} if group else {}), **{t: [] for t in tasks}},
        "configs": configs, "versions": {t: version for t in tasks}, "n-shot": {t: 0 for t in tasks},
        "higher_is_better": {t: {"accuracy": True, "extraction_failure_rate": False} for t in tasks}, "n-samples": n_samples,
        "config": {"model": "local-chat-completions", "model_args": {"model": model, "base_url": "http://127.0.0.1:1/v1/chat/completions"},
                   "batch_size": 1, "limit": None, "bootstrap_iters": 100000, "gen_kwargs": {}},
        "git_hash": None, "date": 1796146259.7, "lm_eval_version": "0.4.13", "task_hashes": {}, "model_source": "local-chat-completions",
        "model_name": model, "model_name_sanitized": model, "system_instruction": None, "chat_template": None,
        "total_evaluation_time_seconds": "1.5",
    }
    path = folder / f"results_{date}.json"
    path.write_text(json.dumps(data_out, indent=2, ensure_ascii=False), encoding="utf-8")
    return path
