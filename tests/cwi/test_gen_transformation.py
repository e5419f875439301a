"""The 12 Transformation generators and their reference solvers, on a few items per tier."""

from __future__ import annotations

import importlib
import inspect
import json

import numpy as np
import pytest

from lmms_plugins.tasks.cwi.catalog import FAMILIES, TIERS
from lmms_plugins.tasks.cwi.generate import item_rng, png_bytes
from lmms_plugins.tasks.cwi.rules import score
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

TASKS = FAMILIES["transformation"]


def _mods(task):
    return (importlib.import_module(f"lmms_plugins.tasks.cwi.generators.{task}"),
            importlib.import_module(f"lmms_plugins.tasks.cwi.solvers.{task}"))


@pytest.mark.parametrize("task", TASKS)
def test_solver_solves_and_shortcuts_fail(task):
    gen, sol = _mods(task)
    rule = rule_for_task(task)
    for tier in TIERS:
        for i in range(2):
            item = gen.generate(item_rng(11, task, "test", TIERS.index(tier) * 10 + i), tier)
            assert "<answer>" in item.prompt
            json.dumps(item.meta)
            assert item.image.mode == "RGB"
            pred = sol.solve(item.image, item.image_2, item.prompt)
            s = score(rule, f"<answer>{pred}</answer>", item.answer)
            assert s.correct, f"{task}/{tier}: gold {item.answer!r}, solver {pred!r}: {s.reason}"
            for name, guess in gen.shortcut_answers(item.image, item.image_2, item.prompt).items():
                assert not score(rule, f"<answer>{guess}</answer>", item.answer).correct, f"{task}: shortcut {name} scores"


@pytest.mark.parametrize("task", TASKS)
def test_same_rng_same_bytes(task):
    gen, _ = _mods(task)
    a = gen.generate(np.random.default_rng(7), "hard")
    b = gen.generate(np.random.default_rng(7), "hard")
    c = gen.generate(np.random.default_rng(8), "hard")
    assert png_bytes(a.image) == png_bytes(b.image) and a.answer == b.answer and a.meta == b.meta
    assert png_bytes(a.image) != png_bytes(c.image)


@pytest.mark.parametrize("task", TASKS)
def test_generator_does_not_use_the_solver(task):
    gen, _ = _mods(task)
    assert "solvers" not in inspect.getsource(gen)


@pytest.mark.parametrize("task", TASKS)
def test_unknown_tier_is_an_error(task):
    gen, _ = _mods(task)
    with pytest.raises(ValueError, match="tier"):
        gen.generate(np.random.default_rng(0), "impossible")
