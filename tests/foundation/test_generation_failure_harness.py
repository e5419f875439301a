"""lmms_plugins/harness/end_of_run.py on stand-ins of lmms-eval 0.7.3's two names (the real CLI runs are in
test_generation_failure_e2e.py and test_results_table_e2e.py): the aggregated task is named while
its aggregations run, failed / pending samples are counted from the same values, this package's
dict rows leave the printed table only, and the end-of-run lines follow the last table once."""

from __future__ import annotations

import types
import warnings

import pytest

from lmms_plugins.harness import end_of_run as harness
from lmms_plugins.utils import aggregation, run_summary
from lmms_plugins.utils import status as st


@pytest.fixture(autouse=True)
def _clean():
    run_summary.clear()
    harness._NON_NUMBER_METRICS.clear()
    yield
    run_summary.clear()
    harness._NON_NUMBER_METRICS.clear()


def _breakdown(items):
    return {"counts": len(items)}


_breakdown.__module__ = "lmms_plugins.tasks.fake.hooks"
_mean = aggregation.mean("aggregate_accuracy", "fake accuracy")


class TaskOutput:  # the shape of lmms_eval.evaluator_utils.TaskOutput that the harness reads
    def __init__(self, name, items):
        self.task_name = name
        self.task = types.SimpleNamespace(aggregation=lambda: {"accuracy": _mean, "fake_breakdown": _breakdown})
        self.sample_metrics = {("accuracy", "none"): items, ("fake_breakdown", "none"): items}
        self.agg_metrics = {}
        self.seen_task = None

    def calculate_aggregate_metric(self, bootstrap_iters=100000):
        self.seen_task = run_summary.current_task()
        for (metric, f), items in self.sample_metrics.items():
            self.agg_metrics[f"{metric},{f}"] = self.task.aggregation()[metric](items)


def _module():
    module = types.SimpleNamespace(TaskOutput=TaskOutput)

    def make_table(result_dict, column="results", sort_results=False):
        if not isinstance(result_dict, dict):  # e.g. a logger's own call with a column list
            return "logger table"
        rows = [f"|{task}|{m}|{v}|" for task, d in result_dict[column].items() for m, v in d.items()]
        return "\n".join(rows)

    module.make_table = make_table
    return module


def test_task_named_counted_and_table_cut_to_numbers(capsys):
    module = _module()
    harness.patch_evaluator_utils(module)
    harness.patch_utils(module)
    harness.patch_utils(module)  # idempotent
    failed = st.sample(0.0, st.GENERATION_FAILED, "[LMMS_EVAL_BUDGET_EXCEEDED]", "a")
    out = module.TaskOutput("fake_task", [failed, st.sample(1.0, st.OK, "", "b")])
    out.calculate_aggregate_metric()
    assert out.seen_task == "fake_task" and run_summary.current_task() is None
    assert "[lmms_plugins] fake_task accuracy: 2 samples" in capsys.readouterr().err  # the summary line names it
    assert [c.line() for c in run_summary.recorded()] == [
        "fake_task: 1 generation failed of 2 samples (statuses: generation_failed 1); e.g. [LMMS_EVAL_BUDGET_EXCEEDED]"]
    results = {"results": {"fake_task": {"accuracy,none": 0.5, "fake_breakdown,none": {"counts": 2}}}, "groups": {}}
    first = module.make_table(results)  # the groups table follows: no lines yet
    assert "fake_breakdown" not in first and "accuracy" in first and "WARNING" not in first
    assert results["results"]["fake_task"]["fake_breakdown,none"] == {"counts": 2}  # the JSON's value is untouched
    last = module.make_table(results, "groups")
    assert last.rstrip().splitlines()[-1].startswith("[lmms_plugins]   fake_task: 1 generation failed")
    assert "WARNING" not in module.make_table(results, "groups")  # printed once


def test_a_breakdown_row_with_a_score_prints_that_score():
    """ABACUS's group Score exists only in its leaderboard row (a product of pooled means, which
    lmms-eval's group averaging cannot make): the printed table keeps that number."""
    harness._NON_NUMBER_METRICS.update({"abacus_leaderboard", "fake_breakdown"})
    results = {"groups": {"abacus": {"abacus_leaderboard,none": {"score": 0.9975, "n": 9, "coverage": 0.5},
                                     "fake_breakdown,none": {"counts": 2}, "abacus_coverage,none": 0.5}}}
    view = harness.table_view(results, "groups")["groups"]["abacus"]
    assert view == {"abacus_leaderboard.score,none": 0.9975, "abacus_coverage,none": 0.5}
    nan = {"groups": {"abacus": {"abacus_leaderboard,none": {"score": float("nan"), "n": 0}}}}
    assert harness.table_view(nan, "groups")["groups"]["abacus"] == {"abacus_leaderboard.score,none": nan["groups"]["abacus"]["abacus_leaderboard,none"]["score"]}
    assert results["groups"]["abacus"]["abacus_leaderboard,none"]["n"] == 9  # the JSON's value is untouched
    tasks = {"results": {"abacus_add_easy": {"abacus_leaderboard,none": {"score": 0.5}, "abacus_score,none": 0.5}}}
    assert harness.table_view(tasks, "results")["results"]["abacus_add_easy"] == {"abacus_score,none": 0.5}


def test_other_callers_and_clean_runs_get_no_lines():
    module = _module()
    harness.patch_utils(module)
    run_summary.record(run_summary.count("t", [{"accuracy": st.sample(0.0, st.GENERATION_FAILED)}]))
    # a logger's own table (not lmms-eval's results dict) never takes the lines
    assert module.make_table(["Tasks", "x"], "results") == "logger table"
    assert run_summary.recorded()
    clean = {"results": {"t": {"accuracy,none": 1.0}}}
    run_summary.clear()
    run_summary.record(run_summary.count("t", [{"accuracy": st.sample(1.0, st.OK)}]))
    assert module.make_table(clean) == "|t|accuracy,none|1.0|"


def test_missing_names_warn_and_leave_lmms_eval_alone():
    from lmms_plugins.registration import RegistrationWarning

    bare = types.SimpleNamespace()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        harness.patch_evaluator_utils(bare)
        harness.patch_utils(bare)
    assert [w.category for w in caught] == [RegistrationWarning, RegistrationWarning]
    assert vars(bare) == {}


def test_a_late_patch_reaches_the_modules_that_bound_the_original(monkeypatch):
    module = _module()
    original = module.make_table
    main = types.SimpleNamespace(make_table=original)
    monkeypatch.setitem(__import__("sys").modules, "lmms_eval.__main__", main)
    harness.patch_utils(module)
    assert main.make_table is module.make_table is not original
