"""The make-data writer: hub layout, balanced tiers, same seed same bytes, clear errors."""

from __future__ import annotations

import hashlib
import json

import pytest

from lmms_plugins.tasks.cwi import generate
from lmms_plugins.tasks.cwi.catalog import TIERS

TASKS = [t for t in ("circular_shift", "jigsaw") if generate.has_generator(t)]


def _digest(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_tier_counts_are_balanced():
    assert generate.tier_counts(100) == [25, 25, 25, 25]
    assert generate.tier_counts(50) == [13, 13, 12, 12]
    assert [generate.tier_of(i, 6) for i in range(6)] == ["easy", "easy", "medium", "medium", "hard", "expert"]


def test_writes_the_hub_layout_that_datasets_loads(tmp_path, capsys):
    from datasets import Image, load_dataset

    out = tmp_path / "cwi"
    assert generate.main(["--tasks", ",".join(TASKS), "--n", "8", "--seed", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "8/8 items" in printed and "LMMS_PLUGINS_CWI_ROOT" in printed
    readme = (out / "README.md").read_text()
    for task in TASKS:
        assert f"- config_name: {task}" in readme
        assert (out / task / "test-00000-of-00001.parquet").is_file()
        ds = load_dataset(str(out), task)["test"]
        assert ds.column_names == list(generate.COLUMNS)
        assert isinstance(ds.features["image"], Image) and isinstance(ds.features["image_2"], Image)
        assert [r for r in ds["difficulty"]] == [t for t in TIERS for _ in range(2)]
        row = ds[0]
        assert row["id"] == f"{task}_test_0000"
        assert row["image"].mode == "RGB"
        assert "<answer>" in row["prompt"]
        assert isinstance(json.loads(row["meta"]), dict)


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    args = ["--tasks", TASKS[0], "--n", "4", "--split", "validation"]
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert generate.main(args + ["--seed", seed, "--out", str(tmp_path / name)]) == 0
    a, b, c = (_digest(tmp_path / n) for n in "abc")
    assert a == b
    assert a != c


def test_adding_a_task_keeps_the_others(tmp_path):
    if len(TASKS) < 2:
        pytest.skip("needs two generators")
    generate.main(["--tasks", TASKS[0], "--n", "4", "--out", str(tmp_path / "one")])
    generate.main(["--tasks", ",".join(TASKS), "--n", "4", "--out", str(tmp_path / "two")])
    f = f"{TASKS[0]}/test-00000-of-00001.parquet"
    assert _digest(tmp_path / "one")[f] == _digest(tmp_path / "two")[f]


def test_missing_generator_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(generate, "has_generator", lambda t: t != "jigsaw")
    assert generate.main(["--tasks", "jigsaw", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "no generator for CwI task 'jigsaw'" in err and "generators.jigsaw" in err
    assert not (tmp_path / "x").exists()
    assert generate.main(["--tasks", "not_a_task", "--out", str(tmp_path / "x")]) == 2
    assert "not a CwI-Bench task" in capsys.readouterr().err


def test_existing_files_are_not_overwritten_silently(tmp_path, capsys):
    args = ["--tasks", TASKS[0], "--n", "2", "--out", str(tmp_path)]
    assert generate.main(args) == 0
    assert generate.main(args) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert generate.main(args + ["--overwrite"]) == 0
    assert "caches by folder name" in capsys.readouterr().err


def test_family_names_select_existing_generators():
    got = generate.resolve_tasks("transformation")
    assert got and all(generate.has_generator(t) for t in got)


def test_a_gold_its_rule_cannot_read_is_refused(monkeypatch):
    from lmms_plugins.tasks.cwi.generators.item import GeneratedItem
    from PIL import Image

    class Broken:
        @staticmethod
        def generate(rng, tier):
            return GeneratedItem(Image.new("RGB", (8, 8)), None, "Q <answer>", "seven", {})

    with pytest.raises(ValueError, match="cannot read"):
        generate.generate_item("peak_count", "test", 0, 4, 0, module=Broken)


def test_all_and_families_refuse_a_silent_subset(monkeypatch):
    monkeypatch.setattr(generate, "has_generator", lambda task: task != "jigsaw")
    with pytest.raises(generate.MissingGenerator, match="jigsaw"):
        generate.resolve_tasks("all")
    with pytest.raises(generate.MissingGenerator, match="jigsaw"):
        generate.resolve_tasks("transformation")
