"""#15.1: the refusal detector and extract_json's <think> stripping do linear, bounded work.

Work is measured with deterministic counters (characters handed to the scanning regexes, sentences
handed to the classifier), never with a clock: the old code scanned a clause from the start of its
sentence for every match (quadratic in one long sentence), split a 5 MB output into 2.5 million
sentences, and stripped <think> with a lazy regex that rescans the text from every unclosed tag.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from lmms_plugins.tasks.dod.refusal import detect_refusal
from lmms_plugins.tasks.dod.refusal import rules as R
from lmms_plugins.utils import judge_client as J


class CountingPattern:
    """Wraps a compiled pattern; counts the characters each finditer/search call is asked to scan."""

    def __init__(self, pattern: re.Pattern):
        self.pattern, self.chars, self.calls = pattern, 0, 0

    def _count(self, s, pos, endpos):
        end = len(s) if endpos is None else min(endpos, len(s))
        self.chars += max(0, end - pos)
        self.calls += 1
        return end

    def finditer(self, s, pos=0, endpos=None):
        return self.pattern.finditer(s, pos, self._count(s, pos, endpos))

    def search(self, s, pos=0, endpos=None):
        return self.pattern.search(s, pos, self._count(s, pos, endpos))

    def __getattr__(self, name):
        return getattr(self.pattern, name)


def clause_scan_work(monkeypatch, text: str) -> int:
    counter = CountingPattern(R._CLAUSE_START)
    monkeypatch.setattr(R, "_CLAUSE_START", counter)
    R.rule_refusal(text)
    monkeypatch.setattr(R, "_CLAUSE_START", counter.pattern)
    return counter.chars


def test_clause_scanning_is_linear_in_one_long_sentence(monkeypatch):
    # the input: one 27 KB sentence with a candidate match every 17 characters
    small = clause_scan_work(monkeypatch, "I cannot draw it " * 400)
    large = clause_scan_work(monkeypatch, "I cannot draw it " * 800)
    assert small > 0
    assert large <= 2.6 * small  # quadratic work would be ~4x
    assert large <= 3 * len("I cannot draw it " * 800)


def test_a_5mb_output_is_analysed_through_a_bounded_window(monkeypatch):
    """5 MB of ". " (2.5 million empty sentences) cost 19 s and 600 MB: only the window is split."""
    from lmms_plugins.tasks.dod.refusal import classifier as C

    C.default_model()  # loaded once, before counting (the shipped model)
    seen = {"sentences": 0}
    real = C.SentenceModel.sentence_probs

    def counting(self, sents, ctx):
        seen["sentences"] += len(sents)
        return real(self, sents, ctx)

    monkeypatch.setattr(C.SentenceModel, "sentence_probs", counting)
    work = {}
    for size in (1_000_000, 5_000_000):
        boundary, json_boundary = CountingPattern(R._BOUNDARY), CountingPattern(R._JSON_BOUNDARY)
        monkeypatch.setattr(R, "_BOUNDARY", boundary)
        monkeypatch.setattr(R, "_JSON_BOUNDARY", json_boundary)
        seen["sentences"] = 0
        text = ". " * (size // 2) + "So there is no valid path."
        d = detect_refusal(text)
        work[size] = (boundary.chars + json_boundary.chars, seen["sentences"])
        assert d.refused and d.evidence == "So there is no valid path."  # the tail is read
    window = R.HEAD + R.REASONING_TAIL + R.ANSWER_HEAD + R.TAIL
    assert work[5_000_000] == work[1_000_000]  # independent of the input size beyond the window
    assert work[5_000_000][0] <= window and work[5_000_000][1] <= window


def test_window_keeps_the_end_of_the_reasoning_and_the_answer():
    reasoning = "<think>" + "Step. " * 200_000 + "The goal is walled off, so the maze has no solution.</think>"
    text = reasoning + "\nI will not draw." + " ok" * 100_000
    spans = R.analysed_spans(text)
    assert sum(e - s for s, e in spans) <= R.HEAD + R.REASONING_TAIL + R.ANSWER_HEAD + R.TAIL
    d = R.rule_refusal(text)
    assert d.refused and "no solution" in d.evidence


def test_sentence_pieces_are_bounded():
    text = "word " * 10_000
    spans = R.sentences(text)
    assert all(e - s <= R.MAX_SENTENCE for s, e in spans)
    assert "".join(text[s:e] for s, e in spans).replace(" ", "") == text.replace(" ", "")


# --- extract_json's <think> stripping ---------------------------------------------------------------------


def test_extract_json_think_stripping_scans_each_character_once(monkeypatch):
    counter = CountingPattern(J._THINK_TAG)
    monkeypatch.setattr(J, "_THINK_TAG", counter)
    text = "<think>" * 20_000 + '{"concludes_infeasible": false}'  # 140 KB of unclosed tags took 11 s
    assert J.extract_json(text) == {"concludes_infeasible": False}
    assert counter.calls == 1 and counter.chars == len(text)


def _old_strip(text: str) -> str:
    return re.sub(r"(?is)<think(?:ing)?>.*?</think(?:ing)?>", "", text)


@settings(max_examples=300, deadline=None)
@given(hs.lists(hs.sampled_from(["<think>", "</think>", "<THINKING>", "</thinking>", "x", '{"a": 1}', " ", "\n"]), max_size=14))
def test_think_stripping_removes_the_same_blocks_as_before(parts):
    text = "".join(parts)
    assert J.drop_think_blocks(text) == _old_strip(text)


@pytest.mark.parametrize("text, expected", [
    ('<think>{"no": 1}</think>{"yes": 2}', {"yes": 2}),
    ('<THINKING>a</thinking>```json\n{"k": true}\n```', {"k": True}),
    ('<think>open but never closed {"k": 3}', {"k": 3}),
])
def test_extract_json_after_think_blocks(text, expected):
    assert J.extract_json(text) == expected
