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

    mm = map_metric("abacus_add_easy", "abacus_sc")

    def interval(name: str, values: list[float]):
        lines = [sample_line(i, {"abacus_sc": st.sample(v, st.OK, "", f"s-{i}")}) for i, v in enumerate(values)]
        write_run(tmp_path / name, {"abacus_add_easy": {"abacus_sc": sum(values) / len(values)}}, {"abacus_add_easy": lines})
        return interval_of(load_run(tmp_path / name).tasks["abacus_add_easy"], "abacus_sc", mm)

    iv = interval("a", [0.5, 0.7, 0.9, 0.6] * 3)
    assert iv.method == "bootstrap (2000 resamples, seed 0, n=12)" and iv.lo < 0.675 < iv.hi and iv.n == 12
    assert interval("b", [0.8] * 12) is None  # every sample alike: not [0.8, 0.8]
    assert interval("c", [0.499, 0.4993]) is None  # two samples: no interval, not [0.499, 0.499]


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


def test_the_report_opens_on_one_headline_row_per_benchmark_and_task(tmp_path):
    lines = [_abacus_line(0, 1.0, 0.97, 1.0, 2, 2, 0, 2), _abacus_line(1, 1.0, 0.99, 0.5, 2, 2, 1, 2)]
    acc = lambda i, ok: sample_line(i, {"accuracy": st.sample(1.0 if ok else 0.0, st.OK, "", f"it-{i}")})  # noqa: E731
    path = write_run(tmp_path / "o", {"abacus_add_easy": {"abacus_score": 0.73}, "cwi": {"accuracy": 2 / 3},
                                      "cwi_alignment": {"accuracy": 2 / 3}},
                     {"abacus_add_easy": lines, "cwi_alignment": [acc(0, True), acc(1, True), acc(2, False)]})
    import json

    data = json.loads(path.read_text())
    data["group_subtasks"] = {"cwi": ["cwi_alignment"], "cwi_alignment": [], "abacus_add_easy": []}
    path.write_text(json.dumps(data))
    text = R.write_report(tmp_path / "o", tmp_path / "r.html").read_text()
    results = text.split("<h2>Results</h2>")[1].split("<h2>Breakdowns</h2>")[0]
    assert text.index("<h2>Results</h2>") < text.index("<h2>Breakdowns</h2>") < text.index("<h2>Samples</h2>")
    rows = {r.split("</td>")[0].split(">")[-1] if "grp" not in r.split("</td>")[0] else "cwi": r
            for r in results.split("<tr class=")[1:]}
    assert set(rows) == {"abacus_add_easy", "cwi", "cwi_alignment"}
    assert "group of 1 tasks" in rows["cwi"] and "no samples file" not in text  # a group row says what it is
    lo, hi = C.wilson(2, 3)
    assert f"[{100 * lo:.1f}, {100 * hi:.1f}]" in rows["cwi_alignment"] and "Wilson (2/3)" in rows["cwi_alignment"]
    assert "2 ok" in rows["abacus_add_easy"] and "1 pass, 1 partial" in rows["abacus_add_easy"]
    # ABACUS at add/easy: the published neighbours of 0.730 (Seedream 4.0 0.55 is the best)
    assert "above all 7 published (best: Seedream 4.0 0.550)" in rows["abacus_add_easy"]
    assert "no published numbers" in rows["cwi_alignment"]


def test_abacus_cards_show_the_source_image_from_the_local_data(tmp_path, monkeypatch):
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq
    from PIL import Image

    for var in ("LMMS_PLUGINS_ABACUS_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 120, 200)).save(buf, format="PNG")
    root = tmp_path / "abacus"
    (root / "add").mkdir(parents=True)
    pq.write_table(pa.table({"image": [{"bytes": buf.getvalue(), "path": "a.png"}], "image_id": [900000],
                             "prompt": ["Add 2 umbrellas."], "count": [2], "category": ["umbrella"]}),
                   root / "add" / "easy-00000-of-00001.parquet")
    lines = [_abacus_line(0, 1.0, 0.97, 1.0, 2, 2, 0, 2), _abacus_line(1, 1.0, 0.99, 0.5, 2, 2, 1, 2)]
    write_run(tmp_path / "o", {"abacus_add_easy": {"abacus_score": 0.73}}, {"abacus_add_easy": lines})
    cards = R.write_report(tmp_path / "o", tmp_path / "a.html").read_text().split("<article")[1:]
    assert all('alt="input image"' not in c and "LMMS_PLUGINS_ABACUS_ROOT" in c for c in cards)  # said how to get it
    cards = R.write_report(tmp_path / "o", tmp_path / "b.html", media_root=[root]).read_text().split("<article")[1:]
    assert cards[0].count('alt="input image"') == 1  # image 900000, read by id
    assert 'alt="input image"' not in cards[1] and "image 900001 is not in" in cards[1]


def test_a_sample_judged_by_a_lower_is_better_rate_fails_at_one(tmp_path):
    lines = [sample_line(0, {"D_f": st.sample(1.0, st.OK, "refused a feasible request", "c-0")}),
             sample_line(1, {"D_f": st.sample(0.0, st.OK, "edited", "c-1")}),
             sample_line(2, {"extraction_failure_rate": st.sample(1.0, st.OK, "no <answer> span", "c-2")})]
    write_run(tmp_path / "o", {"dod_no_hint": {"D_f": 0.5}}, {"dod_no_hint": lines})
    cards = R.write_report(tmp_path / "o", tmp_path / "r.html").read_text().split("<article")[1:]
    assert [c.split('data-outcome="')[1].split('"')[0] for c in cards] == ["fail", "pass", "fail"]


def test_a_metric_over_no_sample_is_said_to_be_unknown_whether_nan_or_null(tmp_path):
    write_run(tmp_path / "a", {"dod_no_hint": {"E": float("nan"), "D_strict": None, "D_f": 0.0,
                                               "generation_failure_rate": 1.0}})
    cmp = C.compare([tmp_path / "a"], labels=["mine"])
    for metric in ("E", "D_strict"):
        blk = next(b for b in cmp.blocks if b.metric == metric)
        assert not blk.entries and "mine: no value (NaN: no sample the metric applies to)" in blk.notes
    text = R.write_report(tmp_path / "a", tmp_path / "r.html").read_text()
    head = text.split("<h2>Results</h2>")[1].split("<h2>Breakdowns</h2>")[0]
    assert head.count("not known: no sample the metric applies to") == 2
