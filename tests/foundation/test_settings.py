"""Task settings: metadata first, then the endpoint's own variable (the judge's model), then the default;
a retired environment variable that is still set stops the run; the effective values are written into
the task's metadata and given to the scorer."""

from __future__ import annotations

import pytest

from lmms_plugins.utils import settings as S
from lmms_plugins.utils.preflight import PreflightError

DECLARED = (
    S.Setting("mode", "rules", S.choice("rules", "judge", aliases={"on": "judge"}), retired="LMMS_PLUGINS_TEST_MODE", help="how"),
    S.Setting("margin", 1.5, S.non_negative, endpoint_env="LMMS_PLUGINS_TEST_MARGIN"),
    S.Setting("extra", None, S.json_object),
)


def test_metadata_then_endpoint_variable_then_default(monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_TEST_MODE", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_TEST_MARGIN", raising=False)
    assert dict(S.resolve(DECLARED, None)) == {"mode": "rules", "margin": 1.5, "extra": {}}
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MARGIN", "0.25")
    got = S.resolve(DECLARED, {"mode": "ON", "extra": '{"a": 1}'}, task="t")
    assert dict(got) == {"mode": "judge", "margin": 0.25, "extra": {"a": 1}}
    assert dict(S.resolve(DECLARED, {"margin": 2})) == {"mode": "rules", "margin": 2.0, "extra": {}}  # metadata wins
    with pytest.raises(TypeError):
        got["mode"] = "x"  # read-only
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MODE", "  ")  # blank: not set
    assert S.resolve(DECLARED, None)["mode"] == "rules"


@pytest.mark.parametrize("meta", [None, {"mode": "judge"}, {"mode": "rules"}])
def test_a_set_retired_variable_stops_the_run_saying_what_to_do(monkeypatch, meta):
    """Never read, never silently ignored (the run would score with the default): even where the
    metadata sets the key, the variable must go, so that no one believes it did something."""
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MODE", "judge")
    with pytest.raises(PreflightError) as info:
        S.resolve(DECLARED, meta, task="t_x")
    assert isinstance(info.value, S.SettingError)
    assert str(info.value) == (
        "t_x: LMMS_PLUGINS_TEST_MODE is no longer read (it would be ignored and the run scored with the default): "
        "unset it and set metadata.mode instead: `lmms-plugins settings t_x mode=<value> --out DIR`, then "
        "`lmms-eval --include_path DIR --tasks t_x ...`")
    with pytest.raises(S.SettingError, match="`lmms-plugins settings <task> mode=<value> --out DIR`"):
        S.given_or_default(DECLARED, None)  # a hook called on its own
    assert S.given_or_default(DECLARED, {"mode": "judge"}) == {"mode": "judge"}  # the task class's values: as given


@pytest.mark.parametrize("meta, says", [({"mode": "judg"}, "metadata.mode must be one of rules, judge, got 'judg' (how)"),
                                        ({"margin": -1}, "metadata.margin must be a number >= 0"),
                                        ({"margin": "nan"}, "metadata.margin must be a number >= 0"),
                                        ({"extra": "[1]"}, "metadata.extra must be a mapping"),
                                        ({"extra": "{"}, "metadata.extra is not valid JSON")])
def test_a_bad_value_stops_the_run_naming_the_key(meta, says):
    with pytest.raises(PreflightError, match=None) as info:
        S.resolve(DECLARED, meta, task="t")
    assert str(info.value).startswith("t: ") and says in str(info.value)


def test_a_bad_endpoint_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MARGIN", "wide")
    with pytest.raises(S.SettingError, match="LMMS_PLUGINS_TEST_MARGIN must be a number >= 0"):
        S.resolve(DECLARED, {})


def test_bind_records_effective_values_and_hands_them_to_the_scorer(monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MARGIN", "3")
    seen = {}

    def scorer(doc, results, settings=None):
        seen.update(settings)
        return {}

    config = {"task": "t", "process_results": scorer, "metadata": {"version": 2, "mode": "judge"}}
    bound = S.bind(DECLARED, config)
    assert bound["metadata"] == {"version": 2, "mode": "judge", "margin": 3.0, "extra": {}}
    assert config["metadata"] == {"version": 2, "mode": "judge"}  # the caller's dict is not changed
    bound["process_results"]({}, [])
    assert seen == {"mode": "judge", "margin": 3.0, "extra": {}}
    # predict-only (no scorer) and a metadata-less YAML still get every value recorded
    assert S.bind(DECLARED, {"task": "t", "process_results": None})["metadata"]["mode"] == "rules"
