"""ABACUS's part of ``lmms-plugins report``: the source image of an edit, read from the local data,
and what kept a partly right edit from being right."""

from __future__ import annotations

from pathlib import Path

from lmms_plugins.tasks.abacus.benchmark import TASK

from lmms_plugins.report import ReportBlocks, outside_reason, parquet_images, real_paths
from lmms_plugins.runs import TaskResult, is_regular


class AbacusReport(ReportBlocks):
    verdict_metrics = ("abacus_score",)

    def graded_outcome(self, value: float, item: dict) -> str | None:
        """An edit passes only when the official definition calls it right, the requested count
        delivered exactly (CF = 1) and no pre-existing instance destroyed (OC = 1); a Score above 0
        otherwise is ``partial`` (:meth:`shortfall` names the factor that fell)."""
        if not (isinstance(item.get("cf"), (int, float)) and isinstance(item.get("oc"), (int, float))):
            return None
        if value <= 0:
            return "fail"
        return "pass" if item["cf"] >= 1 - 1e-9 and item["oc"] >= 1 - 1e-9 else "partial"

    def input_images(self, task: str, key: str, tr: TaskResult | None, roots: list[Path]) -> tuple[list[str], str]:
        """(the source image, note) of an edit, read by image id from the local data
        (``<root>/<operation>/<tier>-*.parquet``): the samples file logs no input image."""
        m = TASK.match(task)
        if not m or not m.group(1) or not m.group(2):
            return [], ""
        op, tier = m.group(1), m.group(2)
        looked = []
        for root in roots:
            inside = real_paths([Path(root)])
            for folder in (Path(root) / op, Path(root) / "abacus" / op):
                for f in sorted(folder.glob(f"{tier}-*.parquet")) if folder.is_dir() else []:
                    if outside_reason(str(f), inside) or not is_regular(f):
                        continue
                    looked.append(f)
                    found = parquet_images(str(f), f.stat().st_mtime_ns, "image_id", ("image",)).get(key)
                    if found:
                        return found[:1], ""
        if looked:
            return [], f"source image: image {key} is not in {', '.join(str(f) for f in looked[:2])}"
        return [], ("source image: not in lmms-eval's samples file (ABACUS keeps it in its parquet data); "
                    "set LMMS_PLUGINS_ABACUS_ROOT or pass --media-root <local ABACUS folder> to show it")

    def shortfall(self, line: dict) -> str:
        """What kept an edit from being right, in words ('' when nothing did)."""
        rec = line.get("abacus_leaderboard") if isinstance(line.get("abacus_leaderboard"), dict) else {}
        item = line.get("abacus_score") if isinstance(line.get("abacus_score"), dict) else {}
        cf, oc, sc = (rec.get(k, item.get(k)) for k in ("cf", "oc", "sc"))
        parts = []
        if isinstance(cf, (int, float)) and cf < 1 - 1e-9:
            d, k = rec.get("delivered"), rec.get("requested")
            parts.append(f"count: {d} delivered for {k} requested (CF {cf:.2f})" if d is not None and k is not None else f"CF {cf:.2f}")
        if isinstance(oc, (int, float)) and oc < 1 - 1e-9:
            n, of = rec.get("n_destroyed"), rec.get("n_pre_existing")
            parts.append(f"{n} of {of} pre-existing instances destroyed (OC {oc:.2f})" if n is not None and of else f"OC {oc:.2f}")
        if parts and isinstance(sc, (int, float)):
            parts.append(f"SC {sc:.2f}")
        return "; ".join(parts)
