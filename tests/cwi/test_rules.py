"""The generic CwI scorer: every rule kind the card uses, at and beyond its tolerance."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmms_plugins.tasks.cwi.catalog import TASKS
from lmms_plugins.tasks.cwi.rules import BAD_GOLD, OK, UNPARSABLE, RuleError, rule_from_config, score
from lmms_plugins.tasks.cwi.task_rules import rule_for_task


def ok(task_or_rule, pred, gold) -> bool:
    rule = rule_for_task(task_or_rule) if isinstance(task_or_rule, str) else task_or_rule
    s = score(rule, f"<answer>{pred}</answer>", gold)
    assert s.status == OK, s.reason
    return s.correct


def test_every_card_task_has_a_valid_rule():
    for task in TASKS:
        rule_for_task(task)


@pytest.mark.parametrize(
    "pred, expected",
    [("3,-2", True), ("5,-4", True), ("5.1,-2", False), ("(3, -2)", True), ("[3 -2]", True),
     ("dx=3, dy=-2", True), ("dy=-2, dx=3", True), ('{"dx": 3, "dy": -2}', True), ("3 px, -2 px", True), ("-2,3", False)],
)
def test_per_component_tolerance_shift(pred, expected):
    assert ok("alignment", pred, "3,-2") is expected


def test_exact_int():
    assert ok("peak_count", "7", "7")
    assert ok("peak_count", "7.0", "7")
    assert not ok("peak_count", "8", "7")
    assert ok("peak_count", "count: 7", "7")
    s = score(rule_for_task("peak_count"), "<answer>7.5</answer>", "7")
    assert s.status == UNPARSABLE and "integer" in s.reason
    s = score(rule_for_task("peak_count"), "<answer>7, 8</answer>", "7")
    assert s.status == UNPARSABLE and "one integer" in s.reason


def test_exact_sequence_is_ordered():
    assert ok("jigsaw", "[2,0,1,3]", "[2,0,1,3]")
    assert ok("jigsaw", "2 0 1 3", "[2,0,1,3]")
    assert not ok("jigsaw", "[0,2,1,3]", "[2,0,1,3]")
    assert not ok("jigsaw", "[2,0,1]", "[2,0,1,3]")


def test_exact_set_is_order_free():
    assert ok("anomaly_v2", "[[2,1],[0,3]]", "[[0,3],[2,1]]")
    assert ok("anomaly_v2", "(0,3), (2,1)", "[[0,3],[2,1]]")
    assert not ok("anomaly_v2", "[[0,3]]", "[[0,3],[2,1]]")
    assert not ok("anomaly_v2", "[[0,3],[2,1],[1,1]]", "[[0,3],[2,1]]")
    assert ok("congruent_pair", "[4,1]", "[1,4]")
    assert not ok("congruent_pair", "[1,5]", "[1,4]")


def test_named_field_tuple_exact():
    gold = "dx=3, dy=-2, rot_k=1, fliph=0"
    assert ok("transform_chain", "dx=3, dy=-2, rot_k=1, fliph=0", gold)
    assert ok("transform_chain", "3, -2, 1, 0", gold)
    assert ok("transform_chain", "fliph=false, rot_k=1, dy=-2, dx=3", gold)
    assert not ok("transform_chain", "dx=3, dy=-2, rot_k=1, fliph=1", gold)
    assert not ok("transform_chain", "dx=4, dy=-2, rot_k=1, fliph=0", gold)
    s = score(rule_for_task("transform_chain"), "<answer>dx=3, dy=-2</answer>", gold)
    assert s.status == UNPARSABLE and "missing field" in s.reason


def test_unshuffle2d_two_sequences():
    gold = "rows=[2,0,1]; cols=[1,2,0]"
    assert ok("unshuffle2d", gold, gold)
    assert ok("unshuffle2d", '{"rows": [2,0,1], "cols": [1,2,0]}', gold)
    assert ok("unshuffle2d", "[[2,0,1],[1,2,0]]", gold)
    assert not ok("unshuffle2d", "rows=[2,0,1]; cols=[1,0,2]", gold)


def test_circular_angle_wraps_at_360():
    gold = "dx=0, dy=0, theta=359.5"
    assert ok("shift_rot_align", "dx=1, dy=-1, theta=1.0", gold)  # 1.5° away across the wrap
    assert not ok("shift_rot_align", "dx=1, dy=-1, theta=1.5", gold)  # 2.0° away
    assert ok("rot_scale", "angle=-178, scale=1.04", "angle=180, scale=1.0")
    assert not ok("rot_scale", "angle=-176, scale=1.0", "angle=180, scale=1.0")
    assert not ok("rot_scale", "angle=180, scale=1.06", "angle=180, scale=1.0")
    assert ok("rot_scale", "angle=540, scale=1.0", "angle=180, scale=1.0")


def test_ring_rotor_mixed_exact_and_tolerance():
    gold = "ring=2, angle=135.0"
    assert ok("ring_rotor", "ring=2, angle=139.9", gold)
    assert ok("ring_rotor", "2, 131", gold)
    assert not ok("ring_rotor", "ring=1, angle=135", gold)
    assert not ok("ring_rotor", "ring=2, angle=141", gold)
    assert ok("ring_rotor", "ring=0, angle=-178", "ring=0, angle=179")


def test_count_and_order_with_per_item_tolerance():
    assert ok("double_exposure", "[30,-50]", "[25,-45]")
    assert not ok("double_exposure", "[-50,30]", "[30,-50]")  # order matters
    assert not ok("double_exposure", "[30]", "[30,-50]")  # count matters
    assert not ok("double_exposure", "[30,-50,10]", "[30,-50]")
    assert not ok("double_exposure", "[39,-50]", "[30,-50]")
    assert ok("gain_center", "[[100,100],[200,50]]", "[[110,110],[200,50]]")  # 14.1 px
    assert not ok("gain_center", "[[100,100],[200,50]]", "[[111,111],[200,50]]")  # 15.6 px
    assert not ok("gain_center", "[[200,50],[100,100]]", "[[100,100],[200,50]]")


def test_point_distance_on_the_canvas():
    assert ok("brightest_blob", "241,130", "240,131")
    assert not ok("brightest_blob", "242,132", "240,130")  # 2.83 px: Euclidean, not per component
    assert ok("circle_fit", "(243, 132)", "240,130")
    assert ok("circle_fit", "[240, 130]", "240,130")


def test_boxes_iou():
    assert ok("crop_provenance", "[100,100,500,500]", "[120,120,520,520]")
    assert not ok("crop_provenance", "[100,100,300,300]", "[120,120,520,520]")
    two = "[[0,0,100,100],[500,500,700,700]]"
    assert ok("sub_rect_swap", "[[500,500,700,700],[0,0,100,100]]", two)  # order-free
    assert not ok("sub_rect_swap", "[[0,0,100,100]]", two)
    assert ok("crop_provenance", "[500,500,100,100]", "[100,100,500,500]")  # corners in any order
    assert not ok("crop_provenance", "[0,0,0,0]", "[100,100,500,500]")


def test_ratio_tolerances():
    # trace_length: |L/200 - L*/200| <= 0.3, i.e. ±60 px on the length (documented decision)
    assert ok("trace_length", "460", "400")
    assert not ok("trace_length", "461", "400")
    assert ok("scan_moire", "1.035", "1.032")
    assert not ok("scan_moire", "1.037", "1.032")
    rel = rule_from_config({"kind": "fields", "fields": [{"name": "v", "rel_tol": 0.1}]})
    assert ok(rel, "109", "100") and not ok(rel, "111", "100")


def test_percentages_and_rgb():
    assert ok("restore_then_measure", "38.9%", "37.5")
    assert not ok("restore_then_measure", "39.1", "37.5")
    assert ok("swatch_rgb", "RGB(130, 54, 210)", "120,64,200")
    assert ok("swatch_rgb", "r=130, g=54, b=210", "120,64,200")
    assert not ok("channel_mix", "129,64,200", "120,64,200")


def test_no_span_unparsable_and_bad_gold_are_statuses_not_exceptions():
    rule = rule_for_task("alignment")
    s = score(rule, "the shift is 3,-2", "3,-2")
    assert (s.correct, s.status) == (False, UNPARSABLE)
    s = score(rule, "<answer>3,-2</answer>", "unknown")
    assert (s.correct, s.status) == (False, BAD_GOLD)
    s = score(rule, "<answer>3</answer>", "3,-2")
    assert s.status == UNPARSABLE and "expected 2 values" in s.reason


@pytest.mark.parametrize(
    "cfg, msg",
    [
        ({"kind": "nope"}, "kind must be one of"),
        ({"kind": "fields"}, "non-empty list"),
        ({"kind": "fields", "fields": [{"name": "a", "tol": -1}]}, ">= 0"),
        ({"kind": "fields", "fields": [{"name": "a", "tol": "x"}]}, "finite number"),
        ({"kind": "fields", "fields": [{"name": "a", "circular": 0}]}, "> 0"),
        ({"kind": "fields", "fields": [{"name": "a", "type": "bool"}]}, "type must be"),
        ({"kind": "fields", "fields": [{"name": "a", "tolerance": 1}]}, "unknown keys"),
        ({"kind": "int", "tolerance": 1}, "unknown cwi_rule keys"),
        ({"kind": "boxes", "min_iou": 2}, "min_iou"),
        ({"kind": "points", "dims": 0}, "positive integer"),
        ({"kind": "points", "metric": "manhattan"}, "metric"),
        ("int", "mapping"),
    ],
)
def test_malformed_rules_are_clear_errors(cfg, msg):
    with pytest.raises(RuleError, match=msg):
        rule_from_config(cfg)


# ---------------------------------------------------------------- properties over every rule

ANY_TEXT = st.one_of(
    st.text(),
    st.text().map(lambda t: f"<answer>{t}</answer>"),
    st.lists(st.one_of(st.integers(), st.floats(), st.just("nan"), st.just("inf"), st.just("1e400")), max_size=10).map(
        lambda xs: "<answer>" + ",".join(map(str, xs)) + "</answer>"
    ),
    st.recursive(st.integers(-(10**30), 10**30).map(str), lambda c: st.lists(c, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"), max_leaves=20).map(
        lambda t: f"<answer>{t}</answer>"
    ),
)

GOLDS = {
    "alignment": "3,-2", "restore_then_count": "7", "shift_rot_align": "dx=3, dy=-2, theta=12.5",
    "rot_scale": "angle=45.0, scale=1.2", "transform_chain": "dx=3, dy=-2, rot_k=1, fliph=0",
    "unshuffle2d": "rows=[2,0,1]; cols=[1,2,0]", "jigsaw": "[2,0,1,3]", "rotated_jigsaw": "tiles=[1,0]; rots=[3,0]",
    "restore_then_measure": "37.5", "ring_rotor": "ring=2, angle=135.0", "double_exposure": "[30,-50]",
    "anomaly_v2": "[[0,3],[2,1]]", "congruent_pair": "[1,4]", "trace_length": "412.5", "crop_provenance": "[100,100,500,500]",
    "sub_rect_swap": "[[0,0,100,100],[500,500,700,700]]", "brightest_blob": "240,130", "gain_center": "[[100,100],[200,50]]",
    "swatch_rgb": "120,64,200", "circular_shift": "-40,17", "peak_count": "12", "grating_period": "23.5",
    "scan_moire": "1.032", "retouch_region": "[10,20,300,400]", "circle_fit": "251.5,199.0", "print_misreg": "0.4,-1.2",
    "film_color": "66,66,158", "patch_mean_dots": "10,200,30", "color_count": "14", "channel_mix": "0,255,128",
}


def test_property_golds_cover_every_card_task():
    assert set(GOLDS) == set(TASKS)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(GOLDS)), ANY_TEXT)
def test_any_prediction_scores_without_raising(task, pred):
    s = score(rule_for_task(task), pred, GOLDS[task])
    assert s.value in (0.0, 1.0)
    assert s.status in (OK, UNPARSABLE)
    assert s.correct or s.reason


@pytest.mark.parametrize("task", sorted(GOLDS))
def test_gold_scores_itself(task):
    assert ok(task, GOLDS[task], GOLDS[task])


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(-1e4, 1e4))
def test_circular_tolerance_is_invariant_to_full_turns(a, b, turns):
    rule = rule_from_config({"kind": "fields", "fields": [{"name": "a", "tol": 3, "circular": 360}]})
    k = int(turns)
    base = score(rule, f"<answer>{a!r}</answer>", repr(b)).correct
    assert score(rule, f"<answer>{a + 360 * k!r}</answer>", repr(b)).correct == base or abs(a) > 1e5
    d = abs(a - b) % 360
    if min(d, 360 - d) < 2.999:
        assert base


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 1000)] * 4), min_size=2, max_size=2))
def test_two_boxes_are_order_free(boxes):
    rule = rule_for_task("sub_rect_swap")
    fmt = lambda bs: "[" + ",".join("[" + ",".join(map(str, b)) + "]" for b in bs) + "]"  # noqa: E731
    a = score(rule, f"<answer>{fmt(boxes)}</answer>", fmt(boxes[::-1]))
    assert a.status == OK
    nondegenerate = all(b[0] != b[2] and b[1] != b[3] for b in boxes)
    assert a.correct == nondegenerate


def test_huge_and_non_finite_numbers():
    rule = rule_for_task("alignment")
    assert not score(rule, "<answer>1e308, 1e308</answer>", "3,-2").correct
    assert score(rule, "<answer>1e400, 0</answer>", "3,-2").status == UNPARSABLE
    big = "9" * 60
    assert not score(rule, f"<answer>{big},{big}</answer>", "3,-2").correct
    assert not math.isnan(score(rule_for_task("trace_length"), f"<answer>{big}</answer>", "400").value)


def test_long_answers_read_part_by_part_stay_linear():
    """The part-by-part and sum readings on 100k-character answers (they would take minutes if quadratic)."""
    long_list = ", ".join(str(i % 10) for i in range(30_000))
    for task, gold, span in [("peak_count", "7", long_list + " + 1 = 7"), ("jigsaw", "[2,0,1,3]", "Position 0: " + long_list),
                             ("rotated_jigsaw", "tiles=[3,0,1,2]; rots=[3,2,3,1]", long_list.replace(", ", ":")),
                             ("gain_center", "[[1,2]]", "x=1, y=2; x=3 " * 8000), ("sub_rect_swap", "[[1,2,3,4],[5,6,7,8]]",
                                                                               "a: (1,2) (3,4); " * 8000)]:
        s = score(rule_for_task(task), f"<answer>{span}</answer>", gold)
        assert s.status in (OK, UNPARSABLE) and s.reason
