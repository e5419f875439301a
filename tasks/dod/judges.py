"""The two optional LLM judges of Draw-or-Decline, on the shared judge client.

* Refusal judge: reads the request, the hidden ground truth and the model's reasoning (by default
  only the reasoning, as the official judge does: refusal/text.py); answers
  JSON ``concludes_infeasible``, ``reason_correct``, ``evidence``, ``reason``. An answer whose
  evidence is not an exact substring of the reasoning is rejected and the judge asked again (up
  to 3 answers), as in the official protocol.
* Editing judge (feasible real-world requests with an image): input image, output image, the
  instruction and the witness; JSON ``task_image_correct``, ``unrelated_content_preserved``.

The prompts are this project's own (``refusal_judge_prompt.jinja``, ``edit_judge_prompt.jinja``).
A user replaces them with files of their own (e.g. the official prompts) through
the task settings ``refusal_prompt`` / ``edit_prompt`` (settings.py); the variables a prompt may
use are listed in README.md. The prompt text is part of the cache key, so a replaced prompt never
reads answers cached for another.

Here: the prompts, the messages and the reading of the replies (what DoD's verdicts mean). The
transport, retries, cache and its key, and the one client per configuration are the shared
client's (lmms_plugins.utils.judge_client), as for GRADE.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

_HERE = Path(__file__).resolve().parent
REFUSAL_PROMPT_VERSION = "dod-refusal-v1"
EDIT_PROMPT_VERSION = "dod-edit-v1"
ATTEMPTS = 3
MAX_SIDE = 1024  # images go to the editing judge as JPEG, longest side <= 1024
JPEG_QUALITY = 90
EDIT_MESSAGE_LAYOUT = "dod-edit-messages-1"  # bump when edit_messages changes (part of the cache key)


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


REFUSAL_PROMPT_FILE, EDIT_PROMPT_FILE = "refusal_judge_prompt.jinja", "edit_judge_prompt.jinja"


def prompt_source(path: str, default: str, key: str = "") -> str:
    """The prompt file ``path`` (a task setting; '' = the shipped ``default``), read."""
    path = path or str(_HERE / default)
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise JudgeUnavailable(f"cannot read the judge prompt {path}{f' (metadata.{key})' if key else ''}: {exc}") from exc


def _render(source: str, **values: Any) -> str:
    import jinja2

    from lmms_plugins.utils.templates import TemplateRejected, render

    try:  # sandboxed: a user's prompt file runs no code
        return render(source, undefined="chainable", origin="DoD judge prompt", **values)
    except (jinja2.TemplateError, TemplateRejected) as exc:
        raise JudgeUnavailable(f"the judge prompt is not a valid Jinja template: {exc}") from exc


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


def client(**overrides: Any):
    """The process's shared judge client for the ``LMMS_PLUGINS_JUDGE_*`` settings and the task's
    judge settings (``overrides``: utils/judge_settings.judge_overrides; the same client GRADE
    uses for the same values); JudgeUnavailable when the judge is not configured."""
    from lmms_plugins.utils.judge_client import JudgeError, shared_client

    try:
        return shared_client(**overrides)
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc


# --- the judges ----------------------------------------------------------------------------------------


def judge_refusal(*, doc_prompt: str, label, reasoning: str, judge=None, reading: str = "reasoning",
                  prompt_file: str = "", overrides: Mapping | None = None) -> RefusalVerdict:
    """Ask the refusal judge about one response (``label``: a data.Label). ``reasoning``: the text it
    reads, and of which its evidence must be a substring (refusal.text_to_read); ``reading``:
    ``reasoning`` or ``all``, so the prompt can say which it is; ``prompt_file``: the setting
    ``refusal_prompt``; ``overrides``: the task's judge settings (judge_settings.judge_overrides).
    Empty text: no call."""
    from lmms_plugins.utils.judge_client import JudgeError, prompt_version

    if not (reasoning or "").strip():
        return RefusalVerdict(False, None, "", "empty response: no conclusion")
    source = prompt_source(prompt_file, REFUSAL_PROMPT_FILE, "refusal_prompt")
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
    judge = judge or client(**(overrides or {}))
    try:
        result = judge.complete(
            [{"role": "user", "content": prompt}],
            prompt_version=prompt_version(REFUSAL_PROMPT_VERSION, source),
            parse=lambda text: parse_refusal(text, reasoning),
            attempts=ATTEMPTS,
            temperature=0.0,
        )
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc
    v = result.value
    return RefusalVerdict(v.concludes_infeasible, v.reason_correct, v.evidence, v.reason, result.cached, result.calls)


def edit_messages(prompt: str, inputs: list, output_image) -> list:
    """The editing judge's request: the prompt, the input image(s), the output image."""
    from lmms_plugins.utils.judge_client import image_part, text_part

    content = [text_part(prompt)]
    for i, path in enumerate(inputs, 1):
        content += [text_part("INPUT image:" if len(inputs) == 1 else f"INPUT image {i}:"),
                    image_part(str(path), max_side=MAX_SIDE, quality=JPEG_QUALITY)]
    content += [text_part("OUTPUT image:"), image_part(str(output_image), max_side=MAX_SIDE, quality=JPEG_QUALITY)]
    return [{"role": "user", "content": content}]


def judge_edit(*, instruction: str, label, input_image, output_image, judge=None, prompt_file: str = "",
               overrides: Mapping | None = None) -> EditVerdict:
    """Ask the editing judge whether ``output_image`` makes the requested edit of ``input_image``
    (one path, or the list of the request's input images).

    The cache key holds the rendered prompt and the sha256 of the image files, as GRADE's does: the
    images are encoded only when the judge is asked, so a re-run served from the cache decodes none."""
    from lmms_plugins.utils.judge_client import JudgeError, file_digest, prompt_version

    source = prompt_source(prompt_file, EDIT_PROMPT_FILE, "edit_prompt")
    prompt = _render(source, instruction=instruction, witness=_text(label.witness))
    inputs = list(input_image) if isinstance(input_image, (list, tuple)) else [input_image]
    judge = judge or client(**(overrides or {}))
    try:
        key_data = {"layout": EDIT_MESSAGE_LAYOUT, "max_side": MAX_SIDE, "jpeg_quality": JPEG_QUALITY, "prompt": prompt,
                    "inputs": [file_digest(p) for p in inputs], "output": file_digest(output_image)}
        result = judge.complete(
            lambda: edit_messages(prompt, inputs, output_image),
            prompt_version=prompt_version(EDIT_PROMPT_VERSION, source),
            parse=parse_edit,
            attempts=ATTEMPTS,
            temperature=0.0,
            key_data=key_data,
        )
    except (OSError, ValueError, TypeError) as exc:  # a missing file, or one image_part cannot read (ImageError)
        raise JudgeUnavailable(f"cannot send the images to the judge: {exc}") from exc
    except JudgeError as exc:
        raise JudgeUnavailable(str(exc)) from exc
    v = result.value
    return EditVerdict(v.task_image_correct, v.unrelated_content_preserved, v.reason, result.cached, result.calls)
