"""Loading a benchmark's local copy with ``datasets`` (the task classes and the lm-eval adapter)."""

from __future__ import annotations

import hashlib
import os


def content_fingerprint(root: str) -> str:
    """Names, sizes and modification times of the files under ``root``: changes when data is regenerated."""
    digest = hashlib.sha1()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            stat = os.stat(os.path.join(folder, name))
            digest.update(f"{os.path.relpath(os.path.join(folder, name), root)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def content_cache_kwargs(dataset_kwargs, root: str, bench: str) -> dict:
    """A copy of ``dataset_kwargs`` whose ``datasets`` cache folder is keyed by the local copy's content.

    ``datasets`` caches a local folder by its path and config, not by what is in it, so a copy
    regenerated in place would be served stale from the cache.
    """
    from lmms_plugins.utils.cache_root import cache_dir

    kwargs = dict(dataset_kwargs or {})
    if "cache_dir" not in kwargs:
        kwargs["cache_dir"] = str(cache_dir("datasets") / bench / content_fingerprint(root))
    return kwargs


def unwrap_retry(exc: BaseException) -> BaseException:
    """The error inside tenacity's ``RetryError`` (lmms-eval's retried download), else ``exc``."""
    attempt = getattr(exc, "last_attempt", None)
    inner = attempt.exception() if attempt is not None and hasattr(attempt, "exception") else None
    return inner if isinstance(inner, BaseException) else exc


__all__ = ["content_cache_kwargs", "content_fingerprint", "unwrap_retry"]
