"""Localization family generators and reference solvers: crop_provenance, brightest_blob,
sub_rect_swap, retouch_region, circle_fit, print_misreg, gain_center (the checks every task
passes are in test_gen_families.py)."""

from __future__ import annotations

import numpy as np
import pytest

try:
    from . import cwi_gen_harness as H
except ImportError:  # tests/cwi is not a package
    import cwi_gen_harness as H


@pytest.mark.parametrize("task", ["brightest_blob", "circle_fit"])
def test_point_tasks_use_the_480px_canvas(task):
    gen, _ = H.modules(task)
    for tier in H.TIERS:
        assert gen.generate(np.random.default_rng(2), tier).image.size[0] == 480


def test_gain_center_counts_grow_with_tier():
    from lmms_plugins.tasks.cwi.generators import gain_center

    counts = {t: len(gain_center.generate(np.random.default_rng(4), t).meta["spotlights"]) for t in H.TIERS}
    assert counts["easy"] == 1 and counts["medium"] == 2 and counts["expert"] >= 3


def test_print_misreg_answer_is_the_constructed_shift():
    from lmms_plugins.tasks.cwi.generators import print_misreg

    item = print_misreg.generate(np.random.default_rng(6), "hard")
    dx, dy = (float(v) for v in item.answer.split(","))
    assert [dx, dy] == item.meta["red_shift"]
    assert max(abs(dx), abs(dy)) > 0.3  # the zero shortcut must be wrong


def test_retouch_region_is_noise_free_inside():
    """The constructive truth: inside the box the noise is gone, outside it is not."""
    from lmms_plugins.tasks.cwi.generators import retouch_region

    item = retouch_region.generate(np.random.default_rng(8), "medium")
    x, y, w, h = item.meta["region_xywh_px"]
    g = np.asarray(item.image.convert("L"), dtype=np.float64)
    lap = np.abs(4 * g[1:-1, 1:-1] - g[:-2, 1:-1] - g[2:, 1:-1] - g[1:-1, :-2] - g[1:-1, 2:])
    inside = np.median(lap[y + 1 : y + h - 2, x + 1 : x + w - 2])
    assert inside < 0.5 * np.median(lap)
