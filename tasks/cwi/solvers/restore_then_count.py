"""restore_then_count solver: segment saturated blobs, label them, and join labels that touch
across opposite borders (counting on the torus undoes the wrap-around shift)."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.restore_then_count import count_pieces


def solve(image, image_2, prompt) -> str:
    return str(count_pieces(image, wrap=True))
