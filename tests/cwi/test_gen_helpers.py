"""The generators' shared dialect (tasks/cwi/generators/helpers.py): the redraw helpers, and
every generator declaring its task, a tier table and the shared answer instruction."""

from __future__ import annotations

import ast
import importlib
import inspect

import numpy as np
import pytest

from lmms_plugins.tasks.cwi.catalog import TASKS, TIERS
from lmms_plugins.tasks.cwi.generators import helpers
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem


def test_a_draw_that_a_shortcut_gets_right_is_redrawn_from_the_same_stream():
    rng = np.random.default_rng(0)
    answers = iter(["0,0", "10,10", "37,-5"])  # circular_shift's shortcuts are 0,0 and 10,10
    seen = []

    def draw(attempt):
        seen.append(attempt)
        return Draft(next(answers), "prompt", rng.integers(100))

    got = helpers.draw_until_clear("circular_shift", lambda *_: {"zero": "0,0", "constant": "10,10"}, draw)
    assert got.answer == "37,-5" and seen == [0, 1, 2]


def test_shortcut_answers_see_the_candidates_images_and_prompt():
    calls = []
    item = GeneratedItem("IMG", "IMG2", "the prompt", "12", {})

    def shortcuts(image, image_2, prompt):
        calls.append((image, image_2, prompt))
        return {"other": "13"}

    assert helpers.draw_until_clear("peak_count", shortcuts, lambda _: item) is item
    assert calls == [("IMG", "IMG2", "the prompt")]
    draft = Draft("12", "draft prompt")
    assert helpers.draw_until_clear("peak_count", shortcuts, lambda _: draft) is draft
    assert calls[-1] == (None, None, "draft prompt")  # a draft has no pixels yet


def test_a_generator_that_cannot_escape_its_shortcuts_raises_naming_the_task():
    with pytest.raises(RuntimeError, match=r"no peak_count sample that escapes the shortcuts in 5 attempts"):
        helpers.draw_until_clear("peak_count", lambda *_: {"constant": "7"}, lambda _: Draft("7", ""), attempts=5)


def test_a_construction_that_keeps_failing_raises_instead_of_passing_on():
    tries = []
    with pytest.raises(RuntimeError, match="no textured window in 3 attempts"):
        helpers.retry(lambda attempt: tries.append(attempt), "textured window", attempts=3)
    assert tries == [0, 1, 2]
    assert helpers.retry(lambda attempt: attempt if attempt == 2 else None, "x") == 2


def test_the_layout_read_back_from_a_prompt_is_checked():
    assert helpers.prompt_ints("a grid of 4 rows x 6 columns", r"(\d+) rows x (\d+) columns", "the grid") == (4, 6)
    with pytest.raises(ValueError, match="the prompt lacks the grid"):
        helpers.prompt_ints("no numbers here", r"(\d+) rows x (\d+) columns", "the grid")


def test_gold_spellings():
    assert helpers.int_list([2, 0, 1]) == "[2,0,1]" and helpers.int_list(np.array([3, -4])) == "[3,-4]"
    assert helpers.rgb_str([120.4, 63.5, 300]) == "120,64,255"
    assert helpers.box_str(helpers.norm_box(48, 36, 96, 72, 480, 360)) == "[100,100,300,300]"
    assert helpers.answer_instruction("as x,y", "1,2") == "\nAnswer inside <answer>…</answer> as x,y, e.g. <answer>1,2</answer>."


def test_noise_keeps_the_arrays_precision():
    for dtype in (np.float32, np.float64):
        out = helpers.add_noise(np.zeros((4, 4, 3), dtype), np.random.default_rng(0), 3.0)
        assert out.dtype == dtype and out.std() > 0
    flat = np.zeros((2, 2), np.float32)
    assert helpers.add_noise(flat, np.random.default_rng(0), 0.0) is flat
    assert helpers.to_pil(np.full((2, 3), 7.6)).getpixel((0, 0)) == (8, 8, 8)  # grey -> RGB


@pytest.mark.parametrize("task", TASKS)
def test_every_generator_is_written_in_the_one_dialect(task):
    gen = importlib.import_module(f"lmms_plugins.tasks.cwi.generators.{task}")
    assert gen.TASK == task
    assert set(gen._TIERS) == set(TIERS), f"{task}: _TIERS must have one row per tier"
    source = inspect.getsource(gen)
    names = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    assert "tier_params" in names and "draw_until_clear" in names, f"{task}: draw the item through the shared helpers"
    assert "Answer inside" not in source, f"{task}: end the prompt with helpers.answer_instruction"
    assert "shortcut_hits" not in names, f"{task}: screen shortcuts through helpers.draw_until_clear"
