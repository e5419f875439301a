"""GRADE's three judge calls on the shared judge client: rubric R, consistency C, readability L.

* R: original, edited and reference images plus the weighted questions; answers matched to
  questions by id, else by repeated question text, else by position (see rubric.py);
* C: original and edited images, with one of two criteria: ``overall`` (nothing that was not
  asked for changes) or ``style`` (same representation style); no call for ``none``;
* L: the edited image alone.

Prompts are this project's own (``prompts/*.jinja``). A user replaces any of them by putting a
file of the same name in the folder named by the task setting ``prompts`` (settings.py; e.g. the
official prompts, verbatim). A ``.jinja`` file is a Jinja template with the variables ``instruction``,
``questions`` (objects with ``id``, ``question``, ``score``) and ``questions_json``; any other file
is plain text in which ``{instruct}`` / ``{instruction}`` become the instruction and doubled
braces single ones (so an official prompt can be pasted from its Python f-string as it is). The prompt text is part of the cache key,
so changing a prompt never serves a verdict given to another prompt.

Here: the prompts, the messages, the three questions asked at once, and the reading of the
replies (rubric.py). The transport, retries, cache and its key, and the one client per
configuration are the shared client's (lmms_plugins.utils.judge_client), as for DoD.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lmms_plugins.tasks.grade.records import Question
from lmms_plugins.tasks.grade.rubric import RubricVerdict, ScaleVerdict, match_answers, parse_scale

PROMPT_NAMES = ("reasoning", "consistency_overall", "consistency_style", "readability")
PROMPT_DIR = Path(__file__).with_name("prompts")
ANSWER_ATTEMPTS = 3  # answers asked per dimension before the sample becomes judge_error
MAX_SIDE = 1024  # images go to the judge as JPEG, longest side <= 1024, as the official code does
JPEG_QUALITY = 75  # PIL's default, which the official code uses (it passes no quality)


@dataclass(frozen=True)
class Prompt:
    name: str
    source: str  # template text
    origin: str  # file it came from

    @property
    def version(self) -> str:
        from lmms_plugins.utils.judge_client import prompt_version

        return prompt_version(f"grade-{self.name}", self.source)

    def render(self, **variables: Any) -> str:
        if not self.origin.endswith(".jinja"):
            # A plain-text prompt, e.g. an official prompt pasted from its Python f-string:
            # {instruct} / {instruction} become the instruction, doubled braces single ones.
            text = self.source
            for placeholder in ("{instruct}", "{instruction}"):
                text = text.replace(placeholder, str(variables.get("instruction", "")))
            return text.replace("{{", "{").replace("}}", "}").strip()
        from lmms_plugins.utils.templates import render  # sandboxed: a user's prompt file runs no code

        return render(self.source, origin=self.origin, **variables).strip()


def load_prompt(name: str, override_dir: str | None = None) -> Prompt:
    """Our prompt ``name``, or the user's file of that name (``.jinja``, ``.txt`` or no suffix) in
    ``override_dir`` (the setting ``prompts``; None or '' = ours)."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown GRADE prompt {name!r}; known: {PROMPT_NAMES}")
    folder = override_dir
    if folder:
        base = Path(folder).expanduser()
        if not base.is_dir():
            raise FileNotFoundError(f"metadata.prompts={folder} is not a folder")
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

    return _part(image_or_path, max_side=MAX_SIDE, fmt="JPEG", quality=JPEG_QUALITY)


def _questions_text(questions: Sequence[Question]) -> str:
    return "Checkpoints:\n" + "\n".join(f"{q.id}: {q.question}" for q in questions)


def reasoning_messages(system: str, questions: Sequence[Question], original, edited, reference) -> list:
    from lmms_plugins.utils.judge_client import text_part

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


def consistency_messages(system: str, original, edited) -> list:
    from lmms_plugins.utils.judge_client import text_part

    return [
        {"role": "system", "content": system},
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


def readability_messages(system: str, edited) -> list:
    from lmms_plugins.utils.judge_client import text_part

    return [
        {"role": "system", "content": system},
        {"role": "user", "content": [text_part("The image to assess:"), edited]},
    ]


MESSAGE_LAYOUT = "grade-messages-1"  # bump when the message layout below changes (part of the cache key)


class BadEditedImage(Exception):
    """The model's output image cannot be read (status bad_image)."""


class BadDatasetImage(Exception):
    """The dataset's input or reference image cannot be read (status missing_data)."""


class _Images:
    """The sample's images: sha256 of the files (cheap, for cache keys) and JPEG parts (built once, on a miss)."""

    def __init__(self, original, edited, reference):
        self.paths = {"original": original, "edited": edited, "reference": reference}
        self._parts: dict[str, dict] = {}
        self._digests: dict[str, str] = {}
        self._lock = threading.Lock()  # R, C and L are asked from three threads: decode each image once

    def _fail(self, name: str, exc: Exception) -> Exception:
        cls = BadEditedImage if name == "edited" else BadDatasetImage
        return cls(f"{name} image: {exc}")

    def digest(self, name: str) -> str:
        from lmms_plugins.utils.judge_client import file_digest

        if name not in self._digests:
            try:
                self._digests[name] = file_digest(self.paths[name])
            except OSError as exc:
                raise self._fail(name, exc) from None
        return self._digests[name]

    def part(self, name: str) -> dict:
        from lmms_plugins.utils.images import ImageError

        with self._lock:
            if name not in self._parts:
                try:
                    self._parts[name] = image_part(self.paths[name])
                except (ImageError, OSError) as exc:
                    raise self._fail(name, exc) from None
            return self._parts[name]


def _ask(client, build, key_data: dict, prompt: Prompt, parse) -> DimensionResult:
    from lmms_plugins.utils.judge_client import JudgeError

    key_data = {"layout": MESSAGE_LAYOUT, "max_side": MAX_SIDE, "jpeg_quality": JPEG_QUALITY, **key_data}
    try:
        res = client.complete(build, prompt_version=prompt.version, parse=parse, attempts=ANSWER_ATTEMPTS,
                              key_data=key_data, retry_feedback=True)
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

    Images are file paths. The cache key of each call holds the rendered prompt, the questions
    and the sha256 of the image files, so a re-run decodes no image. A judge failure on one
    dimension leaves it pending (value None, the error kept) and does not stop the others.
    Raises :class:`BadEditedImage` / :class:`BadDatasetImage` when an image cannot be read.
    """
    prompts = prompts or {n: load_prompt(n) for n in PROMPT_NAMES}
    skipped = DimensionResult(value=None, error="not asked")
    qs = list(questions)
    imgs = _Images(original, edited, reference)
    # The questions are independent: they are asked at the same time, from up to three threads, so
    # a judge-bound run gets 3x the requests in flight of its process_docs_parallel threads. Each
    # dimension's answer (and cache key) is what it was when they were asked one after another.
    # The digests come first, in the serial order, so a missing file raises what it raised before.
    asks_c = consistency_type != "none" and "C" in need
    for name in (["original", "edited", "reference"] if "R" in need else []) + (["original", "edited"] if asks_c else []) + (["edited"] if "L" in need else []):
        imgs.digest(name)
    jobs: dict = {}

    def later(dim: str, fn):
        jobs[dim] = fn

    R = skipped
    if "R" in need:
        p = prompts["reasoning"]
        variables = dict(instruction=instruction, questions=qs,
                         questions_json=json.dumps([q.__dict__ for q in qs], ensure_ascii=False))
        system = p.render(**variables)
        key = {"dim": "R", "system": system, "questions": _questions_text(qs),
               "images": [imgs.digest("original"), imgs.digest("edited"), imgs.digest("reference")]}
        build = lambda system=system: reasoning_messages(system, qs, imgs.part("original"), imgs.part("edited"), imgs.part("reference"))  # noqa: E731
        later("R", functools.partial(_ask, client, build, key, p, functools.partial(_parse_rubric, qs)))
    C: DimensionResult | None = None
    if consistency_type != "none":
        C = skipped
        if "C" in need:
            p = prompts[f"consistency_{consistency_type}"]
            system = p.render(instruction=instruction, questions=[], questions_json="[]")
            key = {"dim": "C", "system": system, "images": [imgs.digest("original"), imgs.digest("edited")]}
            build_c = lambda system=system: consistency_messages(system, imgs.part("original"), imgs.part("edited"))  # noqa: E731
            later("C", functools.partial(_ask, client, build_c, key, p, _parse_scale_text))
    L = skipped
    if "L" in need:
        p = prompts["readability"]
        system = p.render(instruction=instruction, questions=[], questions_json="[]")
        key = {"dim": "L", "system": system, "images": [imgs.digest("edited")]}
        build_l = lambda system=system: readability_messages(system, imgs.part("edited"))  # noqa: E731
        later("L", functools.partial(_ask, client, build_l, key, p, _parse_scale_text))
    done = _run_together(jobs)
    return JudgedSample(R=done.get("R", R), C=done.get("C", C), L=done.get("L", L))


def _run_together(jobs: dict) -> dict:
    """dim -> DimensionResult, the jobs run in threads of their own; the first exception (in R, C, L
    order: an unreadable image) is raised once all have ended."""
    if len(jobs) <= 1:
        return {dim: fn() for dim, fn in jobs.items()}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="grade-judge") as pool:
        futures = {dim: pool.submit(fn) for dim, fn in jobs.items()}
    return {dim: f.result() for dim, f in futures.items()}


def _parse_rubric(questions: list[Question], text: str) -> RubricVerdict:
    from lmms_plugins.utils.judge_client import extract_json

    return match_answers(questions, extract_json(text))


def _parse_scale_text(text: str) -> ScaleVerdict:
    from lmms_plugins.utils.judge_client import extract_json

    return parse_scale(extract_json(text))
