"""Small Draw-or-Decline datasets in the official layout, written by the tests (real PNG files).

Real-world pairs: one input image shared by the feasible and the infeasible request, plus the
feasible request's reference image. Maze pairs: made by the maze engineer's generator
(``lmms_plugins.tasks.dod.maze.generate``), which writes the same layout.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ (judge_server)

REAL_CATEGORIES = (
    "material_modification",
    "medium_interaction",
    "motion_state_change",
    "pose_adjustment",
    "spatial_arangement",  # sic: UniREditBench's spelling, kept by DoD
    "temporal_evolution",
)


def png(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (96, 64), mark: int = 0) -> Path:
    """A real PNG: a coloured canvas with a dark square whose place depends on ``mark``."""
    from PIL import Image, ImageDraw

    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, colour)
    d = ImageDraw.Draw(img)
    x = 8 + (mark * 17) % (size[0] - 24)
    d.rectangle([x, 20, x + 16, 36], fill=(20, 20, 20))
    img.save(path)
    return path


def _real_pair(root: Path, category: str, index: int) -> tuple[list[dict], list[dict]]:
    pair_id = f"{category}-{index}"
    image = f"image/{pair_id}.png"
    reference = f"image/{pair_id}_groundtruth.png"
    png(root / image, (200, 180 + index, 150), mark=index)
    png(root / reference, (190, 170 + index, 140), mark=index + 3)
    feasible_instr = f"Edit the {category.replace('_', ' ')} scene {index}: move the dark square to the right."
    infeasible_instr = f"Edit the {category.replace('_', ' ')} scene {index}: move the dark square to the right while keeping it exactly where it is."
    requests, labels = [], []
    for feasible, instr in ((True, feasible_instr), (False, infeasible_instr)):
        cid = f"{pair_id}-{'feasible' if feasible else 'infeasible'}"
        other = f"{pair_id}-{'infeasible' if feasible else 'feasible'}"
        requests.append({
            "case_id": cid, "task": "reasoning_edit", "input_mode": "image_editing",
            "input_image": image, "input_images": [image], "instruction_en": instr, "rules": "", "prompt_en": instr,
        })
        labels.append({
            "schema": "reasoning_edit_pair_v1", "case_id": cid, "pair_id": pair_id, "paired_case_id": other,
            "ground_truth": {
                "feasible": feasible,
                "reason": "Feasible request." if feasible else "The square cannot both move and stay.",
                "witness": "The square now sits near the right edge." if feasible else None,
                "certificate": None if feasible else "Moving and staying in place contradict each other.",
            },
            "reference_image": reference if feasible else None,
            "expected_response": "generate_image" if feasible else "cot_abstain_then_eos",
            "source": {"dataset": "UniREditBench", "split": "test", "original_id": index, "category_en": category,
                       "reference_effect": "The square now sits near the right edge."},
        })
    return requests, labels


def make_dataset(root: Path, pairs_per_category: int = 2, maze_pairs: int = 2, seed: int = 0) -> Path:
    """Write a DoD-layout dataset at ``root`` and return it."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    requests, labels = [], []
    for category in REAL_CATEGORIES:
        for index in range(1, pairs_per_category + 1):
            r, l = _real_pair(root, category, index)
            requests += r
            labels += l
    if maze_pairs:
        from lmms_plugins.tasks.dod.maze.generate import main as maze_main

        maze_dir = root.parent / (root.name + "_maze_tmp")
        rc = maze_main(["--pairs", str(maze_pairs), "--sizes", "7", "--seed", str(seed), "--out", str(maze_dir)])
        assert rc == 0, "maze generator failed"
        requests += read_jsonl(maze_dir / "instruction.jsonl")
        labels += read_jsonl(maze_dir / "ground_truth_criteria.jsonl")
        for f in (maze_dir / "image").iterdir():
            shutil.copy(f, root / "image" / f.name)
        shutil.rmtree(maze_dir)
    write_jsonl(root / "instruction.jsonl", requests)
    write_jsonl(root / "ground_truth_criteria.jsonl", labels)
    return root


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict]:
    from lmms_plugins.utils.jsonl import read_jsonl as read

    return read(path)
