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


def write_generated(folder: str | os.PathLike, files: dict[str, str], *, check: bool,
                    stale: tuple[str, ...] = ()) -> int:
    """A YAML generator's ``main``: write ``files`` (name -> text) into ``folder`` where they differ and
    delete the ``stale`` names, or with ``check`` only say what would change. Prints one line;
    returns the exit status (1: ``check`` found a difference)."""
    changed = []
    for name, text in files.items():
        path = os.path.join(folder, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            changed.append(name)
            if not check:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
    for name in stale:
        changed.append(f"{name} (stale)")
        if not check:
            os.remove(os.path.join(folder, name))
    verb = "would change" if check else "wrote"
    print(f"{verb} {len(changed)} file(s)" + (": " + ", ".join(changed) if changed else ""))
    return 1 if (check and changed) else 0
