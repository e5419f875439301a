"""One cache folder: the judge's replies and the local datasets' cache both live under it."""

from pathlib import Path

from lmms_plugins.utils.cache_root import CACHE_DIR_ENV, cache_root


def test_cache_root_order(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache_root() == tmp_path / "home" / ".cache" / "lmms_plugins"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "lmms_plugins"
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "own"))
    assert cache_root() == tmp_path / "own"


def test_judge_and_datasets_caches_follow_the_root(monkeypatch, tmp_path):
    from lmms_plugins.utils.local_data import content_cache_kwargs
    from lmms_plugins.utils.judge_client import ENV_BASE_URL, ENV_CACHE, ENV_MODEL, JudgeConfig

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "root"))
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:9/v1")
    monkeypatch.setenv(ENV_MODEL, "judge-m")
    monkeypatch.delenv(ENV_CACHE, raising=False)
    assert JudgeConfig.from_env().cache_dir == tmp_path / "root" / "judge"
    data = tmp_path / "data"
    data.mkdir()
    (data / "README.md").write_text("x")
    kwargs = content_cache_kwargs({}, str(data), "cwi")
    assert Path(kwargs["cache_dir"]).parent == tmp_path / "root" / "datasets" / "cwi"
    # a judge cache named on its own still wins
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "mine"))
    assert JudgeConfig.from_env().cache_dir == tmp_path / "mine"
