"""Recognise a failed generation, so that it is never scored as the model's answer.

lmms-eval 0.7.3's wrappers do not raise when a request fails; they answer with text instead.
Every such marker in its source (``grep -rn '"\\[[A-Z_]' lmms_eval/models``; lines as in 0.7.3):

* ``[LMMS_EVAL_REQUEST_FAILED after N retries] <error>``: models/simple/openai.py:377,
  models/chat/openai.py:146, models/chat/async_openai.py:375, models/simple/gemini.py:483,
  models/chat/gemini.py:225 (after their retries: a dead server, an 8k-context vLLM that rejects
  ``max_new_tokens`` 16384 with HTTP 400, ...);
* ``[LMMS_EVAL_BUDGET_EXCEEDED]``: models/chat/openai.py:243, models/chat/async_openai.py:354,
  models/chat/gemini.py:288 (``--max_tokens_budget`` spent: the request was never sent);
* ``[GENERATION_FAILED] <error>``: models/simple/generation_api.py:693 and :785,
  diffusers_wm_base.py:378, cosmos_wm.py:1353 and :1454, magi1_wm.py:575, :579, :625, :629,
  wan2_1_t2i.py:164;
* ``[ERROR] <what>``: generation_api.py:712, :828, :831, :857, diffusers_wm_base.py:387, :398,
  cosmos_wm.py:1463, magi1_wm.py:712, :737, :740, :750, wan2_1_t2i.py:141 (a request they could
  not build);
* ``""``: models/chat/openai.py:237 (a payload it could not build), qwen_image_edit, gpt4v,
  qwen_vl_api, gpt4o_audio when a request fails.

``[SAFETY_BLOCKED:...]`` (gemini: models/simple/gemini.py:88, :471, models/chat/gemini.py:213) is
*not* a failure here: the provider declined, which is the model side's answer (a DoD refusal for
another reason than infeasibility).

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
MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]", "[GENERATION_FAILED]", "[ERROR]")
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


def calling_task_name() -> str | None:
    """The lmms-eval task being aggregated: set by lmms_plugins/harness/end_of_run.py around lmms-eval's
    aggregation of each task (lmms-eval 0.7.3 hands an aggregation only its items); None outside
    it (lm-eval, a test calling an aggregation). Only a label: no score depends on it."""
    from lmms_plugins.utils.run_summary import current_task

    return current_task()


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
            f"'{GENERATION_FAILED}': how each metric counts them is in the benchmark's README, "
            f"'Failed generations'; generation_failure_rate is beside them); first error: {first}")
    key = (task, failed, total, first)
    with _warned_lock:
        if key in _warned:
            return None
        _warned.add(key)
    print(line, file=sys.stderr)
    return line


__all__ = ["GenerationFailure", "MARKERS", "calling_task_name", "detect", "summary", "warn_once"]
