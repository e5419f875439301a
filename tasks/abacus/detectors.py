"""Detector backends: image + category -> instances (box, score, optional mask).

A backend implements ``categories`` (the names it knows) and ``detect_all(image)`` (every
instance of every category it knows, in one pass). :class:`Detector` wraps a backend with a
per-image cache, so each backend runs once per image however many categories are asked, and
answers ``detect(image, category)``.

Backends, chosen by a spec string (the task setting ``metadata.detector``, default ``rfdetr``):

* ``rfdetr`` / ``rfdetr:<ClassName>``: RF-DETR (optional extra ``detectors``: the ``rfdetr``
  package; its COCO weights download on first use, and the log says from where before they do). ``rfdetr`` means ``RFDETR2XLarge``, the
  checkpoint the ABACUS card names, falling back to ``RFDETRLarge`` on rfdetr versions without it.
* ``a+b``: consensus of two backends, as in the official protocol: an instance counts only when
  both report it (same category, box IoU >= 0.5, Hungarian pairing); box, score and mask of ``a``.
* ``synthetic_test``: THE TEST BACKEND. It detects only the flat-coloured objects that
  tasks/abacus/synthetic.py pastes into photos, by their exact colour. It is not a detector
  of real objects; it exists so every step of the pipeline can be tested where the truth is known.
* ``py:<module>:<factory>``: any user backend (e.g. Co-DETR in its own environment).

:func:`load_for_run` loads the run's detector while lmms-eval builds the ABACUS tasks, before the
model gets any request: a backend that cannot load stops the run there with a PreflightError that
says what to install, instead of every sample ending as ``detector_error`` after the whole run.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

CONSENSUS_IOU = 0.5
DEFAULT_SPEC = "rfdetr"
INSTALL_HINT = 'pip install "lmms-plugins[detectors]"'
RFDETR_THRESHOLD = 0.5


class DetectorError(RuntimeError):
    """A detector backend failed or cannot run; the message says why / what to install."""


class DetectorUnavailable(DetectorError):
    pass


class UnknownCategory(ValueError):
    """The backend does not know this category."""


@dataclass(frozen=True, eq=False)
class Instance:
    category: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels (x1, y1 exclusive)
    score: float = 1.0
    mask: Any = field(default=None, repr=False)  # bool (H, W) array over the whole image, or None

    @property
    def area(self) -> float:
        if self.mask is not None:
            return float(self.mask.sum())
        x0, y0, x1, y1 = self.box
        return max(0.0, x1 - x0) * max(0.0, y1 - y0)


class Backend(Protocol):
    name: str
    categories: frozenset[str]

    def detect_all(self, image) -> list[Instance]: ...


def _image_key(image) -> str:
    import numpy as np

    arr = np.ascontiguousarray(image)
    return hashlib.sha1(arr.tobytes()).hexdigest() + str(arr.shape)


class Detector:
    """A backend plus a thread-safe per-image cache (each image is run through the backend once)."""

    def __init__(self, backend: Backend, cache_size: int = 64):
        self.backend = backend
        self.name = backend.name
        self._cache: OrderedDict[str, list[Instance]] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size
        self.calls = 0  # backend runs, for tests of the cache

    @property
    def categories(self) -> frozenset[str]:
        return self.backend.categories

    def detect_all(self, image) -> list[Instance]:
        key = _image_key(image)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        try:
            found = list(self.backend.detect_all(image))
        except DetectorError:
            raise
        except Exception as exc:  # a backend's own failure becomes one documented type
            raise DetectorError(f"detector {self.name!r} failed: {type(exc).__name__}: {exc}") from exc
        with self._lock:
            self.calls += 1
            self._cache[key] = found
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return found

    def detect(self, image, category: str) -> list[Instance]:
        if category not in self.categories:
            raise UnknownCategory(f"detector {self.name!r} does not know the category {category!r}")
        return [i for i in self.detect_all(image) if i.category == category]


def box_iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


class ConsensusBackend:
    """Instances both backends report (official protocol: RF-DETR and Co-DETR must agree)."""

    def __init__(self, first: Detector, second: Detector, iou: float = CONSENSUS_IOU):
        self.first, self.second, self.iou = first, second, iou
        self.name = f"{first.name}+{second.name}"
        self.categories = first.categories & second.categories

    def detect_all(self, image) -> list[Instance]:
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        a_all, b_all = self.first.detect_all(image), self.second.detect_all(image)
        out = []
        for cat in sorted(self.categories):
            a = [i for i in a_all if i.category == cat]
            b = [i for i in b_all if i.category == cat]
            if not a or not b:
                continue
            iou = np.array([[box_iou(x.box, y.box) for y in b] for x in a])
            rows, cols = linear_sum_assignment(-iou)
            for r, c in zip(rows, cols):
                if iou[r, c] >= self.iou:
                    out.append(Instance(cat, a[r].box, min(a[r].score, b[c].score), a[r].mask))
        return out


class SyntheticTestBackend:
    """TEST BACKEND: finds the flat-coloured objects of tasks/abacus/synthetic.py by colour.

    Not a detector of real objects. A pixel belongs to a category when every channel is within
    ``tolerance`` of the category's colour; connected components of at least ``min_area_frac``
    of the image (after a 3x3 opening against speckle) are instances, with their pixel mask.
    """

    name = "synthetic_test"

    def __init__(self, tolerance: int = 48, min_area_frac: float = 0.0004):
        from lmms_plugins.tasks.abacus.synthetic import CATEGORIES

        self.colors = {name: spec.color for name, spec in CATEGORIES.items()}
        self.categories = frozenset(self.colors)
        self.tolerance, self.min_area_frac = tolerance, min_area_frac

    def detect_all(self, image) -> list[Instance]:
        import cv2
        import numpy as np

        img = np.asarray(image)
        if img.ndim != 3 or img.shape[2] != 3:
            raise ValueError(f"expected an RGB (H, W, 3) image, got shape {img.shape}")
        h, w = img.shape[:2]
        min_area = max(16, self.min_area_frac * h * w)
        kernel = np.ones((3, 3), np.uint8)
        out = []
        for cat, color in sorted(self.colors.items()):
            hit = (np.abs(img.astype(np.int16) - np.array(color, np.int16)) <= self.tolerance).all(axis=2)
            hit = cv2.morphologyEx(hit.astype(np.uint8), cv2.MORPH_OPEN, kernel)
            n, labels, stats, _ = cv2.connectedComponentsWithStats(hit, connectivity=8)
            for k in range(1, n):
                x, y, bw, bh, area = stats[k]
                if area >= min_area:
                    out.append(Instance(cat, (float(x), float(y), float(x + bw), float(y + bh)), 1.0, labels == k))
        return out


class RFDETRBackend:
    """RF-DETR COCO detector (pip install 'lmms-plugins[detectors]', i.e. the rfdetr package)."""

    def __init__(self, model_class: str = "RFDETR2XLarge", threshold: float = RFDETR_THRESHOLD):
        try:
            import rfdetr
            from rfdetr.util.coco_classes import COCO_CLASSES
        except ImportError as exc:
            raise DetectorUnavailable(
                f"the RF-DETR detector needs the optional extra: {INSTALL_HINT} "
                f"(the rfdetr package), or choose another backend with metadata.detector ({exc})"
            ) from exc
        cls = getattr(rfdetr, model_class, None)
        if cls is None and model_class == "RFDETR2XLarge":
            model_class, cls = "RFDETRLarge", getattr(rfdetr, "RFDETRLarge", None)
        if cls is None:
            known = sorted(n for n in dir(rfdetr) if n.startswith("RFDETR"))
            raise DetectorUnavailable(f"rfdetr has no model class {model_class!r}; available: {', '.join(known)}")
        self.name = f"rfdetr:{model_class}"
        names = COCO_CLASSES.values() if isinstance(COCO_CLASSES, dict) else COCO_CLASSES
        self.class_names = COCO_CLASSES
        self.categories = frozenset(names)
        self.threshold = threshold
        self._lock = threading.Lock()
        try:
            import torch

            device = "cuda" if torch.cuda.is_available() else "cpu"
        except ImportError:  # pragma: no cover
            device = "cpu"
        import logging

        logging.getLogger("lmms_plugins.abacus").warning("ABACUS detector: loading %s on %s; %s", self.name, device,
                                                         rfdetr_fetch(model_class))
        try:
            try:
                self.model = cls(device=device)  # weights download here on first use
            except TypeError:  # rfdetr versions without a device argument pick the GPU themselves
                self.model = cls()
        except Exception as exc:  # no network for the weights, a broken checkpoint...
            raise DetectorUnavailable(f"rfdetr could not load {model_class}: {type(exc).__name__}: {exc} "
                                      f"({rfdetr_fetch(model_class)})") from exc

    def detect_all(self, image) -> list[Instance]:
        from PIL import Image

        with self._lock:  # one forward at a time: the model is shared by process_results threads
            det = self.model.predict(Image.fromarray(image), threshold=self.threshold)
        masks = getattr(det, "mask", None)
        out = []
        for k in range(len(det.xyxy)):
            name = self.class_names[int(det.class_id[k])]
            mask = None if masks is None else masks[k].astype(bool)
            out.append(Instance(name, tuple(float(v) for v in det.xyxy[k]), float(det.confidence[k]), mask))
        return out


def rfdetr_fetch(model_class: str) -> str:
    """What rfdetr downloads for ``model_class`` on first use, as far as this rfdetr version says
    (its config's ``pretrain_weights`` and its table of hosted checkpoints)."""
    import importlib

    name = url = None
    try:
        config = getattr(importlib.import_module("rfdetr.config"), model_class + "Config", None)
        fields = getattr(config, "model_fields", {}) if config is not None else {}
        name = getattr(fields.get("pretrain_weights"), "default", None)
        for module in ("rfdetr.main", "rfdetr.detr", "rfdetr.util.files", "rfdetr.models.weights"):
            try:
                hosted = getattr(importlib.import_module(module), "HOSTED_MODELS", None)
            except Exception:  # noqa: BLE001 - a module this version does not have
                continue
            if isinstance(hosted, dict) and name in hosted:
                url = hosted[name]
                break
    except Exception:  # noqa: BLE001 - only a description: never a reason not to load
        pass
    if name and url:
        return f"rfdetr fetches its COCO checkpoint {name} from {url} into the current folder unless it is there"
    if name:
        return f"rfdetr fetches its COCO checkpoint {name} into the current folder unless it is there"
    return "rfdetr fetches its COCO checkpoint on first use unless it is cached"


def load_for_run(spec: str | None = None) -> Detector:
    """The run's detector (``spec``, else the setting's default: settings.py), loaded now;
    a backend that cannot load raises PreflightError saying what to install or set."""
    from lmms_plugins.utils.preflight import PreflightError
    from lmms_plugins.utils.settings import given_or_default

    from .settings import SETTINGS

    spec = spec or given_or_default(SETTINGS, None)["detector"]
    try:
        return get_detector(spec)
    except Exception as exc:  # noqa: BLE001 - a user backend (py:) may raise anything: one clear line
        hint = "" if INSTALL_HINT in str(exc) or "rfdetr" not in spec else f" (the rfdetr backend comes with: {INSTALL_HINT})"
        raise PreflightError(f"abacus: the detector {spec!r} (metadata.detector) cannot be loaded: {exc}{hint}") from None


def _backend(spec: str) -> Detector:
    spec = spec.strip()
    if spec == "synthetic_test":
        return Detector(SyntheticTestBackend())
    if spec == "rfdetr" or spec.startswith("rfdetr:"):
        return Detector(RFDETRBackend(spec.split(":", 1)[1]) if ":" in spec else RFDETRBackend())
    if spec.startswith("py:"):
        import importlib

        module, _, factory = spec[3:].partition(":")
        return Detector(getattr(importlib.import_module(module), factory)())
    raise ValueError(f"unknown detector backend {spec!r}: use rfdetr, rfdetr:<Class>, synthetic_test, py:<module>:<factory>, or a+b")


_build_lock = threading.RLock()


def get_detector(spec: str = DEFAULT_SPEC) -> Detector:
    """The (cached, one per process) detector for a spec; ``a+b`` is the consensus of a and b.

    Built under a lock: process_results runs in threads, and a model must load only once.
    """
    with _build_lock:
        return _get_detector(spec)


@functools.lru_cache(maxsize=8)
def _get_detector(spec: str) -> Detector:
    parts = [p for p in spec.split("+") if p.strip()]
    if len(parts) == 1:
        return _backend(parts[0])
    if len(parts) == 2:
        return Detector(ConsensusBackend(_get_detector(parts[0]), _get_detector(parts[1])))
    raise ValueError(f"a consensus takes exactly two backends, got {spec!r}")
