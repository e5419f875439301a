"""Strings that always encode as UTF-8.

A model's text can carry lone UTF-16 surrogates: ``json.loads('"\\ud800"')`` is a valid Python
string that ``.encode("utf-8")`` refuses. lmms-eval's ``--log_samples`` writes records as UTF-8
and drops a line that fails, and a hash of such text fails too. :func:`valid_text` replaces each
lone surrogate by U+FFFD (a split but complete pair becomes its character); :func:`valid_utf8`
does it through nested records.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def valid_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD; the same object when there are none."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def valid_utf8(value: Any) -> Any:
    """``value`` with every string in it (dict keys too, lists, tuples) made UTF-8-encodable.

    Containers are rebuilt only when something in them changed.
    """
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        items = [(valid_utf8(k), valid_utf8(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items())):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        items = [valid_utf8(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value
