"""Which logged samples two runs can be compared on: the same sample id and the same inputs
(lmms-eval's ``doc_hash``, which for this package's tasks fingerprints the doc's content)."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from lmms_plugins.runs import LM_EVAL, LMMS_EVAL, TaskResult, sample_key


@dataclass(frozen=True)
class SampleInputs:
    """What a logged sample's model was given, comparable across runs."""

    doc_hash: str | None  # the harness's sha256 of the whole doc (image columns included)
    visible: dict  # the parts of it the samples file shows: prompt, target, input images
    harness: str = LMMS_EVAL  # whose doc_hash it is: lmms-eval and lm-eval hash different texts


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


NULL_DOC_HASH = _sha(json.dumps(None))  # lmms-eval 0.7.3's own requests: Instance.doc is None


def _contentless_hashes(task: str, doc_id: Any, splits: list[str]) -> set[str]:
    """The doc_hash values that name no content: a request without doc (plain lmms-eval), and this
    package's request docs before they carried a fingerprint (task, split and index only)."""
    return {NULL_DOC_HASH} | {_sha(json.dumps(f"RequestDoc(task={task!r}, split={s!r}, doc_id={doc_id})", indent=2,
                                              ensure_ascii=False)) for s in splits}


# the memory address in the str() of an object without a JSON form, as lm-eval logs it:
# "<PIL.PngImagePlugin.PngImageFile image mode=RGB size=64x64 at 0x7F3A2C1D0E50>"
_OBJECT_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+(?=>)")


def lm_eval_doc_hash(doc: Any) -> str:
    """sha256 of the doc an lm-eval samples line logs, without the memory addresses in it."""
    return _sha(_OBJECT_ADDRESS.sub("", json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)))


def sample_inputs(line: dict, task: str = "", splits: list[str] | tuple = (), harness: str = LMMS_EVAL) -> SampleInputs:
    """The inputs of one logged sample. lmms-eval 0.7.3 writes ``doc_hash``: sha256 of the
    request's doc as JSON text; for this package's tasks that text holds a fingerprint of the
    doc's content (lmms_plugins/doc_fingerprint.py: images by their pixels or file bytes, folder
    paths left out), so the same id in another dataset hashes differently and the same data in
    another folder alike. A hash that names no content is not used (None).

    lm-eval's ``doc_hash`` is the sha256 of the doc's JSON text, where an object without a JSON
    form (a PIL image) appears as its ``str()`` with a memory address that changes from run to
    run; lm-eval also logs the doc (``doc``). For lm-eval lines the hash is taken of that logged
    doc with the addresses removed: every field, an image by what its ``str()`` shows."""
    visible = {"prompt": line.get("input"), "target": line.get("target"), "input images": line.get("input_media")}
    if harness == LM_EVAL and line.get("doc") is not None:
        return SampleInputs(lm_eval_doc_hash(line["doc"]), visible, harness)
    h = line.get("doc_hash")
    if not (isinstance(h, str) and h) or h in _contentless_hashes(task, line.get("doc_id"), list(splits)):
        h = None
    return SampleInputs(h, visible, harness)


def inputs_of(tr: TaskResult) -> dict[str, SampleInputs]:
    """sample key -> its inputs, for a task's logged samples (computed once per task)."""
    if tr.inputs is None:
        splits = [s for s in (tr.config.get("test_split"), tr.config.get("validation_split"), "test", "validation", "train") if s]
        splits = list(dict.fromkeys(splits))
        tr.inputs = {sample_key(line): sample_inputs(line, tr.task, splits, tr.harness) for line in tr.samples or []}
    return tr.inputs


@dataclass(frozen=True)
class Pairing:
    keys: list  # the sample keys both runs scored on the same inputs
    shared_ids: int  # keys both runs scored
    dropped: int  # shared ids whose inputs differ
    differing: tuple  # what differs, most frequent first ("prompt", "input images", ...)
    unchecked: int  # shared ids kept without a check (no doc_hash, or one that names no content)
    cross_harness: int = 0  # shared ids of an lm-eval and an lmms-eval run, kept because their targets agree


HIDDEN_DIFFERENCE = "doc fields the samples file does not show (image content, other fields)"


def pair_samples(ta: TaskResult, tb: TaskResult, va: dict, vb: dict) -> Pairing:
    """The samples two runs can be compared on: the same id and the same ``doc_hash``. An lm-eval and
    an lmms-eval run hash different texts (the doc itself, this package's fingerprint of it), and
    show the prompt differently: their samples are paired by id and kept when the targets agree."""
    ia, ib = inputs_of(ta), inputs_of(tb)
    keys, dropped, unchecked, crossed, what = [], 0, 0, 0, Counter()
    shared = sorted(set(va) & set(vb))
    for k in shared:
        a, b = ia.get(k), ib.get(k)
        if a is not None and b is not None and a.harness != b.harness:
            if str(a.visible["target"]) == str(b.visible["target"]):
                crossed += 1
                keys.append(k)
            else:
                dropped += 1
                what.update(["target"])
        elif a is None or b is None or a.doc_hash is None or b.doc_hash is None:
            unchecked += 1
            keys.append(k)
        elif a.doc_hash == b.doc_hash:
            keys.append(k)
        else:
            dropped += 1
            diff = [f for f in a.visible if a.visible[f] != b.visible[f]]
            what.update(diff or [HIDDEN_DIFFERENCE])
    return Pairing(keys, len(shared), dropped, tuple(f for f, _ in what.most_common()), unchecked, crossed)
