"""Factor by factor on synthetic scenes whose truth is known (test detector backend)."""

import math

import numpy as np
import pytest

from lmms_plugins.tasks.abacus import synthetic as syn
from lmms_plugins.tasks.abacus.flow import FLOW_TAU_PX
from lmms_plugins.tasks.abacus.scoring import score_edit

OPS = {
    "add": dict(category="sports ball"),
    "remove": dict(category="sports ball"),
    "change": dict(source_category="sports ball", target_category="kite"),
}
SC_TOL = 1e-3  # a perfect background scores SC >= 1 - SC_TOL (README: documented tolerance)


def run(scene, detector, op, k, faults=syn.Faults()):
    edit = syn.synthetic_edit(scene, op, k, faults=faults, rng=np.random.default_rng(7), **OPS[op])
    return edit, score_edit(scene.image, edit.image, operation=op, count=k, detector=detector, **OPS[op])


def n_gt(scene, op):
    return scene.count("sports ball") + (scene.count("kite") if op == "change" else 0)


@pytest.mark.parametrize("op,k", [("add", 1), ("add", 3), ("remove", 1), ("remove", 2), ("change", 1), ("change", 2)])
def test_perfect_edit_scores_one(scene, detector, op, k):
    _, r = run(scene, detector, op, k)
    assert (r.cf, r.oc) == (1.0, 1.0)
    assert r.sc >= 1 - SC_TOL
    assert r.delivered == k and r.n_destroyed == 0 and r.n_pre_existing == n_gt(scene, op)
    assert r.status == "ok"


@pytest.mark.parametrize("op", ["add", "remove", "change"])
def test_touching_an_instance_costs_exactly_one_instance_of_oc(scene, detector, op):
    _, r = run(scene, detector, op, 1, syn.Faults(touch=1))
    assert r.cf == 1.0 and r.sc >= 1 - SC_TOL
    assert r.oc == pytest.approx(1 - 1 / n_gt(scene, op))
    assert r.verdicts["sports ball"]["transformed"] == 1


@pytest.mark.parametrize("op", ["add", "change"])
def test_deleting_an_instance_costs_exactly_one_instance_of_oc(scene, detector, op):
    _, r = run(scene, detector, op, 1, syn.Faults(delete=1))
    assert r.cf == 1.0 and r.sc >= 1 - SC_TOL
    assert r.oc == pytest.approx(1 - 1 / n_gt(scene, op))


def test_removing_one_more_than_asked_costs_cf_and_oc(scene, detector):
    # for remove, deleting an instance that should stay IS delivering K + 1
    _, r = run(scene, detector, "remove", 1, syn.Faults(delete=1))
    assert r.cf == pytest.approx(2 * 1 / 3) and r.oc == pytest.approx(1 - 1 / 3) and r.sc >= 1 - SC_TOL


@pytest.mark.parametrize("op,k", [("add", 2), ("remove", 2), ("change", 1)])
@pytest.mark.parametrize("delta", [-1, 1])
def test_count_off_by_one_moves_cf_by_the_formula(scene, detector, op, k, delta):
    _, r = run(scene, detector, op, k, syn.Faults(count_delta=delta))
    d = k + delta
    assert r.delivered == d
    assert r.cf == pytest.approx(2 * min(d, k) / (d + k))
    assert r.sc >= 1 - SC_TOL
    # delivering one more removal/change destroys one pre-existing instance beyond the request
    extra = 1 if (delta == 1 and op != "add") else 0
    assert r.oc == pytest.approx(1 - extra / n_gt(scene, op))


@pytest.mark.parametrize("op", ["add", "remove", "change"])
@pytest.mark.parametrize("shift", [(3, 2), (-2, 4), (1, 0)])
def test_camera_drift_costs_sc_only_and_is_not_removal_plus_addition(scene, detector, op, shift):
    k = 2 if op == "add" else 1
    _, r = run(scene, detector, op, k, syn.Faults(shift=shift))
    assert (r.cf, r.oc) == (1.0, 1.0), r.verdicts
    assert r.verdicts["sports ball"]["removed"] == (k if op != "add" else 0)
    # the drift is measured, and the flow term is exp(-|s| / tau) as documented
    assert r.drift[0][2] == pytest.approx(shift[0], abs=0.2) and r.drift[1][2] == pytest.approx(shift[1], abs=0.2)
    assert r.flow_term == pytest.approx(math.exp(-math.hypot(*shift) / FLOW_TAU_PX), abs=0.04)
    assert r.sc < 0.9


def test_background_recolour_costs_sc_only_and_the_same_with_or_without_object_edits(scene, detector):
    _, plain = run(scene, detector, "add", 0, syn.Faults(recolor=True))  # only the recolour
    for op in OPS:
        _, r = run(scene, detector, op, 1, syn.Faults(recolor=True))
        assert (r.cf, r.oc) == (1.0, 1.0)
        assert r.sc < 0.99
        assert r.sc == pytest.approx(plain.sc, abs=0.01)  # the object edits add nothing to SC


def test_delete_here_paint_there_is_not_a_change(scene, detector):
    """Remove a sports ball and paint a kite somewhere else: no in-place change is credited."""
    objs = list(scene.objects)
    ball = next(o for o in objs if o.category == "sports ball")
    objs.remove(ball)
    spot = syn._free_spot(np.random.default_rng(3), (512, 384), ball.r, objs + [ball])
    objs.append(syn.Obj("kite", spot[0], spot[1], ball.r))
    edit = syn.render(scene.background, objs)
    r = score_edit(scene.image, edit, operation="change", count=1, detector=detector, **OPS["change"])
    assert r.delivered == 0 and r.cf == 0.0
    assert r.oc == pytest.approx(1 - 1 / n_gt(scene, "change"))  # the deleted ball was not asked for


def test_in_place_change_with_drift_is_still_credited(scene, detector):
    _, r = run(scene, detector, "change", 2, syn.Faults(shift=(4, -3)))
    assert r.delivered == 2 and r.cf == 1.0 and r.oc == 1.0


@pytest.mark.parametrize("angle,scale,shift", [(1.5, 1.01, (4, -3)), (0.0, 1.02, (0, 0)), (0.0, 1.0, (12, -9))])
def test_rotation_zoom_and_larger_drift_are_recovered(scene, detector, angle, scale, shift):
    """A camera that turned, zoomed or moved further: the similarity is measured, objects still match."""
    import cv2

    edit = syn.synthetic_edit(scene, "add", 2, rng=np.random.default_rng(7), **OPS["add"])
    h, w = edit.image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += shift
    moved = cv2.warpAffine(edit.image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    r = score_edit(scene.image, moved, operation="add", count=2, detector=detector, **OPS["add"])
    assert (r.cf, r.oc) == (1.0, 1.0), r.verdicts
    assert np.allclose(np.array(r.drift)[:, :2], m[:, :2], atol=0.005)
    assert np.allclose(np.array(r.drift)[:, 2], m[:, 2], atol=0.6)
    assert r.sc < 0.7
