"""unshuffle2d solver: a row band's mean over x does not change when columns are permuted (and
vice versa), so each band is matched to image 1's bands by its mean profile (Hungarian)."""

from __future__ import annotations

import re

from lmms_plugins.tasks.cwi.solvers.helpers import assignment, rgb


def _grid(prompt: str) -> tuple[int, int]:
    m = re.search(r"into (\d{1,3}) equal horizontal bands and (\d{1,3}) equal", prompt)
    if not m:
        raise ValueError("prompt does not state the band counts")
    return int(m.group(1)), int(m.group(2))


def _match(a_bands, b_bands) -> list[int]:
    import numpy as np

    cost = np.array([[float(((bb - ab) ** 2).mean()) for ab in a_bands] for bb in b_bands])
    return assignment(cost)


def solve(image, image_2, prompt) -> str:

    r, c = _grid(prompt)
    a, b = rgb(image), rgb(image_2)
    h, w = a.shape[:2]
    bh, bw = h // r, w // c
    prof = lambda img, axis: img.mean(axis=axis)  # noqa: E731
    a_rows, b_rows = prof(a, 1), prof(b, 1)  # (h, 3): one value per image row
    a_cols, b_cols = prof(a, 0), prof(b, 0)
    rows = _match([a_rows[i * bh : (i + 1) * bh] for i in range(r)], [b_rows[i * bh : (i + 1) * bh] for i in range(r)])
    cols = _match([a_cols[j * bw : (j + 1) * bw] for j in range(c)], [b_cols[j * bw : (j + 1) * bw] for j in range(c)])
    return "rows=[" + ",".join(map(str, rows)) + "]; cols=[" + ",".join(map(str, cols)) + "]"
