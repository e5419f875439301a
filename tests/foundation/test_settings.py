"""Task settings: metadata first, then the deprecated environment alias (warned), then the default;
the effective values are written into the task's metadata and given to the scorer."""

from __future__ import annotations

import pytest

from lmms_plugins.utils import settings as S
from lmms_plugins.utils.preflight import PreflightError

DECLARED = (
    S.Setting("mode", "rules", S.choice("rules", "judge", aliases={"on": "judge"}), env="LMMS_PLUGINS_TEST_MODE", help="how"),
    S.Setting("margin", 1.5, S.non_negative, env="LMMS_PLUGINS_TEST_MARGIN"),
    S.Setting("extra", None, S.json_object),
)


def test_metadata_then_alias_then_default(monkeypatch, capsys):
    monkeypatch.delenv("LMMS_PLUGINS_TEST_MODE", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_TEST_MARGIN", raising=False)
    assert dict(S.resolve(DECLARED, None)) == {"mode": "rules", "margin": 1.5, "extra": {}}
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MARGIN", "0.25")
    S._warn_alias.cache_clear()  # the warning is printed once per process: another test may have had it
    got = S.resolve(DECLARED, {"mode": "ON", "extra": '{"a": 1}'}, task="t_alias")
    assert dict(got) == {"mode": "judge", "margin": 0.25, "extra": {"a": 1}}
    err = capsys.readouterr().err
    assert "LMMS_PLUGINS_TEST_MARGIN is deprecated: set metadata.margin" in err
    S.resolve(DECLARED, {}, task="another")
    assert "deprecated" not in capsys.readouterr().err  # once per process
    assert dict(S.resolve(DECLARED, {"margin": 2})) == {"mode": "rules", "margin": 2.0, "extra": {}}  # metadata wins
    with pytest.raises(TypeError):
        got["mode"] = "x"  # read-only


@pytest.mark.parametrize("meta, says", [({"mode": "judg"}, "metadata.mode must be one of rules, judge, got 'judg' (how)"),
                                        ({"margin": -1}, "metadata.margin must be a number >= 0"),
                                        ({"margin": "nan"}, "metadata.margin must be a number >= 0"),
                                        ({"extra": "[1]"}, "metadata.extra must be a mapping"),
                                        ({"extra": "{"}, "metadata.extra is not valid JSON")])
def test_a_bad_value_stops_the_run_naming_the_key(meta, says):
    with pytest.raises(PreflightError, match=None) as info:
        S.resolve(DECLARED, meta, task="t")
    assert str(info.value).startswith("t: ") and says in str(info.value)


def test_a_bad_alias_names_the_variable(monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_TEST_MODE", "sometimes")
    with pytest.raises(S.SettingError, match="LMMS_PLUGINS_TEST_MODE must be one of"):
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
