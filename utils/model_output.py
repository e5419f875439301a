"""One parser for what image-producing lmms-eval models return.

Seen in lmms-eval 0.7.3 wrappers: ``json.dumps({"text": ..., "images": [paths]})``; a bare string
when no image was made; ``"Generated image saved to: <path>"``; and, from broken wrappers, bytes
that are not UTF-8, JSON without ``images``, or paths that do not exist. :func:`parse_model_output`
accepts all of them and says what was wrong instead of raising.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from lmms_plugins.utils.image_dirs import allowed_image_dirs, is_allowed, refusal_reason
from lmms_plugins.utils.utf8 import has_surrogates, valid_text

_SAVED_PREFIX = "generated image saved to:"

# Codes of the problems a scorer decides on (``ModelOutput.issues``: (code, words) pairs); the words
# are for people and may change, the codes do not.
NO_OUTPUT = "no_output"  # the output is None
NOT_TEXT = "not_text"  # the output is some other object, read through str()
BROKEN_JSON = "broken_json"  # it looks like JSON but does not parse
MODEL_ERROR = "model_error"  # the wrapper's JSON carries an "error"
IMAGE_MISSING = "image_missing"  # a named image file does not exist
IMAGE_REFUSED = "image_refused"  # a named image lies outside the allowed folders (never opened)


@dataclass(frozen=True)
class ModelOutput:
    text: str  # the model's text (reasoning and final text), "" if none
    images: tuple[str, ...]  # image paths that exist, in the model's order
    missing: tuple[str, ...] = ()  # image paths the model named that cannot be used: absent, or refused
    problems: tuple[str, ...] = ()  # what was wrong with the raw output, in words
    refused: tuple[str, ...] = ()  # the paths of ``missing`` outside the allowed folders (never opened)
    issues: tuple[tuple[str, str], ...] = ()  # (code, words) of the problems above that have a code

    def issue_words(self, *codes: str) -> list[str]:
        """The words of the problems with one of ``codes`` (for a status reason)."""
        return [words for code, words in self.issues if code in codes]

    @property
    def has_image(self) -> bool:
        return bool(self.images)

    @property
    def image(self) -> str | None:
        return self.images[0] if self.images else None


def _as_text(raw) -> tuple[str, list[str]]:
    if raw is None:
        return "", [(NO_OUTPUT, "output is None")]
    if isinstance(raw, (bytes, bytearray)):
        try:
            return bytes(raw).decode("utf-8"), []
        except UnicodeDecodeError:
            return bytes(raw).decode("utf-8", errors="replace"), ["output is not valid UTF-8 (undecodable bytes replaced)"]
    if isinstance(raw, dict):
        try:
            return json.dumps(raw), []
        except (TypeError, ValueError, RecursionError) as exc:  # not JSON-able, or nested too deeply
            return "", [f"output is a dict that cannot be read as JSON ({type(exc).__name__})"]
    if not isinstance(raw, str):
        try:
            return str(raw), [(NOT_TEXT, f"output is a {type(raw).__name__}, not a string")]
        except Exception as exc:  # noqa: BLE001 - an object whose str() fails is junk, not a crash
            return "", [f"output is a {type(raw).__name__} that cannot be turned into text ({type(exc).__name__})"]
    return raw, []


def _dumps(value) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return str(type(value).__name__)


def _image_list(value, problems: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict) and isinstance(item.get("path"), str):
                out.append(item["path"])
            else:
                problems.append(f"ignored an image entry that is not a path: {_dumps(item)[:80]!r}")
        return out
    problems.append(f"'images' is a {type(value).__name__}, not a list of paths")
    return []


def parse_model_output(raw, *, base_dir: str | None = None) -> ModelOutput:
    """Text and existing image paths of one model output. Never raises.

    ``base_dir`` resolves relative image paths (e.g. the folder of a replay file).
    """
    text, problems = _as_text(raw)  # problems: words, or (code, words)
    if "\x00" in text:
        problems.append("output contains NUL bytes (removed)")
        text = text.replace("\x00", "")
    paths: list[str] = []
    stripped = text.strip()
    payload = None
    if stripped.startswith("{"):
        try:
            payload = json.loads(stripped)
        except ValueError:
            problems.append((BROKEN_JSON, "output looks like JSON but does not parse; read as plain text"))
        except RecursionError:  # json recurses per bracket: thousands of them are junk, not a crash
            problems.append((BROKEN_JSON, "output looks like JSON but does not parse (nested too deeply); read as plain text"))
    if isinstance(payload, dict):
        body = payload.get("text", "")
        text = body if isinstance(body, str) else _dumps(body)
        if "images" not in payload:
            problems.append("JSON output has no 'images' field")
        paths = _image_list(payload.get("images"), problems)
        if isinstance(payload.get("error"), str) and payload["error"]:
            problems.append((MODEL_ERROR, f"model reported: {payload['error']}"))
    elif stripped[: len(_SAVED_PREFIX)].lower() == _SAVED_PREFIX:  # not .lower() of the whole output
        # "Generated image saved to: <path>" (one wrapper's format); the rest of the line is the path
        first, _, rest = stripped.partition("\n")
        paths = [first[len(_SAVED_PREFIX):].strip()]
        text = rest.strip()
    existing, missing, refused = [], [], []
    dirs = allowed_image_dirs() if paths else ()
    for path in paths:
        full = path if (os.path.isabs(path) or base_dir is None) else os.path.join(base_dir, path)
        if path and not is_allowed(full, dirs):  # confined: /etc/passwd is never opened
            refused.append(full)
            problems.append((IMAGE_REFUSED, refusal_reason(full, dirs)))
        elif path and os.path.isfile(full):
            existing.append(full)
        else:
            missing.append(full)
            problems.append((IMAGE_MISSING, f"image path does not exist: {full}"))
    if has_surrogates(text):  # a model's "\ud800" escape: such text cannot be written as UTF-8
        problems.append("output text has lone UTF-16 surrogates (replaced by U+FFFD)")
        text = valid_text(text)
    # a problem is its words, or (code, words) when a scorer decides on it
    issues = tuple((p[0], valid_text(p[1])) for p in problems if isinstance(p, tuple))
    words = tuple(valid_text(p[1] if isinstance(p, tuple) else p) for p in problems)
    return ModelOutput(text=text, images=tuple(existing), missing=tuple(missing + refused),
                       problems=words, refused=tuple(refused), issues=issues)
