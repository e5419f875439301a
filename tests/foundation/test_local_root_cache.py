"""A local copy regenerated in place is read afresh, not served from a stale `datasets` cache
(the task classes' download, utils/task_class.py, on a stand-in for lmms-eval's task class)."""

import types

from lmms_plugins.utils.task_class import PluginTask


def task_class(seen):
    class ConfigurableTask:  # what PluginTask needs of lmms-eval's: config, DATASET_*, download
        def __init__(self, config=None):
            self.config = types.SimpleNamespace(metadata=config["metadata"])
            self.DATASET_PATH, self.DATASET_NAME = "ytz009/image_pot_bench", "alignment"

        def download(self, dataset_kwargs=None):
            seen.append((self.DATASET_PATH, dataset_kwargs))

    class Task(PluginTask, ConfigurableTask):
        pass

    return lambda: Task(config={"class": Task, "metadata": {"lmms_plugins_benchmark": "cwi"}})


def test_cache_dir_follows_the_content_of_the_local_copy(tmp_path, monkeypatch):
    root = tmp_path / "cwi"
    (root / "alignment").mkdir(parents=True)
    data = root / "alignment" / "test-00000-of-00001.parquet"
    data.write_bytes(b"first")
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(root))
    seen = []
    make = task_class(seen)
    yaml_kwargs = {"token": True}
    make().download(yaml_kwargs)
    make().download(yaml_kwargs)
    data.write_bytes(b"second, regenerated")
    make().download(yaml_kwargs)
    (path1, kw1), (_, kw2), (_, kw3) = seen
    assert path1 == str(root) and kw1["token"] is True
    assert kw1["cache_dir"] == kw2["cache_dir"] != kw3["cache_dir"]
    assert yaml_kwargs == {"token": True}  # the task's own config is not modified


def test_hub_loading_is_untouched(monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_CWI_ROOT", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    seen = []
    task_class(seen)().download(None)
    assert seen == [("ytz009/image_pot_bench", None)]
