"""The package's one JSONL reader: samples files (lmms-eval, lm-eval), replay files, datasets'
instruction and label files, verdict files.

- Lines end at ``\\n`` only. ``str.splitlines()`` also splits at U+2028/U+2029 and other
  separators that a JSON string may hold raw (``json.dumps(..., ensure_ascii=False)`` writes them
  so), which cut such a line in two.
- Blank lines are skipped; a UTF-8 byte order mark on the first line is tolerated.
- A line that is not UTF-8 or not JSON is an error naming the file and the line number
  (``JsonlError``, a ``ValueError``; callers with their own error type pass it as ``error``).
- Values are returned as they are: a caller that needs objects with certain keys checks them,
  with the line number ``iter_jsonl`` gives.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any


class JsonlError(ValueError):
    """A line of a JSONL file that is not UTF-8 or not JSON."""


def iter_jsonl(path: str | os.PathLike, *, error: type[Exception] = JsonlError) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of ``path``, read one line at a time."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise error(f"{os.fspath(path)}:{number}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                value = json.loads(line.rstrip("\r\n"))  # so an error's column is on this line
            except json.JSONDecodeError as exc:
                raise error(f"{os.fspath(path)}:{number}: not JSON ({exc.msg} at column {exc.colno})") from None
            except (ValueError, RecursionError) as exc:  # e.g. nesting deeper than the parser's stack
                raise error(f"{os.fspath(path)}:{number}: not JSON ({type(exc).__name__}: {exc})") from None
            yield number, value


def read_jsonl(path: str | os.PathLike, *, error: type[Exception] = JsonlError) -> list:
    """Every value of ``path``, in order (see :func:`iter_jsonl`)."""
    return [value for _, value in iter_jsonl(path, error=error)]
