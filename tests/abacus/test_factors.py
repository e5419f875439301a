import math

import pytest

from lmms_plugins.tasks.abacus import factors


@pytest.mark.parametrize("d,k,cf", [(3, 3, 1.0), (2, 3, 0.8), (4, 3, 6 / 7), (0, 3, 0.0), (0, 0, 1.0), (15, 1, 2 / 16)])
def test_count_fidelity(d, k, cf):
    assert factors.count_fidelity(d, k) == pytest.approx(cf)


def test_count_fidelity_symmetric_and_bounded():
    for d in range(0, 12):
        for k in range(1, 12):
            v = factors.count_fidelity(d, k)
            assert 0.0 <= v <= 1.0
            assert v == pytest.approx(factors.count_fidelity(k, d))
            assert (v == 1.0) == (d == k)


def test_object_conservation():
    assert factors.object_conservation(0, 5) == 1.0
    assert factors.object_conservation(2, 5) == pytest.approx(0.6)
    assert factors.object_conservation(5, 5) == 0.0
    assert factors.object_conservation(0, 0) == 1.0  # nothing to conserve


@pytest.mark.parametrize("call", [
    lambda: factors.count_fidelity(-1, 2),
    lambda: factors.object_conservation(3, 2),
    lambda: factors.object_conservation(-1, 2),
    lambda: factors.scene_consistency(1.2, 0.5),
    lambda: factors.scene_consistency(float("nan"), 0.5),
])
def test_bad_inputs_raise(call):
    with pytest.raises(ValueError):
        call()


def test_scene_consistency_is_harmonic_mean():
    assert factors.scene_consistency(1.0, 1.0) == 1.0
    assert factors.scene_consistency(0.5, 1.0) == pytest.approx(2 * 0.5 / 1.5)
    assert factors.scene_consistency(0.0, 0.0) == 0.0
    assert factors.scene_consistency(0.0, 0.9) == 0.0


def test_edit_score_is_product():
    f = factors.edit_factors(delivered=2, requested=3, n_destroyed=1, n_pre_existing=4, flow_term=0.8, msssim=0.9)
    assert f.score == pytest.approx(0.8 * (2 * 0.72 / 1.7) * 0.75)


def test_leaderboard_score_matches_published_row():
    # Seedream 4.0 row of the ABACUS leaderboard: 0.60 x 0.79 x 0.66 -> 0.31
    assert round(factors.leaderboard_score(0.60, 0.79, 0.66), 2) == 0.31
    # and every other row of the card
    rows = [(0.59, 0.77, 0.64, 0.29), (0.56, 0.75, 0.62, 0.26), (0.42, 0.69, 0.55, 0.16),
            (0.39, 0.67, 0.53, 0.14), (0.34, 0.64, 0.50, 0.11), (0.30, 0.62, 0.47, 0.09)]
    for cf, sc, oc, score in rows:
        assert math.isclose(round(factors.leaderboard_score(cf, sc, oc), 2), score)
