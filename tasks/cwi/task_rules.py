"""The rule of a CwI task as its YAML declares it (``metadata.cwi_rule``).

For scripts and models that score outside lmms-eval (the data writer's gold check, the solver
benchmark); inside lmms-eval the hook reads the same key from the task config.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .rules import Rule, rule_from_config

HERE = Path(__file__).resolve().parent


class _IgnoreTags:
    pass


@functools.lru_cache(maxsize=None)
def rule_for_task(task: str, folder: str | None = None) -> Rule:
    """Rule of ``task`` (card name, e.g. ``alignment``) read from ``cwi_<task>.yaml``."""
    import yaml

    path = Path(folder or HERE) / f"cwi_{task}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no task YAML for CwI task {task!r} at {path}")

    class Loader(yaml.SafeLoader):
        pass

    # a leaf may hold !function references; they do not matter for the rule
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.load(fh, Loader=Loader)
    rule = ((cfg or {}).get("metadata") or {}).get("cwi_rule")
    if rule is None:
        raise KeyError(f"{path} has no metadata.cwi_rule")
    return rule_from_config(rule)
