"""jigsaw: image 1 is a photo cut into a g x g grid of square pieces and shuffled; image 2 is a
small low-resolution copy of the unshuffled photo.

answer[i] = index (row-major, 0-based) of the piece in image 1 that belongs at position i
(row-major) of the original. Harder tiers: more pieces, a smaller reference, more noise.
Pieces are drawn so that no two reference tiles look alike (the puzzle has one solution).
Rule (card): the full sequence exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, int_list, photo_array, prompt_ints, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "jigsaw"
# ref_scale: the reference is 1/ref_scale of the puzzle's size
_TIERS = {
    "easy": dict(grid=3, ref_scale=2, noise=0.0),
    "medium": dict(grid=4, ref_scale=3, noise=3.0),
    "hard": dict(grid=5, ref_scale=4, noise=6.0),
    "expert": dict(grid=6, ref_scale=4, noise=10.0),
}
PIECE = 64
_MIN_TILE_DIST = 12.0  # RMS grey distance between any two reference tiles
PROMPT = (
    "Image 1 is a photo cut into a {g}x{g} grid of square pieces that were shuffled (pieces are "
    "numbered 0..{last} row by row in image 1). Image 2 is a small, low-resolution copy of the "
    "original, unshuffled photo. For each position i of the original (row by row, 0-based), "
    "give the number of the image-1 piece that belongs there."
)


def grid_size(prompt: str) -> int:
    """g of the g x g puzzle, as the prompt states it (also rotated_jigsaw's)."""
    return prompt_ints(prompt, r"into a (\d{1,2})x", "the puzzle's grid size")[0]


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    ident = list(range(grid_size(prompt) ** 2))
    return {"identity": int_list(ident), "reverse": int_list(ident[::-1])}


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


def puzzle_photo(rng, g: int, ref_scale: int):
    """(photo, reference) of a g x g puzzle whose reference tiles all differ (one solution)."""

    def draw(_attempt):
        a = photo_array(rng, g * PIECE, g * PIECE)
        ref = reference(a, ref_scale)
        return (a, ref) if distinct_enough(ref, g, _MIN_TILE_DIST) else None

    return retry(draw, f"photo with {g * g} distinct reference tiles")


def place_pieces(a, g: int, perm, turns=None):
    """The puzzle image: piece k shows original piece perm[k], turned turns[k] quarter turns."""
    import numpy as np

    pieces = tiles(a, g, PIECE)
    shuffled = np.zeros_like(a)
    for k, pos in enumerate(perm):
        r, c = divmod(k, g)
        piece = pieces[pos] if turns is None else np.rot90(pieces[pos], turns[k])
        shuffled[r * PIECE : (r + 1) * PIECE, c * PIECE : (c + 1) * PIECE] = piece
    return shuffled


def generate(rng, tier: str) -> GeneratedItem:
    p = tier_params(_TIERS, tier)
    g = p["grid"]
    prompt = PROMPT.format(g=g, last=g * g - 1) + answer_instruction(
        f"as a list of {g * g} piece numbers", int_list(range(g * g)[::-1])
    )
    a, ref = puzzle_photo(rng, g, p["ref_scale"])

    def draw_shuffle(_attempt):
        perm = [int(v) for v in rng.permutation(g * g)]  # perm[k] = original position of piece k
        order = [0] * (g * g)
        for k, pos in enumerate(perm):
            order[pos] = k
        return Draft(int_list(order), prompt, (perm, order))

    shuffle = draw_until_clear(TASK, shortcut_answers, draw_shuffle)
    perm, order = shuffle.values
    sigma = p["noise"]
    meta = {"order": order, "grid": g, "piece": PIECE, "ref_scale": p["ref_scale"], "noise_sigma": sigma, "tier": tier}
    shuffled = place_pieces(a, g, perm)
    return GeneratedItem(to_pil(add_noise(shuffled, rng, sigma)), to_pil(add_noise(ref, rng, sigma / 2)), prompt, shuffle.answer, meta)
