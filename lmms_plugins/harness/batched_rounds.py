"""Batched rounds for this package's multi-round tasks (``output_type: generate_until_agentic``).

lmms-eval 0.7.3's ``_run_generate_until_agentic`` (evaluator.py) runs one request at a time,
round after round: with an API model, 3,000 items x 3 rounds are 9,000 sequential calls. This
runner keeps lmms-eval's per-request logic (the same single-request ``Instance`` per round, the same
handling of ``doc_to_text``'s 5-tuple, the same final response and ``full`` trace), but runs many
requests together: the requests waiting for their next reply go to the model as one list
(``lm.generate_until(list)``, which API wrappers serve with their own concurrency), in chunks
(:func:`chunk_size`: 2 x the wrapper's concurrency), and the ``doc_to_text`` calls (where the
model's code is executed) run in a thread pool, overlapping the model calls of the next chunk.
At most 2 chunks of requests are under way at once (:func:`run_batched`): a round's images and
state are held by those only, so memory follows the concurrency, not the number of requests.

It is a fork of lmms-eval's function, so it is guarded by that function's source: :func:`install`
replaces ``evaluator._run_generate_until_agentic`` only when the SHA-256 of its source is
:data:`UPSTREAM_SHA256` (the 0.7.3 function this module follows line for line), else it warns and
lmms-eval's own runner stays; a test fails on any change upstream, so the fork is re-read then.
Only requests whose ``doc_to_text`` carries ``lmms_plugins_batched_rounds = True`` are batched;
every other agentic request goes to lmms-eval's own runner, unchanged.
``LMMS_PLUGINS_SEQUENTIAL_ROUNDS=1`` switches it off.

When: the harness package (lmms_plugins/harness/__init__.py) installs it right after
``lmms_eval.evaluator`` is imported (the ``.pth`` start-up hook arms it when ``lmms_eval`` is
imported, before the evaluator: the entry point alone runs while the evaluator is half-imported).

Results equal the sequential runner's whenever the model answers a request the same whether it
comes alone or in a list (API models; local models with batch-dependent padding may differ in
the last digits of their logits, as they do for any batched task).
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import os
import warnings
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from .guard import HarnessWarning

MARK = "lmms_plugins_batched_rounds"
SEQUENTIAL_ENV = "LMMS_PLUGINS_SEQUENTIAL_ROUNDS"
WORKERS_ENV = "LMMS_PLUGINS_ROUND_WORKERS"  # threads for one round's doc_to_text calls
CHUNK_ENV = "LMMS_PLUGINS_ROUND_CHUNK"  # requests per model call (0: every request in one call)
IN_FLIGHT_ENV = "LMMS_PLUGINS_ROUND_IN_FLIGHT"  # requests under way at once (default: 2 x the chunk)
#: SHA-256 of ``inspect.getsource`` of lmms-eval 0.7.3's ``evaluator._run_generate_until_agentic``
UPSTREAM_SHA256 = "a05b9b712f7b386d2bff4987063a6ca09cbefbd442c4e526798504f5664eb70c"
_PATCHED = "_lmms_plugins_patched"


class RoundsWarning(HarnessWarning):
    """lmms-eval's agentic runner is not the one this module forks; its own runner is used."""


def fingerprint(fn) -> str | None:
    """SHA-256 of ``fn``'s source (None when it cannot be read)."""
    try:
        return hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()
    except (OSError, TypeError):
        return None


def is_batched(req) -> bool:
    """The request belongs to a task whose doc_to_text asks for batched rounds."""
    try:
        fn = req.args[3]
    except (AttributeError, IndexError, TypeError):
        return False
    fn = getattr(fn, "func", fn)  # lmms-eval wraps doc_to_text in functools.partial
    return bool(getattr(fn, MARK, False))


def install(evaluator) -> bool:
    """Replace ``evaluator._run_generate_until_agentic`` by the batched runner (guarded)."""
    original = getattr(evaluator, "_run_generate_until_agentic", None)
    if original is None or getattr(original, _PATCHED, False):
        if original is None:
            warnings.warn("lmms-plugins: lmms-eval has no _run_generate_until_agentic; its multi-round tasks run "
                          "as lmms-eval runs them", RoundsWarning, stacklevel=2)
        return False
    missing = [n for n in ("Instance", "unwrap_generation_output") if not hasattr(evaluator, n)]
    if missing or fingerprint(original) != UPSTREAM_SHA256:
        warnings.warn(f"lmms-plugins: lmms-eval's agentic runner differs from the one this package forks "
                      f"(source fingerprint {fingerprint(original)}, missing {missing}); rounds run one request "
                      "at a time", RoundsWarning, stacklevel=2)
        return False

    def _run_generate_until_agentic(lm, requests, agentic_trace_mode="basic", response_cache=None):
        if os.environ.get(SEQUENTIAL_ENV, "") in ("1", "true", "yes"):
            return original(lm, requests, agentic_trace_mode=agentic_trace_mode, response_cache=response_cache)
        ours = [i for i, r in enumerate(requests) if is_batched(r)]
        if not ours:
            return original(lm, requests, agentic_trace_mode=agentic_trace_mode, response_cache=response_cache)
        out: list = [None] * len(requests)
        others = [i for i in range(len(requests)) if i not in set(ours)]
        if others:
            for i, r in zip(others, original(lm, [requests[i] for i in others], agentic_trace_mode=agentic_trace_mode,
                                             response_cache=response_cache)):
                out[i] = r
        done = run_batched(lm, [requests[i] for i in ours], agentic_trace_mode=agentic_trace_mode,
                           response_cache=response_cache, Instance=evaluator.Instance,
                           unwrap=evaluator.unwrap_generation_output)
        for i, r in zip(ours, done):
            out[i] = r
        return out

    setattr(_run_generate_until_agentic, _PATCHED, True)
    _run_generate_until_agentic.__wrapped__ = original
    evaluator._run_generate_until_agentic = _run_generate_until_agentic
    return True


@dataclass
class _Slot:
    """One request's loop variables, named as in lmms-eval's runner."""

    req: Any
    current_context: str
    base_generation_kwargs: dict
    current_doc_to_visual: Callable
    doc_to_text: Callable
    doc_id: int
    task_name: str
    split: str
    max_agentic_steps: int
    model_outputs: list = field(default_factory=list)
    previous_round_info: Any = None
    final_response: Any = ""
    full_round_trace: list = field(default_factory=list)
    round_idx: int = 0
    done: bool = False
    round_input_context: str = ""
    current_output: Any = None


def _slot(req) -> _Slot:
    current_context, generation_kwargs, doc_to_visual, doc_to_text, doc_id, task_name, split = req.args
    if not callable(doc_to_text):
        raise ValueError("generate_until_agentic requires callable doc_to_text")
    max_steps = int(generation_kwargs.get("max_agentic_steps", 12))
    base = copy.deepcopy(generation_kwargs)
    base.pop("max_agentic_steps", None)
    return _Slot(req, current_context, base, doc_to_visual, doc_to_text, doc_id, task_name, split, max_steps,
                 done=max_steps <= 0)


def _single_request(lm, s: _Slot, Instance):
    """The request lmms-eval's runner builds for one round (simple and chat models differ)."""
    if getattr(lm, "is_simple", False):
        args = (s.current_context, copy.deepcopy(s.base_generation_kwargs), s.current_doc_to_visual, s.doc_id,
                s.task_name, s.split)
    else:
        context, doc_to_visual = s.current_context, s.current_doc_to_visual

        def _agentic_doc_to_messages(_doc, _visual=doc_to_visual, _context=context):
            visuals = _visual(_doc)
            if visuals is None:
                visuals = []
            content = []
            for visual in visuals:
                if isinstance(visual, dict):
                    content.append({"type": "audio", "url": visual})
                elif isinstance(visual, str):
                    content.append({"type": "video", "url": visual})
                else:
                    content.append({"type": "image", "url": visual})
            content.append({"type": "text", "text": _context})
            return [{"role": "user", "content": content}]

        args = (s.current_context, _agentic_doc_to_messages, copy.deepcopy(s.base_generation_kwargs), s.doc_id,
                s.task_name, s.split)
    return Instance(request_type="generate_until", arguments=args, idx=0, metadata=s.req.metadata)


def _apply(s: _Slot, step_payload, agentic_trace_mode: str) -> None:
    """lmms-eval's handling of one doc_to_text result, for one request."""
    if isinstance(step_payload, tuple) and len(step_payload) == 5:
        visuals, next_context, terminal_signal, updated_outputs, next_round_info = step_payload
        if updated_outputs is not None:
            s.model_outputs = list(updated_outputs)
            if s.model_outputs:
                s.final_response = s.model_outputs[-1]
        s.previous_round_info = next_round_info
        if agentic_trace_mode == "full":
            record = {"round_idx": s.round_idx + 1, "round_input": s.round_input_context,
                      "model_output": s.current_output, "terminal": bool(terminal_signal)}
            if isinstance(next_round_info, dict):
                record["state"] = next_round_info.get("state")
                record["tool_result"] = next_round_info.get("last_tool_result")
                record["tool_calls"] = next_round_info.get("tool_calls")
                record["valid_tool_calls"] = next_round_info.get("valid_tool_calls")
                record["invalid_steps"] = next_round_info.get("invalid_steps")
            if next_context is not None:
                record["next_input"] = next_context
            s.full_round_trace.append(record)
        if terminal_signal:
            s.done = True
            return
        if next_context is not None:
            s.current_context = next_context
        if visuals is not None:
            def current_doc_to_visual(_doc, _visuals=visuals):
                return _visuals

            s.current_doc_to_visual = current_doc_to_visual
    elif isinstance(step_payload, str):
        s.current_context = step_payload
    else:
        s.done = True


def _finish(s: _Slot, agentic_trace_mode: str) -> str:
    """lmms-eval's final response of one request (its step-limit JSON, its ``full`` trace)."""
    final_response = s.final_response
    info = s.previous_round_info
    if info is not None and not (isinstance(final_response, str) and final_response.strip().startswith("{")):
        state = info.get("state", {}) if isinstance(info, dict) else {}
        valid = float(info.get("valid_tool_calls", info.get("tool_calls", 0))) if isinstance(info, dict) else 0.0
        invalid = float(info.get("invalid_steps", 0.0)) if isinstance(info, dict) else 0.0
        payload = {"success": False, "error": "max_agentic_steps_reached",
                   "tool_calls": float(info.get("tool_calls", 0)) if isinstance(info, dict) else 0.0,
                   "valid_tool_calls": valid, "invalid_steps": invalid, "state": state,
                   "last_model_output": final_response, "trace": s.model_outputs}
        if isinstance(state, dict):
            for key in ["cash", "days_elapsed", "inventory", "mobile_data_working"]:
                if key in state:
                    payload[key] = state[key]
        final_response = json.dumps(payload, ensure_ascii=False, default=repr)  # repr: a reply that is not text
    if agentic_trace_mode == "full":
        try:
            parsed = json.loads(final_response) if isinstance(final_response, str) else None
            if isinstance(parsed, dict):
                parsed["agentic_trace_mode"] = "full"
                parsed["agentic_rounds"] = s.full_round_trace
                final_response = json.dumps(parsed, ensure_ascii=False)
        except (TypeError, json.JSONDecodeError):
            pass
    return final_response


LOCAL_CHUNK = 32  # requests per call for a model without num_concurrent (unless its batch_size is larger)


def chunk_size(lm, n: int) -> int:
    """How many requests go to the model per call.

    ``LMMS_PLUGINS_ROUND_CHUNK`` sets it (0: every request in one call). By default, a wrapper
    that serves a list with ``num_concurrent`` parallel requests (lmms-eval's API wrappers) gets
    chunks of 2 x num_concurrent, so that the executions of one chunk overlap the model calls of
    the next (unless its concurrency is adaptive: then every request in one call); any other
    model gets chunks of its ``batch_size`` or 32, whichever is larger (its own batching decides
    within a call).
    """
    raw = os.environ.get(CHUNK_ENV, "").strip()
    if raw:
        k = int(raw)
        return max(1, n) if k <= 0 else k
    if getattr(lm, "adaptive_concurrency", False) is True:  # its concurrency grows: do not cap it
        return max(1, n)
    conc = getattr(lm, "num_concurrent", None)
    if isinstance(conc, int) and not isinstance(conc, bool) and conc > 0:
        return max(1, 2 * conc)
    batch = getattr(lm, "batch_size", None)
    batch = batch if isinstance(batch, int) and not isinstance(batch, bool) and batch > 0 else 0
    return max(1, min(n, max(LOCAL_CHUNK, batch)))


def run_batched(lm, requests: list, *, agentic_trace_mode: str = "basic", response_cache=None, Instance,
                unwrap, workers: int | None = None, chunk: int | None = None, in_flight: int | None = None) -> list:
    """Final responses of ``requests``, in order.

    At most ``in_flight`` requests (default 2 x the chunk) are under way at once: a request is
    admitted when one before it has finished, in request order. Only these hold a round's state
    and images, so memory follows the concurrency, not the number of requests. Requests waiting
    for the model go to it in calls of up to ``chunk`` (:func:`chunk_size`); a call is made as soon
    as a whole chunk is waiting, or when nothing else is running. The ``doc_to_text`` calls (the
    code executions) run in the thread pool meanwhile. Each request's rounds follow each other
    exactly as in lmms-eval's runner; only their interleaving with other requests differs.
    """
    slots = [_slot(r) for r in requests]
    workers = workers or int(os.environ.get(WORKERS_ENV, "") or min(16, (os.cpu_count() or 2) * 2))
    size = max(1, chunk or chunk_size(lm, len(slots)))
    limit = max(size, in_flight or int(os.environ.get(IN_FLIGHT_ENV, "") or 0) or 2 * size)
    results: list = [None] * len(slots)
    waiting = deque(i for i, s in enumerate(slots) if not _finished(s))
    active: list[int] = []  # admitted, not finished, in request order
    stepping: dict = {}  # future of a doc_to_text call -> request index

    def step(s: _Slot):
        return s.doc_to_text(lm.task_dict[s.task_name][s.split][s.doc_id], previous_output=s.model_outputs,
                             round_idx=s.round_idx + 1, previous_round_info=s.previous_round_info)

    busy = set()
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="lmms_plugins_round") as pool:
        while True:
            while waiting and len(active) < limit:
                active.append(waiting.popleft())
            ready = [i for i in active if i not in busy]
            if not ready and not stepping:
                break
            if ready and (len(ready) >= size or not stepping):
                part = ready[:size]
                batch = [_single_request(lm, slots[i], Instance) for i in part]
                for i in part:
                    slots[i].round_input_context = slots[i].current_context
                if response_cache is not None:
                    raw = response_cache.execute(lm, "generate_until", batch)
                else:
                    raw = lm.generate_until(batch)
                if len(raw) != len(batch):
                    raise RuntimeError(f"the model returned {len(raw)} outputs for {len(batch)} requests")
                del batch  # its requests hold the round's images
                for i, r in zip(part, raw):
                    s = slots[i]
                    s.current_output, _ = unwrap(r)
                    s.model_outputs.append(s.current_output)
                    s.final_response = s.current_output
                    busy.add(i)
                    stepping[pool.submit(step, s)] = i
                continue
            done, _ = wait(list(stepping), return_when=FIRST_COMPLETED)
            for future in sorted(done, key=stepping.__getitem__):
                i = stepping.pop(future)
                s = slots[i]
                _apply(s, future.result(), agentic_trace_mode)
                s.round_idx += 1
                busy.discard(i)
                if _finished(s):  # its final response now; its images and state go
                    active.remove(i)
                    results[i] = _finish(s, agentic_trace_mode)
                    slots[i] = None
    return [r if s is None else _finish(s, agentic_trace_mode) for r, s in zip(results, slots)]


def _finished(s: _Slot) -> bool:
    return s.done or s.round_idx >= s.max_agentic_steps
