"""jigsaw: image 1 is a photo cut into a g x g grid of square pieces and shuffled; image 2 is a
small low-resolution copy of the unshuffled photo.

answer[i] = index (row-major, 0-based) of the piece in image 1 that belongs at position i
(row-major) of the original. Harder tiers: more pieces, a smaller reference, more noise.
Pieces are drawn so that no two reference tiles look alike (the puzzle has one solution).
Rule (card): the full sequence exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "jigsaw"
_GRID = {"easy": 3, "medium": 4, "hard": 5, "expert": 6}
_PIECE = 64
_REF_SCALE = {"easy": 2, "medium": 3, "hard": 4, "expert": 4}  # reference is 1/scale of the size
_MIN_TILE_DIST = 12.0  # RMS grey distance between any two reference tiles
PROMPT = (
    "Image 1 is a photo cut into a {g}x{g} grid of square pieces that were shuffled (pieces are "
    "numbered 0..{last} row by row in image 1). Image 2 is a small, low-resolution copy of the "
    "original, unshuffled photo. For each position i of the original (row by row, 0-based), "
    "give the number of the image-1 piece that belongs there."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    import re

    m = re.search(r"into a (\d{1,2})x", prompt)
    n = int(m.group(1)) ** 2 if m else 9
    ident = list(range(n))
    return {"identity": str(ident).replace(" ", ""), "reverse": str(ident[::-1]).replace(" ", "")}


def tiles(a, g: int, size: int):
    return [a[r * size : (r + 1) * size, c * size : (c + 1) * size] for r in range(g) for c in range(g)]


def distinct_enough(ref, g: int, min_dist: float) -> bool:
    import numpy as np

    ts = [t.astype(np.float64).ravel() for t in tiles(ref, g, ref.shape[0] // g)]
    for i in range(len(ts)):
        for j in range(i + 1, len(ts)):
            if np.sqrt(((ts[i] - ts[j]) ** 2).mean()) < min_dist:
                return False
    return True


def reference(a, scale: int):
    import cv2

    h, w = a.shape[:2]
    return cv2.resize(a, (w // scale, h // scale), interpolation=cv2.INTER_AREA)


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    check_tier(tier)
    g = _GRID[tier]
    side = g * _PIECE
    prompt = PROMPT.format(g=g, last=g * g - 1) + answer_suffix(f"a list of {g * g} piece numbers", "[" + ",".join(str(v) for v in range(g * g)[::-1]) + "]")
    for _ in range(MAX_ATTEMPTS):
        a = photo_array(rng, side, side)
        ref = reference(a, _REF_SCALE[tier])
        if distinct_enough(ref, g, _MIN_TILE_DIST):
            break
    for _ in range(MAX_ATTEMPTS):
        perm = [int(v) for v in rng.permutation(g * g)]  # perm[k] = original position of piece k
        order = [0] * (g * g)
        for k, pos in enumerate(perm):
            order[pos] = k
        answer = "[" + ",".join(map(str, order)) + "]"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, prompt)):
            break
    pieces = tiles(a, g, _PIECE)
    shuffled = np.zeros_like(a)
    for k, pos in enumerate(perm):
        r, c = divmod(k, g)
        shuffled[r * _PIECE : (r + 1) * _PIECE, c * _PIECE : (c + 1) * _PIECE] = pieces[pos]
    sigma = NOISE[tier]
    meta = {"order": order, "grid": g, "piece": _PIECE, "ref_scale": _REF_SCALE[tier], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(shuffled, rng, sigma)), to_pil(add_noise(ref, rng, sigma / 2)), prompt, answer, meta)
