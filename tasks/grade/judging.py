"""GRADE's three judge calls on the shared judge client: rubric R, consistency C, readability L.

* R: original, edited and reference images plus the weighted questions; answers matched to
  questions by id, else by repeated question text, else by position (see rubric.py);
* C: original and edited images, with one of two criteria: ``overall`` (nothing that was not
  asked for changes) or ``style`` (same representation style); no call for ``none``;
* L: the edited image alone.

Prompts are this project's own (``prompts/*.jinja``). A user replaces any of them by putting a
file of the same name in the folder named by ``LMMS_PLUGINS_GRADE_PROMPTS`` (e.g. the official
prompts, verbatim); variables available: ``instruction``, ``questions`` (list of objects with
``id``, ``question``, ``score``) and ``questions_json``. The prompt text is part of the cache key,
so changing a prompt never serves a verdict given to another prompt.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lmms_plugins.tasks.grade.records import Question
from lmms_plugins.tasks.grade.rubric import RubricVerdict, ScaleVerdict, match_answers, parse_scale

PROMPTS_ENV = "LMMS_PLUGINS_GRADE_PROMPTS"
PROMPT_NAMES = ("reasoning", "consistency_overall", "consistency_style", "readability")
PROMPT_DIR = Path(__file__).with_name("prompts")
ANSWER_ATTEMPTS = 3  # answers asked per dimension before the sample becomes judge_error
MAX_SIDE = 1024  # images go to the judge as JPEG, longest side <= 1024, as the official code does


@dataclass(frozen=True)
class Prompt:
    name: str
    source: str  # template text
    origin: str  # file it came from

    @property
    def version(self) -> str:
        return f"grade-{self.name}-" + hashlib.sha256(self.source.encode("utf-8")).hexdigest()[:16]

    def render(self, **variables: Any) -> str:
        import jinja2

        env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False)
        return env.from_string(self.source).render(**variables).strip()


def load_prompt(name: str, override_dir: str | None = None) -> Prompt:
    """Our prompt ``name``, or the user's file of that name (``.jinja``, ``.txt`` or no suffix)."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown GRADE prompt {name!r}; known: {PROMPT_NAMES}")
    folder = override_dir if override_dir is not None else os.environ.get(PROMPTS_ENV)
    if folder:
        base = Path(folder).expanduser()
        if not base.is_dir():
            raise FileNotFoundError(f"{PROMPTS_ENV}={folder} is not a folder")
        for candidate in (base / f"{name}.jinja", base / f"{name}.txt", base / name):
            if candidate.is_file():
                return Prompt(name, candidate.read_text(encoding="utf-8"), str(candidate))
    path = PROMPT_DIR / f"{name}.jinja"
    return Prompt(name, path.read_text(encoding="utf-8"), str(path))


@dataclass(frozen=True)
class DimensionResult:
    """One dimension's verdict: the value, or the error that left it pending."""

    value: float | int | None
    detail: Any = None  # RubricVerdict / ScaleVerdict
    error: str = ""
    calls: int = 0
    cached: bool = False


@dataclass(frozen=True)
class JudgedSample:
    R: DimensionResult
    C: DimensionResult | None  # None: consistency type "none", not judged
    L: DimensionResult
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def calls(self) -> int:
        return sum(d.calls for d in (self.R, self.C, self.L) if d is not None)

    @property
    def errors(self) -> list[str]:
        return [f"{k}: {d.error}" for k, d in (("R", self.R), ("C", self.C), ("L", self.L)) if d is not None and d.error]


def image_part(image_or_path) -> dict:
    """An image as the judge gets it: JPEG, longest side at most 1024 (raises ImageError)."""
    from lmms_plugins.utils.judge_client import image_part as _part

    return _part(image_or_path, max_side=MAX_SIDE, fmt="JPEG")


def _questions_text(questions: Sequence[Question]) -> str:
    return "Checkpoints:\n" + "\n".join(f"{q.id}: {q.question}" for q in questions)


def reasoning_messages(prompt: Prompt, instruction: str, questions: Sequence[Question], original, edited, reference) -> list:
    from lmms_plugins.utils.judge_client import text_part

    system = prompt.render(
        instruction=instruction,
        questions=list(questions),
        questions_json=json.dumps([q.__dict__ for q in questions], ensure_ascii=False),
    )
    return [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": [
                text_part("Original image (first image):"),
                original,
                text_part("Edited image (second image):"),
                edited,
                text_part("Reference image (third image):"),
                reference,
                text_part(_questions_text(questions)),
            ],
        },
    ]


def consistency_messages(prompt: Prompt, instruction: str, original, edited) -> list:
    from lmms_plugins.utils.judge_client import text_part

    return [
        {"role": "system", "content": prompt.render(instruction=instruction, questions=[], questions_json="[]")},
        {
            "role": "user",
            "content": [
                text_part("Original image (first image):"),
                original,
                text_part("Edited image (second image):"),
                edited,
            ],
        },
    ]


def readability_messages(prompt: Prompt, edited) -> list:
    from lmms_plugins.utils.judge_client import text_part

    return [
        {"role": "system", "content": prompt.render(instruction="", questions=[], questions_json="[]")},
        {"role": "user", "content": [text_part("The image to assess:"), edited]},
    ]


def _ask(client, messages, prompt: Prompt, parse) -> DimensionResult:
    from lmms_plugins.utils.judge_client import JudgeError

    try:
        res = client.complete(messages, prompt_version=prompt.version, parse=parse, attempts=ANSWER_ATTEMPTS)
    except JudgeError as exc:
        return DimensionResult(value=None, error=str(exc))
    detail = res.value
    return DimensionResult(value=detail.score, detail=detail, calls=res.calls, cached=res.cached)


def judge_sample(
    client,
    *,
    instruction: str,
    questions: Sequence[Question],
    consistency_type: str,
    original,
    edited,
    reference,
    prompts: dict[str, Prompt] | None = None,
    need: Sequence[str] = ("R", "C", "L"),
) -> JudgedSample:
    """Ask the judge the dimensions in ``need`` (others come back as pending with no call).

    Images are content parts made by :func:`image_part` (each encoded once, sent up to three
    times). A judge failure on one dimension leaves that dimension
    pending (value None, the error kept) and does not stop the others.
    """
    prompts = prompts or {n: load_prompt(n) for n in PROMPT_NAMES}
    skipped = DimensionResult(value=None, error="not asked")
    qs = list(questions)

    R = skipped
    if "R" in need:
        msgs = reasoning_messages(prompts["reasoning"], instruction, qs, original, edited, reference)
        R = _ask(client, msgs, prompts["reasoning"], functools.partial(_parse_rubric, qs))
    C: DimensionResult | None = None
    if consistency_type != "none":
        C = skipped
        if "C" in need:
            prompt = prompts[f"consistency_{consistency_type}"]
            C = _ask(client, consistency_messages(prompt, instruction, original, edited), prompt, _parse_scale_text)
    L = skipped
    if "L" in need:
        L = _ask(client, readability_messages(prompts["readability"], edited), prompts["readability"], _parse_scale_text)
    return JudgedSample(R=R, C=C, L=L)


def _parse_rubric(questions: list[Question], text: str) -> RubricVerdict:
    from lmms_plugins.utils.judge_client import extract_json

    return match_answers(questions, extract_json(text))


def _parse_scale_text(text: str) -> ScaleVerdict:
    from lmms_plugins.utils.judge_client import extract_json

    return parse_scale(extract_json(text))


# ---------------------------------------------------------------- one client per configuration
_CLIENTS: dict = {}
_CLIENTS_LOCK = threading.Lock()


def shared_client():
    """The process's judge client for the current ``LMMS_PLUGINS_JUDGE_*`` settings (thread-safe)."""
    from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig

    config = JudgeConfig.from_env()
    key = (config, json.dumps(dict(config.extra_body), sort_keys=True))
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = JudgeClient(config)
        return client
