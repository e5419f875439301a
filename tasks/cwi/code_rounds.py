"""The round protocol of the ``cwi_code_<task>`` tasks, as plain functions (no lmms-eval import).

One round: the model replies; an ``<answer>`` span ends the loop; otherwise the reply's last fenced
Python block is run in the sandbox (utils/sandbox/) in a folder holding the item's images, and
its exit status, stdout, stderr and saved images become the next turn. A reply with neither code
nor an answer ends the loop, and so does the last allowed round.

Everything a later round needs travels in a JSON-able ``state`` dict (lmms-eval hands it back as
``previous_round_info``), so the sample log can hold the whole trace.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Mapping
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

# A fence opens at the start of a line with ``` and a language tag (or none) and closes at the next
# line that is only ```. Non-greedy and anchored at line starts: linear on any input.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
_PYTHON_TAGS = {"python", "py", "python3", "py3"}


def extract_code(text: str) -> str | None:
    """The last fenced block tagged python/py (or untagged) in ``text``; None when there is none.

    Untagged blocks count because many models omit the tag; blocks tagged with another language
    (```text, ```json, ```bash) are not Python and are skipped.
    """
    last = None
    for m in _FENCE.finditer(text or ""):
        tag = m.group(1).lower()
        if tag in _PYTHON_TAGS or tag == "":
            last = m.group(2)
    if last is None or not last.strip():
        return None
    return last


def generation_failed(text: Any) -> bool:
    """The reply is a wrapper's failure marker, or empty: the model side failed, nothing to run."""
    from lmms_plugins.utils.generation_failure import detect

    return detect(text) is not None


def without_code(text: str) -> str:
    """``text`` with its fenced blocks removed (code may spell ``<answer>`` in a string)."""
    return _FENCE.sub("", text or "")


def has_answer(text: str) -> bool:
    """An ``<answer>`` span outside the fenced blocks."""
    return find_span(without_code(text)) is not None


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
    images: list = field(default_factory=list)  # [{"name", "size": [w, h], "thumb": data URI}] of images the code saved
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
    im = image.copy()
    if im.mode not in ("RGB", "L", "RGBA"):
        im = im.convert("RGB")
    im.thumbnail((px, px))
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def decode_images(files: Mapping[str, bytes], inputs: Mapping[str, bytes], max_images: int, max_pixels: int):
    """(images [(name, PIL)], image records, other-file records) from the files the code saved.

    A file equal to an input image is not new. Images are taken in name order, at most
    ``max_images``; the others are listed by name, with why they were not shown.
    """
    from lmms_plugins.utils.images import load_rgb_bytes

    images, records, others = [], [], []
    for name in sorted(files):
        data = files[name]
        if inputs.get(name) == data:
            continue
        if not name.lower().endswith(IMAGE_SUFFIXES):
            others.append({"name": name, "bytes": len(data)})
            continue
        if len(images) >= max_images:
            others.append({"name": name, "bytes": len(data), "why": f"only {max_images} images are sent back per round"})
            continue
        try:  # bounded memory (mode-aware, from the header) and truncation checks: the model wrote it
            im = load_rgb_bytes(data, name=name, max_pixels=max_pixels)
        except Exception as exc:  # noqa: BLE001 - a file the model wrote can be anything
            others.append({"name": name, "bytes": len(data), "why": f"not a readable image: {type(exc).__name__}: {exc}"})
            continue
        images.append((name, im))
        records.append({"name": name, "size": list(im.size), "thumb": thumbnail_uri(im)})
    return images, records, others


def execution_from_result(round_idx: int, code: str, res, inputs: Mapping[str, bytes], *, max_chars: int,
                          max_images: int, max_pixels: int) -> tuple[Execution, list]:
    """An :class:`Execution` record (and the decoded images) from a sandbox ``ExecResult``."""
    stdout_raw = res.stdout or ""
    stderr_raw = res.stderr or ""
    stdout, cut_out = cut(stdout_raw, max_chars, "head")
    stderr, cut_err = cut(stderr_raw, max_chars, "tail")
    images, records, others = decode_images(dict(res.files or {}), inputs, max_images, max_pixels)
    ex = Execution(
        round=round_idx,
        code=code,
        status=str(res.status),
        exit_code=res.exit_code,
        stdout=stdout,
        stderr=stderr,
        stdout_chars=len(stdout_raw),
        stderr_chars=len(stderr_raw),
        truncated=bool(getattr(res, "stdout_truncated", False) or getattr(res, "stderr_truncated", False)) or cut_out or cut_err,
        wall_s=float(res.wall_s or 0.0),
        reason=str(getattr(res, "reason", "") or ""),
        images=records,
        other_files=others,
    )
    return ex, images


def summary(executions: list[Mapping]) -> dict:
    """Counts over one item's executions (for the per-task metrics)."""
    statuses = [str(e.get("status")) for e in executions]
    return {
        "executions": len(statuses),
        "execution_errors": sum(s != "ok" for s in statuses),
        "timeouts": sum(s == "timeout" for s in statuses),
        "sandbox_errors": sum(s == "sandbox_error" for s in statuses),
    }
