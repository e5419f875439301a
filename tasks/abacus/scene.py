"""Scene consistency (SC) on the background, and the camera drift the same flow reveals.

Decided here (tasks/abacus/README.md gives the reasons):

* Working resolution: both images at the source's size scaled so the longer side is at most
  512 px (never upscaled). SC then means the same for a 512 px and a 2048 px source, and costs
  the same.
* Foreground: the union of the target instances (masks, else boxes) of the source and of the
  edit, dilated by 1.5 % of the working image's longer side (8 px at 512): an edit's shadow or
  halo next to an object it was asked to add is not a background change.
* The foreground of the edit is replaced by the source's pixels before comparing ("composite"):
  a window of MS-SSIM's coarse scales (up to 176 px) or a flow patch that straddles an added
  object then sees no change from the object itself, only from the true background. MS-SSIM is
  averaged over background pixels only (msssim.py); the flow term too (flow.py).
* Background under 1 % of the image: compare the whole image (an edit that covers everything
  has no background to keep, and an empty average is undefined).
* Drift: a similarity transform (rotation, scale, shift) fitted with RANSAC to the background
  flow on an 8 px grid; kept when at least half of the points agree within 1 px, else identity.
"""

from __future__ import annotations

from dataclasses import dataclass

WORK_LONG_SIDE = 512
DILATION_FRAC = 0.015
MIN_BACKGROUND_FRAC = 0.01
DRIFT_GRID = 8
DRIFT_RANSAC_PX = 1.0
DRIFT_MIN_INLIERS = 0.5


@dataclass(frozen=True)
class SceneResult:
    sc: float
    flow_term: float
    msssim: float
    background_frac: float  # share of the working image compared
    drift: tuple[tuple[float, ...], ...]  # 2x3 affine, source -> edit, in full-resolution pixels
    drift_inliers: float  # share of grid points that agree with the drift
    why: str


def working_scale(h: int, w: int) -> float:
    return min(1.0, WORK_LONG_SIDE / max(h, w))


def resize(img, size_wh, *, nearest: bool = False):
    import cv2

    if (img.shape[1], img.shape[0]) == tuple(size_wh):
        return img
    interp = cv2.INTER_NEAREST if nearest else (cv2.INTER_AREA if img.shape[1] > size_wh[0] else cv2.INTER_LINEAR)
    return cv2.resize(img, tuple(size_wh), interpolation=interp)


def foreground_mask(shape_hw, instances, scale: float):
    """Union of instance masks (or boxes) at the working scale, before dilation."""
    import cv2
    import numpy as np

    h, w = shape_hw
    fg = np.zeros((h, w), dtype=np.uint8)
    for inst in instances:
        if inst.mask is not None:
            m = resize(inst.mask.astype(np.uint8), (w, h), nearest=True)
            fg |= m
        else:
            x0, y0, x1, y1 = (int(round(v * scale)) for v in inst.box)
            cv2.rectangle(fg, (max(0, x0), max(0, y0)), (min(w, x1) - 1, min(h, y1) - 1), 1, thickness=-1)
    return fg.astype(bool)


def dilate(mask, radius: int):
    import cv2
    import numpy as np

    if radius <= 0:
        return mask
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    return cv2.dilate(mask.astype(np.uint8), k).astype(bool)


def estimate_drift(flow, background, scale: float):
    """Similarity source -> edit from the background flow; (2x3 at full resolution, inlier share)."""
    import cv2
    import numpy as np

    h, w = background.shape
    ys, xs = np.mgrid[DRIFT_GRID // 2 : h : DRIFT_GRID, DRIFT_GRID // 2 : w : DRIFT_GRID]
    keep = background[ys, xs]
    ys, xs = ys[keep], xs[keep]
    identity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if len(xs) < 10:
        return identity, 0.0
    src = np.stack([xs, ys], axis=1).astype(np.float32)
    dst = src + flow[ys, xs].astype(np.float32)
    a, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=DRIFT_RANSAC_PX)
    share = float(inliers.mean()) if inliers is not None else 0.0
    if a is None or share < DRIFT_MIN_INLIERS:
        return identity, share
    a = a.astype(np.float64)
    a[:, 2] /= scale  # the linear part is scale-free; the shift is in working pixels
    return a, share


def measure_scene(source, edit, instances, flow_fn=None) -> SceneResult:
    """SC of ``edit`` against ``source`` (both RGB uint8, same size) outside ``instances``."""
    import cv2
    import numpy as np

    from lmms_plugins.tasks.abacus import flow as flow_mod
    from lmms_plugins.tasks.abacus.factors import scene_consistency
    from lmms_plugins.tasks.abacus.msssim import ms_ssim

    if source.shape != edit.shape:
        raise ValueError(f"source {source.shape} and edit {edit.shape} must have the same shape here")
    h, w = source.shape[:2]
    scale = working_scale(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    src, ed = resize(source, size), resize(edit, size)
    fg = dilate(foreground_mask(src.shape[:2], instances, scale), max(1, round(DILATION_FRAC * max(size))))
    background = ~fg
    why = "background"
    if background.mean() < MIN_BACKGROUND_FRAC:
        background = np.ones_like(background)
        why = "background under 1% of the image: whole image compared"
    composite = cv2.copyTo(src, fg.view(np.uint8), ed.copy())  # = np.where(fg, src, ed), ~4x faster
    flow = (flow_fn or flow_mod.dis_flow)(cv2.cvtColor(src, cv2.COLOR_RGB2GRAY), cv2.cvtColor(composite, cv2.COLOR_RGB2GRAY))
    ft = flow_mod.flow_term(flow, background)
    ms = ms_ssim(src, composite, mask=background)
    drift, share = estimate_drift(flow, background, scale)
    return SceneResult(
        sc=scene_consistency(ft, ms),
        flow_term=ft,
        msssim=ms,
        background_frac=float(background.mean()),
        drift=tuple(tuple(float(v) for v in row) for row in drift),
        drift_inliers=share,
        why=why,
    )
