"""Fuzz (issue #15): random and malformed model outputs and judge replies through GRADE's verdict
parsing and ``process_results`` never raise, always end in a known status, give valid UTF-8
records, and never open a file outside the allowed folders."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz_outputs import FUZZ, MIXED_TEXT, OPENED, assert_nothing_forbidden_opened, check_records, make_image_pool, outputs  # noqa: E402
from grade_fixtures import make_dataset  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402

from lmms_plugins.tasks.grade import hooks  # noqa: E402
from lmms_plugins.tasks.grade.records import Question, load_records  # noqa: E402
from lmms_plugins.tasks.grade.rubric import match_answers, parse_scale  # noqa: E402
from lmms_plugins.utils import status  # noqa: E402
from lmms_plugins.utils.judge_client import extract_json, reset_shared_clients  # noqa: E402

KNOWN = {status.OK, status.MISSING_IMAGE, status.BAD_IMAGE, status.JUDGE_ERROR, status.MISSING_DATA,
         status.GENERATION_FAILED, hooks.MISSING_VERDICT}
QUESTIONS = (Question("Q1", "Is the arrow reversed?", 0.5), Question("Q2", "Is F labelled?", 0.5))

JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10),
              st.sampled_from(["Yes", "No", "yes", "Q1", "Q2", "score", "answer", "id"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["id", "answer", "score", "reason", "question", "x"]), inner, max_size=4)),
    max_leaves=20,
)
REPLIES = st.one_of(MIXED_TEXT, JSONISH.map(json.dumps), JSONISH.map(lambda v: "Sure:\n```json\n" + json.dumps(v) + "\n```"),
                    st.sampled_from(["[" * 5000 + "]" * 5000, '{"score": ' * 2000 + "2" + "}" * 2000]))


@pytest.fixture(scope="module")
def grade(tmp_path_factory):
    base = tmp_path_factory.mktemp("grade_fuzz")
    docs = load_records(make_dataset(base / "GRADE"))
    return docs, make_image_pool(base / "pool")


@pytest.fixture
def no_judge(monkeypatch):
    for name in ("BASE_URL", "MODEL", "API_KEY"):
        monkeypatch.delenv(f"LMMS_PLUGINS_JUDGE_{name}", raising=False)
    reset_shared_clients()


@FUZZ
@given(text=REPLIES)
def test_grade_fuzz_verdict_parsing_rejects_or_accepts(text):
    for parse in (lambda t: match_answers(QUESTIONS, extract_json(t)), lambda t: parse_scale(extract_json(t))):
        try:
            verdict = parse(text)
        except ValueError:
            continue  # "unusable answer": the judge client asks again
        assert verdict.score is not None


@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_grade_fuzz_process_results_without_judge(grade, no_judge, data):
    docs, pool = grade
    doc = data.draw(st.sampled_from(docs))
    raw = data.draw(outputs(pool))
    since = len(OPENED)
    res = hooks.process_results(doc, [raw])
    check_records(res, KNOWN, hooks.METRICS)
    assert_nothing_forbidden_opened(since)


def test_grade_fuzz_judge_replies_through_process_results(grade, monkeypatch):
    """Fuzzed judge replies (drawn per request) with a good image: judge_error or ok, never error."""
    docs, pool = grade
    reset_shared_clients()
    seen = []

    @settings(FUZZ, max_examples=8)
    @given(st.lists(REPLIES, min_size=9, max_size=9), st.sampled_from(range(len(docs))))
    def run(answers, index):
        queue = list(answers)
        with FakeJudgeServer(lambda req: queue.pop(0) if queue else "[]") as server:
            monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
            res = hooks.process_results(docs[index], [json.dumps({"text": "", "images": [pool["good"]]})])
            reset_shared_clients()
        check_records(res, KNOWN, hooks.METRICS)
        seen.append(res["grade_strict"]["status"])

    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_TIMEOUT", "5")
    monkeypatch.setenv("LMMS_PLUGINS_PREFLIGHT", "off")
    run()
    assert seen and set(seen) <= {status.OK, status.JUDGE_ERROR}
