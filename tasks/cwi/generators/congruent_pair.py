"""congruent_pair: which shape in panel A is congruent to which shape in panel B?

Construction: two panels (image = A, image_2 = B), each a grid of N cells with one filled
polygon per cell. All 2N polygons are variants of one random star-shaped polygon, each drawn
at its own rotation and position; exactly one polygon in A and one in B are exact copies
(congruent: same shape and size up to rotation and translation). Every other polygon has one
or two vertices moved radially by a few per cent of the shape's size (less in harder tiers),
so all shapes look alike. No mirror images occur. Shapes in A are numbered 0..N-1 and in B
N..2N-1, row by row. The answer is the index pair [i, j] (i in A, j in B).
Rule (card): exact pair.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import answer_instruction, draw_until_clear, prompt_ints, tier_params
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "congruent_pair"

CELL = 120
_TIERS = {
    "easy": dict(grid=(2, 3), vertices=(6, 7), perturb=(0.22, 0.32), moved=(1, 2)),
    "medium": dict(grid=(2, 4), vertices=(6, 8), perturb=(0.14, 0.22), moved=(1, 2)),
    "hard": dict(grid=(3, 3), vertices=(7, 9), perturb=(0.10, 0.15), moved=(1, 2)),
    "expert": dict(grid=(3, 4), vertices=(8, 10), perturb=(0.07, 0.11), moved=(1, 2)),
}


def _prompt(rows: int, cols: int) -> str:
    n = rows * cols
    return (
        f"Each of the two images is a grid of {rows} rows x {cols} columns of cells with one "
        f"filled shape per cell. Shapes in the first image are numbered 0 to {n - 1} and shapes "
        f"in the second image {n} to {2 * n - 1}, row by row from the top-left cell. Exactly one "
        "shape of the first image is congruent to exactly one shape of the second image (same "
        "shape and size, only rotated and moved; no mirror images); all the others differ "
        "slightly. Which pair is congruent?"
    ) + answer_instruction("as [i,j] with i from the first image and j from the second", f"[2,{n + 3}]")


def parse_grid(prompt: str):
    """(rows, cols) as the prompt states them."""
    return prompt_ints(prompt, r"grid of (\d+) rows x (\d+) columns", "the congruent_pair grid size")


def _render(rng, polys, rows, cols):
    """One panel: each polygon (radii per vertex angle) rotated and placed in its cell."""
    import cv2
    import numpy as np
    from PIL import Image

    ss = 4  # supersampling for anti-aliased edges
    canvas = np.full((rows * CELL * ss, cols * CELL * ss), 255, np.uint8)
    placements = []
    for k, (angles, radii) in enumerate(polys):
        r, c = divmod(k, cols)
        rot = float(rng.uniform(0, 2 * np.pi))
        reach = float(radii.max())
        cx = c * CELL + CELL / 2 + float(rng.uniform(-1, 1)) * (CELL / 2 - reach - 6)
        cy = r * CELL + CELL / 2 + float(rng.uniform(-1, 1)) * (CELL / 2 - reach - 6)
        xs = cx + radii * np.cos(angles + rot)
        ys = cy + radii * np.sin(angles + rot)
        pts = (np.stack([xs, ys], 1) * ss).round().astype(np.int32)
        cv2.fillPoly(canvas, [pts], 0, cv2.LINE_8)
        placements.append({"centre": [round(cx, 2), round(cy, 2)], "rotation_deg": round(float(np.degrees(rot)), 3)})
    for i in range(1, cols):
        canvas[:, i * CELL * ss - ss : i * CELL * ss + ss] = 200  # light cell borders
    for i in range(1, rows):
        canvas[i * CELL * ss - ss : i * CELL * ss + ss, :] = 200
    small = cv2.resize(canvas, (cols * CELL, rows * CELL), interpolation=cv2.INTER_AREA)
    return Image.fromarray(np.repeat(small[:, :, None], 3, axis=2)), placements


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    p = tier_params(_TIERS, tier)
    rows, cols = p["grid"]
    n = rows * cols
    prompt = _prompt(rows, cols)

    def draw_shapes(_attempt):
        nv = int(rng.integers(p["vertices"][0], p["vertices"][1] + 1))
        # vertex angles: evenly spread with jitter, so no vertex sits in a sliver
        angles = (np.arange(nv) + rng.uniform(-0.3, 0.3, size=nv)) * (2 * np.pi / nv) + rng.uniform(0, 2 * np.pi)
        size = float(rng.uniform(30, 44))
        base = size * rng.uniform(0.55, 1.0, size=nv)
        # every distractor must differ from the base shape and from every other shape by at
        # least the tier's smallest perturbation at some vertex (else two distractors, or a
        # distractor and the base, would be congruent too)
        min_sep = 0.8 * p["perturb"][0] * size
        polys, perturbations, drawn = [], [], [base]
        for k in range(2 * n):
            for _try in range(100):
                radii = base.copy()
                moved = []
                m = int(rng.integers(p["moved"][0], p["moved"][1] + 1))
                for v in rng.choice(nv, size=m, replace=False):
                    d = float(rng.uniform(*p["perturb"])) * size * float(rng.choice([-1, 1]))
                    if radii[v] + d < 0.4 * size or radii[v] + d > 1.1 * size:
                        d = -d
                    radii[v] += d
                    moved.append({"vertex": int(v), "delta_px": round(d, 3)})
                if all(np.abs(radii - o).max() >= min_sep for o in drawn):
                    break
            else:
                break
            drawn.append(radii)
            polys.append((angles, radii))
            perturbations.append(moved)
        if len(polys) < 2 * n:
            return None
        i = int(rng.integers(0, n))
        j = int(rng.integers(n, 2 * n))
        polys[i] = (angles, base.copy())
        polys[j] = (angles, base.copy())
        perturbations[i] = perturbations[j] = []
        return Draft(f"[{i},{j}]", prompt, (polys, angles, base, perturbations, i, j))

    # the fixed guesses are rejected before drawing (they do not depend on the pixels)
    shapes = draw_until_clear(TASK, shortcut_answers, draw_shapes)
    polys, angles, base, perturbations, i, j = shapes.values
    image, place_a = _render(rng, polys[:n], rows, cols)
    image_2, place_b = _render(rng, polys[n:], rows, cols)
    meta = {
        "tier": tier,
        "rows": rows,
        "cols": cols,
        "cell_px": CELL,
        "pair": [i, j],
        "vertex_angles_rad": [round(float(a), 5) for a in angles],
        "base_radii_px": [round(float(r), 4) for r in base],
        "perturbations": perturbations,
        "placements": place_a + place_b,
    }
    return GeneratedItem(image, image_2, prompt, shapes.answer, meta)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The first shape of each image, and the last of each."""
    rows, cols = parse_grid(prompt)
    n = rows * cols
    return {"first_first": f"[0,{n}]", "last_last": f"[{n - 1},{2 * n - 1}]", "first_last": f"[0,{2 * n - 1}]"}
