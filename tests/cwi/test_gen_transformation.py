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


def test_restore_then_count_one_count_range_and_canvas_for_every_tier():
    """Against the constant shortcut: every tier draws the count from one wide range on one
    canvas size (tiers differ in disc size and noise), and the solver gets the crowded end."""
    gen, sol = _mods("restore_then_count")
    lo, hi = gen.COUNT
    assert hi - lo + 1 >= 45
    for tier in TIERS:
        for seed in range(200):  # the first item in the top fifth of the range
            item = gen.generate(np.random.default_rng(seed), tier)
            if int(item.answer) >= hi - 0.2 * (hi - lo):
                break
        else:
            raise AssertionError(f"{tier}: no crowded canvas in 200 draws")
        assert item.image.size == gen._SIZE and item.meta["count_range"] == [lo, hi]
        assert int(item.answer) == item.meta["count"] == len(item.meta["discs"])
        assert sol.solve(item.image, None, item.prompt) == item.answer


def test_restore_then_measure_share_range_and_large_sectors():
    """Against the constant shortcut the asked share spans one wide range in every tier, the
    prompt's background promise holds even for a near-whole sector, and the solver measures it."""
    gen, sol = _mods("restore_then_measure")
    lo, hi = gen.SHARE
    assert hi - lo >= 90
    for tier in TIERS:
        for seed in range(300):  # the first item with a share in the top tenth of the range
            item = gen.generate(np.random.default_rng(seed), tier)
            if float(item.answer) >= hi - 0.1 * (hi - lo):
                break
        else:
            raise AssertionError(f"{tier}: no large share in 300 draws")
        shares = item.meta["shares"]
        assert item.meta["share_range"] == [lo, hi]
        assert abs(sum(shares) - 100) < 0.01 and min(shares) >= gen._MIN_OTHER - 1e-6
        assert abs(shares[item.meta["target"]] - float(item.answer)) <= 0.051
        a = np.asarray(item.image, dtype=float)
        bg_pixels = (np.linalg.norm(a - item.meta["background"], axis=-1) < 45).sum()
        assert bg_pixels > a.shape[0] * a.shape[1] / 2
        assert abs(float(sol.solve(item.image, None, item.prompt)) - float(item.answer)) <= 1.5
