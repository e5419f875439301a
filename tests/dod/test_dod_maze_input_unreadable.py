"""A maze whose *input* map the verifier cannot read is pending (our problem), not E = 0 for the model."""

import types

from PIL import Image

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod import metrics as M


def test_unreadable_input_map_is_pending_not_a_failure(tmp_path):
    blank = tmp_path / "input.png"
    Image.new("RGB", (200, 200), (255, 255, 255)).save(blank)
    drawn = tmp_path / "output.png"
    Image.new("RGB", (200, 200), (220, 38, 38)).save(drawn)
    label = types.SimpleNamespace(is_maze=True, grid_evidence=None)
    ok, why, status = hooks._judge_edit(label, blank, drawn, {})
    assert ok is None and status == M.MAZE_UNVERIFIED and "could not read the input map" in why


def test_unreadable_output_is_the_models_failure(tmp_path):
    from lmms_plugins.tasks.dod.maze.generate import main as make_pairs

    root = tmp_path / "dod"
    assert make_pairs(["--pairs", "1", "--sizes", "7", "--seed", "3", "--out", str(root)]) == 0
    maze = next((root / "image").glob("*-A.png"))
    junk = tmp_path / "junk.png"
    Image.new("RGB", (16, 16), (0, 0, 0)).save(junk)
    label = types.SimpleNamespace(is_maze=True, grid_evidence=None)
    ok, why, status = hooks._judge_edit(label, maze, junk, {})
    assert ok is False and status == "ok" and "maze verifier" in why
