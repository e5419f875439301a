"""unshuffle2d: image 2 is image 1 cut into a grid of row bands and column bands, with the row
bands permuted and the column bands permuted.

rows[i] is the index of image 1's row band shown at band position i of image 2 (top to
bottom); cols[j] likewise for column bands (left to right). Harder tiers: more bands, more
noise. Rule (card): both permutations exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, int_list, photo_array, prompt_ints, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "unshuffle2d"
_TIERS = {
    "easy": dict(grid=(3, 3), noise=0.0),
    "medium": dict(grid=(4, 5), noise=3.0),
    "hard": dict(grid=(6, 6), noise=6.0),
    "expert": dict(grid=(8, 8), noise=10.0),
}
_CELL = 40
PROMPT = (
    "Image 2 was made from image 1 by cutting it into {r} equal horizontal bands and {c} equal "
    "vertical bands, then reordering the horizontal bands and, independently, the vertical bands. "
    "rows[i] is the index (0-based, top to bottom) of image 1's horizontal band that appears at "
    "position i of image 2; cols[j] is the index (0-based, left to right) of image 1's vertical "
    "band that appears at position j of image 2. Image 2 has some noise. Find rows and cols."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    r, c = prompt_ints(prompt, r"into (\d{1,3}) equal horizontal bands and (\d{1,3}) equal", "the number of bands")
    ident_r, ident_c = list(range(r)), list(range(c))
    return {
        "identity": f"rows={int_list(ident_r)}; cols={int_list(ident_c)}",
        "reverse": f"rows={int_list(ident_r[::-1])}; cols={int_list(ident_c[::-1])}",
    }


def shuffle(a, rows, cols, cell: int):
    import numpy as np

    out = np.concatenate([a[r * cell : (r + 1) * cell] for r in rows], axis=0)
    return np.concatenate([out[:, c * cell : (c + 1) * cell] for c in cols], axis=1)


def generate(rng, tier: str) -> GeneratedItem:
    p = tier_params(_TIERS, tier)
    r, c = p["grid"]
    prompt = PROMPT.format(r=r, c=c) + answer_instruction("as rows=[...]; cols=[...]", "rows=[2,0,1]; cols=[1,2,0]")

    def draw_orders(_attempt):
        rows = [int(v) for v in rng.permutation(r)]
        cols = [int(v) for v in rng.permutation(c)]
        if rows == sorted(rows) or cols == sorted(cols):
            return None  # each permutation must really move something
        return Draft(f"rows={int_list(rows)}; cols={int_list(cols)}", prompt, (rows, cols))

    orders = draw_until_clear(TASK, shortcut_answers, draw_orders)
    rows, cols = orders.values
    a = photo_array(rng, c * _CELL, r * _CELL)
    b = shuffle(a, rows, cols, _CELL)
    sigma = p["noise"]
    meta = {"rows": rows, "cols": cols, "cell": _CELL, "grid": [r, c], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, orders.answer, meta)
