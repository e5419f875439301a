"""The synthetic local dataset in the hub layout, read back with `datasets`, scored by the hooks."""

import json

import pytest

from lmms_plugins.tasks.abacus import hooks
from lmms_plugins.tasks.abacus import synthetic as syn
from lmms_plugins.tasks.abacus.aggregate import leaderboard
from lmms_plugins.utils.jsonl import read_jsonl

CARD_COLUMNS = {"image", "image_id", "coco_split", "prompt", "count"}


def _write(tmp_path_factory, fault, n=1, seed=0):
    out = tmp_path_factory.mktemp(f"abacus_{fault}")
    assert syn.main(["--out", str(out), "--n", str(n), "--seed", str(seed), "--edits", fault]) == 0
    return out


# the settings a task class hands the scorer (the default detector, rfdetr, is an optional extra)
SYN = {"detector": "synthetic_test", "flow": "dis"}


def _docs(root, op, tier):
    import datasets

    ds = datasets.load_dataset(str(root), op, split=tier)
    return getattr(hooks, f"process_docs_{op}")(ds)


@pytest.fixture(scope="module")
def touch_root(tmp_path_factory):
    return _write(tmp_path_factory, "touch", n=2)


def test_hub_layout_loads_with_the_cards_columns(touch_root):
    import datasets

    for op in ("add", "remove", "change"):
        for tier in ("easy", "medium", "hard"):
            ds = datasets.load_dataset(str(touch_root), op, split=tier)
            extra = {"source_category", "target_category"} if op == "change" else {"category"}
            assert set(ds.column_names) == CARD_COLUMNS | extra
            assert len(ds) == 2 and ds[0]["image"].mode == "RGB"
            assert ds[0]["prompt"].split()[0].lower() == op


def _score_all(root):
    truth = {(t["task"], t["doc_id"]): t for t in read_jsonl(root / "truth.jsonl")}
    replay = {(r["task"], r["doc_id"]): r for r in read_jsonl(root / "replay.jsonl")}
    for op in ("add", "remove", "change"):
        for tier in ("easy", "medium", "hard"):
            for i, doc in enumerate(_docs(root, op, tier)):
                key = (f"abacus_{op}_{tier}", i)
                raw = json.dumps({"text": "", "images": [str(root / replay[key]["image"])]})
                yield doc, truth[key], hooks.process_results(doc, [raw], SYN)


@pytest.mark.parametrize("fault", ["touch", "delete", "plus1", "minus1"])
def test_each_fault_moves_its_factor_by_the_documented_amount(tmp_path_factory, monkeypatch, fault, touch_root):
    root = touch_root if fault == "touch" else _write(tmp_path_factory, fault, n=1, seed=3)
    for doc, truth, res in _score_all(root):
        lb = res["abacus_leaderboard"]
        assert lb["status"] == "ok", lb
        assert lb["n_pre_existing"] == truth["n_pre_existing"]
        assert lb["cf"] == pytest.approx(truth["cf"]) and lb["oc"] == pytest.approx(truth["oc"]), (truth, lb)
        assert lb["sc"] >= 0.999


def test_shift_fault_moves_sc_only(tmp_path_factory, monkeypatch):
    root = _write(tmp_path_factory, "shift", n=1, seed=5)
    for doc, truth, res in _score_all(root):
        lb = res["abacus_leaderboard"]
        assert (lb["cf"], lb["oc"]) == (1.0, 1.0) and lb["sc"] < 0.9, lb


def test_prompts():
    add = hooks.doc_to_text({"abacus_operation": "add", "prompt": "Add 4 persons to the scene."})
    assert add == ("Add 4 persons to the scene. Keep everything else exactly as-is: same background, lighting, colors, "
                   "composition, and camera angle. Do not alter, move, or remove existing objects. Only add the new "
                   "element in a realistic, naturally-placed position.")
    # a hub prompt that already carries the suffix is sent once
    assert hooks.doc_to_text({"abacus_operation": "add", "prompt": add}) == add
    rem = hooks.doc_to_text({"abacus_operation": "remove", "count": 2, "category": "boat"})
    assert rem.startswith("Remove 2 boats from the scene. Keep everything else exactly as-is") and "Only remove" in rem
    chg = hooks.doc_to_text({"abacus_operation": "change", "prompt": "Change 1 cat into dog."})
    assert chg.startswith("Change 1 cat into dog. Keep everything else exactly as-is") and "in place" in chg


def test_process_results_never_raises_and_records_status(touch_root, monkeypatch, tmp_path):
    doc = _docs(touch_root, "add", "easy")[0]
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    cases = {
        None: "generation_failed",  # no output at all: the request failed (issue 12), not a decision
        "I cannot edit images.": "missing_image",
        json.dumps({"text": "", "images": [str(tmp_path / "nope.png")]}): "missing_image",
        json.dumps({"text": "", "images": [str(broken)]}): "bad_image",
    }
    for raw, want in cases.items():
        res = hooks.process_results(doc, [raw], SYN)
        assert set(res) == set(hooks.METRICS)
        assert all(v["status"] == want for v in res.values()), (raw, res)
        assert res["abacus_score"]["value"] == 0.0 and res["abacus_exact_count"]["value"] == 0.0
    # a detector that cannot be built: recorded, pending
    ok_raw = json.dumps({"text": "", "images": [str(touch_root / "edits/abacus_add_easy/00000.png")]})
    res = hooks.process_results(doc, [ok_raw], {**SYN, "detector": "no_such_backend"})
    assert res["abacus_score"]["status"] == "detector_error" and res["abacus_score"]["value"] is None
    # a doc without its image is missing data, not an exception
    res = hooks.process_results({k: v for k, v in doc.items() if k != "image"}, [ok_raw], SYN)
    assert res["abacus_score"]["status"] == "missing_data"


def test_aggregations_on_hook_items(touch_root, monkeypatch):
    items = [r for _, _, r in _score_all(touch_root)]
    lb = hooks.aggregate_leaderboard([r["abacus_leaderboard"] for r in items])
    assert lb["n"] == 18 and lb["status_counts"] == {"ok": 18}
    assert lb["score"] == pytest.approx(lb["cf"] * lb["sc"] * lb["oc"])
    assert hooks.aggregate_score([r["abacus_score"] for r in items]) == pytest.approx(lb["score"])
    assert hooks.aggregate_conservation([r["abacus_conservation"] for r in items]) == pytest.approx(lb["oc"])
    assert "ci95" not in lb  # a short table row: the intervals come from leaderboard() / the CLI
    lo, hi = leaderboard([r["abacus_leaderboard"] for r in items]).ci95["oc"]
    assert lo <= lb["oc"] <= hi and lo < hi


def test_threads_give_the_same_scores_as_one_thread(touch_root, monkeypatch):
    """lmms-eval runs process_results in 4 threads: shared detector cache, DIS, drift must not mix."""
    from concurrent.futures import ThreadPoolExecutor

    cases = [(doc, json.dumps({"text": "", "images": [str(touch_root / f"edits/abacus_{op}_medium/{i:05d}.png")]}))
             for op in ("add", "remove", "change") for i, doc in enumerate(_docs(touch_root, op, "medium"))]
    one = [hooks.process_results(doc, [raw], SYN)["abacus_leaderboard"] for doc, raw in cases]
    with ThreadPoolExecutor(4) as pool:
        many = list(pool.map(lambda c: hooks.process_results(c[0], [c[1]], SYN)["abacus_leaderboard"], cases * 2))
    assert many == one + one


def test_source_image_column_fallback(touch_root):
    doc = dict(_docs(touch_root, "add", "easy")[0])
    doc["source_image"] = doc.pop("image")
    assert hooks.doc_to_visual(doc)[0].size == hooks.source_image(doc).size
    assert hooks.doc_to_visual({"prompt": "x"}) == []


def _decoding_docs(root, op, tier):
    import datasets

    return datasets.load_dataset(str(root), op, split=tier)  # the images decoded by `datasets`, as before


def test_the_visual_carries_its_stored_bytes_and_the_pixels_datasets_decodes(touch_root):
    import numpy as np

    from lmms_plugins.utils import images

    for op in ("add", "remove", "change"):
        docs, before = _docs(touch_root, op, "easy"), _decoding_docs(touch_root, op, "easy")
        for i, doc in enumerate(docs):
            stored = doc["image"]
            assert isinstance(stored, dict) and stored["bytes"][:8] == b"\x89PNG\r\n\x1a\n"
            (visual,) = hooks.doc_to_visual(doc)
            assert visual.mode == "RGB" and images.source_bytes(visual) == stored["bytes"]
            old = before[i]["image"]
            assert np.array_equal(np.asarray(visual), np.asarray(old.convert("RGB")))  # what the model saw
            assert np.array_equal(hooks._array(hooks.source_image(doc)), hooks._array(old))  # what scorers read


def test_an_image_not_stored_as_rgb_is_decoded_as_datasets_did(tmp_path):
    import io

    import numpy as np
    from PIL import Image

    from lmms_plugins.utils import images

    rgba = Image.new("RGBA", (8, 6), (10, 20, 30, 0))
    rgba.putpixel((1, 1), (200, 100, 50, 255))
    buf = io.BytesIO()
    rgba.save(buf, format="PNG")
    doc = {"image": {"bytes": buf.getvalue(), "path": None}}
    image = hooks.source_image(doc)
    assert image.mode == "RGBA" and not images.has_source(image)  # datasets' decoding, no stored bytes kept
    (visual,) = hooks.doc_to_visual(doc)
    assert images.source_bytes(visual) is None
    assert np.array_equal(np.asarray(visual), np.asarray(rgba.convert("RGB")))  # as before: alpha dropped, not composited


def test_a_truncated_stored_image_is_a_specific_error(touch_root):
    from lmms_plugins.utils.images import ImageCorrupt

    doc = dict(_docs(touch_root, "add", "easy")[0])
    doc["image"] = {"bytes": doc["image"]["bytes"][:-40], "path": None}
    with pytest.raises(ImageCorrupt):
        hooks.doc_to_visual(doc)


def test_verdicts_travel_as_a_report_overlay_on_one_metric(touch_root, monkeypatch, tmp_path):
    """The report draws every instance of the edit as kept / transformed / removed / added; the
    overlay's boxes agree with the counts the scoring used, and only one metric carries it."""
    from lmms_plugins import report

    for doc, truth, res in _score_all(touch_root):
        lb = res["abacus_leaderboard"]
        carriers = [m for m, item in res.items() if "overlay" in item]
        assert carriers == ["abacus_leaderboard"]
        shapes = lb["overlay"]["shapes"]
        for kind in ("kept", "transformed", "removed", "added"):
            assert sum(s["label"].startswith(kind) for s in shapes) == sum(v[kind] for v in lb["verdicts"].values())
        w, h = lb["overlay"]["size"]
        assert all(0 <= s["xyxy"][0] < s["xyxy"][2] <= w and 0 <= s["xyxy"][1] < s["xyxy"][3] <= h for s in shapes)
        assert report.overlays_of(res) == [lb["overlay"]]
        svg = report._svg(lb["overlay"], (w, h))
        assert svg.count('data-kind="box"') == len(shapes) > 0
        assert truth["n_pre_existing"] == sum(not s["label"].startswith("added") for s in shapes)


def test_a_request_docs_fingerprint_is_that_of_the_decoded_pixels_as_before(touch_root, monkeypatch):
    from types import SimpleNamespace

    from lmms_plugins.doc_fingerprint import doc_fingerprint
    from lmms_plugins.request_docs import RequestDoc

    monkeypatch.delenv("LMMS_PLUGINS_ABACUS_ROOT", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    docs = _docs(touch_root, "add", "easy")
    task = SimpleNamespace(config=SimpleNamespace(task="abacus_add_easy"), dataset={"easy": docs})
    assert isinstance(docs[1]["image"], dict)  # read undecoded
    decoding = _decoding_docs(touch_root, "add", "easy")
    before = doc_fingerprint(decoding.add_column("abacus_operation", ["add"] * len(decoding))[1])
    assert RequestDoc(task, "easy", 1, "p").fingerprint() == before
    assert doc_fingerprint(docs[1]) != before  # (the bytes alone would hash otherwise)
