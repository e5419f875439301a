"""rotated_jigsaw: like jigsaw, but each piece was also turned by a multiple of 90°.

tiles[i] = index (row-major) of the image-1 piece that belongs at original position i;
rots[i] = how many quarter turns counter-clockwise that piece was turned (0-3), so turning it
clockwise rots[i] times restores it. Rule (card): the full tile-and-rotation assignment exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem
from lmms_plugins.tasks.cwi.generators.jigsaw import distinct_enough, reference, tiles

TASK = "rotated_jigsaw"
_GRID = {"easy": 2, "medium": 3, "hard": 4, "expert": 5}
_PIECE = 64
_REF_SCALE = {"easy": 2, "medium": 2, "hard": 3, "expert": 4}
_MIN_TILE_DIST = 12.0
PROMPT = (
    "Image 1 is a photo cut into a {g}x{g} grid of square pieces that were shuffled and each "
    "turned by 0, 90, 180 or 270 degrees (pieces are numbered 0..{last} row by row in image 1). "
    "Image 2 is a small, low-resolution copy of the original photo. For each position i of the "
    "original (row by row, 0-based) give tiles[i], the number of the image-1 piece that belongs "
    "there, and rots[i], how many quarter turns counter-clockwise that piece was turned (0-3)."
)


def _fmt(v) -> str:
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    import re

    m = re.search(r"into a (\d{1,2})x", prompt)
    n = int(m.group(1)) ** 2 if m else 4
    ident = list(range(n))
    return {"identity": f"tiles={_fmt(ident)}; rots={_fmt([0] * n)}", "identity_unrotated": f"tiles={_fmt(ident)}; rots={_fmt([1] * n)}"}


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    check_tier(tier)
    g = _GRID[tier]
    n = g * g
    side = g * _PIECE
    prompt = PROMPT.format(g=g, last=n - 1) + answer_suffix("tiles=[...]; rots=[...]", "tiles=[2,0,3,1]; rots=[1,0,3,2]")
    for _ in range(MAX_ATTEMPTS):
        a = photo_array(rng, side, side)
        ref = reference(a, _REF_SCALE[tier])
        if distinct_enough(ref, g, _MIN_TILE_DIST):
            break
    for _ in range(MAX_ATTEMPTS):
        perm = [int(v) for v in rng.permutation(n)]  # perm[k] = original position of piece k
        turns = [int(v) for v in rng.integers(0, 4, size=n)]  # turns[k] of piece k
        order = [0] * n
        rots = [0] * n
        for k, pos in enumerate(perm):
            order[pos], rots[pos] = k, turns[k]
        answer = f"tiles={_fmt(order)}; rots={_fmt(rots)}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, prompt)):
            break
    pieces = tiles(a, g, _PIECE)
    shuffled = np.zeros_like(a)
    for k, pos in enumerate(perm):
        r, c = divmod(k, g)
        shuffled[r * _PIECE : (r + 1) * _PIECE, c * _PIECE : (c + 1) * _PIECE] = np.rot90(pieces[pos], turns[k])
    sigma = NOISE[tier]
    meta = {"tiles": order, "rots": rots, "grid": g, "piece": _PIECE, "ref_scale": _REF_SCALE[tier], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(shuffled, rng, sigma)), to_pil(add_noise(ref, rng, sigma / 2)), prompt, answer, meta)
