"""This package's tasks and groups, read from the YAML files without importing lmms-eval."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TaskEntry:
    name: str
    kind: str  # "task" or "group"
    path: Path
    config: dict

    @property
    def benchmark(self) -> str | None:
        """The YAML's ``lmms_plugins_benchmark``, else the benchmark folder it lives in (groups,
        and GRADE, whose data is not a hub table, do not name it)."""
        meta = self.config.get("metadata")
        named = meta.get("lmms_plugins_benchmark") if isinstance(meta, dict) else None
        if named:
            return named
        from lmms_plugins import tasks_dir

        try:
            return self.path.resolve().relative_to(Path(tasks_dir()).resolve()).parts[0]
        except (ValueError, IndexError):
            return None


def _load(path: Path) -> dict:
    from lmms_plugins.utils import task_yaml

    config = task_yaml.load(path) or {}  # `!function module.name` stays a dotted name, not imported
    include = config.pop("include", None)
    if include:
        base = _load(path.parent / include)
        config = {**base, **config}
    return config


def index_tasks(root: str | Path | None = None) -> list[TaskEntry]:
    from lmms_plugins import tasks_dir

    rows = []
    for path in sorted(Path(root or tasks_dir()).rglob("*.yaml")):
        config = _load(path)
        if "group" in config and isinstance(config.get("task"), list):
            rows.append(TaskEntry(config["group"], "group", path, config))
        elif isinstance(config.get("task"), str):
            rows.append(TaskEntry(config["task"], "task", path, config))
    return sorted(rows, key=lambda r: (r.kind != "group", r.name))


def local_sample_count(entry: TaskEntry) -> int | None:
    """Rows of the task's evaluation split in its local data root, or None if the data is not local."""
    from lmms_plugins.utils.data_roots import local_root

    bench = entry.benchmark
    try:
        root = local_root(bench) if bench else None
    except FileNotFoundError:
        return None
    if root is None:
        return None
    if (root / "data.json").is_file() and not entry.config.get("dataset_name"):  # GRADE: one record per sample
        import json

        try:
            records = json.loads((root / "data.json").read_text(encoding="utf-8"))
        except ValueError:
            return None
        return len(records) if isinstance(records, list) else None
    split = entry.config.get("test_split") or entry.config.get("validation_split")
    folder = root / entry.config["dataset_name"] if entry.config.get("dataset_name") else root
    parquet = sorted(folder.glob(f"{split}-*.parquet")) + sorted(folder.glob(f"{split}/*.parquet"))
    if parquet:
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(p).metadata.num_rows for p in parquet)
    jsonl = sorted(root.glob("instruction.jsonl")) or sorted(folder.glob(f"{split}*.jsonl"))
    if jsonl:
        return sum(1 for p in jsonl for line in p.open(encoding="utf-8") if line.strip())
    return None
