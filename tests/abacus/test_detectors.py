import sys

import numpy as np
import pytest

from lmms_plugins.tasks.abacus import detectors as dm
from lmms_plugins.tasks.abacus import synthetic as syn


@pytest.mark.parametrize("bg", sorted(syn.BACKGROUNDS))
@pytest.mark.parametrize("recolor", [False, True])
def test_test_backend_sees_nothing_in_the_bare_photos(bg, recolor):
    photo = syn.render(syn.load_background(bg, (448, 320)), [], recolor=recolor)
    assert dm.SyntheticTestBackend().detect_all(photo) == []


def test_test_backend_finds_exactly_the_pasted_objects(scene):
    found = dm.SyntheticTestBackend().detect_all(scene.image)
    assert sorted(i.category for i in found) == sorted(o.category for o in scene.objects)
    for obj in scene.objects:
        box = next(i.box for i in found if i.category == obj.category and i.box[0] <= obj.cx < i.box[2] and i.box[1] <= obj.cy < i.box[3])
        truth = (obj.cx - obj.r, obj.cy - obj.r, obj.cx + obj.r + 1, obj.cy + obj.r + 1)
        assert dm.box_iou(box, truth) > 0.85  # the 3x3 opening trims sharp tips


def test_each_image_runs_through_the_backend_once(scene):
    det = dm.Detector(dm.SyntheticTestBackend())
    img = scene.image
    for cat in ("sports ball", "kite", "tv", "sports ball"):
        det.detect(img, cat)
    det.detect(img.copy(), "kite")  # same pixels, another array: still cached
    assert det.calls == 1
    det.detect(img[::-1].copy(), "kite")
    assert det.calls == 2


def test_unknown_category_is_a_specific_error(scene, detector):
    with pytest.raises(dm.UnknownCategory, match="giraffe"):
        detector.detect(scene.image, "giraffe")


class _DropFirst:
    """A second backend that misses the first instance of each category (for the consensus)."""

    name = "drop_first"

    def __init__(self):
        self.inner = dm.SyntheticTestBackend()
        self.categories = self.inner.categories

    def detect_all(self, image):
        out, seen = [], set()
        for inst in self.inner.detect_all(image):
            if inst.category in seen:
                out.append(inst)
            seen.add(inst.category)
        return out


def test_consensus_keeps_only_instances_both_backends_report(scene):
    a = dm.Detector(dm.SyntheticTestBackend())
    b = dm.Detector(_DropFirst())
    both = dm.Detector(dm.ConsensusBackend(a, b))
    got = both.detect_all(scene.image)
    assert len(got) == len(b.detect_all(scene.image)) == len(scene.objects) - 3
    assert all(g.mask is not None for g in got)
    agree = dm.Detector(dm.ConsensusBackend(a, dm.Detector(dm.SyntheticTestBackend())))
    assert len(agree.detect_all(scene.image)) == len(scene.objects)


def test_consensus_by_spec_string():
    det = dm.get_detector("synthetic_test+synthetic_test")
    assert det.name == "synthetic_test+synthetic_test"
    with pytest.raises(ValueError):
        dm.get_detector("a+b+c")
    with pytest.raises(ValueError, match="unknown detector backend"):
        dm.get_detector("nonsense")


def test_missing_rfdetr_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "rfdetr", None)  # import fails as if not installed
    with pytest.raises(dm.DetectorUnavailable, match=r'pip install "lmms-plugins\[detectors\]"'):
        dm.RFDETRBackend()


def test_a_failing_backend_becomes_detector_error(scene):
    class Boom:
        name, categories = "boom", frozenset({"kite"})

        def detect_all(self, image):
            raise RuntimeError("CUDA out of memory")

    with pytest.raises(dm.DetectorError, match="CUDA out of memory"):
        dm.Detector(Boom()).detect(scene.image, "kite")


def test_rfdetr_backend_converts_detections(monkeypatch, scene):
    """The RF-DETR adapter with a stand-in `rfdetr` module (the real one is an optional extra)."""
    import types

    class FakeDetections:
        xyxy = np.array([[10.0, 20.0, 50.0, 60.0], [5.0, 5.0, 9.0, 9.0]])
        confidence = np.array([0.9, 0.7])
        class_id = np.array([37, 1])

    class RFDETRLarge:  # the fallback the backend takes when RFDETR2XLarge is absent
        def __init__(self, device="cpu"):
            self.device = device

        def predict(self, image, threshold=0.5):
            assert image.size == (scene.image.shape[1], scene.image.shape[0]) and threshold == dm.RFDETR_THRESHOLD
            return FakeDetections()

    fake = types.ModuleType("rfdetr")
    fake.RFDETRLarge = RFDETRLarge
    util = types.ModuleType("rfdetr.util")
    classes = types.ModuleType("rfdetr.util.coco_classes")
    classes.COCO_CLASSES = {1: "person", 37: "sports ball"}
    for name, mod in {"rfdetr": fake, "rfdetr.util": util, "rfdetr.util.coco_classes": classes}.items():
        monkeypatch.setitem(sys.modules, name, mod)
    det = dm.Detector(dm.RFDETRBackend())
    assert det.name == "rfdetr:RFDETRLarge"
    balls = det.detect(scene.image, "sports ball")
    assert [(b.box, b.score) for b in balls] == [((10.0, 20.0, 50.0, 60.0), 0.9)]
    assert [p.box for p in det.detect(scene.image, "person")] == [(5.0, 5.0, 9.0, 9.0)]
    with pytest.raises(dm.UnknownCategory):
        det.detect(scene.image, "giraffe")
    fake.RFDETRLarge = None
    with pytest.raises(dm.DetectorUnavailable, match="no model class"):
        dm.RFDETRBackend("RFDETRLarge")


def test_the_runs_detector_loads_before_the_first_request_or_the_run_stops(monkeypatch):
    """ABACUS's preflight (its task class calls it before the requests are built) loads the detector:
    without rfdetr the run stops there, naming the extra to install, instead of scoring every sample
    detector_error."""
    from lmms_plugins.tasks.abacus import hooks
    from lmms_plugins.utils.preflight import PreflightError

    from lmms_plugins.tasks.abacus.settings import SETTINGS
    from lmms_plugins.utils.settings import resolve

    def settings(**meta):  # as the task class resolves its metadata
        return resolve(SETTINGS, meta, task="abacus_add_easy")

    monkeypatch.delenv("LMMS_PLUGINS_PREFLIGHT", raising=False)
    monkeypatch.setitem(sys.modules, "rfdetr", None)  # as if the extra were not installed
    for spec in (None, "rfdetr", "rfdetr:RFDETRLarge", "synthetic_test+rfdetr"):
        with pytest.raises(PreflightError, match=r'pip install "lmms-plugins\[detectors\]"'):
            hooks.preflight(settings(detector=spec))
    with pytest.raises(PreflightError, match=r'pip install "lmms-plugins\[detectors\]"'):
        hooks.preflight()  # a hook called on its own: the defaults
    for spec, says in (("no_such_backend", "unknown detector backend"), ("py:no_such_module:f", "No module named"),
                       ("a+b+c", "exactly two backends")):
        with pytest.raises(PreflightError, match=says):
            hooks.preflight(settings(detector=spec))
    with pytest.raises(PreflightError, match="metadata.flow must be one of dis, raft_small, raft_large"):
        hooks.preflight(settings(detector="synthetic_test", flow="optical_guess"))
    hooks.preflight(settings(detector="synthetic_test", flow="dis"))
    assert dm.load_for_run("synthetic_test").name == "synthetic_test"
    monkeypatch.setenv("LMMS_PLUGINS_PREFLIGHT", "off")  # the user's way round it: per-sample statuses then
    hooks.preflight(settings(detector="rfdetr"))
