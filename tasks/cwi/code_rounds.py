"""The round protocol of the ``cwi_code_<task>`` tasks, as plain functions (no lmms-eval import).

One round: the model replies; an ``<answer>`` span outside its code blocks ends the loop, and that
reply, without its code blocks, is what is scored; otherwise the reply's last fenced Python block
is run in the sandbox (utils/sandbox/) in a folder holding the item's images, and its exit status,
stdout, stderr and saved images become the next turn. A reply with neither code nor an answer
ends the loop, and so does the last allowed round, and so does a reply that is not text.

Everything a later round needs travels in a JSON-able ``state`` dict (lmms-eval hands it back as
``previous_round_info``), so the sample log can hold the whole trace.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .answer_parse import find_span

#: file names of the item's images inside the sandbox, in doc_to_visual order
IMAGE_FILES = ("image_1.png", "image_2.png")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
LIBRARIES = ("numpy", "Pillow (PIL)", "OpenCV (cv2)", "SciPy", "scikit-image (skimage)")

# how the loop ended
END_ANSWER = "answer"  # the reply held an <answer> span
END_NO_ACTION = "no_action"  # the reply held neither code nor an answer
END_MAX_ROUNDS = "max_rounds"  # the last allowed round held code, not an answer
END_GENERATION_FAILED = "generation_failed"  # the model side failed (wrapper failure marker, empty reply)

# Fenced code blocks as CommonMark defines them (spec 0.31, "Fenced code blocks"): a line of at
# least three backticks or tildes opens a block; the block ends at a line holding only the same
# character, at least as many times, or at the end of the text when no such line comes. A
# backtick fence's info string holds no backtick. \r\n and \r end lines as \n does.
# One extension: a fence indented 4 or more spaces (inside a list item: "1. Load it:\n    ```python")
# opens a block too; we read no list structure, so its closing fence may be indented up to 3 more.
# Written as a line scanner rather than with a Markdown library: one pass, each line looked at
# once (markdown-it-py, the CommonMark parser the tests check this against, builds tokens for
# every block and is several times slower and larger on long adversarial replies).
_FENCE_RUN = re.compile(r"[ \t]*(`{3,}|~{3,})")
_INDENT = re.compile(r"^[ \t]+", re.MULTILINE)
_PYTHON_TAGS = {"python", "py", "python3", "py3"}


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block of a reply; offsets are in the reply with its line ends made ``\n``."""

    start: int  # the opening fence line's first character
    end: int  # just past the closing fence line (its "\n" included), or the end of the text
    tag: str  # the info string's first word, lower case ("" when none)
    code: str  # the lines between the fences, indentation of the opening fence removed
    closed: bool  # False: the block ran to the end of the text

    @property
    def is_python(self) -> bool:
        return self.tag in _PYTHON_TAGS or self.tag == ""


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _columns(text: str, start: int, stop: int) -> int:
    """Width of the indentation ``text[start:stop]`` (spaces and tabs, tab stops of 4)."""
    col = 0
    for ch in text[start:stop]:
        col = col + 4 - col % 4 if ch == "\t" else col + 1
    return col


def _dedent(code: str, width: int) -> str:
    """Up to ``width`` columns of indentation off every line (a tab cut through keeps the rest as spaces)."""
    if width <= 0 or not code:
        return code

    def strip(m) -> str:
        ws, col = m.group(), 0
        for i, ch in enumerate(ws):
            if col >= width:
                return ws[i:]
            nxt = col + 4 - col % 4 if ch == "\t" else col + 1
            if nxt > width:
                return " " * (nxt - width) + ws[i + 1:]
            col = nxt
        return ""

    return _INDENT.sub(strip, code)


def code_blocks(text: str) -> Iterator[CodeBlock]:
    """The fenced blocks of ``text`` in order (one pass: linear in the length of ``text``)."""
    text = normalise_newlines(text)
    # a last line of blanks with no line end is no line (CommonMark as markdown-it-py reads it)
    last = text.rfind("\n") + 1
    n, pos = (last if not text[last:].strip(" \t") else len(text)), 0
    while pos < n:
        eol = text.find("\n", pos)
        eol = n if eol < 0 else eol
        m = _FENCE_RUN.match(text, pos, eol)
        if m is None:
            pos = eol + 1
            continue
        fence = m.group(1)
        info = text[m.end():eol]
        if fence[0] == "`" and "`" in info:  # an inline code span, not a fence
            pos = eol + 1
            continue
        width = _columns(text, pos, m.start(1))
        close_within = 3 if width <= 3 else width + 3
        body = p = min(eol + 1, n)
        closed = False
        while p < n:
            e = text.find("\n", p)
            e = n if e < 0 else e
            c = _FENCE_RUN.match(text, p, e)
            if (c is not None and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence)
                    and not text[c.end():e].strip(" \t") and _columns(text, p, c.start(1)) <= close_within):
                closed = True
                break
            p = e + 1
        words = info.split(maxsplit=1)
        code = _dedent(text[body:min(p, n)], width)
        end = min(e + 1, n) if closed else n
        yield CodeBlock(pos, end, words[0].lower() if words else "", code, closed)
        pos = end


def extract_code(text: str) -> str | None:
    """The last fenced block tagged python/py (or untagged) in ``text``; None when there is none.

    Untagged blocks count because many models omit the tag; blocks tagged with another language
    (```text, ```json, ```bash) are not Python and are skipped. A block left open runs to the end
    of the reply (CommonMark's rule): it is code, and runs as such.
    """
    last = None
    for block in code_blocks(text if isinstance(text, str) else ""):
        if block.is_python:
            last = block.code
    if last is None or not last.strip():
        return None
    return last


def generation_failed(text: Any) -> bool:
    """The reply is a wrapper's failure marker, or empty: the model side failed, nothing to run."""
    from lmms_plugins.utils.generation_failure import detect

    return detect(text) is not None


def without_code(text: str) -> str:
    """``text`` with its fenced blocks removed, each replaced by an empty line (code may spell
    ``<answer>`` in a string or a comment: what is read as the answer is the text around it)."""
    if not isinstance(text, str):
        return ""
    norm = normalise_newlines(text)
    pieces, at = [], 0
    for block in code_blocks(norm):
        pieces.append(norm[at:block.start])
        pieces.append("\n")
        at = block.end
    pieces.append(norm[at:])
    return "".join(pieces)


def has_answer(text: str) -> bool:
    """An ``<answer>`` span outside the fenced blocks."""
    return find_span(without_code(text)) is not None


# ---------------------------------------------------------------- what the model and its code return


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: lone surrogates (from a model's JSON escapes, or a file name's
    undecodable bytes) become U+FFFD, so that the samples log, which is UTF-8, can hold it."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")
_UNPRINTABLE = re.compile(r"[^\S ]|[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
MAX_NAME_CHARS = 120


def safe_name(name: Any) -> str:
    """A file name the code chose, fit for the log and the next prompt: undecodable bytes as
    ``\\xNN``, line breaks, control and direction characters escaped, at most 120 characters."""
    if isinstance(name, (bytes, bytearray, memoryview)):
        raw = bytes(name)
    else:
        s = name if isinstance(name, str) else str(name)
        try:
            raw = s.encode("utf-8", "surrogateescape")  # os.fsdecode's undecodable bytes come back as bytes
        except UnicodeEncodeError:
            raw = s.encode("utf-8", "backslashreplace")
    s = raw.decode("utf-8", "backslashreplace")
    s = _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), s)
    if len(s) > MAX_NAME_CHARS:
        s = f"{s[:MAX_NAME_CHARS]}...({len(s)} characters)"
    return s or "(no name)"


def reply_text(raw: Any) -> tuple[str, str]:
    """(text, why not) of one reply as lmms-eval hands it over: a string is the text (made valid
    Unicode); anything else (bytes, None, a dict...) is not a reply the loop can read, and ``why``
    says what it was."""
    if isinstance(raw, str):
        return valid_text(raw), ""
    if raw is None:
        return "", "the model returned None, not text"
    size = f", {len(raw)} long" if isinstance(raw, (bytes, bytearray, list, tuple, dict)) else ""
    return "", f"the model returned {type(raw).__name__}{size}, not text"


@dataclass(frozen=True)
class Execution:
    """What one run of the model's code did, as kept in the trace and shown to the model."""

    round: int
    code: str
    status: str  # the sandbox's status: ok, error, timeout, memory, output_limit, killed, sandbox_error
    exit_code: int | None
    stdout: str  # as shown to the model (cut to the display limit, the cut said)
    stderr: str
    stdout_chars: int  # length of what the sandbox returned, before the display cut
    stderr_chars: int
    truncated: bool  # something was cut (by the sandbox's output limit or the display limit)
    wall_s: float
    reason: str = ""
    images: list = field(default_factory=list)  # [{"name", "size": [w, h], "scaled_from"?, "thumb": data URI}] of images the code saved
    other_files: list = field(default_factory=list)  # [{"name", "bytes", "why"?}] other files (or images that did not decode)


@dataclass
class LoopState:
    """The loop's state between rounds (round_info["state"] in lmms-eval's terms)."""

    prompt: str
    max_rounds: int
    executions: list = field(default_factory=list)  # Execution dicts, in order
    ended: str | None = None
    rounds: int = 0  # model replies seen

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping) -> LoopState:
        return cls(
            prompt=str(d.get("prompt", "")),
            max_rounds=int(d.get("max_rounds", 8)),
            executions=list(d.get("executions") or []),
            ended=d.get("ended"),
            rounds=int(d.get("rounds", 0)),
        )


def cut(text: str, limit: int, keep: str = "head") -> tuple[str, bool]:
    """``text`` cut to about ``limit`` characters with the cut said in words.

    ``keep="head"`` keeps the start (stdout: the first values printed), ``"tail"`` the end (stderr:
    the traceback's last line), ``"both"`` the start and the end.
    """
    if len(text) <= limit:
        return text, False
    dropped = len(text) - limit
    note = f"[... {dropped} characters cut; {len(text)} in all ...]"
    if keep == "tail":
        return f"{note}\n{text[-limit:]}", True
    if keep == "both":
        half = limit // 2
        return f"{text[:half]}\n{note}\n{text[-(limit - half):]}", True
    return f"{text[:limit]}\n{note}", True


def thumbnail_uri(image, px: int = 192) -> str:
    """A small PNG data URI of a PIL image, for the sample log (the model gets the full image)."""
    from PIL import ImageOps

    im = image if image.mode in ("RGB", "L", "RGBA") else image.convert("RGB")
    small = ImageOps.contain(im, (px, px)) if max(im.size) > px else im  # no full-size copy
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def decode_images(files: Mapping, inputs: Mapping[str, bytes], max_images: int, max_pixels: int,
                  max_pixels_back: int | None = None):
    """(images [(name, PIL)], image records, other-file records) from the files the code saved.

    A file equal to an input image is not new. Names are made safe (:func:`safe_name`) before
    they go anywhere. Images are taken in name order, at most ``max_images`` of them, each at most
    ``max_pixels`` in its header (checked before decoding), and together at most
    ``max_pixels_back``: an image that does not fit what is left is scaled down to fit (the record
    says from what size), or, when less than 1/16 of the budget is left, not sent. The others are
    listed by name, with why they were not shown.
    """
    from lmms_plugins.utils.images import load_rgb_bytes
    from PIL import Image

    budget = int(max_pixels_back) if max_pixels_back else max_images * max_pixels
    left = budget
    images, records, others = [], [], []
    named = sorted((safe_name(k), i, k) for i, k in enumerate(files))
    for name, _, key in named:
        data = files[key]
        if not isinstance(data, (bytes, bytearray, memoryview)):
            others.append({"name": name, "bytes": 0, "why": f"the sandbox returned {type(data).__name__}, not bytes"})
            continue
        data = bytes(data)
        if isinstance(key, str) and inputs.get(key) == data:
            continue
        if not name.lower().endswith(IMAGE_SUFFIXES):
            others.append({"name": name, "bytes": len(data)})
            continue
        if len(images) >= max_images:
            others.append({"name": name, "bytes": len(data), "why": f"only {max_images} images are sent back per round"})
            continue
        if left < budget // 16:
            others.append({"name": name, "bytes": len(data),
                           "why": f"the images before it used the {budget:,} pixels sent back per round"})
            continue
        try:  # bounded memory (mode-aware, from the header) and truncation checks: the model wrote it
            im = load_rgb_bytes(data, name=name, max_pixels=max_pixels)
        except Exception as exc:  # noqa: BLE001 - a file the model wrote can be anything
            others.append({"name": name, "bytes": len(data), "why": f"not a readable image: {type(exc).__name__}: {exc}"})
            continue
        record = {"name": name, "size": list(im.size)}
        w, h = im.size
        if w * h > left:  # scale down to what is left of the round's budget
            f = (left / (w * h)) ** 0.5
            small = (max(1, int(w * f)), max(1, int(h * f)))
            im = im.resize(small, Image.Resampling.BOX)
            record = {"name": name, "size": list(im.size), "scaled_from": [w, h]}
        left -= im.size[0] * im.size[1]
        images.append((name, im))
        records.append({**record, "thumb": thumbnail_uri(im)})
    return images, records, others


def execution_from_result(round_idx: int, code: str, res, inputs: Mapping[str, bytes], *, max_chars: int,
                          max_images: int, max_pixels: int, max_pixels_back: int | None = None) -> tuple[Execution, list]:
    """An :class:`Execution` record (and the decoded images) from a sandbox ``ExecResult``."""
    stdout_raw = valid_text(_as_text(getattr(res, "stdout", "")))
    stderr_raw = valid_text(_as_text(getattr(res, "stderr", "")))
    stdout, cut_out = cut(stdout_raw, max_chars, "head")
    stderr, cut_err = cut(stderr_raw, max_chars, "tail")
    files = getattr(res, "files", None)
    images, records, others = decode_images(files if isinstance(files, Mapping) else {}, inputs, max_images,
                                            max_pixels, max_pixels_back)
    exit_code = getattr(res, "exit_code", None)
    ex = Execution(
        round=round_idx,
        code=code,
        status=valid_text(str(getattr(res, "status", "sandbox_error"))),
        exit_code=exit_code if isinstance(exit_code, int) else None,
        stdout=stdout,
        stderr=stderr,
        stdout_chars=len(stdout_raw),
        stderr_chars=len(stderr_raw),
        truncated=bool(getattr(res, "stdout_truncated", False) or getattr(res, "stderr_truncated", False)) or cut_out or cut_err,
        wall_s=float(getattr(res, "wall_s", 0.0) or 0.0),
        reason=valid_text(str(getattr(res, "reason", "") or "")),
        images=records,
        other_files=others,
    )
    return ex, images


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def summary(executions: list[Mapping]) -> dict:
    """Counts over one item's executions (for the per-task metrics)."""
    statuses = [str(e.get("status")) for e in executions]
    return {
        "executions": len(statuses),
        "execution_errors": sum(s != "ok" for s in statuses),
        "timeouts": sum(s == "timeout" for s in statuses),
        "sandbox_errors": sum(s == "sandbox_error" for s in statuses),
    }
