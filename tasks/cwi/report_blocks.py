"""CwI's part of ``lmms-plugins report``: the input images of an item, read from the local data
(lmms-eval's samples file holds none)."""

from __future__ import annotations

import re
from pathlib import Path

from lmms_plugins.report import ReportBlocks, outside_reason, parquet_images, real_paths
from lmms_plugins.runs import TaskResult

NO_IMAGES = ("input images: not in lmms-eval's samples file (CwI keeps them in its parquet data); "
             "set LMMS_PLUGINS_CWI_ROOT or pass --media-root <local CwI folder> to show them")
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def data_names(task: str, tr: TaskResult | None) -> tuple[str, list[str]]:
    """(the data folder's config name, the splits to look in) of a CwI task."""
    cfg = tr.config if tr is not None else {}
    name = cfg.get("dataset_name")
    if not (isinstance(name, str) and _PLAIN.fullmatch(name)):  # a config name is a folder name, nothing more
        name = task.removeprefix("cwi_code_").removeprefix("cwi_")
    splits = [s for s in (cfg.get("test_split"), cfg.get("validation_split"), "test", "validation", "train")
              if isinstance(s, str) and _PLAIN.fullmatch(s)]
    return name, list(dict.fromkeys(splits))


class CwiReport(ReportBlocks):
    verdict_metrics = ("accuracy",)
    lower_is_better = frozenset({"extraction_failure_rate"})

    def input_images(self, task: str, key: str, tr: TaskResult | None, roots: list[Path]) -> tuple[list[str], str]:
        """(images, note) of a CwI item, read from the local data folder (the samples file has none)."""
        name, splits = data_names(task, tr)
        looked = []
        for root in roots:
            inside = real_paths([Path(root)])
            for folder in (Path(root) / name, Path(root)):
                files = [f for s in splits for f in sorted(folder.glob(f"{s}-*.parquet"))] if folder.is_dir() else []
                for f in files:
                    if outside_reason(str(f), inside):  # a config name such as '../..' from a hand-edited file
                        continue
                    looked.append(f)
                    found = parquet_images(str(f), f.stat().st_mtime_ns).get(key)
                    if found is not None:
                        return found, ""
        if looked:
            return [], f"input images: item {key} is not in {', '.join(str(f) for f in looked[:3])}"
        return [], NO_IMAGES
