"""anomaly_v2: which cells of a grid of repeated tiles differ from the others?

Construction: a grid (3x4 up to 6x8) of copies of one photo tile separated by grey gaps, each
copy with its own sensor noise. In 1-5 cells a small square patch (5-10 px) of the tile has
been altered: its colour is shifted by a few levels in one channel or in all channels. The
shift shrinks and the noise grows with the tier, so from the expert tier on the change is far
below what an eye can spot, while a per-cell comparison against the median tile finds it.
The answer is the sorted set of [row, col] cells. Rule (card): exact set.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, prompt_ints, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "anomaly_v2"

GAP = 4
_TIERS = {
    "easy": dict(grid=(3, 4), cell=72, count=(1, 2), delta=(40, 60), noise=0.0, patch=(8, 12)),
    "medium": dict(grid=(4, 5), cell=64, count=(1, 3), delta=(22, 32), noise=2.0, patch=(6, 10)),
    "hard": dict(grid=(5, 6), cell=56, count=(2, 4), delta=(15, 22), noise=3.0, patch=(5, 9)),
    "expert": dict(grid=(6, 8), cell=48, count=(2, 5), delta=(12, 16), noise=4.0, patch=(5, 8)),
}


def _prompt(rows: int, cols: int) -> str:
    return (
        f"This image is a grid of {rows} rows and {cols} columns of tiles, separated by {GAP}-px "
        "grey gaps. All tiles are copies of the same picture (each with its own slight noise), "
        "except a few cells where a small part of the picture was altered. Which cells are "
        "different? Cells are [row, column], 0-based, row 0 at the top, column 0 at the left."
    ) + answer_instruction("as the list of all altered cells sorted by row then column", "[[0,3],[2,1]]")


def parse_grid(prompt: str):
    """(rows, cols, gap) as the prompt states them."""
    pattern = r"grid of (\d+) rows and (\d+) columns of tiles, separated by (\d+)-px"
    return prompt_ints(prompt, pattern, "the anomaly_v2 grid size")


def cells_str(cells) -> str:
    return "[" + ",".join(f"[{r},{c}]" for r, c in sorted(cells)) + "]"


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    rows, cols = p["grid"]
    cell = p["cell"]
    w, h = cols * cell + (cols + 1) * GAP, rows * cell + (rows + 1) * GAP
    prompt = _prompt(rows, cols)

    def draw(_attempt):
        tile = np.asarray(random_photo(rng, cell, cell), dtype=np.float64)
        tile = 12 + tile * (231 / 255)  # room for the shift and the noise without clipping
        k = int(rng.integers(p["count"][0], p["count"][1] + 1))
        chosen = rng.choice(rows * cols, size=k, replace=False)
        cells = sorted((int(i) // cols, int(i) % cols) for i in chosen)
        img = np.full((h, w, 3), 128.0)
        changes = []
        for r in range(rows):
            for c in range(cols):
                t = tile.copy()
                if (r, c) in cells:
                    s = int(rng.integers(p["patch"][0], p["patch"][1] + 1))
                    py, px = int(rng.integers(0, cell - s + 1)), int(rng.integers(0, cell - s + 1))
                    delta = float(rng.uniform(*p["delta"])) * float(rng.choice([-1, 1]))
                    channel = int(rng.integers(-1, 3))  # -1: all channels
                    if channel < 0:
                        t[py : py + s, px : px + s] += delta
                    else:
                        t[py : py + s, px : px + s, channel] += delta
                    changes.append(
                        {"cell": [r, c], "patch_xy": [px, py], "size": s, "delta": round(delta, 3), "channel": channel}
                    )
                t = add_noise(t, rng, p["noise"])
                y0, x0 = GAP + r * (cell + GAP), GAP + c * (cell + GAP)
                img[y0 : y0 + cell, x0 : x0 + cell] = t
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "rows": rows,
            "cols": cols,
            "cell_px": cell,
            "gap_px": GAP,
            "anomalies": changes,
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(to_pil(img), None, prompt, cells_str(cells), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """No cell, the first cell, the centre cell, and the first two cells."""
    rows, cols, _gap = parse_grid(prompt)
    return {
        "empty": "[]",
        "first": "[[0,0]]",
        "centre": f"[[{rows // 2},{cols // 2}]]",
        "first_two": "[[0,0],[0,1]]",
    }
