"""One edit -> CF, SC, OC and Score: detection, scene consistency, drift-robust matching, counts.

Counting rules per operation (d = delivered, K = requested, N_GT = pre-existing instances of the
categories involved, N_rem = those destroyed beyond what was asked; "destroyed" = removed or
transformed, see matching.py):

* add K c:    d = added c;                      N_rem = removed c + transformed c.
* remove K c: d = max(0, removed c - added c)  (the net decrease: delete here, paint there is no
              removal);                         N_rem = transformed c + max(0, removed c - K).
* change K s->t: d = in-place pairs (removed s, added t whose boxes coincide);
              N_rem = (removed s - d) + max(0, d - K) + transformed s + removed t + transformed t.

Outcomes that are not a plain score (status, value; tasks/abacus/README.md):

* no image / unreadable image: ``missing_image`` / ``bad_image``, CF = SC = OC = Score = 0
  (an editor that returns nothing must not raise the factor means).
* an edit of another size: resized to the source's size; same aspect (within 2 %) is ``ok``,
  another aspect is ``aspect_mismatch`` (stretched, then scored).
* a blank (uniform) edit: ``blank_image``, scored as it is (it usually scores near 0).
* a category the detector does not know: ``unknown_category``; a detector that fails:
  ``detector_error``; a sample without operation/count/category: ``missing_data``. Value None:
  not scorable, kept in the denominator as 0 and counted by status.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

OPERATIONS = ("add", "remove", "change")
ASPECT_TOLERANCE = 0.02
BLANK_STD = 1.0

OK = "ok"
MISSING_IMAGE = "missing_image"
BAD_IMAGE = "bad_image"
ASPECT_MISMATCH = "aspect_mismatch"
BLANK_IMAGE = "blank_image"
UNKNOWN_CATEGORY = "unknown_category"
DETECTOR_ERROR = "detector_error"
MISSING_DATA = "missing_data"
ERROR = "error"


@dataclass(frozen=True)
class EditResult:
    cf: float | None
    sc: float | None
    oc: float | None
    score: float | None
    status: str
    why: str
    requested: int | None = None
    delivered: int | None = None
    n_destroyed: int | None = None
    n_pre_existing: int | None = None
    flow_term: float | None = None
    msssim: float | None = None
    verdicts: dict = field(default_factory=dict)  # per category: kept/transformed/removed/added
    drift: tuple = ()
    overlay: dict | None = None  # the verdicts as boxes on the edit, for lmms-plugins report

    @property
    def exact(self) -> bool | None:
        return None if self.delivered is None else self.delivered == self.requested

    def as_dict(self) -> dict:
        out = asdict(self)
        out["exact"] = self.exact
        return out


def failed(status: str, why: str, *, value: float | None, requested: int | None = None) -> EditResult:
    return EditResult(value, value, value, value, status, why, requested=requested)


def conform_edit(source, edit):
    """The edit at the source's size and in RGB uint8; (edit, status, why)."""
    import numpy as np

    from lmms_plugins.tasks.abacus.scene import resize

    edit = np.asarray(edit)
    why = []
    if edit.ndim == 2:
        edit = np.repeat(edit[:, :, None], 3, axis=2)
        why.append("grayscale edit read as RGB")
    elif edit.ndim == 3 and edit.shape[2] == 4:
        alpha = edit[:, :, 3:4].astype(np.float32) / 255.0
        edit = (edit[:, :, :3] * alpha + 255.0 * (1 - alpha)).round().astype(np.uint8)
        why.append("RGBA edit composited on white")
    if edit.ndim != 3 or edit.shape[2] != 3:
        raise ValueError(f"edit has shape {edit.shape}, expected an image")
    edit = edit.astype(np.uint8, copy=False)
    status = OK
    (h, w), (eh, ew) = source.shape[:2], edit.shape[:2]
    if (eh, ew) != (h, w):
        if abs((ew / eh) / (w / h) - 1.0) > ASPECT_TOLERANCE:
            status = ASPECT_MISMATCH
            why.append(f"edit is {ew}x{eh}, source {w}x{h}: other aspect, stretched to the source's size")
        else:
            why.append(f"edit is {ew}x{eh}, resized to the source's {w}x{h}")
        edit = np.ascontiguousarray(resize(edit, (w, h)))
    if float(edit.std()) < BLANK_STD:
        status = BLANK_IMAGE
        why.append("edit is blank (uniform)")
    return edit, status, "; ".join(why)


def _categories(operation: str, category, source_category, target_category) -> list[str]:
    if operation in ("add", "remove"):
        if not category:
            raise KeyError("category")
        return [category]
    if not source_category or not target_category:
        raise KeyError("source_category/target_category")
    return [source_category, target_category]


def score_edit(source, edit, *, operation: str, count: int, detector, category=None, source_category=None, target_category=None, flow_fn=None) -> EditResult:
    """Score one edit. Raises UnknownCategory / DetectorError / ValueError (see :func:`evaluate`)."""
    from lmms_plugins.tasks.abacus import factors
    from lmms_plugins.tasks.abacus.matching import in_place_changes, map_instance, match_instances
    from lmms_plugins.tasks.abacus.overlay import verdict_overlay
    from lmms_plugins.tasks.abacus.scene import measure_scene

    if operation not in OPERATIONS:
        raise ValueError(f"unknown operation {operation!r}")
    k = int(count)
    if k < 0:
        raise ValueError(f"negative count {count!r}")
    edit, status, why = conform_edit(source, edit)
    cats = _categories(operation, category, source_category, target_category)
    src_by = {c: detector.detect(source, c) for c in cats}
    ed_by = {c: detector.detect(edit, c) for c in cats}
    scene = measure_scene(source, edit, [i for c in cats for i in src_by[c] + ed_by[c]], flow_fn=flow_fn)
    shape = edit.shape[:2]
    mapped = {c: [map_instance(i, scene.drift, shape) for i in src_by[c]] for c in cats}
    v = {c: match_instances(mapped[c], ed_by[c], source_image=source, edit_image=edit, source_unmapped=src_by[c]) for c in cats}
    if operation == "add":
        (c,) = cats
        d = len(v[c].added)
        destroyed = len(v[c].removed) + len(v[c].transformed)
    elif operation == "remove":
        (c,) = cats
        d = max(0, len(v[c].removed) - len(v[c].added))
        destroyed = len(v[c].transformed) + max(0, len(v[c].removed) - k)
    else:
        s, t = cats
        pairs = in_place_changes([mapped[s][i] for i in v[s].removed], [ed_by[t][j] for j in v[t].added])
        d = len(pairs)
        destroyed = (len(v[s].removed) - d) + max(0, d - k) + len(v[s].transformed) + len(v[t].removed) + len(v[t].transformed)
    pre = sum(len(src_by[c]) for c in cats)
    f = factors.edit_factors(delivered=d, requested=k, n_destroyed=destroyed, n_pre_existing=pre, flow_term=scene.flow_term, msssim=scene.msssim)
    why = "; ".join(x for x in (why, scene.why if scene.why != "background" else "") if x)
    return EditResult(
        cf=f.cf, sc=f.sc, oc=f.oc, score=f.score, status=status, why=why or "scored",
        requested=k, delivered=d, n_destroyed=destroyed, n_pre_existing=pre,
        flow_term=scene.flow_term, msssim=scene.msssim,
        verdicts={c: v[c].as_dict() for c in cats}, drift=scene.drift,
        overlay=verdict_overlay(v, mapped, ed_by, (shape[1], shape[0])),
    )


def evaluate(source, edit, *, operation, count, detector, category=None, source_category=None, target_category=None, flow_fn=None, edit_status: str | None = None, edit_why: str = "") -> EditResult:
    """:func:`score_edit` with every expected failure turned into a status (never raises).

    ``edit`` None means the model gave no usable image; ``edit_status`` says why
    (``missing_image`` or ``bad_image``).
    """
    from lmms_plugins.tasks.abacus.detectors import DetectorError, UnknownCategory

    try:
        k = int(count)
    except (TypeError, ValueError):
        return failed(MISSING_DATA, f"sample has no usable count: {count!r}", value=None)
    if operation not in OPERATIONS:
        return failed(MISSING_DATA, f"sample has no usable operation: {operation!r}", value=None, requested=k)
    if source is None:
        return failed(MISSING_DATA, "sample has no source image", value=None, requested=k)
    if edit is None:
        return failed(edit_status or MISSING_IMAGE, edit_why or "the model returned no image", value=0.0, requested=k)
    try:
        return score_edit(source, edit, operation=operation, count=k, detector=detector, category=category,
                          source_category=source_category, target_category=target_category, flow_fn=flow_fn)
    except KeyError as exc:
        return failed(MISSING_DATA, f"sample lacks {exc.args[0]}", value=None, requested=k)
    except UnknownCategory as exc:
        return failed(UNKNOWN_CATEGORY, str(exc), value=None, requested=k)
    except DetectorError as exc:
        return failed(DETECTOR_ERROR, str(exc), value=None, requested=k)
    except Exception as exc:  # noqa: BLE001 - a scorer bug must not abort the run; it is recorded
        return failed(ERROR, f"{type(exc).__name__}: {exc}", value=None, requested=k)
