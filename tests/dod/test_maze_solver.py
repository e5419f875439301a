"""The maze_solver baseline: solves feasible maps (the verifier accepts its drawing), declines
infeasible ones with the official abstention and no image."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from lmms_plugins.tasks.dod.maze import render as mr
from lmms_plugins.tasks.dod.maze.generate import make_pair, render_pair
from lmms_plugins.tasks.dod.maze.solve import solve_maze_image
from lmms_plugins.tasks.dod.maze.verify import verify_maze_edit
from lmms_plugins.tasks.dod.refusal import detect_refusal, official_abstain


def test_solves_feasible_and_declines_infeasible():
    for index, n in ((1, 7), (2, 9), (3, 11)):
        pair = make_pair(index, n, 4)
        a, b, _ref, _ = render_pair(pair)
        solved = solve_maze_image(a)
        assert solved.status == "solved" and list(solved.path) == list(pair.path)
        v = verify_maze_edit(a, solved.image)
        assert v.ok and list(v.cells) == list(pair.path)
        assert not detect_refusal(solved.text).refused
        declined = solve_maze_image(b)
        assert declined.status == "no_path" and declined.image is None
        assert official_abstain(declined.text) and detect_refusal(declined.text).refused
        assert declined.text.index("[ABSTAIN]") + len("[ABSTAIN]") == declined.text.index("</think>")


def test_solver_follows_the_input_geometry():
    pair = make_pair(5, 11, 4)
    img, lay = mr.render_maze(pair.grid, pair.start, pair.goal, pitch=30, labels=False)
    solved = solve_maze_image(img.convert("RGBA"))
    assert solved.image.size == img.size
    assert verify_maze_edit(img, solved.image).ok


def test_unreadable_input_is_not_a_refusal():
    out = solve_maze_image(Image.new("RGB", (200, 200), "white"))
    assert out.status == "unreadable" and out.image is None
    assert not official_abstain(out.text)


class _Request:
    def __init__(self, args):
        self.args = args


def test_model_generate_until(tmp_path: Path):
    from lmms_plugins.models.maze_solver import MazeSolver

    pair = make_pair(1, 9, 8)
    a, b, _ref, _ = render_pair(pair)
    docs = [{"image": a}, {"image": b}, {"image": None}]
    model = MazeSolver(output_dir=str(tmp_path / "out"))
    model.task_dict = {"maze_task": {"test": docs}}

    def visual(doc):
        if doc["image"] is None:
            raise FileNotFoundError("input image missing")
        return [doc["image"]]

    answers = model.generate_until([_Request(("prompt", {}, visual, i, "maze_task", "test")) for i in range(3)])
    first, second, third = (json.loads(x) for x in answers)
    assert len(first["images"]) == 1 and Path(first["images"][0]).is_file()
    assert verify_maze_edit(a, first["images"][0]).ok
    assert second["images"] == [] and "[ABSTAIN]</think>" in second["text"]
    assert third["images"] == [] and third["text"]


def test_large_jpeg_input_is_drawn_in_original_pixels(tmp_path: Path):
    pair = make_pair(2, 9, 4)
    a, _b, _ref, _ = render_pair(pair)
    big = a.resize((a.width * 3, a.height * 3), Image.NEAREST)
    path = tmp_path / "big.jpg"
    big.save(path, quality=92)
    solved = solve_maze_image(path)
    assert solved.image.size == big.size
    assert verify_maze_edit(path, solved.image).ok
