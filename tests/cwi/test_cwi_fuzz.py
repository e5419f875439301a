"""Fuzz (issue #15): random and malformed model outputs through CwI's parser, rules and
``process_results`` never raise, always end in a known status, and give valid UTF-8 records."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz_outputs import FUZZ, MIXED_TEXT, check_records, make_image_pool, outputs  # noqa: E402

from lmms_plugins.tasks.cwi import hooks  # noqa: E402
from lmms_plugins.tasks.cwi.answer_parse import find_span, parse_answer  # noqa: E402
from lmms_plugins.tasks.cwi.catalog import TASKS  # noqa: E402
from lmms_plugins.tasks.cwi.rules import score  # noqa: E402
from lmms_plugins.tasks.cwi.task_rules import rule_for_task  # noqa: E402
from lmms_plugins.utils import status  # noqa: E402

KNOWN = {status.OK, status.UNPARSABLE, status.MISSING_DATA, status.GENERATION_FAILED}
RULES = {t: rule_for_task(t) for t in TASKS}
# gold strings of every shape the tasks use (a gold that does not fit a rule is missing_data)
GOLDS = ["14", "-3.5", "[3, 4]", "[[1, 2], [3, 4]]", "[[10, 20, 110, 220]]", "dx=3, dy=-2", "r=10, g=20, b=30",
         '{"tiles": [2, 0, 1, 3], "rots": [0, 1, 2, 3]}', "[0, 90, 180]", "true", "A", "[2, 0, 1, 3]"]

ANSWERS = st.one_of(
    MIXED_TEXT,
    st.lists(st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5)), max_size=8)
    .map(lambda xs: "<answer>" + ", ".join(map(str, xs)) + "</answer>"),
    st.recursive(st.integers(-10**300, 10**300).map(str), lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
                 max_leaves=30).map(lambda s: f"İ <answer>{s}</answer>"),
)


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    return make_image_pool(tmp_path_factory.mktemp("cwi_fuzz"))


@FUZZ
@given(text=ANSWERS)
def test_cwi_fuzz_parser_never_raises(text):
    span = find_span(text)
    assert span is None or span in text
    try:
        parse_answer(text)
    except ValueError:
        pass  # the documented way to say "no answer here"


@FUZZ
@given(task=st.sampled_from(TASKS), text=ANSWERS, gold=st.sampled_from(GOLDS))
def test_cwi_fuzz_rules_never_raise(task, text, gold):
    s = score(RULES[task], text, gold)
    assert s.status in KNOWN and isinstance(s.correct, bool), (task, s)


def test_cwi_fuzz_pool_has_the_bad_files(pool):
    assert Path(pool["junk"]).is_file() and Path(pool["link_out"]).is_symlink()


@FUZZ
@given(data=st.data(), task=st.sampled_from(TASKS), gold=st.sampled_from(GOLDS))
def test_cwi_fuzz_process_results_known_status_valid_records(pool, data, task, gold):
    raw = data.draw(st.one_of(outputs(pool), ANSWERS))
    doc = {"id": "fuzz-1", "answer": gold, "difficulty": "hard", "prompt": "How many?"}
    res = hooks.process_results(doc, [raw], rule=RULES[task])
    check_records(res, KNOWN, hooks.METRICS)


def test_cwi_regression_deeply_nested_output_is_unparsable_not_error():
    res = hooks.process_results({"id": 1, "answer": "14"}, ['{"text": ' + "[" * 5000 + "]" * 5000 + "}"], rule=rule_for_task("color_count"))
    assert res["accuracy"]["status"] in (status.UNPARSABLE, status.OK) and res["accuracy"]["value"] == 0.0


def test_cwi_regression_lone_surrogates_give_valid_utf8_records():
    raw = '{"text": "\\ud800 <answer>\\udfff 14</answer>", "images": []}'
    res = hooks.process_results({"id": "s\ud800", "answer": "14"}, [raw], rule=rule_for_task("color_count"))
    check_records(res, KNOWN, hooks.METRICS)
