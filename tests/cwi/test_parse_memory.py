"""A long list answer is tokenised as a stream: memory stays a few times the input (issue 15 scaling)."""

from __future__ import annotations

import tracemalloc

from lmms_plugins.tasks.cwi.answer_parse import parse_answer


def test_a_list_of_a_million_numbers_parses_in_bounded_memory():
    text = "<answer>[" + "1, " * 400_000 + "1]</answer>"  # 1.2 MB, more numbers than MAX_NUMBERS
    tracemalloc.start()
    try:
        parse_answer(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * len(text), peak  # the whole-span findall took ~55x the input
