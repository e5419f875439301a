"""The maze pair generator: official layout, labels checked by BFS, pixel promises, determinism."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from lmms_plugins.tasks.dod.maze import bfs
from lmms_plugins.tasks.dod.maze.generate import INSTRUCTION, RULES, main, make_pair, tree_maze
from lmms_plugins.utils.jsonl import read_jsonl

PAIRS = 6


def _jsonl(path: Path) -> list[dict]:
    return read_jsonl(path)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("maze") / "dod"
    assert main(["--pairs", str(PAIRS), "--sizes", "7,9,11", "--seed", "11", "--out", str(out)]) == 0
    return out


def test_layout_and_fields(dataset: Path):
    requests = _jsonl(dataset / "instruction.jsonl")
    labels = {r["case_id"]: r for r in _jsonl(dataset / "ground_truth_criteria.jsonl")}
    assert len(requests) == 2 * PAIRS and set(labels) == {r["case_id"] for r in requests}
    for req in requests:
        assert set(req) == {"case_id", "task", "input_mode", "input_image", "input_images", "instruction_en",
                            "rules", "prompt_en"}
        assert req["task"] == "reasoning_edit" and req["input_mode"] == "image_editing"
        assert req["input_images"] == [req["input_image"]]
        assert req["prompt_en"] == req["rules"] + "\n\n" + req["instruction_en"]
        assert (req["rules"], req["instruction_en"]) == (RULES, INSTRUCTION)
        assert (dataset / req["input_image"]).is_file()
        lab = labels[req["case_id"]]
        assert lab["schema"] == "reasoning_edit_pair_v1"
        assert labels[lab["paired_case_id"]]["paired_case_id"] == lab["case_id"]
        feasible = req["case_id"].endswith("-feasible")
        assert lab["ground_truth"]["feasible"] is feasible
        assert req["input_image"].endswith("-A.png" if feasible else "-B.png")
        assert lab["expected_response"] == ("generate_image" if feasible else "cot_abstain_then_eos")
        assert lab["source"]["category_en"] == "maze" and lab["source"]["official_image"] is False
        assert set(lab["grid_evidence"]) == {"grid", "start", "goal", "path", "reachable_set"}  # the official keys
        pv = lab["program_verification"]
        assert set(pv) - {"pixel_checks"} == OFFICIAL_VERIFICATION_KEYS
        (changed,) = pv["changed_cells"]
        assert changed["A"] == "." and changed["B"] == "#" and len(changed["row_col"]) == 2
        assert pv["positive_unique_simple_path"] is True and pv["negative_path"] is None
        assert pv["positive_undirected_edges"] == pv["positive_walkable_vertices"] - 1  # a tree
        assert pv["input_pair_diff_exactly_one_white_to_wall_cell"] is True
        assert pv["negative_start_reachable_set"] == (lab["grid_evidence"]["reachable_set"] if not feasible
                                                      else pv["negative_start_reachable_set"])
        assert changed["row_col"] in pv["negative_start_component_wall_frontier"]
        if feasible:
            assert (dataset / lab["reference_image"]).is_file()
            assert lab["ground_truth"]["witness"].startswith("(1,1)->") and lab["ground_truth"]["certificate"] is None
        else:
            assert lab["reference_image"] is None and lab["ground_truth"]["witness"] is None
            assert "wall" in lab["ground_truth"]["certificate"]


OFFICIAL_VERIFICATION_KEYS = {
    "algorithm", "changed_cells", "coordinate_convention", "cut_distance_from_end", "cut_distance_from_start", "end",
    "input_pair_changed_pixels", "input_pair_diff_exactly_one_white_to_wall_cell", "negative_end_reachable_set",
    "negative_endpoint_degrees", "negative_path", "negative_start_component_wall_frontier",
    "negative_start_reachable_set", "positive_path", "positive_undirected_edges", "positive_unique_simple_path",
    "positive_walkable_vertices", "start",
}


def test_labels_hold_by_bfs(dataset: Path):
    labels = _jsonl(dataset / "ground_truth_criteria.jsonl")
    sizes = set()
    for lab in labels:
        ev = lab["grid_evidence"]
        grid, start, goal = ev["grid"], tuple(ev["start"]), tuple(ev["goal"])
        n = len(grid)
        sizes.add(n)
        assert start == (1, 1) and goal == (n - 2, n - 2)
        assert all(grid[0][i] == grid[-1][i] == grid[i][0] == grid[i][-1] == 1 for i in range(n))
        path = bfs.shortest_path(grid, start, goal)
        pv = lab["program_verification"]
        if lab["ground_truth"]["feasible"]:
            assert bfs.is_tree(grid)
            assert [list(c) for c in path] == ev["path"] == pv["positive_path"]
            assert lab["ground_truth"]["witness"] == bfs.format_path(path)
            assert sorted(map(list, bfs.distances(grid, start))) == ev["reachable_set"]
        else:
            assert path is None and ev["path"] is None
            cut = tuple(pv["changed_cells"][0]["row_col"])
            assert grid[cut[0]][cut[1]] == 1
            assert min(pv["cut_distance_from_start"], pv["cut_distance_from_end"]) >= 4
            assert sorted(map(list, bfs.distances(grid, start))) == pv["negative_start_reachable_set"] == ev["reachable_set"]
            assert sorted(map(list, bfs.distances(grid, goal))) == pv["negative_end_reachable_set"]
    assert sizes == {7, 9, 11}
    # the infeasible map is the feasible map with exactly the cut cell turned into a wall
    by_id = {lab["case_id"]: lab for lab in labels}
    for lab in labels:
        if lab["ground_truth"]["feasible"]:
            other = by_id[lab["paired_case_id"]]
            a, b = np.array(lab["grid_evidence"]["grid"]), np.array(other["grid_evidence"]["grid"])
            diff = np.argwhere(a != b).tolist()
            assert diff == [c["row_col"] for c in other["program_verification"]["changed_cells"]] and a[tuple(diff[0])] == 0


def test_images_differ_in_one_cell_interior(dataset: Path):
    for k in range(1, PAIRS + 1):
        stem = dataset / "image" / f"synthetic-maze-{k:03d}"
        a = np.asarray(Image.open(f"{stem}-A.png").convert("RGB"))
        b = np.asarray(Image.open(f"{stem}-B.png").convert("RGB"))
        ref = np.asarray(Image.open(f"{stem}-A-reference.png").convert("RGB"))
        changed = np.any(a != b, axis=-1)
        assert changed.sum() == 47 * 47
        ys, xs = np.nonzero(changed)
        assert ys.max() - ys.min() == xs.max() - xs.min() == 46
        assert (b[changed] == (173, 216, 230)).all() and (a[changed] == 255).all()
        drawn = np.any(a != ref, axis=-1)
        assert (ref[drawn] == (220, 38, 38)).all() and drawn.sum() > 0


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_maps(dataset: Path, tmp_path: Path):
    assert main(["--pairs", str(PAIRS), "--sizes", "7,9,11", "--seed", "11", "--out", str(tmp_path / "again")]) == 0
    assert _digest(tmp_path / "again") == _digest(dataset)
    assert main(["--pairs", "2", "--sizes", "9", "--seed", "12", "--out", str(tmp_path / "other")]) == 0
    assert make_pair(1, 9, 12).grid != make_pair(1, 9, 11).grid


def test_bad_arguments_are_clear(tmp_path: Path, capsys):
    for argv in (["--sizes", "8"], ["--sizes", "5"], ["--sizes", "x"], ["--pairs", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(argv + ["--out", str(tmp_path / "x")])
        assert exc.value.code == 2
    assert "odd and >= 7" in capsys.readouterr().err
    import random

    with pytest.raises(ValueError, match="odd and >= 7"):
        tree_maze(6, random.Random(0))


def test_generated_set_passes_the_dod_integrity_check(dataset: Path):
    from lmms_plugins.tasks.dod.data import check_integrity, load_labels

    labels = load_labels(dataset)
    assert len(labels) == 2 * PAIRS and all(label.is_maze for label in labels.values())
    report = check_integrity(_jsonl(dataset / "instruction.jsonl"), dataset)
    assert report.ok, report.lines()


def test_lmms_plugins_cli_make_data(tmp_path: Path):
    out = tmp_path / "cli"
    proc = subprocess.run([sys.executable, "-m", "lmms_plugins", "make-data", "dod-maze", "--pairs", "2",
                           "--sizes", "7", "--seed", "1", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2/2 pairs" in proc.stdout
    assert len(_jsonl(out / "instruction.jsonl")) == 4 and len(list((out / "image").glob("*.png"))) == 6
