"""`lmms-plugins compare`: community rows with their sources, intervals, paired tests, files."""

from __future__ import annotations

import csv
import json
import random

import pytest
from PIL import Image

from lmms_plugins import compare as C
from lmms_plugins.utils import status as st
from lmms_plugins.utils.jsonl import read_jsonl
from .runs import cwi_run, sample_line, write_run


def _grade_run(out, rs: list[float], *, model="replay", ci=True, timestamp="20260101_120000"):
    """GRADE results: per-sample R (0-1), C = 2, L = 2; aggregated as the task does (0-100)."""
    lines = []
    for i, r in enumerate(rs):
        sid = f"math_geo_{i:03d}"
        fields = dict(task_id=sid, domain="math", sub_task="geometry", consistency_type="overall", R=r, C=2, L=2, strict=r > 0.99)
        vals = {"grade_strict": 100.0 if r > 0.99 else 0.0, "grade_reasoning": 100.0 * r, "grade_consistency": 100.0,
                "grade_readability": 100.0, "grade_lenient": 0.6 * 100 * r + 30 + 10, "grade_breakdown": 0.0}
        if i == 0:  # as the task does for a sample without consistency: its own 0.8/0.2 relaxed score,
            vals["grade_lenient"] = 0.8 * 100 * r + 20  # so the reported lenient (from means) is no per-sample mean
        lines.append(sample_line(i, {m: st.sample(v, "ok", "", sid, **fields) for m, v in vals.items()}))
    R = 100.0 * sum(rs) / len(rs)
    strict = 100.0 * sum(r > 0.99 for r in rs) / len(rs)
    overall = {"n": len(rs), "strict": strict, "lenient": 0.6 * R + 30 + 10, "reasoning": R, "consistency": 100.0, "readability": 100.0}
    if ci:
        overall["ci95"] = {"strict": [max(0, strict - 20), min(100, strict + 20)], "lenient": [50.0, 90.0],
                           "reasoning": [R - 10, R + 10], "consistency": [100.0, 100.0], "readability": [100.0, 100.0]}
    metrics = {"grade_strict": strict, "grade_lenient": overall["lenient"], "grade_reasoning": R, "grade_consistency": 100.0,
               "grade_readability": 100.0, "grade_breakdown": {"overall": overall, "by_domain": {}}}
    return write_run(out, {"grade": metrics}, {"grade": lines}, model=model, timestamp=timestamp)


def test_grade_run_is_ranked_among_the_published_rows_with_sources_and_intervals(tmp_path):
    # strict 30 %: better than Seedream 5.0 (24.7), worse than Nano Banana Pro (46.2) and 2 (39.6)
    rs = [1.0] * 3 + [0.5] * 7
    _grade_run(tmp_path / "run", rs)
    cmp = C.compare([tmp_path / "run"], labels=["mine"], out_dir=tmp_path / "cmp")
    text = cmp.text
    assert "=== GRADE ===" in text and "own judge prompts" in text  # protocol difference shown
    strict = next(b for b in cmp.blocks if b.metric == "grade_strict")
    assert [e.rank for e in strict.entries] == [3]
    assert {c.model for c in strict.community} >= {"Nano Banana Pro", "DreamOmni"}
    # a 0/1 metric gets Wilson on its samples (3 of 10 strictly right), not the task's bootstrap
    lo, hi = C.wilson(3, 10)
    assert strict.entries[0].ci == pytest.approx((100 * lo, 100 * hi)) and strict.entries[0].ci_method == "Wilson (3/10)"
    lenient_blk = next(b for b in cmp.blocks if b.metric == "grade_lenient")  # continuous: the task's own bootstrap
    assert lenient_blk.entries[0].ci == (50.0, 90.0) and lenient_blk.entries[0].ci_method == "the task's bootstrap (n=10)"
    assert strict.entries[0].deltas["Nano Banana Pro"] == pytest.approx(30.0 - 46.2)
    # the printed table: the ranked row, the interval, a delta and the source of each community row
    block = text.split("grade · strict accuracy")[1].split("grade · ")[0]
    assert "3/9  ▶ mine" in block and f"[{100 * lo:.1f}, {100 * hi:.1f}]" in block and "-16.2" in block
    assert "GRADE (ECCV 2026) Table 1 p. 9" in block
    lenient = text.split("grade · lenient score")[1].split("grade · ")[0]
    assert "Nano Banana Pro" in lenient and "82.9" in lenient and "Table 3 p. 11" in lenient
    # files: Markdown, CSV with sources, PNG
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "| **▶ mine** |" in md and "Table 1 p. 9" in md and "compare_grade.png" in md
    rows = list(csv.DictReader((tmp_path / "cmp" / "compare.csv").open()))
    nbp = [r for r in rows if r["model"] == "Nano Banana Pro" and r["metric"] == "grade_strict"]
    assert nbp and nbp[0]["source"] == "GRADE (ECCV 2026) Table 1 p. 9" and float(nbp[0]["delta"]) == pytest.approx(-16.2)
    with Image.open(tmp_path / "cmp" / "compare_grade.png") as im:
        assert im.format == "PNG" and im.width > 400


def test_two_runs_of_one_task_get_mcnemar_and_intervals(tmp_path):
    rnd = random.Random(3)
    a = [rnd.random() < 0.4 for _ in range(60)]
    b = [x or rnd.random() < 0.5 for x in a]  # b solves everything a solves, and more
    b[0] = False if a[0] else b[0]
    cwi_run(tmp_path / "a", a, model="model_a")
    cwi_run(tmp_path / "b", b, model="model_b", unparsable={59} if not b[59] else set())
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], out_dir=tmp_path / "cmp")
    p = next(p for p in cmp.paired if p.metric == "accuracy")
    a_only = sum(x and not y for x, y in zip(a, b))
    b_only = sum(y and not x for x, y in zip(a, b))
    assert p.test == "McNemar exact" and p.discordant == (a_only, b_only) and p.n_shared == 60
    from scipy.stats import binomtest

    assert p.p_value == pytest.approx(binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue)
    assert p.diff == pytest.approx(100.0 * (sum(b) - sum(a)) / 60)
    assert p.ci[0] <= p.diff <= p.ci[1] and p.ci[0] > 0  # b is better on these samples
    text = cmp.text
    assert "Paired tests on shared samples" in text and "McNemar exact p = " in text
    assert f"discordant {a_only} vs {b_only}" in text
    # each run's accuracy carries a bootstrap interval over its samples
    blk = next(b for b in cmp.blocks if b.metric == "accuracy")
    for e in blk.entries:
        assert e.ci_method.startswith("Wilson (") and e.ci_method.endswith("/60)") and e.ci[0] <= e.value <= e.ci[1]
    assert "No published numbers for these metrics" in text and "cwi_alignment" in text
    with Image.open(cmp.files["png_cwi"]) as im:  # runs-only chart: a bar per run
        assert im.format == "PNG" and im.height > 100


def test_continuous_metric_gets_a_paired_bootstrap_on_shared_samples_only(tmp_path):
    ra = [0.0, 0.25, 0.5, 0.5, 1.0, 0.75, 0.25, 0.0, 0.5, 1.0, 0.25, 0.75]
    rb = [min(1.0, r + 0.25) for r in ra] + [1.0, 1.0]  # two extra samples, not shared
    _grade_run(tmp_path / "a", ra)
    _grade_run(tmp_path / "b", rb)
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=["A", "B"])
    p = next(p for p in cmp.paired if p.metric == "grade_reasoning")
    assert p.test.startswith("paired bootstrap") and p.n_shared == 12
    assert p.diff == pytest.approx(100 * (sum(rb[:12]) - sum(ra)) / 12)
    assert p.ci[0] > 0 and p.p_value < 0.05 and "tested on the 12 paired" in p.note
    # strict is 0/1 (0 or 100): McNemar; lenient is not a per-sample mean here: no test, said so
    assert next(p for p in cmp.paired if p.metric == "grade_strict").test == "McNemar exact"
    len_test = next(p for p in cmp.paired if p.metric == "grade_lenient")
    assert len_test.test == "none" and "not a mean over samples" in len_test.note


def test_dod_counts_give_wilson_intervals_and_the_setting_picks_the_rows(tmp_path):
    counts = {"E": {"success": 7, "reviewed": 10, "pending": 0, "total": 10, "rate": 0.7},
              "D_strict": {"success": 1, "reviewed": 10, "pending": 0, "total": 10, "rate": 0.1},
              "refusal_mode": "rules"}
    write_run(tmp_path / "run", {"dod_decline_hint": {"E": 0.7, "D_strict": 0.1, "D_f": 0.0, "dod_counts": counts}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    e = next(b for b in cmp.blocks if b.metric == "E")
    assert e.entries[0].value == pytest.approx(70.0)
    lo, hi = C.wilson(7, 10)
    assert e.entries[0].ci == pytest.approx((100 * lo, 100 * hi)) and e.entries[0].ci_method == "Wilson (7/10)"
    d = next(b for b in cmp.blocks if b.metric == "D_strict")
    assert sorted(c.value for c in d.community) == [5.2, 93.4]  # decline_hint rows only
    assert "Refusal detection in these runs: mine: rules." in cmp.text and "Kimi-K3" in cmp.text
    fr = next(b for b in cmp.blocks if b.metric == "D_f")
    assert [c.setting for c in fr.community] == ["unstated"] and not fr.mm.higher_is_better
    assert fr.entries[0].rank == 1  # 0 % false refusal beats 0.8 %


def test_dod_breakdown_row_gives_wilson_intervals_sample_counts_and_pending(tmp_path):
    # the layout DoD writes now: one dod_breakdown row, metric -> [success, pending, total]
    write_run(tmp_path / "run", {"dod_no_hint": {
        "E": 1 / 14, "D_strict": 0.5,
        "dod_breakdown": {"E": [1, 11, 14], "D_strict": [7, 0, 14], "D_lenient": [8, 0, 14], "D_f": [0, 0, 14],
                          "pair_success": [1, 11, 14], "pair_behaviour": [3, 0, 14]},
        "dod_run": {"samples": 28, "refusal_mode": "rules"}}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    e = next(b for b in cmp.blocks if b.metric == "E").entries[0]
    lo, hi = C.wilson(1, 14)
    assert e.ci == pytest.approx((100 * lo, 100 * hi)) and e.ci_method == "Wilson (1/14)" and e.n == 14
    assert e.pending == (11, 14) and e.rank is None  # 11 of 14 pending: shown, not ranked
    d = next(b for b in cmp.blocks if b.metric == "D_strict").entries[0]
    lo, hi = C.wilson(7, 14)
    assert d.ci == pytest.approx((100 * lo, 100 * hi)) and d.pending == (0, 14) and d.rank is not None


def test_dod_per_metric_count_dicts_are_read_too(tmp_path):
    # the layout DoD wrote before dod_breakdown: E_counts / D_strict_counts dicts and a dod_run summary
    write_run(tmp_path / "run", {"dod_no_hint": {
        "E": 1 / 14, "E_counts": {"success": 1, "reviewed": 3, "pending": 11, "total": 14},
        "D_strict": 0.5, "D_strict_counts": {"success": 7, "reviewed": 14, "pending": 0, "total": 14},
        "dod_run": {"samples": 28, "refusal_mode": "judge"}}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    e = next(b for b in cmp.blocks if b.metric == "E").entries[0]
    lo, hi = C.wilson(1, 14)
    assert e.ci == pytest.approx((100 * lo, 100 * hi)) and e.n == 14
    assert "Refusal detection in these runs: mine: judge." in cmp.text


def test_no_hint_ceiling_is_reported(tmp_path):
    write_run(tmp_path / "run", {"dod_no_hint": {"D_strict": 0.05}})
    text = C.compare([tmp_path / "run"], labels=["mine"]).text
    assert "all evaluated UMMs (ceiling)" in text
    assert "mine: 5.0 is above the bound 1.7 stated for all evaluated UMMs" in text


def test_abacus_names_map_to_the_operation_tier_rows(tmp_path):
    lb = {"n": 4, "cf": 0.5, "sc": 0.8, "oc": 0.9, "score": 0.36, "ci95": {"score": [0.2, 0.5], "cf": [0.3, 0.7]}}
    write_run(tmp_path / "run", {"abacus_add_hard": {"abacus_count_fidelity": 0.5, "abacus_scene_consistency": 0.8,
                                                     "abacus_conservation": 0.9, "abacus_score": 0.36, "abacus_leaderboard": lb}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    score = next(b for b in cmp.blocks if b.mm.community_metric == "Score")
    assert score.settings == ("add/hard",) and len(score.community) == 7
    assert score.entries[0].rank == 1 and score.entries[0].ci == (0.2, 0.5)
    assert "ABACUS README: Score by operation and difficulty tier" in cmp.text and "DIS optical flow" in cmp.text


def test_abacus_group_score_comes_from_the_pooled_leaderboard(tmp_path):
    # lmms-eval groups average metrics; ABACUS keeps the pooled Score (product of means) in its summary dict
    pooled = {"n": 90, "cf": 0.5, "sc": 0.8, "oc": 0.7, "score": 0.28, "ci95": "per task"}
    write_run(tmp_path / "run", {"abacus": {"abacus_count_fidelity": 0.5, "abacus_scene_consistency": 0.8,
                                            "abacus_conservation": 0.7, "abacus_leaderboard": pooled}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    score = next(b for b in cmp.blocks if b.mm.community_metric == "Score")
    assert score.metric == "abacus_score" and score.settings == ("all",)
    assert score.entries[0].value == 0.28 and score.entries[0].rank == 3  # below 0.31 and 0.29
    assert score.entries[0].ci is None  # a string, not an interval
    assert "ABACUS README: Leaderboard" in cmp.text


def test_abacus_values_say_how_many_edits_came_back(tmp_path):
    # 9 of 18 generations failed: the Score stands on 9 edits, and the comparison says so
    pooled = {"n": 9, "cf": 1.0, "sc": 0.9975, "oc": 1.0, "score": 0.9975, "coverage": 0.5}
    write_run(tmp_path / "run", {"abacus_add_easy": {"abacus_score": 0.9975, "abacus_coverage": 0.5, "abacus_leaderboard": pooled}})
    cmp = C.compare([tmp_path / "run"], labels=["mine"])
    score = next(b for b in cmp.blocks if b.mm.community_metric == "Score")
    assert score.entries[0].n == 9
    assert "mine: stands on the 9 edits that came back (coverage 50.0 %)" in " ".join(score.notes)
    full = dict(pooled, n=18, coverage=1.0)
    write_run(tmp_path / "all", {"abacus_add_easy": {"abacus_score": 0.9975, "abacus_coverage": 1.0, "abacus_leaderboard": full}})
    block = next(b for b in C.compare([tmp_path / "all"], labels=["all"]).blocks if b.mm.community_metric == "Score")
    assert block.entries[0].n == 18 and not any("came back" in note for note in block.notes)


def test_cli_main_writes_files_and_fails_clearly(tmp_path, capsys):
    cwi_run(tmp_path / "a", [True, False, True, True])
    assert C.main([str(tmp_path / "a"), "--out", str(tmp_path / "o")]) == 0
    assert "cwi_alignment" in capsys.readouterr().out
    assert (tmp_path / "o" / "compare.md").exists() and (tmp_path / "o" / "compare.csv").exists()
    assert C.main([str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    bad = tmp_path / "bad" / "x_results.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"not": "results"}))
    assert C.main([str(bad), "--no-chart"]) == 2
    assert "no 'results' object" in capsys.readouterr().err


def test_folder_with_several_results_files_keeps_the_newest_per_task(tmp_path):
    cwi_run(tmp_path / "r", [False] * 4, timestamp="20260101_100000")
    import os
    import time

    newer = cwi_run(tmp_path / "r", [True] * 4, timestamp="20260101_110000")
    os.utime(newer, (time.time() + 5, time.time() + 5))
    run = C.load_run(tmp_path / "r")
    tr = run.tasks["cwi_alignment"]
    assert tr.values["accuracy"] == 1.0 and tr.samples_file.name.startswith("20260101_110000")


def test_mcnemar_exact_matches_the_binomial_test():
    from scipy.stats import binomtest

    for a, b in [(0, 0), (0, 5), (3, 9), (10, 10), (1, 20)]:
        expected = 1.0 if a + b == 0 else binomtest(min(a, b), a + b, 0.5).pvalue
        assert C.mcnemar_exact(a, b) == pytest.approx(expected)


def test_mcnemar_exact_is_exact_beyond_1023_discordant_pairs():
    # a float 2.0**n overflows past n = 1023: two DoD-sized runs can have that many discordant pairs
    from fractions import Fraction
    from math import comb

    for a, b in [(600, 500), (1500, 1400), (40, 1200)]:
        n, k = a + b, min(a, b)
        exact = min(Fraction(1), 2 * Fraction(sum(comb(n, i) for i in range(k + 1)), 2**n))
        assert C.mcnemar_exact(a, b) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


def test_wilson_interval_matches_the_textbook_formula():
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.975)
    for k, n in [(0, 1), (7, 10), (1, 14), (14, 14), (900, 1050), (3, 2100)]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
        assert C.wilson(k, n) == pytest.approx((max(0.0, centre - half), min(1.0, centre + half)), abs=1e-12)
    assert C.wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)  # the value printed in tables


# ------------------------------------------------------------------------------------ #16.7: same inputs only
def test_paired_tests_use_only_samples_with_the_same_inputs_and_say_how_many_were_dropped(tmp_path):
    a = [i % 2 == 0 for i in range(20)]
    cwi_run(tmp_path / "a", a, model="model_a")
    # run b: the same ids, but items 0-5 come from another dataset (another doc_hash and prompt)
    cwi_run(tmp_path / "b", [True] * 20, model="model_b", other_data=set(range(6)))
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=["A", "B"])
    p = next(p for p in cmp.paired if p.metric == "accuracy")
    assert p.n_shared == 14 and p.dropped == 6
    kept = range(6, 20)
    assert p.discordant == (0, sum(not a[i] for i in kept))
    assert "6 of 20 samples with the same id dropped: their inputs differ" in p.note and "prompt" in p.note
    assert "tested on the 14 paired" in p.note
    assert "6 of 20 samples with the same id dropped" in cmp.text


def test_runs_on_different_data_are_not_tested_at_all(tmp_path):
    cwi_run(tmp_path / "a", [True, False] * 5)
    cwi_run(tmp_path / "b", [False, True] * 5, other_data=set(range(10)))
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=["A", "B"])
    p = next(p for p in cmp.paired if p.metric == "accuracy")
    assert p.test == "none" and p.n_shared == 0 and p.dropped == 10
    assert p.note.startswith("the runs share no sample with the same inputs")


def test_samples_without_doc_hash_are_paired_by_id_and_said_so(tmp_path):
    cwi_run(tmp_path / "a", [True] * 6)
    path = cwi_run(tmp_path / "b", [True] * 5 + [False])
    samples = next(path.parent.glob("*_samples_cwi_alignment.jsonl"))
    lines = read_jsonl(samples)
    samples.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "doc_hash"}) + "\n" for line in lines))
    p = next(p for p in C.compare([tmp_path / "a", tmp_path / "b"]).paired if p.metric == "accuracy")
    assert p.n_shared == 6 and "6 samples paired by id only" in p.note
    # a doc_hash that names no content (plain lmms-eval: Instance.doc is None) is not used either
    assert C.sample_inputs({"doc_hash": C.NULL_DOC_HASH}).doc_hash is None


# ------------------------------------------------------------------------------------ #16.8: headers, chart, labels
def test_run_columns_have_unique_readable_headers(tmp_path):
    rs = [1.0, 0.5, 0.0, 1.0]
    labels = ["replay (grade_judge_a_2026-11-30)", "replay (grade_judge_b_2026-11-30)"]
    _grade_run(tmp_path / "a", rs)
    _grade_run(tmp_path / "b", rs[::-1])
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=labels)
    text = cmp.text
    assert f"#1 {labels[0]} = " in text and f"#2 {labels[1]} = " in text  # the legend of the #i tags
    header = next(line for line in text.splitlines() if line.strip().startswith("rank") and "Δ" in line)
    heads = [h.strip() for h in header.split("Δ ")[1:]]
    assert len(heads) == 2 and heads[0] != heads[1]
    assert heads[0].startswith("#1 replay (grade_") and heads[1].startswith("#2 replay (grade_")
    # labels that fit are used as they are
    short = C.compare([tmp_path / "a", tmp_path / "b"], labels=["judge A", "judge B"]).text
    assert "Δ judge A" in short and "Δ judge B" in short and "#1" not in short
    assert C.column_names(["x" * 40, "x" * 40 + "y"]) == {"x" * 40: "#1 " + "x" * 18 + "…", "x" * 40 + "y": "#2 " + "x" * 18 + "…"}


def test_chart_keeps_run_names_whole_and_the_title_clear_of_the_panels(tmp_path):
    labels = ["a model with a rather long name (run one)", "another long model name (run two)"]
    _grade_run(tmp_path / "a", [1.0, 0.5, 0.0, 1.0])
    _grade_run(tmp_path / "b", [0.5, 0.5, 1.0, 1.0])
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=labels)
    fig = C.chart_figure(cmp, "grade")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle.get_window_extent(renderer)
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    for ax in axes:
        box = ax.get_tightbbox(renderer)
        assert title.y0 >= box.y1 - 0.5, "the title overlaps a panel"
        names = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
        for label in labels:
            assert f"▶ {label}" in names  # whole, wrapped over lines, not cut
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_cwi_failure_rates_are_labelled_for_what_they_count():
    from lmms_plugins.baselines.mapping import map_metric

    extraction = map_metric("cwi_alignment", "extraction_failure_rate")
    assert "no span" in extraction.label and "wrong shape" in extraction.label and not extraction.higher_is_better
    generation = map_metric("cwi_alignment", "generation_failure_rate")
    assert generation is not None and "generation failed" in generation.label and not generation.higher_is_better


def test_the_standard_error_interval_of_a_rate_stays_inside_zero_and_one(tmp_path):
    from pathlib import Path

    from lmms_plugins.baselines.mapping import map_metric
    from lmms_plugins.compare.stats import interval_of
    from lmms_plugins.runs import TaskResult

    mm = map_metric("abacus_add_easy", "abacus_sc")  # a continuous 0-1 factor, no samples logged
    small = TaskResult("abacus_add_easy", {"abacus_sc": 0.25}, {"abacus_sc": 0.25}, 12, None, Path("r.json"))
    iv = interval_of(small, "abacus_sc", mm)  # 0.25 ± 0.49 would reach below 0
    assert (iv.lo, iv.hi) == (0.0, pytest.approx(0.25 + 1.96 * 0.25)) and "cut at [0, 1]" in iv.method
    assert interval_of(TaskResult("abacus_add_easy", {"abacus_sc": 0.25}, {"abacus_sc": 0.25}, 4, None, Path("r.json")),
                       "abacus_sc", mm) is None  # 4 samples: too few for a standard error worth printing
    inside = TaskResult("abacus_add_easy", {"abacus_sc": 0.5}, {"abacus_sc": 0.1}, 40, None, Path("r.json"))
    iv = interval_of(inside, "abacus_sc", mm)
    assert (iv.lo, iv.hi) == (pytest.approx(0.304), pytest.approx(0.696)) and iv.method == "±1.96 SE (lmms-eval)"
    # a 0/1 rate without samples: Wilson from its value and the task's n, never the standard error
    acc = TaskResult("cwi_alignment", {"accuracy": 0.25}, {"accuracy": 0.25}, 4, None, Path("r.json"))
    iv = interval_of(acc, "accuracy", map_metric("cwi_alignment", "accuracy"))
    assert (iv.lo, iv.hi) == pytest.approx(C.wilson(1, 4)) and iv.method == "Wilson (1/4, from the value and n)"
