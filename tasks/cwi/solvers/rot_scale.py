"""rot_scale solver: SIFT matches + RANSAC similarity transform; read angle and scale from it."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import gray, similarity_transform


def solve(image, image_2, prompt) -> str:
    import math

    M = similarity_transform(gray(image), gray(image_2))
    if M is None:
        return "angle=0, scale=1.0"
    angle = math.degrees(math.atan2(M[0, 1], M[0, 0]))
    scale = math.hypot(M[0, 0], M[0, 1])
    return f"angle={angle:.2f}, scale={scale:.4f}"
