"""Fuzz (issue #15): random and malformed model outputs through DoD's refusal detector, the judge
reply parser and ``process_results`` (mazes and real-world requests) never raise, always end in a
known status, give valid UTF-8 records, and never open a file outside the allowed folders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dod_fixtures import make_dataset, read_jsonl  # noqa: E402
from fuzz_outputs import (  # noqa: E402
    FUZZ,
    MIXED_TEXT,
    OPENED,
    assert_nothing_forbidden_opened,
    check_records,
    make_image_pool,
    outputs,
)

from lmms_plugins.tasks.dod import hooks  # noqa: E402
from lmms_plugins.tasks.dod import metrics as M  # noqa: E402
from lmms_plugins.tasks.dod.judges import parse_edit, parse_refusal  # noqa: E402
from lmms_plugins.tasks.dod.refusal import detect_refusal, official_abstain  # noqa: E402
from lmms_plugins.utils import status  # noqa: E402
from lmms_plugins.utils.judge_client import extract_json  # noqa: E402

KNOWN = {status.OK, status.MISSING_IMAGE, status.BAD_IMAGE, status.UNPARSABLE, status.GENERATION_FAILED,
         status.MISSING_DATA, M.NOT_APPLICABLE, M.NO_EDIT_JUDGE, M.MAZE_UNVERIFIED,
         hooks.REFUSAL_NOT_COVERED,  # judge-free, a language the refusal rules do not read: pending
         hooks.REFUSAL_UNCERTAIN}  # judge-free, an uncertain verdict in a covered language: pending


@pytest.fixture(scope="module")
def dod(tmp_path_factory):
    base = tmp_path_factory.mktemp("dod_fuzz")
    root = make_dataset(base / "dod", pairs_per_category=1, maze_pairs=1)
    docs = [{**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")]
    return docs, make_image_pool(base / "pool")


@pytest.fixture(autouse=True)
def rules_only(monkeypatch):
    for var in ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)


@FUZZ
@given(text=MIXED_TEXT)
def test_dod_fuzz_refusal_detector_never_raises(text):
    r = detect_refusal(text)
    assert r.refused in (True, False)
    assert isinstance(official_abstain(text), bool)


@FUZZ
@given(text=st.one_of(MIXED_TEXT, st.sampled_from(["[" * 5000 + "]" * 5000, '{"a": ' * 3000, "```json\n" + "{" * 4000])))
def test_dod_fuzz_judge_reply_parsing_rejects_or_accepts(text):
    for parse in (extract_json, parse_edit, lambda t: parse_refusal(t, "some reasoning")):
        try:
            parse(text)
        except ValueError:
            pass  # "unusable answer": the judge client asks again


@FUZZ
@given(data=st.data())
def test_dod_fuzz_process_results_known_status_valid_records(dod, data):
    docs, pool = dod
    doc = data.draw(st.sampled_from(docs))
    raw = data.draw(outputs(pool))
    since = len(OPENED)
    res = hooks.process_results(doc, [raw])
    check_records(res, KNOWN, hooks.METRIC_NAMES)
    assert_nothing_forbidden_opened(since)


def test_dod_regression_deeply_nested_output_is_unparsable_not_error(dod):
    docs, _ = dod
    res = hooks.process_results(docs[0], ['{"text": ' + "[" * 5000 + "]" * 5000 + "}"])
    assert {r["status"] for r in res.values()} <= {status.UNPARSABLE, M.NOT_APPLICABLE}


def test_dod_regression_lone_surrogates_give_valid_utf8_records(dod):
    docs, _ = dod
    res = hooks.process_results(docs[1], ['{"text": "\\ud800 I cannot draw this: it is impossible. \\udfff", "images": []}'])
    check_records(res, KNOWN, hooks.METRIC_NAMES)
