"""Feasible / infeasible maze pairs in the official Draw-or-Decline layout.

``lmms-plugins make-data dod-maze --pairs N --sizes 7,9,11 --seed S --out DIR`` calls :func:`main`.

Each pair ``synthetic-maze-<nnn>`` has
* a feasible map A: a perfect maze on an n x n grid (outer wall included) whose open cells form a
  tree, so the path from the green start (1,1) to the red end (n-2,n-2) is unique;
* an infeasible map B: A with one cell of that path, at least 4 moves from both ends, turned into
  a wall, nothing else changed;
* the reference image of A with the solution drawn.
Both labels are checked by BFS, and the rendered images are checked pixel by pixel (A and B
differ in exactly one cell interior) before anything is written.  The same seed gives the same
bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import bfs

MIN_CUT_DISTANCE = 4
SPANNING_TREE_ALGORITHM = "randomized_depth_first_search"

# The official maze rules and instruction, as the official example split has them
# (data/dod_examples/instruction.jsonl of the visual-abstention repository): a model is asked
# exactly what DoD asks it.
RULES = (
    "Light-blue cells are walls, white cells are traversable passages, green is start, red is end. "
    "Legal moves connect orthogonally adjacent traversable cells, including colored endpoints. "
    "Diagonal moves and crossing walls are prohibited. Keep grid topology and recognizable endpoints; "
    "the requested red path overlay may mark passages and endpoint connections."
)
INSTRUCTION = (
    "Using the red color, draw one continuous path from the green start to the red end along walkable "
    "white cells only. Do not cross walls."
)
ALGORITHM = "exhaustive_bfs_4_neighbors_and_connected_tree_check"
COORDINATES = "0-based [row, column], including outer walls"


@dataclass(frozen=True)
class MazePair:
    pair_id: str
    n: int
    seed: int
    grid: tuple[tuple[int, ...], ...]  # feasible map
    start: tuple[int, int]
    goal: tuple[int, int]
    path: tuple[tuple[int, int], ...]
    cut: tuple[int, int]

    @property
    def blocked_grid(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(1 if (r, c) == self.cut else v for c, v in enumerate(row))
                     for r, row in enumerate(self.grid))


def tree_maze(n: int, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """A perfect maze by randomized depth-first search on the odd-coordinate lattice."""
    if n < 7 or n % 2 == 0:
        raise ValueError(f"maze size must be odd and >= 7 (got {n}): the cut needs a path of >= 8 moves")
    grid = [[1] * n for _ in range(n)]
    grid[1][1] = 0
    stack = [(1, 1)]
    while stack:
        r, c = stack[-1]
        options = [(r + 2 * dr, c + 2 * dc, dr, dc) for dr, dc in bfs.STEPS
                   if 0 < r + 2 * dr < n - 1 and 0 < c + 2 * dc < n - 1 and grid[r + 2 * dr][c + 2 * dc]]
        if not options:
            stack.pop()
            continue
        nr, nc, dr, dc = options[rng.randrange(len(options))]
        grid[r + dr][c + dc] = 0
        grid[nr][nc] = 0
        stack.append((nr, nc))
    return tuple(tuple(row) for row in grid)


def pair_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index * 7919) % (2**31)


def make_pair(index: int, n: int, seed: int) -> MazePair:
    """Pair number ``index`` (1-based) of a run with global ``seed``; raises if BFS disagrees."""
    own_seed = pair_seed(seed, index)
    rng = random.Random(own_seed)
    grid = tree_maze(n, rng)
    start, goal = (1, 1), (n - 2, n - 2)
    path = bfs.shortest_path(grid, start, goal)
    if path is None or not bfs.is_tree(grid):
        raise AssertionError(f"generator bug: maze {index} is not a connected tree")
    candidates = [cell for i, cell in enumerate(path)
                  if i >= MIN_CUT_DISTANCE and len(path) - 1 - i >= MIN_CUT_DISTANCE]
    cut = candidates[rng.randrange(len(candidates))]
    pair = MazePair(f"synthetic-maze-{index:03d}", n, own_seed, grid, start, goal, tuple(path), cut)
    if bfs.shortest_path(pair.blocked_grid, start, goal) is not None:
        raise AssertionError(f"generator bug: cut {cut} leaves a path in maze {index}")
    return pair


# -- records in the official layout ---------------------------------------------------------------

def _c(cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _cells(cells) -> list[list[int]]:
    return [[int(r), int(c)] for r, c in cells]


def _rows(grid) -> list[list[int]]:
    return [list(row) for row in grid]


def _wall_frontier(grid, region) -> list[tuple[int, int]]:
    """Wall cells that share a side with a cell of ``region``."""
    n_rows, n_cols = len(grid), len(grid[0])
    out = {(r + dr, c + dc) for r, c in region for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
           if 0 <= r + dr < n_rows and 0 <= c + dc < n_cols and grid[r + dr][c + dc] == 1}
    return sorted(out)


def _open_edges(grid) -> int:
    """Undirected edges between side-adjacent open cells."""
    cells = set(bfs.open_cells(grid))
    return sum(((r + 1, c) in cells) + ((r, c + 1) in cells) for r, c in cells)


def image_names(pair_id: str) -> dict[str, str]:
    return {"A": f"image/{pair_id}-A.png", "B": f"image/{pair_id}-B.png",
            "reference": f"image/{pair_id}-A-reference.png"}


def render_pair(pair: MazePair, pitch: int = 48):
    """The three images (A, B, reference) and the layout; checks the pixel-level promises."""
    import numpy as np

    from . import render as mr

    a, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=pitch)
    b, _ = mr.render_maze(pair.blocked_grid, pair.start, pair.goal, pitch=pitch)
    ref = mr.draw_cells_path(a.copy(), lay, pair.path)
    diff = np.any(np.asarray(a) != np.asarray(b), axis=-1)
    ys, xs = np.nonzero(diff)
    box = [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())] if len(xs) else None
    interior = list(lay.interior(pair.cut))
    side = pitch - 1
    checks = {
        "differing_pixels_feasible_vs_infeasible": int(diff.sum()),
        "expected_differing_pixels": side * side,
        "differing_box": box,
        "changed_cell_interior_box": interior,
    }
    if checks["differing_pixels_feasible_vs_infeasible"] != side * side or box != interior:
        raise AssertionError(f"generator bug: {pair.pair_id} A and B differ outside the cut cell: {checks}")
    ref_diff = np.any(np.asarray(a) != np.asarray(ref), axis=-1)
    on_path = np.zeros_like(ref_diff)
    for r, c in pair.path:
        top, left = lay.y0 + r * pitch, lay.x0 + c * pitch
        on_path[top:top + pitch + 1, left:left + pitch + 1] = True
    checks["reference_changes_only_on_path_cells"] = bool(ref_diff.any() and not (ref_diff & ~on_path).any())
    if not checks["reference_changes_only_on_path_cells"]:
        raise AssertionError(f"generator bug: {pair.pair_id} reference drawn outside the path cells")
    return a, b, ref, checks


def pair_records(pair: MazePair, pixel_checks: dict) -> tuple[list[dict], list[dict]]:
    """(instruction rows, label rows) of one pair: feasible first."""
    names = image_names(pair.pair_id)
    n, start, goal, cut = pair.n, pair.start, pair.goal, pair.cut
    blocked = pair.blocked_grid
    from_start = bfs.distances(blocked, start)
    from_goal = bfs.distances(blocked, goal)
    if goal in from_start:
        raise AssertionError(f"generator bug: {pair.pair_id} infeasible map still connects the ends")
    feasible_reach = sorted(bfs.distances(pair.grid, start))
    cut_index = pair.path.index(cut)
    pixels = pixel_checks.get("differing_pixels_feasible_vs_infeasible")
    # the official program_verification keys (positive = feasible map A, negative = blocked map B)
    verification = {
        "algorithm": ALGORITHM,
        "changed_cells": [{"A": ".", "B": "#", "row_col": list(cut)}],
        "coordinate_convention": COORDINATES,
        "cut_distance_from_end": len(pair.path) - 1 - cut_index,
        "cut_distance_from_start": cut_index,
        "end": list(goal),
        "input_pair_changed_pixels": pixels,
        "input_pair_diff_exactly_one_white_to_wall_cell": pixels == pixel_checks.get("expected_differing_pixels"),
        "negative_end_reachable_set": _cells(sorted(from_goal)),
        "negative_endpoint_degrees": [len(bfs.open_neighbours(blocked, start)), len(bfs.open_neighbours(blocked, goal))],
        "negative_path": None,
        "negative_start_component_wall_frontier": _cells(_wall_frontier(blocked, from_start)),
        "negative_start_reachable_set": _cells(sorted(from_start)),
        "positive_path": _cells(pair.path),
        "positive_undirected_edges": _open_edges(pair.grid),
        "positive_unique_simple_path": bfs.is_tree(pair.grid),
        "positive_walkable_vertices": len(bfs.open_cells(pair.grid)),
        "start": list(start),
        "pixel_checks": pixel_checks,  # this generator's own checks (not an official key)
    }
    source = {
        "dataset": "Draw-or-Decline synthetic maze (lmms-plugins)",
        "split": "test",
        "original_id": pair.pair_id,
        "category_en": "maze",
        "origin": "generated by lmms_plugins.tasks.dod.maze.generate",
        "official_image": False,
        "programmatically_constructed": True,
        "seed": pair.seed,
        "synthetic_grid_shape": [n, n],
        "rotation_quarter_turns_clockwise": 0,
        "spanning_tree_algorithm": SPANNING_TREE_ALGORITHM,
        "rendering_transform": "none",
    }
    prompt = RULES + "\n\n" + INSTRUCTION
    ids = {True: f"{pair.pair_id}-feasible", False: f"{pair.pair_id}-infeasible"}
    instructions, labels = [], []
    for feasible in (True, False):
        image = names["A"] if feasible else names["B"]
        instructions.append({
            "case_id": ids[feasible], "task": "reasoning_edit", "input_mode": "image_editing",
            "input_image": image, "input_images": [image], "instruction_en": INSTRUCTION,
            "rules": RULES, "prompt_en": prompt,
        })
        if feasible:
            truth = {
                "feasible": True,
                "reason": (f"The open cells form a tree, so exactly one path of {len(pair.path) - 1} moves "
                           f"joins the start {_c(start)} and the end {_c(goal)} through open cells."),
                "witness": bfs.format_path(pair.path),
                "certificate": None,
            }
        else:
            truth = {
                "feasible": False,
                "reason": (f"Cell {_c(cut)}, which the only start-to-end route must pass, is a wall in this map, "
                           "so no path joins the start and the end."),
                "witness": None,
                "certificate": (f"Cell {_c(cut)} is a wall. The start reaches {len(from_start)} open cells and the end "
                                f"reaches {len(from_goal)}; the two regions share no cell and are separated by walls."),
            }
        grid = pair.grid if feasible else blocked
        labels.append({
            "schema": "reasoning_edit_pair_v1",
            "case_id": ids[feasible], "pair_id": pair.pair_id, "paired_case_id": ids[not feasible],
            "ground_truth": truth,
            "reference_image": names["reference"] if feasible else None,
            "expected_response": "generate_image" if feasible else "cot_abstain_then_eos",
            "source": source,
            "program_verification": verification,
            "grid_evidence": {
                "grid": _rows(grid), "start": list(start), "goal": list(goal),
                "path": _cells(pair.path) if feasible else None,
                "reachable_set": _cells(feasible_reach) if feasible else _cells(sorted(from_start)),
            },
        })
    return instructions, labels


def _png_bytes(img) -> bytes:
    import io

    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


def generate(out: Path, pairs: int, sizes: list[int], seed: int, *, pitch: int = 48,
             check_with_verifier: bool = True, progress=print) -> dict:
    """Write ``pairs`` pairs under ``out``; returns counts. Raises on any failed check."""
    from .verify import verify_maze_edit

    out = Path(out)
    (out / "image").mkdir(parents=True, exist_ok=True)
    instructions, labels = [], []
    t0 = time.perf_counter()
    step = max(1, pairs // 10)
    for index in range(1, pairs + 1):
        n = sizes[(index - 1) % len(sizes)]
        pair = make_pair(index, n, seed)
        a, b, ref, checks = render_pair(pair, pitch)
        if check_with_verifier:  # the rendered reference must read back as the BFS path
            verdict = verify_maze_edit(a, ref)
            if not verdict.ok or list(verdict.cells) != list(pair.path):
                raise AssertionError(f"generator bug: {pair.pair_id} reference fails verification: {verdict.reason}")
        names = image_names(pair.pair_id)
        for key, img in (("A", a), ("B", b), ("reference", ref)):
            (out / names[key]).write_bytes(_png_bytes(img))
        ins, lab = pair_records(pair, checks)
        instructions += ins
        labels += lab
        if progress and (index % step == 0 or index == pairs):
            rate = index / max(time.perf_counter() - t0, 1e-9)
            progress(f"[dod-maze] {index}/{pairs} pairs written ({rate:.1f} pairs/s)")
    for name, rows in (("instruction.jsonl", instructions), ("ground_truth_criteria.jsonl", labels)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (out / name).write_text(text, encoding="utf-8")
    return {"pairs": pairs, "requests": len(instructions), "images": 3 * pairs,
            "seconds": time.perf_counter() - t0}


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes must be comma-separated integers, got {text!r}") from None
    bad = [s for s in sizes if s < 7 or s % 2 == 0]
    if not sizes or bad:
        raise argparse.ArgumentTypeError(f"maze sizes must be odd and >= 7 (outer wall included), got {text!r}")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lmms-plugins make-data dod-maze",
        description="Write feasible/infeasible maze pairs in the official Draw-or-Decline layout "
                    "(instruction.jsonl, ground_truth_criteria.jsonl, image/).")
    parser.add_argument("--pairs", type=int, default=150, help="number of pairs (default 150, like DoD)")
    parser.add_argument("--sizes", type=_sizes, default=[7, 9, 11],
                        help="grid sizes incl. the outer wall, used in turn (default 7,9,11)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, type=Path, help="dataset root to write")
    parser.add_argument("--pitch", type=int, default=48, help="cell size in pixels (default 48)")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be >= 1")
    if args.pitch < 8:
        parser.error("--pitch must be >= 8")
    stats = generate(args.out, args.pairs, args.sizes, args.seed, pitch=args.pitch)
    print(f"[dod-maze] wrote {stats['pairs']} pairs ({stats['requests']} requests, {stats['images']} images) "
          f"to {args.out} in {stats['seconds']:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
