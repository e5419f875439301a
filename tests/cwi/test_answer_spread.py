"""Exact-integer CwI tasks: no single answer is common, so a constant guess stays rare.

A regression guard for the generators' answer spread (benchmarks/cwi_constant_shortcut.py
measures the expected hit rate of the best constant on 500 + 500 items; this checks the same
property cheaply): over 200 items drawn as `make-data cwi --split train` draws them, the
commonest answer is at most 6 % of them. Flat spreads over 48-58 values give ~4 %; the earlier
overlapping tier ranges gave 7-10 %."""

from __future__ import annotations

from collections import Counter

import pytest

from lmms_plugins.tasks.cwi import generate

N = 200


@pytest.mark.parametrize("task", ["restore_then_count", "peak_count", "color_count"])
def test_commonest_answer_is_rare(task):
    gen = generate.load_generator(task)
    answers = [gen.generate(generate.item_rng(2024, task, "train", i), generate.tier_of(i, N)).answer for i in range(N)]
    value, count = Counter(answers).most_common(1)[0]
    assert count / N <= 0.06, f"{task}: answer {value} is {count} of {N} items"
