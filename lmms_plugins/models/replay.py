"""``replay``: an lmms-eval model that answers from outputs computed elsewhere.

For people who already ran an API model, or the official inference code, and want scores
without running anything again::

    lmms-eval --model replay --model_args outputs=run.jsonl,images=out_images/ --tasks dod_no_hint

``outputs`` is a JSONL file, one object per sample: ``text`` (the model's text) and ``image`` (a
path, or ``images``: a list), identified by ``key`` (the value of the doc's id field, e.g. a DoD
``case_id``), or by ``doc_id`` (the sample's index in the task, optionally with ``task``).
Relative image paths are relative to the JSONL file. ``images`` is a folder of images named
``<key>.<png|jpg|jpeg|webp>`` (or ``<task>/<key>.<ext>``), used for samples whose row names no
image, or with no JSONL at all. ``key_field`` chooses the doc field (default: the first of
``key, case_id, id, task_id, sample_id`` that the doc has).

Every line is checked when the model is made, before any request: a line that is not a JSON
object, a ``doc_id`` that is not a non-negative integer (``0.7`` is an error, never read as 0), a
``key``, ``task``, ``image`` or ``images`` of the wrong type, or a second line for the same sample
stops the run with an error naming the file and the line.

A sample with no recorded output, or whose image file is missing, is not fatal: the model
answers ``{"text": "", "images": [], "error": "..."}``, a warning names the sample, and the
task records it with a per-sample status (``missing_image`` / ``unparsable``).
"""

from __future__ import annotations

import json
from pathlib import Path

from loguru import logger

from lmms_eval.api.model import lmms

from lmms_plugins.models import OnCPU
from lmms_plugins.utils.jsonl import iter_jsonl

KEY_FIELDS = ("key", "case_id", "id", "task_id", "sample_id")
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".webp")


class ReplayFileError(ValueError):
    """A line of the replay file that cannot be used; the message names the file and the line."""


def _doc_id(value, where: str) -> int:
    """A doc index: a non-negative integer (``3`` or ``3.0``); 0.7, "3", true are errors, never rounded."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReplayFileError(f"{where}: 'doc_id' must be a non-negative integer, got {type(value).__name__} {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise ReplayFileError(f"{where}: 'doc_id' must be a non-negative integer, got {value!r}")
    if value < 0:
        raise ReplayFileError(f"{where}: 'doc_id' must be a non-negative integer, got {value!r}")
    return int(value)


def check_row(row, where: str) -> dict:
    """The row if every field the replay reads has a usable type; ReplayFileError (file:line) otherwise."""
    if not isinstance(row, dict):
        raise ReplayFileError(f"{where}: each line must be a JSON object, got {type(row).__name__}")
    if not ({"key", "doc_id"} & row.keys()):
        raise ReplayFileError(f"{where}: each line needs 'key' or 'doc_id'")
    if "key" in row and (isinstance(row["key"], bool) or not isinstance(row["key"], (str, int)) or row["key"] == ""):
        raise ReplayFileError(f"{where}: 'key' must be a non-empty string or an integer, got {row['key']!r}")
    if "doc_id" in row:
        _doc_id(row["doc_id"], where)
    if "task" in row and not isinstance(row["task"], str):
        raise ReplayFileError(f"{where}: 'task' must be a string, got {type(row['task']).__name__}")
    if row.get("image") is not None and not (isinstance(row["image"], str) and row["image"]):
        raise ReplayFileError(f"{where}: 'image' must be a path (a non-empty string), got {type(row['image']).__name__} {row['image']!r}"[:300])
    images = row.get("images")
    if images is not None and not isinstance(images, str) and not (
            isinstance(images, list) and all(isinstance(p, str) and p for p in images)):
        raise ReplayFileError(f"{where}: 'images' must be a path or a list of paths (non-empty strings), got {images!r}"[:300])
    return row


def load_outputs(path: Path) -> tuple[dict, dict, dict]:
    """Index a replay JSONL by key, by (task, doc_id) and by doc_id. Every line is checked here,
    before any request: a bad line (not JSON, a field of the wrong type, a second line for the same
    sample) is a ReplayFileError naming the file and the line."""
    by_key, by_task_doc, by_doc = {}, {}, {}
    seen: dict = {}
    for number, row in iter_jsonl(path, error=ReplayFileError):
        where = f"{path}:{number}"
        check_row(row, where)
        ids = []
        if "key" in row:
            ids.append(("key", str(row["key"])))
            by_key[str(row["key"])] = row
        if "doc_id" in row:
            doc_id = _doc_id(row["doc_id"], where)
            if "task" in row:
                ids.append(("task doc_id", (row["task"], doc_id)))
                by_task_doc[(row["task"], doc_id)] = row
            else:
                ids.append(("doc_id", doc_id))
                by_doc[doc_id] = row
        for ident in ids:
            if ident in seen:
                raise ReplayFileError(f"{where}: {ident[0]} {ident[1]!r} was already given on line {seen[ident]}")
            seen[ident] = number
    return by_key, by_task_doc, by_doc


class Replay(OnCPU, lmms):
    def __init__(self, outputs: str = "", images: str = "", key_field: str = "", **kwargs) -> None:
        super().__init__()
        if not outputs and not images:
            raise ValueError("replay needs model_args outputs=<file.jsonl> and/or images=<folder>")
        self.outputs_path = Path(outputs).expanduser().resolve() if outputs else None
        self.images_dir = Path(images).expanduser().resolve() if images else None
        if self.outputs_path is not None and not self.outputs_path.is_file():
            raise FileNotFoundError(f"replay: outputs file not found: {self.outputs_path}")
        if self.images_dir is not None and not self.images_dir.is_dir():
            raise FileNotFoundError(f"replay: images folder not found: {self.images_dir}")
        self.key_field = key_field
        empty = ({}, {}, {})
        self.by_key, self.by_task_doc, self.by_doc = load_outputs(self.outputs_path) if self.outputs_path else empty
        self.problems: list[str] = []

    # --- lookup -----------------------------------------------------------------------------

    def _doc_key(self, doc) -> str | None:
        fields = (self.key_field,) if self.key_field else KEY_FIELDS
        for field in fields:
            if isinstance(doc, dict) and doc.get(field) not in (None, ""):
                return str(doc[field])
        return None

    def _image_in_folder(self, task: str, key: str | None) -> str | None:
        if self.images_dir is None or key is None:
            return None
        for folder in (self.images_dir / task, self.images_dir):
            for ext in IMAGE_EXTS:
                candidate = folder / f"{key}{ext}"
                if candidate.is_file():
                    return str(candidate)
        return None

    def answer(self, task: str, doc_id: int, doc) -> str:
        key = self._doc_key(doc)
        row = (self.by_key.get(key) if key is not None else None) or self.by_task_doc.get((task, doc_id)) or self.by_doc.get(doc_id)
        where = f"{task} doc {doc_id}" + (f" (key {key})" if key else "")
        if row is None:
            folder_image = self._image_in_folder(task, key)
            if folder_image is None:
                return self._fail(where, "no recorded output for this sample")
            return json.dumps({"text": "", "images": [folder_image]})
        text = row.get("text", "")
        images = row.get("images") if row.get("images") is not None else ([row["image"]] if row.get("image") else [])
        if isinstance(images, str):
            images = [images]
        base = self.outputs_path.parent if self.outputs_path else Path.cwd()
        paths = [str(p if Path(p).is_absolute() else base / p) for p in images]
        if not paths:
            folder_image = self._image_in_folder(task, key)
            paths = [folder_image] if folder_image else []
        missing = [p for p in paths if not Path(p).is_file()]
        payload = {"text": text if isinstance(text, str) else json.dumps(text), "images": paths}
        if missing:
            message = f"recorded image file(s) missing: {', '.join(missing)}"
            self.problems.append(f"{where}: {message}")
            logger.warning(f"replay: {where}: {message}")
            payload["error"] = message
        return json.dumps(payload)

    def _fail(self, where: str, why: str) -> str:
        self.problems.append(f"{where}: {why}")
        logger.warning(f"replay: {where}: {why}")
        return json.dumps({"text": "", "images": [], "error": why})

    # --- lmms-eval interface ----------------------------------------------------------------

    def generate_until(self, requests) -> list[str]:
        answers = []
        for request in requests:
            _context, _gen_kwargs, _doc_to_visual, doc_id, task, split = request.args
            try:
                doc = self.task_dict[task][split][doc_id]
            except Exception:  # the doc is only needed for its key
                doc = None
            answers.append(self.answer(task, int(doc_id), doc))
        if self.problems:
            logger.warning(f"replay: {len(self.problems)} of {len(requests)} samples had no usable recorded output")
        return answers

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("replay answers generation tasks only (it has no log-likelihoods)")
