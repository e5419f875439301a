"""Standard errors of the aggregations (lmms_plugins.utils.stderr): the estimates, and how
lmms-eval's and lm-eval's stderr_for_metric are made (lmms_plugins/harness/stderr.py) to answer for decorated aggregations only."""

from __future__ import annotations

import math
import random
import statistics
import sys
import types

import pytest

from lmms_plugins.utils.stderr import ATTR, mean_se, rate_se, values_of, with_stderr


def test_estimates_match_the_textbook_formulas():
    xs = [0.0, 1.0, 1.0, 0.5, 0.25]
    assert mean_se(xs) == pytest.approx(statistics.stdev(xs) / math.sqrt(len(xs)))
    assert mean_se([1.0]) is None and mean_se([]) is None
    assert rate_se(3, 10) == pytest.approx(mean_se([1.0] * 3 + [0.0] * 7))
    assert rate_se(0, 1) is None
    # pending (None) counts as 0, as status.mean does
    assert values_of([{"value": 1.0}, {"value": None}, 0.5], scale=100) == [100.0, 0.0, 50.0]


def test_stderr_for_metric_answers_for_decorated_aggregations_only():
    from lmms_plugins.harness import stderr as contact

    fake = types.ModuleType("lmms_eval.evaluator_utils")

    def original(metric, bootstrap_iters):
        return "lmms-eval's own"

    fake.stderr_for_metric = original

    @with_stderr(lambda items: mean_se(values_of(items)))
    def ours(items):
        return sum(values_of(items)) / len(items)

    def theirs(items):
        return 0.0

    items = [{"value": 1.0}, {"value": 0.0}, {"value": None}, {"value": 1.0}]
    assert ours(items) == 0.5  # the decorated aggregation itself is unchanged
    contact.patch(fake)  # what the harness does when evaluator_utils is imported
    patched = fake.stderr_for_metric
    assert patched is not original
    assert patched(metric=ours, bootstrap_iters=100000)(items) == pytest.approx(mean_se([1, 0, 0, 1]))
    assert patched(metric=theirs, bootstrap_iters=100000) == "lmms-eval's own"
    assert patched(metric=ours, bootstrap_iters=0) is None  # --bootstrap_iters 0: no standard errors
    undefined = with_stderr(lambda items: None)(theirs)
    assert patched(metric=undefined, bootstrap_iters=10)(items) == "N/A"
    contact.patch(fake)
    assert fake.stderr_for_metric is patched  # installed once


def test_both_harnesses_answer_with_the_declared_standard_error():
    """The real modules, as the .pth hook leaves them once imported (lmms-eval's and lm-eval's)."""
    import subprocess

    code = ("import lmms_eval.evaluator_utils as a, lm_eval.evaluator_utils as b;"
            "from lmms_plugins.tasks.cwi import hooks;"
            "items = [{'value': 1.0}, {'value': 0.0}, {'value': 1.0}];"
            "print('SE', [m.stderr_for_metric(metric=hooks.aggregate_accuracy, bootstrap_iters=10)(items) for m in (a, b)])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert f"SE {[mean_se([1.0, 0.0, 1.0])] * 2}" in proc.stdout, proc.stdout + proc.stderr[-3000:]


def test_grade_lenient_standard_error_is_that_of_a_mean_equal_to_lenient():
    from lmms_plugins.tasks.grade.scoring import SampleScore, score_group, standard_error

    rng = random.Random(3)
    samples = [SampleScore(f"physics_{i}", "physics", "", "none" if i % 4 == 0 else "overall",
                           rng.choice([0.0, 0.5, 1.0]), None if i % 4 == 0 else rng.choice([0, 1, 2]),
                           rng.choice([0, 1, 2])) for i in range(40)]
    g = score_group(samples, n_resamples=0)
    n, n_c = len(samples), sum(s.c_applicable for s in samples)
    z = [60 * s.R + 5 * s.L + (15 * s.C * n / n_c if s.c_applicable else 0.0) for s in samples]
    assert sum(z) / n == pytest.approx(g.lenient)  # the linear form is exact
    assert standard_error(samples, "lenient") == pytest.approx(statistics.stdev(z) / math.sqrt(n))
    assert standard_error(samples, "strict") == pytest.approx(mean_se([100.0 * s.strict for s in samples]))
    assert standard_error(samples, "consistency") == pytest.approx(mean_se([50.0 * s.C for s in samples if s.c_applicable]))


def test_abacus_score_standard_error_agrees_with_the_bootstrap():
    """Score = product of three means: the delta-method standard error is close to the bootstrap's."""
    from lmms_plugins.tasks.abacus.aggregate import leaderboard
    from lmms_plugins.tasks.abacus.hooks import _score_se

    rng = random.Random(5)
    items = [{"cf": rng.random(), "sc": 0.5 + 0.5 * rng.random(), "oc": rng.choice([0.0, 1.0, 1.0]), "status": "ok"}
             for _ in range(300)]
    lo, hi = leaderboard([dict(i, edit_score=0.0, exact=0.0) for i in items], n_resamples=1000).ci95["score"]
    assert _score_se(items) == pytest.approx((hi - lo) / (2 * 1.96), rel=0.2)


def test_dod_rate_standard_error_uses_the_rate_denominator():
    from lmms_plugins.tasks.dod import hooks

    # four feasible requests (E applies) and four infeasible ones (E does not)
    recs = []
    for i in range(4):
        base = {"pair_id": f"p{i}", "category": "maze", "status": "ok", "refused": False}
        recs.append({"value": None, "record": {**base, "case_id": f"p{i}-feasible", "feasible": True,
                                                 "has_image": True, "edit_ok": i < 1}})
        recs.append({"value": None, "record": {**base, "case_id": f"p{i}-infeasible", "feasible": False,
                                                 "has_image": False, "edit_ok": None}})
    se = getattr(hooks.aggregate_E, ATTR)
    assert hooks.aggregate_E(recs) == pytest.approx(0.25)
    assert se(recs) == pytest.approx(rate_se(1, 4))
