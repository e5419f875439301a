"""Drift-robust instance matching: a verdict (kept, transformed, removed, added) per instance.

Source instances are first mapped into the edit's frame by the estimated camera drift
(scene.estimate_drift), so a camera that moved a few pixels does not turn every object into a
removal plus an addition. Then, per category, a Hungarian assignment on IoU (mask IoU when both
instances have masks, else box IoU) pairs source and edit instances.

Thresholds (decided here; the card gives none):

* MATCH_IOU = 0.3: below, the pair is not the same object (removed + added).
* KEEP_IOU = 0.6 and colour change <= MAX_COLOR_CHANGE (0.15 of the range, on the instances'
  mean RGB): the object is kept; a matched pair failing either is *transformed* (the editor
  touched an object it should have left alone). Mean colour is insensitive to the sub-pixel
  differences of a redrawn but unchanged object, and catches a repainted one.
* CHANGE_IOU = 0.3 (box IoU, Hungarian): a removed source-category instance and an added
  target-category instance form an in-place change. Box IoU because the two categories'
  shapes differ while their footprints coincide.
"""

from __future__ import annotations

from dataclasses import dataclass

MATCH_IOU = 0.3
KEEP_IOU = 0.6
MAX_COLOR_CHANGE = 0.15
CHANGE_IOU = 0.3


@dataclass(frozen=True)
class Verdicts:
    """Indices into the source list (kept, transformed, removed) and the edit list (added)."""

    kept: tuple[int, ...]
    transformed: tuple[int, ...]
    removed: tuple[int, ...]
    added: tuple[int, ...]
    pairs: tuple[tuple[int, int, float], ...]  # (source index, edit index, IoU) of matched pairs

    def as_dict(self) -> dict:
        return {"kept": len(self.kept), "transformed": len(self.transformed), "removed": len(self.removed), "added": len(self.added)}


def map_instance(inst, drift, shape_hw):
    """The instance moved by the 2x3 affine ``drift`` into an image of ``shape_hw``."""
    import cv2
    import numpy as np

    from lmms_plugins.tasks.abacus.detectors import Instance

    a = np.asarray(drift, dtype=np.float64)
    if np.allclose(a, [[1, 0, 0], [0, 1, 0]]) and (inst.mask is None or inst.mask.shape == tuple(shape_hw)):
        return inst
    x0, y0, x1, y1 = inst.box
    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x0, y1, 1], [x1, y1, 1]], dtype=np.float64) @ a.T
    h, w = shape_hw
    box = (
        float(max(0, corners[:, 0].min())),
        float(max(0, corners[:, 1].min())),
        float(min(w, corners[:, 0].max())),
        float(min(h, corners[:, 1].max())),
    )
    mask = None
    if inst.mask is not None:
        mask = cv2.warpAffine(inst.mask.astype(np.uint8), a, (w, h), flags=cv2.INTER_NEAREST) > 0
    return Instance(inst.category, box, inst.score, mask)


def iou(a, b) -> float:
    from lmms_plugins.tasks.abacus.detectors import box_iou

    biou = box_iou(a.box, b.box)
    if biou == 0.0 or a.mask is None or b.mask is None or a.mask.shape != b.mask.shape:
        return biou
    # mask IoU on the union box only: the masks are zero elsewhere
    x0 = int(min(a.box[0], b.box[0]))
    y0 = int(min(a.box[1], b.box[1]))
    x1 = int(max(a.box[2], b.box[2])) + 1
    y1 = int(max(a.box[3], b.box[3])) + 1
    ma, mb = a.mask[y0:y1, x0:x1], b.mask[y0:y1, x0:x1]
    union = (ma | mb).sum()
    return float((ma & mb).sum() / union) if union else 0.0


def mean_color(image, inst):
    import numpy as np

    x0, y0, x1, y1 = (int(round(v)) for v in inst.box)
    crop = image[max(0, y0) : max(y0 + 1, y1), max(0, x0) : max(x0 + 1, x1)].reshape(-1, 3)
    if inst.mask is not None:
        m = inst.mask[max(0, y0) : max(y0 + 1, y1), max(0, x0) : max(x0 + 1, x1)].reshape(-1)
        if m.any():
            crop = crop[m]
    return crop.mean(axis=0) if len(crop) else np.zeros(3)


def _hungarian(matrix):
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    if matrix.size == 0:
        return []
    rows, cols = linear_sum_assignment(-np.asarray(matrix))
    return list(zip(rows.tolist(), cols.tolist()))


def match_instances(source_insts, edit_insts, *, source_image=None, edit_image=None, source_unmapped=None) -> Verdicts:
    """Verdicts for instances of ONE category; ``source_insts`` already in the edit's frame.

    ``source_unmapped`` (same order, source frame) locates the source pixels for the colour check.
    """
    import numpy as np

    m = np.array([[iou(s, e) for e in edit_insts] for s in source_insts]).reshape(len(source_insts), len(edit_insts))
    kept, transformed, pairs = [], [], []
    matched_s, matched_e = set(), set()
    for r, c in _hungarian(m):
        if m[r, c] < MATCH_IOU:
            continue
        matched_s.add(r)
        matched_e.add(c)
        pairs.append((r, c, float(m[r, c])))
        color_change = 0.0
        if source_image is not None and edit_image is not None:
            diff = mean_color(source_image, (source_unmapped or source_insts)[r]) - mean_color(edit_image, edit_insts[c])
            color_change = float(np.abs(diff).max() / 255.0)
        (kept if m[r, c] >= KEEP_IOU and color_change <= MAX_COLOR_CHANGE else transformed).append(r)
    removed = [i for i in range(len(source_insts)) if i not in matched_s]
    added = [j for j in range(len(edit_insts)) if j not in matched_e]
    return Verdicts(tuple(sorted(kept)), tuple(sorted(transformed)), tuple(removed), tuple(added), tuple(pairs))


def in_place_changes(removed_insts, added_insts) -> list[tuple[int, int]]:
    """Pairs (removed index, added index) whose boxes coincide (IoU >= CHANGE_IOU)."""
    import numpy as np

    from lmms_plugins.tasks.abacus.detectors import box_iou

    m = np.array([[box_iou(r.box, a.box) for a in added_insts] for r in removed_insts]).reshape(len(removed_insts), len(added_insts))
    return [(r, c) for r, c in _hungarian(m) if m[r, c] >= CHANGE_IOU]
