"""Pixel-level building blocks of the Transformation reference solvers."""

from __future__ import annotations


def gray(image):
    """PIL/array -> float64 grey image."""
    import numpy as np

    a = np.asarray(image, dtype=np.float64)
    if a.ndim == 3:
        a = a[..., :3] @ np.array([0.299, 0.587, 0.114])
    return a


def rgb(image):
    import numpy as np

    return np.asarray(image.convert("RGB") if hasattr(image, "convert") else image, dtype=np.float64)


def circular_shift(a, b) -> tuple[int, int, float]:
    """Integer (dx, dy) with b == roll(a, (dy, dx)), by phase correlation; and the peak height."""
    import numpy as np

    fa = np.fft.fft2(a - a.mean())
    fb = np.fft.fft2(b - b.mean())
    cross = fb * np.conj(fa)
    cross /= np.abs(cross) + 1e-9
    corr = np.fft.ifft2(cross).real
    dy, dx = np.unravel_index(int(np.argmax(corr)), corr.shape)
    h, w = corr.shape
    if dy > h // 2:
        dy -= h
    if dx > w // 2:
        dx -= w
    return int(dx), int(dy), float(corr.max())


def similarity_transform(a, b, scale_range=(0.25, 4.0)):
    """2x3 matrix M (rotation+uniform scale+translation) with b(M p) ~ a(p), from SIFT + RANSAC.

    A degenerate fit (scale outside ``scale_range``) is retried on contrast-equalised images with
    a looser ratio test. Returns None when no plausible transform is found.
    """
    import math


    for equalise in (False, True):
        M = _sift_fit(a, b, equalise)
        if M is not None and scale_range[0] <= math.hypot(M[0, 0], M[0, 1]) <= scale_range[1]:
            return M
    return None


def _sift_fit(a, b, equalise: bool):
    import cv2
    import numpy as np

    a8 = np.clip(a, 0, 255).astype(np.uint8)
    b8 = np.clip(b, 0, 255).astype(np.uint8)
    if equalise:
        clahe = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))
        a8, b8 = clahe.apply(cv2.GaussianBlur(a8, (3, 3), 0)), clahe.apply(cv2.GaussianBlur(b8, (3, 3), 0))
    # a low contrast threshold: smooth, noisy photos still give enough keypoints
    sift = cv2.SIFT_create(nfeatures=3000, contrastThreshold=0.01)
    ka, da = sift.detectAndCompute(a8, None)
    kb, db = sift.detectAndCompute(b8, None)
    if da is None or db is None or len(ka) < 4 or len(kb) < 4:
        return None
    matcher = cv2.BFMatcher(cv2.NORM_L2)
    pairs = matcher.knnMatch(da, db, k=2)
    ratio = 0.9 if equalise else 0.8
    good = [m for m, *rest in pairs if rest and m.distance < ratio * rest[0].distance]
    if len(good) < 4:
        return None
    src = np.float32([ka[m.queryIdx].pt for m in good])
    dst = np.float32([kb[m.trainIdx].pt for m in good])
    M, _ = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=2.0, maxIters=5000, confidence=0.999, refineIters=20)
    return M


def assignment(cost):
    """Row -> column minimum-cost assignment (Hungarian)."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    out = [0] * len(rows)
    for r, c in zip(rows, cols):
        out[int(r)] = int(c)
    return out


def refine_euclidean(a, b, M):
    """Refine a rotation+translation ``M`` (b(M p) ~ a(p)) by ECC on the overlapping pixels.

    Returns ``M`` unchanged when ECC does not converge.
    """
    import cv2
    import numpy as np

    W = np.asarray(M, dtype=np.float32).copy()
    ones = np.ones(b.shape, dtype=np.float32)
    inside = cv2.warpAffine(ones, W, (a.shape[1], a.shape[0]), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    mask = cv2.erode((inside > 0.5).astype(np.uint8), np.ones((5, 5), np.uint8))
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-6)
    try:
        _, W = cv2.findTransformECC(a.astype(np.float32), b.astype(np.float32), W, cv2.MOTION_EUCLIDEAN, criteria, mask, 5)
    except cv2.error:
        return M
    return W.astype(np.float64)
