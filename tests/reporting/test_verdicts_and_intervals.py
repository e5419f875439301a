"""One interval rule in every table, CSV row and chart, and verdicts that follow each benchmark's
meaning (an ABACUS edit passes only when the official definition calls it right)."""

from __future__ import annotations

import csv

import pytest

from lmms_plugins import compare as C
from lmms_plugins import report as R
from lmms_plugins.utils import status as st

from .runs import sample_line, write_run


def _cwi_tiers(out, easy: list[bool], hard: list[bool]):
    lines = []
    for i, (tier, ok) in enumerate([("easy", x) for x in easy] + [("hard", x) for x in hard]):
        acc = st.sample(1.0 if ok else 0.0, st.OK, "", f"it-{i}", tier=tier)
        lines.append(sample_line(i, {"accuracy": acc, f"accuracy_{tier}": acc}))
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return write_run(out, {"cwi_alignment": {"accuracy": mean(easy + hard), "accuracy_easy": mean(easy),
                                             "accuracy_hard": mean(hard)}}, {"cwi_alignment": lines})


def test_a_perfect_small_run_gets_a_wilson_interval_and_each_tier_its_own_n(tmp_path):
    _cwi_tiers(tmp_path / "run", [True] * 5, [True] * 3)
    cmp = C.compare([tmp_path / "run"], out_dir=tmp_path / "cmp", chart=False)
    e = {b.metric: b.entries[0] for b in cmp.blocks}
    lo, hi = C.wilson(8, 8)
    assert e["accuracy"].ci == pytest.approx((100 * lo, 100 * hi)) and e["accuracy"].ci[0] < 70  # 8/8 is no certainty
    assert e["accuracy"].ci_method == "Wilson (8/8)" and e["accuracy"].n == 8
    assert e["accuracy_easy"].ci_method == "Wilson (5/5)" and e["accuracy_easy"].n == 5
    assert e["accuracy_hard"].ci_method == "Wilson (3/3)" and e["accuracy_hard"].n == 3
    rows = {r["metric"]: r for r in csv.DictReader((tmp_path / "cmp" / "compare.csv").open()) if r["row"] == "yours"}
    assert (rows["accuracy_easy"]["n"], rows["accuracy_hard"]["n"]) == ("5", "3")  # not the task's 8
    assert rows["accuracy_hard"]["ci_method"] == "Wilson (3/3)" and float(rows["accuracy_hard"]["ci_lo"]) < 50


def test_a_continuous_metric_is_bootstrapped_with_its_method_stated_and_never_zero_width(tmp_path):
    from lmms_plugins.baselines.mapping import map_metric
    from lmms_plugins.compare.stats import interval_of
    from lmms_plugins.runs import load_run

    lines = [sample_line(i, {"abacus_sc": st.sample(v, st.OK, "", f"s-{i}")}) for i, v in enumerate([0.5, 0.7, 0.9, 0.6])]
    write_run(tmp_path / "a", {"abacus_add_easy": {"abacus_sc": 0.675}}, {"abacus_add_easy": lines})
    tr = load_run(tmp_path / "a").tasks["abacus_add_easy"]
    iv = interval_of(tr, "abacus_sc", map_metric("abacus_add_easy", "abacus_sc"))
    assert iv.method == "bootstrap (2000 resamples, seed 0, n=4)" and iv.lo < 0.675 < iv.hi
    same = [sample_line(i, {"abacus_sc": st.sample(0.8, st.OK, "", f"s-{i}")}) for i in range(4)]
    write_run(tmp_path / "b", {"abacus_add_easy": {"abacus_sc": 0.8}}, {"abacus_add_easy": same})
    tr = load_run(tmp_path / "b").tasks["abacus_add_easy"]
    assert interval_of(tr, "abacus_sc", map_metric("abacus_add_easy", "abacus_sc")) is None  # not [0.8, 0.8]


def _abacus_line(i: int, cf: float, sc: float, oc: float, delivered: int, requested: int, destroyed: int, pre: int) -> dict:
    score = cf * sc * oc
    common = dict(cf=cf, sc=sc, oc=oc)
    board = st.sample(score, st.OK, "scored", 900000 + i, **common, delivered=delivered, requested=requested,
                      n_destroyed=destroyed, n_pre_existing=pre, operation="add")
    return sample_line(i, {"abacus_score": st.sample(score, st.OK, "scored", 900000 + i, **common), "abacus_leaderboard": board})


def test_an_abacus_edit_passes_only_with_the_exact_count_and_nothing_destroyed(tmp_path):
    lines = [_abacus_line(0, 1.0, 0.97, 1.0, 2, 2, 0, 2),   # right: exact count, nothing destroyed
             _abacus_line(1, 1.0, 0.99, 0.5, 2, 2, 1, 2),   # one pre-existing umbrella destroyed
             _abacus_line(2, 0.8, 0.95, 1.0, 3, 2, 0, 2),   # one too many
             _abacus_line(3, 0.0, 0.99, 1.0, 0, 2, 0, 2)]   # nothing added
    write_run(tmp_path / "o", {"abacus_add_easy": {"abacus_score": 0.5}}, {"abacus_add_easy": lines})
    cards = R.write_report(tmp_path / "o", tmp_path / "r.html").read_text().split("<article")[1:]
    assert [c.split('data-outcome="')[1].split('"')[0] for c in cards] == ["pass", "partial", "partial", "fail"]
    assert "1 of 2 pre-existing instances destroyed (OC 0.50)" in cards[1]
    assert "count: 3 delivered for 2 requested (CF 0.80)" in cards[2]
