"""Perception family generators and reference solvers: grating_period, anomaly_v2, peak_count,
congruent_pair, trace_length, scan_moire (the checks every task passes are in
test_gen_families.py)."""

from __future__ import annotations

import numpy as np

try:
    from . import cwi_gen_harness as H
except ImportError:  # tests/cwi is not a package
    import cwi_gen_harness as H


def test_congruent_pair_is_a_two_image_task_with_one_exact_copy():
    from lmms_plugins.tasks.cwi.generators import congruent_pair

    item = congruent_pair.generate(np.random.default_rng(12), "expert")
    assert item.image_2 is not None
    i, j = item.meta["pair"]
    assert item.answer == f"[{i},{j}]"
    unperturbed = [k for k, moved in enumerate(item.meta["perturbations"]) if not moved]
    assert unperturbed == [i, j]


def test_trace_length_gold_is_the_centreline_length_and_rule_is_60px():
    """Decision on the card's 'length/200 within 0.3': the answer is in px, tolerance 60 px."""
    from lmms_plugins.tasks.cwi.generators import trace_length
    from lmms_plugins.tasks.cwi.rules import score
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task

    item = trace_length.generate(np.random.default_rng(13), "hard")
    gold = float(item.answer)
    assert abs(gold - item.meta["length_px"]) < 0.1
    rule = rule_for_task("trace_length")
    assert score(rule, f"<answer>{gold + 59:.1f}</answer>", item.answer).correct
    assert not score(rule, f"<answer>{gold + 61:.1f}</answer>", item.answer).correct


def test_trace_length_image_size_and_length_range_do_not_depend_on_tier():
    """Against the constant shortcut: one canvas and one wide flat length range for every tier."""
    from lmms_plugins.tasks.cwi.generators import trace_length

    lo, hi = trace_length.LENGTH
    assert hi - lo >= 4000
    for tier in H.TIERS:
        item = trace_length.generate(np.random.default_rng(16), tier)
        assert item.image.size == trace_length.SIZE
        assert item.meta["length_range"] == [lo, hi]
        assert lo - 1 <= float(item.answer) <= hi + 1


def test_grating_period_long_periods_are_drawn_and_solved():
    """Against the constant shortcut the periods span a wide range (+-1.5 px is absolute), so
    the solver must also get the long periods, where only a few stripes are visible."""
    from lmms_plugins.tasks.cwi.generators import grating_period
    from lmms_plugins.tasks.cwi.solvers import grating_period as solver

    for tier in H.TIERS:
        lo, hi = grating_period._TIERS[tier]["periods"]
        assert hi - lo >= 70
        for seed in range(200):  # the first item in the top fifth of the tier's range
            item = grating_period.generate(np.random.default_rng(seed), tier)
            if float(item.answer) >= hi - 0.2 * (hi - lo):
                break
        else:
            raise AssertionError(f"{tier}: no long period in 200 draws")
        assert item.meta["period_range"] == [lo, hi]
        pred = float(solver.solve(item.image, None, item.prompt))
        assert abs(pred - float(item.answer)) <= 1.5, (tier, item.answer, pred)


def test_peak_count_peaks_are_unambiguous():
    from lmms_plugins.tasks.cwi.generators import peak_count

    for tier in H.TIERS:
        item = peak_count.generate(np.random.default_rng(14), tier)
        assert item.meta["min_prominence_px"] >= peak_count.MIN_PROMINENCE
        assert int(item.answer) == item.meta["count"] <= item.meta["n_local_maxima"]


def test_peak_count_range_and_chart_size_do_not_depend_on_the_tier():
    # overlapping per-tier ranges would pile the counts up in the middle (a constant guess wins)
    from lmms_plugins.tasks.cwi.generators import peak_count

    lo, hi = peak_count.COUNT_RANGE
    assert hi - lo + 1 >= 40
    for tier in H.TIERS:
        counts = set()
        for seed in range(12):
            item = peak_count.generate(np.random.default_rng(seed), tier)
            assert item.image.size == peak_count.SIZE
            assert item.meta["count_range"] == [lo, hi]
            counts.add(int(item.answer))
        assert lo <= min(counts) and max(counts) <= hi and max(counts) - min(counts) >= 15, counts


def test_scan_moire_prompt_states_the_reference_period():
    from lmms_plugins.tasks.cwi.generators import scan_moire

    item = scan_moire.generate(np.random.default_rng(15), "medium")
    assert f"{item.meta['period_a']:.3f} px" in item.prompt
    assert abs(float(item.answer) - 1.0) >= 0.03
    assert scan_moire.DOWN[0] <= float(item.answer) <= scan_moire.UP[1]
