"""Recognise a failed generation, so that it is never scored as the model's answer.

lmms-eval 0.7.3's wrappers do not raise when a request fails; they answer with text instead:

* ``[LMMS_EVAL_REQUEST_FAILED after N retries] <error>``: ``openai`` / ``async_openai`` (chat and
  simple) and ``gemini`` after their retries, e.g. a dead server or an 8k-context vLLM that rejects
  a ``max_new_tokens`` of 16384 with HTTP 400;
* ``[GENERATION_FAILED] <error>``: the generation API and world-model wrappers (generation_api,
  diffusers_wm_base, cosmos_wm, magi1_wm, wan2_1_t2i);
* ``[ERROR] <what>``: the same wrappers for a request they could not build;
* ``""``: qwen_image_edit, gpt4v, qwen_vl_api, gpt4o_audio when a request fails.

``[SAFETY_BLOCKED:...]`` (gemini) is *not* a failure here: the provider declined, which is the
model side's answer (a DoD refusal for another reason than infeasibility).

The same markers are recognised inside the unified image-model form ``{"text", "images"}``.
:func:`detect` is pure and never raises; :func:`warn_once` prints the one end-of-run warning of
a task from its aggregated samples.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass
from typing import Any, Iterable

from lmms_plugins.utils.status import GENERATION_FAILED

#: Prefixes of lmms-eval 0.7.3's failure answers (matched at the start of the stripped text).
MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[GENERATION_FAILED]", "[ERROR]")
_REASON_CHARS = 300


@dataclass(frozen=True)
class GenerationFailure:
    kind: str  # "marker" (a wrapper's failure text) or "empty" (nothing where an answer was expected)
    reason: str  # what came back, shortened: the warning and the sample's reason


def _marker(text: str) -> str | None:
    head = text.lstrip()
    for marker in MARKERS:
        if head[: len(marker)].upper() == marker:
            return " ".join(head.split())[:_REASON_CHARS]
    return None


def detect(raw: Any) -> GenerationFailure | None:
    """The failure that ``raw`` (one model output as lmms-eval hands it over) stands for, or None.

    A failure is a wrapper's failure marker, alone or as the ``text`` of ``{"text", "images"}``
    with no image, or an output with nothing in it (``""``, whitespace, None, or
    ``{"text": "", "images": []}``). Anything else, however odd, is the model's answer and is
    left to the benchmark's own reading (``unparsable``, ``missing_image``...).
    """
    if raw is None:
        return GenerationFailure("empty", "the model returned no output (None)")
    if isinstance(raw, (bytes, bytearray)):
        raw = bytes(raw).decode("utf-8", errors="replace")
    if isinstance(raw, dict):
        payload = raw
    elif isinstance(raw, str):
        if not raw.strip():
            return GenerationFailure("empty", "the model returned an empty output")
        found = _marker(raw)
        if found is not None:
            return GenerationFailure("marker", found)
        stripped = raw.strip()
        if not stripped.startswith("{"):
            return None
        try:
            payload = json.loads(stripped)
        except (ValueError, RecursionError):
            return None
    else:
        return None
    if not isinstance(payload, dict) or not ({"text", "images"} & payload.keys()):
        return None
    text = payload.get("text")
    images = payload.get("images")
    if images:  # an image came back: whatever the text says, it is an answer
        return None
    if isinstance(text, str):
        found = _marker(text)
        if found is not None:
            return GenerationFailure("marker", found)
    if (text is None or (isinstance(text, str) and not text.strip())) and not payload.get("error"):
        return GenerationFailure("empty", "the model returned neither text nor an image")
    return None


# ------------------------------------------------------------------------------ end-of-run warning
_warned: set = set()
_warned_lock = threading.Lock()


def _status_reason(item: Any) -> tuple[str, str]:
    if isinstance(item, dict):
        return str(item.get("status", "")), str(item.get("reason", ""))
    return "", ""


def summary(items: Iterable[Any]) -> tuple[int, int, str]:
    """(failed, total, first failure's reason) over per-sample metric dicts (utils.status.sample)."""
    failed, total, first = 0, 0, ""
    for item in items:
        total += 1
        state, reason = _status_reason(item)
        if state == GENERATION_FAILED:
            failed += 1
            first = first or reason
    return failed, total, first


def calling_task_name(max_depth: int = 25) -> str | None:
    """The lmms-eval task being aggregated, read from the caller's stack (0.7.3 passes no name).

    Only the label of :func:`warn_once`'s line; no score depends on it. It stays a stack reader
    because the aggregations that call it are shared by every task of a benchmark (one function
    in the template's ``metric_list``) and lmms-eval hands an aggregation only the items; falls
    back to the caller's label."""
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return None
        obj = frame.f_locals.get("self")
        name = getattr(obj, "task_name", None)
        if isinstance(name, str) and name:
            return name
        frame = frame.f_back
    return None


def warn_once(items: list, label: str) -> str | None:
    """Print, once per task, how many generations failed and the first error; return the line.

    Call it from one aggregation of the task (one that runs once per task). Printed to stderr,
    not logged, like :func:`lmms_plugins.utils.status.report`: lmms-eval's log level hides INFO.
    """
    failed, total, first = summary(items)
    if not failed:
        return None
    task = calling_task_name() or label
    line = (f"[lmms_plugins] WARNING: {task}: {failed} of {total} generations failed (status "
            f"'{GENERATION_FAILED}', scored 0, kept in the denominator); first error: {first}")
    key = (task, failed, total, first)
    with _warned_lock:
        if key in _warned:
            return None
        _warned.add(key)
    print(line, file=sys.stderr)
    return line


__all__ = ["GenerationFailure", "MARKERS", "calling_task_name", "detect", "summary", "warn_once"]
