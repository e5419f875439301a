"""The two optional LLM judges of Draw-or-Decline, on the shared judge client.

* Refusal judge: reads the request, the hidden ground truth and the model's reasoning (by default
  only the reasoning, as the official judge does: refusal_text.py); answers
  JSON ``concludes_infeasible``, ``reason_correct``, ``evidence``, ``reason``. An answer whose
  evidence is not an exact substring of the reasoning is rejected and the judge asked again (up
  to 3 answers), as in the official protocol.
* Editing judge (feasible real-world requests with an image): input image, output image, the
  instruction and the witness; JSON ``task_image_correct``, ``unrelated_content_preserved``.

The prompts are this project's own (``refusal_judge_prompt.jinja``, ``edit_judge_prompt.jinja``).
A user replaces them with files of their own (e.g. the official prompts) through
``LMMS_PLUGINS_DOD_REFUSAL_PROMPT`` / ``LMMS_PLUGINS_DOD_EDIT_PROMPT``; the variables a prompt may
use are listed in README.md. The prompt text is part of the cache key, so a replaced prompt never
reads answers cached for another.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
ENV_REFUSAL_PROMPT = "LMMS_PLUGINS_DOD_REFUSAL_PROMPT"
ENV_EDIT_PROMPT = "LMMS_PLUGINS_DOD_EDIT_PROMPT"
REFUSAL_PROMPT_VERSION = "dod-refusal-v1"
EDIT_PROMPT_VERSION = "dod-edit-v1"
ATTEMPTS = 3


class JudgeUnavailable(RuntimeError):
    """The judge gave no usable answer (not configured, transport failure, or 3 bad answers)."""


@dataclass(frozen=True)
class RefusalVerdict:
    concludes_infeasible: bool | None
    reason_correct: bool | None
    evidence: str
    reason: str
    cached: bool = False
    calls: int = 0


@dataclass(frozen=True)
class EditVerdict:
    task_image_correct: bool
    unrelated_content_preserved: bool
    reason: str
    cached: bool = False
    calls: int = 0

    @property
    def ok(self) -> bool:
        return self.task_image_correct and self.unrelated_content_preserved


# --- prompts -------------------------------------------------------------------------------------------


def _prompt_source(env: str, default: str) -> str:
    path = os.environ.get(env, "").strip() or str(_HERE / default)
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise JudgeUnavailable(f"cannot read the judge prompt {path} ({env}): {exc}") from exc


def _render(source: str, **values: Any) -> str:
    import jinja2

    from lmms_plugins.utils.templates import TemplateRejected, render

    try:  # sandboxed: a user's prompt file runs no code
        return render(source, undefined="chainable", origin="DoD judge prompt", **values)
    except (jinja2.TemplateError, TemplateRejected) as exc:
        raise JudgeUnavailable(f"the judge prompt is not a valid Jinja template: {exc}") from exc


def _version(base: str, source: str) -> str:
    # a user prompt gets its own cache namespace (the messages differ anyway; this makes it explicit)
    return f"{base}:{hashlib.sha256(source.encode('utf-8')).hexdigest()[:12]}"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "->".join(str(v) for v in value)
    return str(value)


# --- parsing -------------------------------------------------------------------------------------------


def _bool_or_none(data: dict, key: str) -> bool | None:
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "null", "none"):
        return {"true": True, "false": False}.get(value.strip().lower())
    raise ValueError(f"'{key}' must be true, false or null, got {value!r}")


def parse_refusal(text: str, reasoning: str) -> RefusalVerdict:
    """A refusal verdict, or ValueError (the client then asks again) when the answer is unusable."""
    from lmms_plugins.utils.judge_client import extract_json

    data = extract_json(text)
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    if "concludes_infeasible" not in data:
        raise ValueError("the answer has no 'concludes_infeasible'")
    concludes = _bool_or_none(data, "concludes_infeasible")
    correct = _bool_or_none(data, "reason_correct")
    evidence = data.get("evidence") or ""
    if not isinstance(evidence, str):
        raise ValueError("'evidence' must be a string")
    if concludes and not evidence.strip():
        raise ValueError("concludes_infeasible is true but 'evidence' is empty")
    if evidence and evidence not in reasoning:
        raise ValueError(f"'evidence' is not an exact substring of the reasoning: {evidence[:120]!r}")
    return RefusalVerdict(concludes, correct if concludes else None, evidence, str(data.get("reason") or ""))


def parse_edit(text: str) -> EditVerdict:
    from lmms_plugins.utils.judge_client import extract_json

    data = extract_json(text)
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    values = {}
    for key in ("task_image_correct", "unrelated_content_preserved"):
        v = _bool_or_none(data, key)
        if v is None:
            raise ValueError(f"'{key}' must be true or false")
        values[key] = v
    return EditVerdict(values["task_image_correct"], values["unrelated_content_preserved"], str(data.get("reason") or ""))


# --- the client ---------------------------------------------------------------------------------------

_clients: dict[tuple, Any] = {}
_clients_lock = threading.Lock()


def client():
    """One shared, thread-safe client per judge configuration (read from the environment)."""
    from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig, JudgeError

    try:
        config = JudgeConfig.from_env()
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc
    key = (config.base_url, config.model, config.api_key, config.timeout_s, str(config.cache_dir))
    with _clients_lock:
        if key not in _clients:
            _clients[key] = JudgeClient(config)
        return _clients[key]


# --- the judges ----------------------------------------------------------------------------------------


def judge_refusal(*, doc_prompt: str, label, reasoning: str, judge=None, reading: str = "reasoning") -> RefusalVerdict:
    """Ask the refusal judge about one response (``label``: a data.Label). ``reasoning``: the text it
    reads, and of which its evidence must be a substring (refusal_text.text_to_read); ``reading``:
    ``reasoning`` or ``all``, so the prompt can say which it is. Empty text: no call."""
    from lmms_plugins.utils.judge_client import JudgeError

    if not (reasoning or "").strip():
        return RefusalVerdict(False, None, "", "empty response: no conclusion")
    source = _prompt_source(ENV_REFUSAL_PROMPT, "refusal_judge_prompt.jinja")
    prompt = _render(
        source,
        task_prompt=doc_prompt,
        label="feasible" if label.feasible else "infeasible",
        ground_truth_reason=label.reason,
        witness=_text(label.witness),
        certificate=_text(label.certificate),
        reasoning=reasoning,
        reading=reading,
    )
    judge = judge or client()
    try:
        result = judge.complete(
            [{"role": "user", "content": prompt}],
            prompt_version=_version(REFUSAL_PROMPT_VERSION, source),
            parse=lambda text: parse_refusal(text, reasoning),
            attempts=ATTEMPTS,
            temperature=0.0,
        )
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc
    v = result.value
    return RefusalVerdict(v.concludes_infeasible, v.reason_correct, v.evidence, v.reason, result.cached, result.calls)


def judge_edit(*, instruction: str, label, input_image, output_image, judge=None) -> EditVerdict:
    """Ask the editing judge whether ``output_image`` makes the requested edit of ``input_image``
    (one path, or the list of the request's input images)."""
    from lmms_plugins.utils.judge_client import JudgeError, image_part, text_part

    source = _prompt_source(ENV_EDIT_PROMPT, "edit_judge_prompt.jinja")
    prompt = _render(source, instruction=instruction, witness=_text(label.witness))
    inputs = list(input_image) if isinstance(input_image, (list, tuple)) else [input_image]
    try:
        content = [text_part(prompt)]
        for i, path in enumerate(inputs, 1):
            content += [text_part("INPUT image:" if len(inputs) == 1 else f"INPUT image {i}:"), image_part(str(path))]
        content += [text_part("OUTPUT image:"), image_part(str(output_image))]
    except (OSError, ValueError, TypeError) as exc:
        raise JudgeUnavailable(f"cannot send the images to the judge: {exc}") from exc
    judge = judge or client()
    try:
        result = judge.complete(
            [{"role": "user", "content": content}],
            prompt_version=_version(EDIT_PROMPT_VERSION, source),
            parse=parse_edit,
            attempts=ATTEMPTS,
            temperature=0.0,
        )
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc
    v = result.value
    return EditVerdict(v.task_image_correct, v.unrelated_content_preserved, v.reason, result.cached, result.calls)
