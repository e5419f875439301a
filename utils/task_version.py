"""The version a results file records for one of this package's tasks is the version of the scorer that ran.

lmms-eval records a task's ``metadata.version`` as the task's version, and ``compare`` only compares runs at
equal versions. A YAML that ``include``s one of our tasks and sets ``metadata`` replaces the template's
metadata whole (``include`` merges top-level keys only), so the version it records is whatever that YAML
says: nothing when a hand-written override forgets it, and an old number when an override written by
``lmms-plugins settings`` is kept across an upgrade that changed the scorer. Both would label scores with a
version that did not produce them, so the task stops while it is built (before any request) instead.
A task under a name of its own (a user's new task) states its own version and is not checked.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from lmms_plugins.utils.settings import SettingError


@functools.lru_cache(maxsize=1)
def package_versions() -> Mapping[str, str]:
    """task name -> the version its YAML in this package states (tasks without one are left out)."""
    from lmms_plugins.task_index import index_tasks

    out = {}
    for entry in index_tasks():
        meta = entry.config.get("metadata")
        if entry.kind == "task" and isinstance(meta, Mapping) and meta.get("version") is not None:
            out[entry.name] = str(meta["version"])
    return out


def check_stated_version(task: str, metadata: Mapping | None) -> None:
    """SettingError when ``task`` is one of this package's tasks and ``metadata`` does not state its version."""
    expected = package_versions().get(task)
    if expected is None:
        return
    stated = metadata.get("version") if isinstance(metadata, Mapping) else None
    redo = (f"write the override again with `lmms-plugins settings {task} KEY=VALUE --out DIR` (it restates the "
            f"version), or set `version: {expected}` in its metadata")
    if stated is None:
        raise SettingError(f"{task}: metadata has no `version`: a YAML that includes this task and sets `metadata` "
                           f"replaces the template's metadata whole, so the results would record no scorer version; {redo}")
    if str(stated) != expected:
        raise SettingError(f"{task}: metadata.version is {stated} but this package scores {task} as version {expected} "
                           f"(an override YAML written by an older package?): the results would record a version that "
                           f"did not score them; {redo}")


__all__ = ["check_stated_version", "package_versions"]
