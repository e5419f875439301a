"""The package's one loader of task YAML files (lmms-eval's and lm-eval's) outside the harnesses.

PyYAML's safe loader (the C one where PyYAML was built with it: ~10x faster, same results) plus
the harnesses' ``!function module.name`` tag, which is kept as its dotted name, a
:class:`FunctionRef` (a ``str`` that remembers its tag), and never imported: reading a task's
settings must not import its hooks. Any other tag is an error, as in the harnesses. ``include`` is
not resolved here (``lmms_plugins.task_index`` does that).

    from lmms_plugins.utils import task_yaml
    config = task_yaml.load(path)            # a file
    config = task_yaml.loads(text)           # a string
    yaml.dump(config, Dumper=task_yaml.dumper())   # FunctionRef written back as !function
"""

from __future__ import annotations

import functools
import os
from typing import Any


class FunctionRef(str):
    """A ``!function module.name`` reference: its dotted name (compares equal to that ``str``)."""

    __slots__ = ()


@functools.lru_cache(maxsize=1)
def loader() -> type:
    """The loader class (for ``yaml.load(stream, Loader=task_yaml.loader())``)."""
    import yaml

    class TaskYamlLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        pass

    TaskYamlLoader.add_constructor("!function", lambda _loader, node: FunctionRef(_loader.construct_scalar(node)))
    return TaskYamlLoader


@functools.lru_cache(maxsize=1)
def dumper() -> type:
    """A safe dumper that writes a :class:`FunctionRef` as ``!function module.name``."""
    import yaml

    class TaskYamlDumper(yaml.SafeDumper):
        pass

    TaskYamlDumper.add_representer(FunctionRef, lambda _dumper, ref: _dumper.represent_scalar("!function", str(ref)))
    return TaskYamlDumper


def loads(text: str | bytes) -> Any:
    """The YAML document in ``text`` (None for an empty one)."""
    import yaml

    return yaml.load(text, Loader=loader())


def load(path: str | os.PathLike) -> Any:
    """The YAML document in the file ``path`` (UTF-8; None for an empty file)."""
    with open(path, "rb") as handle:
        return loads(handle.read())
