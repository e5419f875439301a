"""Color family generators and reference solvers: film_color, swatch_rgb, patch_mean_dots,
color_count, channel_mix (the checks every task passes are in test_gen_families.py)."""

from __future__ import annotations

import numpy as np


def test_color_count_hidden_colours_are_counted():
    """The gold counts near-duplicate colours a viewer merges: the 'perceived' count differs."""
    from lmms_plugins.tasks.cwi.generators import color_count

    item = color_count.generate(np.random.default_rng(3), "expert")
    assert item.meta["n_near_duplicates"] >= 4
    perceived = int(color_count.shortcut_answers(item.image, None, item.prompt)["perceived"])
    assert perceived < int(item.answer)


def test_film_color_opacity_stated_only_in_easy():
    from lmms_plugins.tasks.cwi.generators import film_color

    easy = film_color.generate(np.random.default_rng(1), "easy")
    hard = film_color.generate(np.random.default_rng(1), "hard")
    assert f"{easy.meta['alpha']:.3f}" in easy.prompt
    assert "unknown" in hard.prompt and hard.meta["noise_sigma"] > 0


def test_swatch_rgb_cast_changes_the_swatch():
    """Reading the swatch as it appears is the naive answer; the cast must move it."""
    from lmms_plugins.tasks.cwi.generators import swatch_rgb

    item = swatch_rgb.generate(np.random.default_rng(5), "medium")
    seen = swatch_rgb.shortcut_answers(item.image, None, item.prompt)["as_seen"]
    diff = max(abs(int(a) - int(b)) for a, b in zip(seen.split(","), item.answer.split(",")))
    assert diff > 10
