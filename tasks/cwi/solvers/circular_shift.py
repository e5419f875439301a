"""circular_shift solver: phase correlation gives the integer wrap-around shift exactly."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import circular_shift, gray


def solve(image, image_2, prompt) -> str:
    dx, dy, _ = circular_shift(gray(image), gray(image_2))
    return f"{dx},{dy}"
