"""shift_rot_align solver: SIFT matches + RANSAC give a first rigid transform, ECC on the
overlapping pixels refines it; then remove the part of the translation that comes from rotating
about the image centre."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import gray, refine_euclidean, similarity_transform


def solve(image, image_2, prompt) -> str:
    import math

    a, b = gray(image), gray(image_2)
    M = similarity_transform(a, b)
    if M is None:
        return "dx=0, dy=0, theta=0"
    M = refine_euclidean(a, b, M)
    h, w = a.shape
    cx, cy = w / 2 - 0.5, h / 2 - 0.5
    alpha, beta = M[0, 0], M[0, 1]
    theta = math.degrees(math.atan2(beta, alpha))
    dx = M[0, 2] - ((1 - alpha) * cx - beta * cy)
    dy = M[1, 2] - (beta * cx + (1 - alpha) * cy)
    return f"dx={dx:.1f}, dy={dy:.1f}, theta={theta:.2f}"
