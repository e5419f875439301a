import math

import numpy as np
import pytest

from lmms_plugins.utils import data_roots, stats, status


def test_never_raises_turns_an_exception_into_status_error():
    @status.never_raises(["acc", "fail_rate"])
    def process_results(doc, results):
        raise KeyError("answer")

    out = process_results({"id": "x7"}, ["r"])
    assert set(out) == {"acc", "fail_rate"}
    assert out["acc"]["status"] == status.ERROR and out["acc"]["id"] == "x7" and "KeyError" in out["acc"]["reason"]


def test_mean_keeps_pending_in_the_denominator_and_prints_counts(capsys):
    items = [status.sample(1.0), status.sample(0.0, status.UNPARSABLE, "no span"), status.sample(None, status.JUDGE_ERROR)]
    assert status.mean(items, "demo") == pytest.approx(1 / 3)
    err = capsys.readouterr().err
    assert "demo: 3 samples: ok 1, judge_error 1, unparsable 1" in err and "no span" in err


def test_mean_of_nothing_is_nan():
    assert math.isnan(status.mean([], "empty"))


def test_data_root_precedence_and_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_CWI_ROOT", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    assert data_roots.local_root("cwi") is None
    (tmp_path / "all" / "cwi").mkdir(parents=True)
    monkeypatch.setenv("LMMS_PLUGINS_DATA_ROOT", str(tmp_path / "all"))
    assert data_roots.local_root("cwi") == tmp_path / "all" / "cwi"
    own = tmp_path / "own"
    own.mkdir()
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(own))
    assert data_roots.local_root("cwi") == own
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(tmp_path / "absent"))
    with pytest.raises(data_roots.MissingDataError, match="LMMS_PLUGINS_CWI_ROOT.*not a folder"):
        data_roots.local_root("cwi")


def test_missing_file_message_names_the_variable_and_layout(tmp_path):
    with pytest.raises(data_roots.MissingDataError) as err:
        data_roots.require_file("dod", tmp_path / "instruction.jsonl", "instruction.jsonl")
    text = str(err.value)
    assert "LMMS_PLUGINS_DOD_ROOT" in text and "ground_truth_criteria.jsonl" in text


def test_bootstrap_interval_contains_the_mean_and_is_reproducible():
    values = np.random.default_rng(1).random(200)
    lo, hi = stats.bootstrap_ci(values)
    assert lo < values.mean() < hi and (lo, hi) == stats.bootstrap_ci(values)
    rows = np.column_stack([values, values])
    lo2, hi2 = stats.bootstrap_ci(rows, stat=lambda x: float(np.prod(x.mean(axis=0))))
    assert lo2 < values.mean() ** 2 < hi2
