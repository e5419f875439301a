"""#16.7: the doc_hash lmms-eval logs for this package's tasks names what the model was given.

lmms-eval 0.7.3 hashes ``str(Instance.doc)``; the request doc's text carries a fingerprint of the
doc's content (lmms_plugins/doc_fingerprint.py), so compare can tell another dataset apart."""

from __future__ import annotations

import hashlib
import json
import shutil
from types import SimpleNamespace

from PIL import Image

from lmms_plugins import compare as C
from lmms_plugins.doc_fingerprint import doc_fingerprint
from lmms_plugins.request_docs import RequestDoc


def _maze(path, colour):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (40, 40), colour).save(path)


def test_same_files_in_another_folder_hash_alike_and_other_files_do_not(tmp_path):
    a, b, c = tmp_path / "a" / "dod", tmp_path / "b" / "dod", tmp_path / "c" / "dod"
    _maze(a / "image" / "m-001-A.png", (10, 20, 30))
    shutil.copytree(a, b)  # the same data, another folder
    _maze(c / "image" / "m-001-A.png", (10, 20, 31))  # another maze set: same names, other pixels

    def doc(root):
        return {"case_id": "m-001-feasible", "input_image": "image/m-001-A.png", "prompt_en": "Draw the path.", "dod_root": str(root)}

    assert doc_fingerprint(doc(a)) == doc_fingerprint(doc(b)) != doc_fingerprint(doc(c))
    # a raw doc (no folder in it): the relative path is looked up under the benchmark's data root
    raw = {k: v for k, v in doc(a).items() if k != "dod_root"}
    assert doc_fingerprint(raw, [a]) == doc_fingerprint(raw, [b]) != doc_fingerprint(raw, [c])
    # absolute image paths (GRADE) are hashed by their files too
    assert doc_fingerprint({"gt": str(a / "image" / "m-001-A.png")}) == doc_fingerprint({"gt": str(b / "image" / "m-001-A.png")})
    # the text counts
    assert doc_fingerprint({**doc(a), "prompt_en": "Draw it."}) != doc_fingerprint(doc(a))


def test_decoded_images_hash_by_their_pixels():
    one, same, other = Image.new("RGB", (8, 8), (1, 2, 3)), Image.new("RGB", (8, 8), (1, 2, 3)), Image.new("RGB", (8, 8), (1, 2, 3))
    other.putpixel((4, 4), (9, 9, 9))
    assert doc_fingerprint({"id": "x", "image": one}) == doc_fingerprint({"id": "x", "image": same})
    assert doc_fingerprint({"id": "x", "image": one}) != doc_fingerprint({"id": "x", "image": other})
    assert doc_fingerprint({"image": {"bytes": b"png-a", "path": None}}) != doc_fingerprint({"image": {"bytes": b"png-b", "path": None}})


def test_request_doc_text_carries_the_fingerprint_and_old_hashes_are_not_trusted():
    task = SimpleNamespace(config=SimpleNamespace(task="cwi_alignment"), doc_to_visual=lambda d: [],
                           dataset={"test": [{"id": "alignment_test_0000", "answer": "3,4", "image": Image.new("RGB", (4, 4))}]})
    text = repr(RequestDoc(task, "test", 0, "prompt"))
    fp = doc_fingerprint(task.dataset["test"][0])
    assert text == f"RequestDoc(task='cwi_alignment', split='test', doc_id=0, content={fp})"
    task.dataset["test"][0]["answer"] = "5,4"
    assert repr(RequestDoc(task, "test", 0, "prompt")) != text
    # what lmms-eval 0.7.3 logged before the fingerprint: task, split and index only -> paired by id, said so
    old = "RequestDoc(task='cwi_alignment', split='test', doc_id=0)"
    legacy = hashlib.sha256(json.dumps(old, indent=2, ensure_ascii=False).encode()).hexdigest()
    assert C.sample_inputs({"doc_id": 0, "doc_hash": legacy}, "cwi_alignment", ["test"]).doc_hash is None
    assert C.sample_inputs({"doc_id": 0, "doc_hash": "ab" * 32}, "cwi_alignment", ["test"]).doc_hash == "ab" * 32
