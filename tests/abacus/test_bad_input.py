"""Bad model outputs and bad samples: a recorded status and a defined score, never an exception."""

import numpy as np
import pytest

from lmms_plugins.tasks.abacus import synthetic as syn
from lmms_plugins.tasks.abacus.scoring import evaluate


def _eval(scene, detector, edit, **kw):
    args = dict(operation="add", count=1, category="sports ball")
    args.update(kw)
    return evaluate(scene.image, edit, detector=detector, **args)


@pytest.fixture(scope="module")
def good_edit(scene):
    return syn.synthetic_edit(scene, "add", 1, category="sports ball", rng=np.random.default_rng(5)).image


def test_same_aspect_other_size_is_resized_and_scored_ok(scene, detector, good_edit):
    import cv2

    big = cv2.resize(good_edit, (1024, 768), interpolation=cv2.INTER_NEAREST)
    r = _eval(scene, detector, big)
    assert r.status == "ok" and "resized" in r.why
    assert (r.cf, r.oc) == (1.0, 1.0) and r.sc > 0.95


def test_other_aspect_is_recorded_and_scored(scene, detector, good_edit):
    import cv2

    square = cv2.resize(good_edit, (512, 512), interpolation=cv2.INTER_NEAREST)
    r = _eval(scene, detector, square)
    assert r.status == "aspect_mismatch"
    assert r.cf == 1.0 and 0.0 <= r.score <= 1.0


def test_grayscale_and_rgba_edits_are_read(scene, detector, good_edit):
    gray = good_edit.mean(axis=2).astype(np.uint8)
    r = _eval(scene, detector, gray)
    assert r.status == "ok" and "grayscale" in r.why
    assert r.cf == 0.0  # colour-coded objects vanish in gray: the test backend sees none
    rgba = np.dstack([good_edit, np.full(good_edit.shape[:2], 255, np.uint8)])
    r = _eval(scene, detector, rgba)
    assert r.status == "ok" and "RGBA" in r.why and (r.cf, r.oc) == (1.0, 1.0)


def test_blank_edit(scene, detector):
    r = _eval(scene, detector, np.full((384, 512, 3), 128, np.uint8))
    assert r.status == "blank_image"
    assert r.cf == 0.0 and r.oc == 0.0 and r.score == 0.0 and r.sc < 0.5


def test_no_image_scores_zero_with_status(scene, detector):
    r = _eval(scene, detector, None)
    assert r.status == "missing_image" and (r.cf, r.sc, r.oc, r.score) == (0.0, 0.0, 0.0, 0.0)
    r = _eval(scene, detector, None, edit_status="bad_image", edit_why="truncated PNG")
    assert r.status == "bad_image" and r.why == "truncated PNG"


def test_unknown_category_is_pending(scene, detector, good_edit):
    r = _eval(scene, detector, good_edit, category="giraffe")
    assert r.status == "unknown_category" and r.score is None and "giraffe" in r.why


def test_backend_that_raises_is_recorded(scene, good_edit):
    from lmms_plugins.tasks.abacus.detectors import Detector

    class Boom:
        name, categories = "boom", frozenset({"sports ball"})

        def detect_all(self, image):
            raise RuntimeError("weights file truncated")

    r = evaluate(scene.image, good_edit, operation="add", count=1, category="sports ball", detector=Detector(Boom()))
    assert r.status == "detector_error" and r.score is None and "weights file truncated" in r.why


@pytest.mark.parametrize("kw,status", [
    (dict(count=None), "missing_data"),
    (dict(count="three"), "missing_data"),
    (dict(operation="rotate"), "missing_data"),
    (dict(category=None), "missing_data"),
    (dict(operation="change", category=None), "missing_data"),
])
def test_bad_samples_are_missing_data(scene, detector, good_edit, kw, status):
    r = _eval(scene, detector, good_edit, **kw)
    assert r.status == status and r.score is None


def test_tiny_edit_is_scored(detector):
    src = np.random.default_rng(0).integers(0, 256, (12, 9, 3)).astype(np.uint8)
    r = evaluate(src, src.copy(), operation="add", count=1, category="kite", detector=detector)
    assert r.status == "ok" and r.cf == 0.0 and r.sc == pytest.approx(1.0)
