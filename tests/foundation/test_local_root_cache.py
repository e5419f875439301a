"""A local copy regenerated in place is read afresh, not served from a stale `datasets` cache."""

import types

from lmms_plugins import registration


def fake_task_module(seen):
    class ConfigurableTask:
        def __init__(self):
            self.config = types.SimpleNamespace(metadata={"lmms_plugins_benchmark": "cwi"})
            self.DATASET_PATH, self.DATASET_NAME = "ytz009/image_pot_bench", "alignment"

        def download(self, dataset_kwargs=None):
            seen.append((self.DATASET_PATH, dataset_kwargs))

    return types.SimpleNamespace(ConfigurableTask=ConfigurableTask)


def test_cache_dir_follows_the_content_of_the_local_copy(tmp_path, monkeypatch):
    root = tmp_path / "cwi"
    (root / "alignment").mkdir(parents=True)
    data = root / "alignment" / "test-00000-of-00001.parquet"
    data.write_bytes(b"first")
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(root))
    seen = []
    module = fake_task_module(seen)
    registration._patch_dataset_download(module)
    yaml_kwargs = {"token": True}
    module.ConfigurableTask().download(yaml_kwargs)
    module.ConfigurableTask().download(yaml_kwargs)
    data.write_bytes(b"second, regenerated")
    module.ConfigurableTask().download(yaml_kwargs)
    (path1, kw1), (_, kw2), (_, kw3) = seen
    assert path1 == str(root) and kw1["token"] is True
    assert kw1["cache_dir"] == kw2["cache_dir"] != kw3["cache_dir"]
    assert yaml_kwargs == {"token": True}  # the task's own config is not modified


def test_hub_loading_is_untouched(monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_CWI_ROOT", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    seen = []
    module = fake_task_module(seen)
    registration._patch_dataset_download(module)
    module.ConfigurableTask().download(None)
    assert seen == [("ytz009/image_pot_bench", None)]
