"""rotated_jigsaw: like jigsaw, but each piece was also turned by a multiple of 90°.

tiles[i] = index (row-major) of the image-1 piece that belongs at original position i;
rots[i] = how many quarter turns counter-clockwise that piece was turned (0-3), so turning it
clockwise rots[i] times restores it. Rule (card): the full tile-and-rotation assignment exact.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, int_list, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem
from lmms_plugins.tasks.cwi.generators.jigsaw import PIECE, grid_size, place_pieces, puzzle_photo

TASK = "rotated_jigsaw"
_TIERS = {
    "easy": dict(grid=2, ref_scale=2, noise=0.0),
    "medium": dict(grid=3, ref_scale=2, noise=3.0),
    "hard": dict(grid=4, ref_scale=3, noise=6.0),
    "expert": dict(grid=5, ref_scale=4, noise=10.0),
}
PROMPT = (
    "Image 1 is a photo cut into a {g}x{g} grid of square pieces that were shuffled and each "
    "turned by 0, 90, 180 or 270 degrees (pieces are numbered 0..{last} row by row in image 1). "
    "Image 2 is a small, low-resolution copy of the original photo. For each position i of the "
    "original (row by row, 0-based) give tiles[i], the number of the image-1 piece that belongs "
    "there, and rots[i], how many quarter turns counter-clockwise that piece was turned (0-3)."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    n = grid_size(prompt) ** 2
    ident = int_list(range(n))
    return {
        "identity": f"tiles={ident}; rots={int_list([0] * n)}",
        "identity_unrotated": f"tiles={ident}; rots={int_list([1] * n)}",
    }


def generate(rng, tier: str) -> GeneratedItem:
    p = tier_params(_TIERS, tier)
    g = p["grid"]
    n = g * g
    prompt = PROMPT.format(g=g, last=n - 1) + answer_instruction("as tiles=[...]; rots=[...]", "tiles=[2,0,3,1]; rots=[1,0,3,2]")
    a, ref = puzzle_photo(rng, g, p["ref_scale"])

    def draw_shuffle(_attempt):
        perm = [int(v) for v in rng.permutation(n)]  # perm[k] = original position of piece k
        turns = [int(v) for v in rng.integers(0, 4, size=n)]  # turns[k] of piece k
        order = [0] * n
        rots = [0] * n
        for k, pos in enumerate(perm):
            order[pos], rots[pos] = k, turns[k]
        return Draft(f"tiles={int_list(order)}; rots={int_list(rots)}", prompt, (perm, turns, order, rots))

    shuffle = draw_until_clear(TASK, shortcut_answers, draw_shuffle)
    perm, turns, order, rots = shuffle.values
    sigma = p["noise"]
    meta = {"tiles": order, "rots": rots, "grid": g, "piece": PIECE, "ref_scale": p["ref_scale"], "noise_sigma": sigma, "tier": tier}
    shuffled = place_pieces(a, g, perm, turns)
    return GeneratedItem(to_pil(add_noise(shuffled, rng, sigma)), to_pil(add_noise(ref, rng, sigma / 2)), prompt, shuffle.answer, meta)
