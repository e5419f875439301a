"""The scorer's direct route (issue 16.11: common spellings read in one match straight into the
rule's shape, compared by a function built per gold) gives exactly the Score of the general
route (parse_answer's tokeniser, then the rule's general reading), value types included.

Material: outputs composed around real golds of all 30 tasks (answer_spellings.py, written apart
from the throughput benchmark's templates), hypothesis-built spans, and outputs over 64 KB."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmms_plugins.tasks.cwi import answer_parse as ap
from lmms_plugins.tasks.cwi import rules
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

try:
    from .answer_spellings import GOLDS, spellings
    from .test_answer_fast_path import typed
except ImportError:  # rootdir-less collection (tests/cwi on sys.path)
    from answer_spellings import GOLDS, spellings
    from test_answer_fast_path import typed

GRID = {"rows": 5, "cols": 5}


def general_score(rule, output, gold, context=None):
    rules.DIRECT_ROUTE = False
    try:
        return rules.score(rule, output, gold, context)
    finally:
        rules.DIRECT_ROUTE = True


def both(task, output, gold, context=None):
    """(direct route's Score, general route's Score, whether the direct route read it), typed."""
    rule = rule_for_task(task)
    got = rules.score(rule, output, gold, context)
    want = general_score(rule, output, gold, context)
    like = want.gold
    reader = rules._direct_entry(rule, gold)[0]
    direct = rules._read_prediction(rule, output, like, context, reader)[3] if want.status != rules.BAD_GOLD else False
    as_tuple = lambda s: (s.correct, s.status, s.reason, typed(s.predicted), typed(s.gold), s.span)  # noqa: E731
    return as_tuple(got), as_tuple(want), direct


@pytest.mark.parametrize("clean", [True, False])
def test_routes_agree_on_composed_outputs_of_every_task(clean):
    rnd = random.Random(1611 + clean)
    tasks = sorted(GOLDS)
    taken = 0
    n = 2500
    for _ in range(n):
        task = rnd.choice(tasks)
        gold = rnd.choice(GOLDS[task])
        output = spellings(rnd, task, gold, clean=clean)
        context = GRID if task == "anomaly_v2" and rnd.random() < 0.5 else None
        got, want, direct = both(task, output, gold, context)
        assert got == want, (task, output[:300])
        taken += direct
    # the direct route is what makes scoring fast: it must take a good share of plain outputs
    assert taken > (0.15 if clean else 0.05) * n, taken


COMMON = [  # (task, gold, span) every one of which the direct route reads
    ("peak_count", "32", "32"), ("peak_count", "32", "count: 31"), ("peak_count", "32", "[32]"),
    ("restore_then_count", "28", "28.0"),
    ("jigsaw", "[2,0,1,3]", "[2, 0, 1, 3]"), ("jigsaw", "[2,0,1,3]", "2 0 3 1"), ("jigsaw", "[2,0,1,3]", "(2,0,1,3)"),
    ("congruent_pair", "[3,10]", "10, 3"), ("anomaly_v2", "[[0,3]]", "[[0, 3], [1, 1]]"),
    ("anomaly_v2", "[[0,3]]", "(0, 3)"), ("anomaly_v2", "[[0,3]]", "(0,3), (4,4)"),
    ("alignment", "-7,5", "-7, 5"), ("alignment", "-7,5", "(-6 px, 5 px)"), ("alignment", "-7,5", "dy=5; dx=-7"),
    ("alignment", "-7,5", '{"dx": -7, "dy": 5}'), ("alignment", "-7,5", "shift_x: -9, shift_y: 5"),
    ("rot_scale", "angle=-76.6, scale=0.887", "angle=-77°, scale=0.9"),
    ("transform_chain", "dx=-10, dy=29, rot_k=1, fliph=0", "dx=-10, dy=29, rot_k=90, fliph=0"),
    ("unshuffle2d", "rows=[1,0,2]; cols=[0,2,1]", "rows: 1 0 2; cols: 0 2 1"),
    ("unshuffle2d", "rows=[1,0,2]; cols=[0,2,1]", "[[1,0,2],[0,2,1]]"),
    ("rotated_jigsaw", "tiles=[3,0,1,2]; rots=[3,2,3,1]", "[[3,3],[0,2],[1,3],[2,1]]"),
    ("rotated_jigsaw", "tiles=[3,0,1,2]; rots=[3,2,3,1]", "tiles=[3,0,1,2]; rots=[270,180,270,90]"),
    ("restore_then_measure", "18.4", "18.5%"), ("restore_then_measure", "18.4", "0.184"),
    ("ring_rotor", "ring=0, angle=65.0", "ring=0, angle=-295"), ("grating_period", "79.73", "period: 80.1"),
    ("double_exposure", "[-112,123]", "[-110, 120]"), ("double_exposure", "[97]", "(97, 0)"),
    ("double_exposure", "[[30,0],[-50,0]]", "[[31,0],[-50,0]]"),
    ("brightest_blob", "207.7,138.0", "(208, 138) px"), ("brightest_blob", "207.7,138.0", "x=208, y=137"),
    ("gain_center", "[[261,113],[39,342]]", "(261,113), (39,342)"),
    ("crop_provenance", "[333,8,612,356]", "[333, 8, 612, 356]"), ("crop_provenance", "[333,8,612,356]", "(333,8) to (612,356)"),
    ("crop_provenance", "[333,8,612,356]", "x=333, y=8, w=279, h=348"),
    ("sub_rect_swap", "[[352,356,519,550],[594,683,760,878]]", "[[594,683,760,878],[352,356,519,550]]"),
    ("swatch_rgb", "83,95,74", "RGB(83, 95, 74)"), ("swatch_rgb", "83,95,74", "r=83, g=95, b=74"),
]


@pytest.mark.parametrize("task, gold, span", COMMON)
def test_the_direct_route_reads_the_common_spellings(task, gold, span):
    got, want, direct = both(task, f"Let me measure.\n<answer>{span}</answer>", gold)
    assert got == want
    assert direct, span


def test_routes_agree_on_outputs_over_64_kb():
    """Long spans bypass the direct route (and are tokenised as a stream); long prose around a
    short answer does not."""
    long_list = ", ".join(str(i % 10) for i in range(40_000))
    cases = [("jigsaw", "[2,0,1,3]", f"<answer>[{long_list}]</answer>"),
             ("peak_count", "32", "reasoning " * 8000 + "<answer>32</answer>"),
             ("peak_count", "32", "<answer>" + " " * 70_000 + "32</answer>"),
             ("alignment", "-7,5", "<answer>x</answer>" + "a < b " * 12_000 + "<ANSWER>-7, 5</answer> end")]
    for task, gold, output in cases:
        got, want, _ = both(task, output, gold)
        assert got == want


def test_find_span_without_lowering_finds_what_lowering_finds():
    def reference(text):
        low = text.translate(ap._ASCII_LOWER)
        close = low.rfind("</answer>")
        open_ = low.rfind("<answer>", 0, close) if close >= 0 else -1
        return None if close < 0 or open_ < 0 else text[open_ + 8:close]

    rnd = random.Random(7)
    parts = ["<answer>", "</answer>", "<ANSWER>", "</Answer>", "<", ">", "a", "3", "İ", " ", "</", "<answer", "answer>"]
    for _ in range(20_000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 9)))
        assert ap.find_span(text) == reference(text), text


# --- common_shape (the direct route's parse) against the tokeniser, on hypothesis-built spans

def tokeniser_reading(span):
    try:
        items, fields, loose, tails, clashes, percent = ap._parse_tokens(span)
    except ap._Reject as exc:
        return ("reject", str(exc))
    return typed(items), typed(fields), percent, typed(loose), typed(tails), typed(clashes)


def shape_reading(span):
    try:
        got = ap.common_shape(span)
    except ap._Reject as exc:
        return ("reject", str(exc))
    if got is None:
        return None
    items, fields, percent, loose = got
    return typed(items), typed(fields), percent, typed(loose), typed({}), typed(set())


def often(good, odd, times=12):
    """Mostly one of ``good`` (what the shapes admit), now and then one of ``odd``."""
    return st.sampled_from(good * times + odd)


number = st.one_of(
    st.from_regex(re.compile(r"[-+]?(?:\d{1,4}(?:\.\d{0,3})?|\.\d{1,2})"), fullmatch=True),
    st.integers(-10**6, 10**6).map(str), st.floats(-1e4, 1e4, allow_nan=False).map(lambda x: f"{x:.2f}"),
    st.sampled_from(["0", "-0", "+7", "1.", "007", ".5", "\u22123", "1e3", "2E-1", "9" * 70, "1.2.3", "#a0b0c0", "0x1f", "3-4"]))
gap = often([",", ", ", " ", " , ", "\t"], ["", "-", "\n", ";", "%", "°", " px ", "px", "pxs", " and ", ",,"])
unit = often(["", "", " px", "°", "%"], [" deg", " degrees", "pixels", " PX", " pp", "pxx", " e", "_px", " 5x"])
word = often(["dx", "Y", "rows", "x1", "tile_2", "Angle"], ["px", "Deg", "percent", "e", "yes", "true", "to", "RGB", "E2"])
MANY = settings(max_examples=300, deadline=None)


def agree(span) -> bool:
    """Whether common_shape read ``span``; when it did, it read what the tokeniser reads."""
    want = shape_reading(span)
    if want is not None:
        assert want == tokeniser_reading(span), span
    return want is not None


@MANY
@given(st.lists(st.tuples(st.sampled_from(["", "", "[", "(", "{", "]", ")", '"', "="]), word | number, gap), max_size=8))
def test_common_shape_reads_what_the_tokeniser_reads_on_any_soup(pieces):
    agree("".join(a + b + c for a, b, c in pieces))


@MANY
@given(st.lists(st.tuples(number, unit), min_size=1, max_size=6), gap, often(["", "[]", "()"], ["{}", "[)", "(]", "[", ")"]),
       often(["", "", " ", "RGB", "Point "], ["rgb2", "e", "x=", "\n"]), unit)
def test_common_shape_on_number_lists(nums, sep, bracket, before, after):
    body = sep.join(n + u for n, u in nums)
    agree(f"{before}{bracket[:1]}{body}{bracket[1:]}{after}")


@MANY
@given(st.lists(st.lists(number, min_size=1, max_size=4), min_size=1, max_size=4), gap, gap,
       often(["[]", "()"], ["{}", "[)", "("]), often(["", "[]", "boxes []"], ["()", "[", "{}"]),
       often([", ", " ", ",", " to ", " and "], ["", ";", " = ", "\n", " 5 "]))
def test_common_shape_on_groups(groups, inner_gap, outer_gap, inner, outer, between):
    body = between.join(inner[0] + inner_gap.join(g) + inner[1:] for g in groups)
    agree(f"{outer[:-1]}{body}{outer[-1:]}" if outer else body)


@MANY
@given(st.lists(st.tuples(word, often(["=", ":", " = ", ": ", " ", "  "], ["==", "=:", "", "\t"]),
                          st.lists(number, min_size=1, max_size=3), often(["", "", "[]", "()"], ["{}", "[)"]), unit),
                min_size=1, max_size=4), often([", ", "; ", ",", ";"], [" ", " and ", "\n", ""]))
def test_common_shape_on_named_values(pairs, sep):
    agree(sep.join(f"{n}{e}{b[:1]}{(', ' if b else ' ').join(v)}{b[1:]}{u}" for n, e, v, b, u in pairs))


@MANY
@given(st.lists(st.lists(st.tuples(word, often([": ", ":"], ["=", " "]), number), min_size=1, max_size=3), min_size=1, max_size=3),
       often(['"'], ["", "'"]), st.booleans())
def test_common_shape_on_json_objects(objects, quote, listed):
    body = ", ".join("{" + ", ".join(f"{quote}{k}{quote}{e}{v}" for k, e, v in obj) + "}" for obj in objects)
    agree(f"[{body}]" if listed or len(objects) > 1 else body)
