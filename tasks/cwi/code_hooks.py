"""lmms-eval hooks of the ``cwi_code_<task>`` tasks: CwI with code execution, in lmms-eval's
agentic loop (``output_type: generate_until_agentic``).

lmms-eval calls :func:`doc_to_text` once for the first turn and then after every reply with
``previous_output`` (the replies so far), ``round_idx`` and ``previous_round_info`` (our state);
it returns ``(visuals, next_context, terminal, outputs, round_info)``. The round protocol itself is
in code_rounds.py; the wording in code_prompt.jinja and code_feedback.jinja. When the loop ends
the last output is a JSON object ``{"text": <final reply>, "cwi_code": <trace>}``, which
lmms-eval logs as the sample's response and hands to :func:`process_results`. The final reply,
without its code blocks (:func:`scored_text`), is scored exactly as ``cwi_<task>`` scores its
single reply (hooks.process_results, same rule, bound by the same task class, task.py).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from lmms_plugins.utils import aggregation, status

from . import hooks
from .code_rounds import (
    END_ANSWER,
    END_GENERATION_FAILED,
    END_MAX_ROUNDS,
    END_NO_ACTION,
    IMAGE_FILES,
    LIBRARIES,
    LoopState,
    execution_from_result,
    extract_code,
    generation_failed,
    has_answer,
    reply_text,
    summary,
    without_code,
)

LOOP_METRICS = ("rounds_used", "executions", "execution_errors", "timeouts", "answered_without_code")
# accuracy metrics first (as cwi_<task>), the loop's after; every one always has a value
METRICS = hooks.METRICS[:-1] + LOOP_METRICS + hooks.METRICS[-1:]

DEFAULTS = {
    "max_rounds": 8,
    "exec_wall_s": 30.0,
    "exec_memory_mb": 2048,
    "max_output_chars": 4000,  # of stdout and of stderr shown to the model per round
    "max_images_back": 4,  # images the code saved that are attached to the next turn
    "max_image_pixels": 4096 * 4096,  # of one saved image, read from its header before decoding
    "max_pixels_back": 2048 * 2048,  # of all images attached per round (larger ones are scaled down)
    "code_prompt_template_file": "code_prompt.jinja",
    "code_feedback_template_file": "code_feedback.jinja",
}


def settings(kwargs: Mapping | None) -> dict:
    out = dict(DEFAULTS)
    out.update({k: v for k, v in (kwargs or {}).items() if k in DEFAULTS and v is not None})
    for k in ("prompt_template", "prompt_template_file"):  # the question's own template, as cwi_<task>
        if (kwargs or {}).get(k):
            out[k] = kwargs[k]
    return out


def _render(file_name: str, **values) -> str:
    path = file_name if os.path.isabs(file_name) else os.path.join(hooks._HERE, file_name)
    return hooks._template(hooks._template_file(path)).render(**values).strip()


def input_files(doc: Mapping) -> dict[str, bytes]:
    """The item's images as PNG files, named as the prompt names them."""
    out = {}
    for name, im in zip(IMAGE_FILES, hooks.doc_to_visual(doc)):
        buf = io.BytesIO()
        im.save(buf, format="PNG")
        out[name] = buf.getvalue()
    return out


def first_turn(doc: Mapping, cfg: Mapping) -> str:
    # the question as cwi_<task> asks it (prompt.jinja, or the prompt_template(_file) the YAML sets)
    question = hooks.doc_to_text(doc, {k: cfg[k] for k in ("prompt_template", "prompt_template_file") if cfg.get(k)})
    memory = cfg["exec_memory_mb"] if _limits_field("memory_mb") else None
    return _render(cfg["code_prompt_template_file"], prompt=question, files=list(IMAGE_FILES), libraries=list(LIBRARIES),
                   wall_s=float(cfg["exec_wall_s"]), memory_mb=memory, max_rounds=int(cfg["max_rounds"]))


def _limits_field(name: str) -> bool:
    import dataclasses

    from lmms_plugins.utils.sandbox import Limits

    return name in {f.name for f in dataclasses.fields(Limits)} if dataclasses.is_dataclass(Limits) else hasattr(Limits(), name)


def run_code(code: str, files: Mapping[str, bytes], cfg: Mapping):
    """Run ``code`` in the sandbox; a failure of the sandbox itself becomes status ``sandbox_error``."""
    from lmms_plugins.utils.sandbox import Limits, run_python

    limits = {"wall_s": float(cfg["exec_wall_s"])}
    if _limits_field("memory_mb"):
        limits["memory_mb"] = int(cfg["exec_memory_mb"])
    if _limits_field("max_output_chars"):  # the sandbox cuts (and says so); code_rounds.cut is then a no-op
        limits["max_output_chars"] = int(cfg["max_output_chars"])
    try:
        return run_python(code, files=dict(files), limits=Limits(**limits))
    except Exception as exc:  # noqa: BLE001 - the item records it; the run goes on
        from types import SimpleNamespace

        status.log.warning("cwi_code: the sandbox failed: %s: %s", type(exc).__name__, exc)
        return SimpleNamespace(status="sandbox_error", exit_code=None, stdout="", stderr="", stdout_truncated=False,
                               files={}, wall_s=0.0, reason=f"{type(exc).__name__}: {exc}")


def _final(replies: list, state: LoopState, ended: str, text: str, why: str = "") -> str:
    """The loop's last output: the final reply (scored without its code blocks), and the trace
    with every reply. ``why``: the last reply was not text (``text`` is then a failure marker)."""
    state.ended = ended
    from lmms_plugins.utils.sandbox import chosen

    # the provider that ran the code ("bwrap"; "unconfined" only when the user set it)
    trace = {**state.to_dict(), "replies": [_logged(r) for r in replies], "sandbox": chosen()}
    if why:
        trace["reply_error"] = why
    # "images": [] keeps the object in the unified {"text", "images"} shape (model_output.py)
    return json.dumps({"text": text, "images": [], "cwi_code": trace}, ensure_ascii=False, default=str)


def _logged(reply: Any) -> str:
    text, why = reply_text(reply)
    return f"[not text: {why}]" if why else text


def doc_to_text(doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None, previous_output: list | None = None,
                round_idx: int | None = None, previous_round_info: Mapping | None = None, **_: Any):
    """First turn (``round_idx`` None): the prompt. Later: run the reply's code, or end the loop."""
    cfg = settings(lmms_eval_specific_kwargs)
    if round_idx is None:
        from lmms_plugins.utils.sandbox import require

        require()  # no confinement here (and no explicit unconfined): stop before the first request
        return first_turn(doc, cfg)
    info = dict(previous_round_info or {})
    state = LoopState.from_dict(info["state"]) if isinstance(info.get("state"), Mapping) else LoopState(
        prompt=first_turn(doc, cfg), max_rounds=int(cfg["max_rounds"]))
    replies = list(previous_output) if isinstance(previous_output, (list, tuple)) else (
        [] if previous_output is None else [previous_output])
    reply, not_text = reply_text(replies[-1] if replies else "")
    state.rounds = len(replies)

    def end(how: str):
        if not_text:  # the wrappers' own marker: scored generation_failed, with what came back
            out = _final(replies, state, how, f"[GENERATION_FAILED] {not_text}", not_text)
        else:
            out = _final(replies, state, how, reply)
        info["state"] = state.to_dict()
        return None, None, True, replies[:-1] + [out], info

    if not_text or generation_failed(reply):
        return end(END_GENERATION_FAILED)
    if has_answer(reply):
        return end(END_ANSWER)
    code = extract_code(reply)
    if code is None:
        return end(END_NO_ACTION)
    if state.rounds >= state.max_rounds:
        return end(END_MAX_ROUNDS)

    files = input_files(doc)
    res = run_code(code, files, cfg)
    ex, images = execution_from_result(state.rounds, code, res, files, max_chars=int(cfg["max_output_chars"]),
                                       max_images=int(cfg["max_images_back"]), max_pixels=int(cfg["max_image_pixels"]),
                                       max_pixels_back=int(cfg["max_pixels_back"]))
    state.executions.append(asdict(ex))
    info["state"] = state.to_dict()
    info["tool_calls"] = len(state.executions)  # lmms-eval's own trace reads these two keys
    info["last_tool_result"] = {k: v for k, v in asdict(ex).items() if k not in ("code", "images")}
    visuals = hooks.doc_to_visual(doc) + [im for _, im in images]
    return visuals, next_turn(state, replies, n_inputs=len(files), cfg=cfg), False, None, info


def next_turn(state: LoopState, replies: list, *, n_inputs: int, cfg: Mapping) -> str:
    """The whole conversation so far as one text (lmms-eval sends each round as one user turn)."""
    by_round = {int(e["round"]): e for e in state.executions}
    last = max(by_round) if by_round else None
    turns = [
        {"round": i, "reply": _logged(r), "execution": by_round[i], "attached": i == last}
        for i, r in enumerate(replies, start=1) if i in by_round
    ]
    return _render(cfg["code_feedback_template_file"], first_turn=state.prompt, turns=turns, n_inputs=n_inputs,
                   next_round=len(replies) + 1, max_rounds=state.max_rounds)


# ---------------------------------------------------------------------------- scoring


def read_response(raw: Any) -> tuple[str, dict | None]:
    """(final reply, trace) from what the loop logged. Accepts our JSON, lmms-eval's own
    ``max_agentic_steps_reached`` JSON (its step limit cut the loop first), or plain text."""
    if isinstance(raw, list):
        raw = raw[0] if raw else ""
    if isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("cwi_code"), dict):
            text = obj.get("text")
            return (text if isinstance(text, str) else ""), obj["cwi_code"]
        if isinstance(obj, dict) and obj.get("error") == "max_agentic_steps_reached":
            trace = obj.get("state") if isinstance(obj.get("state"), dict) else None
            if trace is not None:
                trace = {**trace, "ended": "max_agentic_steps"}
            return str(obj.get("last_model_output") or ""), trace
    text, why = reply_text(raw)
    return (f"[GENERATION_FAILED] {why}" if why else text), None


ONLY_CODE = "(the final reply held only code, nothing outside its code blocks)"


def scored_text(reply: str) -> str:
    """What is read as the answer: the final reply without its code blocks, so that an
    ``<answer>`` the code spells (a string, a comment) is never the one scored; the loop ended on
    the reply's ``<answer>`` outside code. A wrapper's failure marker is kept as it is."""
    if generation_failed(reply):
        return reply
    outside = without_code(reply)
    return outside if outside.strip() else ONLY_CODE


@status.never_raises(metrics=METRICS)
def process_results(doc: Mapping, results: list, rule: Any = None, **_: Any) -> dict:
    reply, trace = read_response(results[0] if results else "")
    out = hooks.process_results(doc, [scored_text(reply)], rule=rule)  # a failure marker: generation_failed there
    sid = doc.get("id")
    trace = trace or {}
    ended = trace.get("ended") or ("unknown" if not trace else None)
    counts = summary(list(trace.get("executions") or []))
    rounds = int(trace.get("rounds") or (1 if reply else 0))
    extra = {"ended": ended, "tier": hooks._tier(doc), "sandbox": trace.get("sandbox")}
    # an item whose generation failed says so in its loop counts too: a mean over no generated item is NaN
    loop = status.GENERATION_FAILED if out["accuracy"]["status"] == status.GENERATION_FAILED else status.OK
    out["rounds_used"] = status.sample(rounds, loop, "", sid, **extra)
    out["executions"] = status.sample(counts["executions"], loop, "", sid)
    out["execution_errors"] = status.sample(counts["execution_errors"], loop, "", sid)
    out["timeouts"] = status.sample(counts["timeouts"], loop, "", sid)
    answered = ended == END_ANSWER
    out["answered_without_code"] = status.sample(1.0 if answered and counts["executions"] == 0 else 0.0, loop, "", sid)
    if counts["sandbox_errors"]:
        status.log.warning("cwi_code item %s: %d execution(s) failed inside the sandbox", sid, counts["sandbox_errors"])
    if trace.get("sandbox") == "unconfined" and counts["executions"]:
        for record in out.values():  # counted and shown as unconfined (utils/run_summary.py)
            if isinstance(record, dict):
                record["unconfined"] = True
    return out


# per item: replies, executions, executions that did not end with status ok, executions that hit
# the wall-clock limit; share of items answered (with <answer>) without running any code
# (named aggregate_<metric>, utils/aggregation.py)
aggregate_rounds_used = aggregation.mean("aggregate_rounds_used", "cwi_code rounds_used")
aggregate_executions = aggregation.mean("aggregate_executions", "cwi_code executions")
aggregate_execution_errors = aggregation.mean("aggregate_execution_errors", "cwi_code execution_errors")
aggregate_timeouts = aggregation.mean("aggregate_timeouts", "cwi_code timeouts")
aggregate_answered_without_code = aggregation.mean("aggregate_answered_without_code", "cwi_code answered_without_code")

# the batched runner (lmms_plugins/harness/batched_rounds.py) runs the rounds of every request of a task
# whose doc_to_text carries this mark together; others go through lmms-eval's own runner
doc_to_text.lmms_plugins_batched_rounds = True
