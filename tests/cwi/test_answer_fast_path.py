"""The parser's fast paths for common answer shapes (issue 16.11) read exactly what the general
tokeniser reads: same items, same fields, same container types (``Paren`` vs tuple, int vs
float), same rejections; and ``frozen_new`` builds what the dataclass constructor builds."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from lmms_plugins.tasks.cwi import answer_parse as ap
from lmms_plugins.tasks.cwi.rules import Score

MANY = settings(max_examples=400, deadline=None)


def typed(v):
    """``v`` with every container's type made visible (Paren((1, 2)) == (1, 2) in Python)."""
    if isinstance(v, tuple):
        return (type(v).__name__, getattr(v, "names", None), tuple(typed(x) for x in v))
    if isinstance(v, list):
        return ("list", tuple(typed(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, typed(x)) for k, x in v.items()))
    if isinstance(v, set):
        return ("set", tuple(sorted(v)))
    return (type(v).__name__, v)


def outcome(fn, span):
    try:
        return typed(fn(span))
    except ap._Reject as exc:
        return ("reject", str(exc))


def check(span) -> bool:
    """Whether a fast path took ``span``; when one did, it read what the tokeniser reads."""
    full = outcome(ap._parse_tokens, span)
    try:
        got = ap._parse_fast(span)
    except ap._Reject as exc:
        assert full == ("reject", str(exc)), span
        return True
    if got is None:
        return False
    assert typed(got) == full, span
    return True


numbers = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(-1e4, 1e4, allow_nan=False).map(lambda x: f"{x:.3f}"),
    st.sampled_from(["+3", "-0", "1.", ".5", "-.25", "007", "1" * 70, "3.5.2", "1e5", "2E-3", "12%", "\u0663"]),
)
seps = st.sampled_from([",", ", ", " ", "  ", ";", " , ", ",,", "\t", "\n", " - ", "%", ""])
names = st.sampled_from(["dx", "dy", "x", "Y", "angle", "scale", "ring", "count", "px", "deg", "yes", "rows", "e", "x1", "_a"])
eqs = st.sampled_from(["=", ": ", " = ", ":", " ", "=="])
brackets = st.sampled_from([("", ""), ("[", "]"), ("(", ")"), ("{", "}"), ("[", ")"), ("[[", "]]"), ("[", ""), ("", ")")])


@MANY
@given(st.lists(numbers, min_size=0, max_size=8), seps, brackets, st.sampled_from(["", " ", " px", "°", "%", " 7"]))
def test_number_lists_fast_and_full_agree(nums, sep, br, suffix):
    check(f"{br[0]}{sep.join(nums)}{br[1]}{suffix}")


@MANY
@given(st.lists(st.tuples(names, eqs, numbers), min_size=1, max_size=5), seps, st.sampled_from(["", "l=[1, 2]", "p: (3,4)"]))
def test_named_numbers_fast_and_full_agree(pairs, sep, listed):
    check(sep.join([f"{n}{e}{v}" for n, e, v in pairs] + ([listed] if listed else [])))


units = st.sampled_from(["", " px", "px", " PX", "°", " deg", " degrees", "%", " pxx", " px2", "_px", " e", " pp"])


@MANY
@given(st.lists(st.lists(numbers, min_size=0, max_size=4), min_size=1, max_size=5), seps, brackets, brackets, units)
def test_bracketed_groups_fast_and_full_agree(groups, sep, outer, inner, unit):
    body = sep.join(f"{inner[0]}{', '.join(g)}{inner[1]}" for g in groups)
    check(f"{outer[0]}{body}{outer[1]}{unit}")


@MANY
@given(st.lists(st.tuples(names, eqs, st.lists(numbers, min_size=0, max_size=4), brackets, st.sampled_from([" ", ", ", ","]), units),
                min_size=1, max_size=4), seps)
def test_named_lists_runs_and_units_fast_and_full_agree(pairs, sep):
    check(sep.join(f"{n}{e}{b[0]}{s.join(v)}{b[1]}{u}" for n, e, v, b, s, u in pairs))


@MANY
@given(st.lists(st.sampled_from(list("0123456789 ,;.-+[](){}=:%#xyEe_\n\u2212\u00b0") + ["px", "PX", "deg", "rows"]), max_size=30))
def test_any_text_of_answer_characters_fast_and_full_agree(pieces):
    check("".join(pieces))


def test_the_fast_paths_take_the_common_shapes():
    common = ["7", "\u0663", " 3,-2 ", "[2,0,1,3]", "(3, -2)", "37.5%", "[30, -50]", "(240, 130) px", "45°",
              "[[0,3],[2,1]]", "(1, 2), (3, 4)", "rows=[2,0,1]; cols=[1,2,0]", "rows=[2,0,1]; cols: 1 2 0",
              "x=3 px, box=[1, 2, 3, 4]", "angle=45°, pts=(1, 2)", "a: 1; a=2, b=[]"]
    assert all(check(s) for s in common)
    assert all(check(s) for s in ["dx=3, dy=-2", "count: 7", "ring=2; angle=135.5", "X=240, y=130"])
    # without a bracket, only plain name=number pairs take a fast path; the rest is the loop's
    assert not any(check(s) for s in ["angle=45°, scale=1.2", "rows: 2 0 1; cols: 1 2 0", "x=3 px, y=2"])
    # shapes only the general tokeniser reads: names without '=', exponents, hex, objects, prose
    assert not any(check(s) for s in ["scale 1.2, angle 45", "1e5", "px=3", "#7840c8", '[{"tile": 1}]',
                                      "(10, 100) to (500, 500)", "RGB(1, 2, 3)", "rows: 2, 0, 1",
                                      "r=(1, 2]", "[(1, 2], [3, 4]]", "x=3 pxx"])


def test_frozen_new_equals_the_constructor():
    values = dict(ok=True, span="3,-2", items=(3, -2), fields={"a": 1}, reason="", loose={}, tails={},
                  clashes=set(), percent=False)
    made = ap.frozen_new(ap.ParsedAnswer, **values)
    assert made == ap.ParsedAnswer(**values) and vars(made) == vars(ap.ParsedAnswer(**values))
    assert {f.name for f in dataclasses.fields(ap.ParsedAnswer)} == set(values)
    s = dict(correct=True, status="ok", reason="exact match", predicted=7, gold=7, span="7")
    assert ap.frozen_new(Score, **s) == Score(**s) and {f.name for f in dataclasses.fields(Score)} == set(s)
    try:
        made.ok = False
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover
        raise AssertionError("frozen_new must keep the instance frozen")


def test_long_near_misses_agree():
    """Spans up to FAST_MAX_CHARS that almost fit a pattern and fail at the end (the patterns are
    written so that such a failure backtracks in linear time; here only agreement is checked)."""
    spans = ["[" + "[1]  " * 300 + "x", "(1)  " * 300 + "x", " " * 1000 + "1" + " " * 900 + "x",
             "[" + " " * 1000 + "1" + " " * 900 + "x", "a=1 2 3, " * 150 + "x", "a=[1], " * 200 + "b=(1]",
             "a=1, " * 300 + "b", "-" * 1000 + "1" + "." * 990 + "a", "1" + " px" * 600 + " x", " " * 1990 + "(1"]
    for span in spans:
        assert len(span) <= ap.FAST_MAX_CHARS
        assert not check(span)
