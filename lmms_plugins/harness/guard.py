"""The version check and the wrapping rules every contact of this package follows.

:data:`SUPPORTED` names the harness releases whose internals the contacts were written against and
tested with. On another release :func:`supported` is False, every contact stays off, and one
warning says which and what that turns off (:data:`OFF`); lmms-eval then runs as it is, and this
package's tasks are still reachable with ``--include_path "$(lmms-plugins tasks-dir)"``.
"""

from __future__ import annotations

import functools
import warnings

#: distribution -> the release tested here (pyproject.toml pins the same)
SUPPORTED = {"lmms_eval": "0.7.3", "lm_eval": "0.4.13"}
#: what is off on another release of each harness
OFF = {
    "lmms_eval": (
        "this package's tasks in lmms-eval's task index (use --include_path \"$(lmms-plugins tasks-dir)\"); "
        "the chat variants of its task classes (chat models would get simple-model requests: use a simple model "
        "or --force_simple); the end-of-run lines and the short results table; the standard errors of its "
        "metrics (N/A); the batched multi-round runner (rounds run one request at a time)"
    ),
    "lm_eval": "the standard errors of this package's metrics in lm-eval's table (N/A)",
}
_PATCHED = "_lmms_plugins_patched"


class HarnessWarning(UserWarning):
    """lmms-eval's (or lm-eval's) internals are not what this package expects; --include_path still works."""


def warn(what: str) -> None:
    warnings.warn(
        f"lmms-plugins could not {what} in this lmms-eval version; pass "
        f'--include_path "$(lmms-plugins tasks-dir)" to use its tasks.',
        HarnessWarning,
        stacklevel=3,
    )


def installed_version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def supported(dist: str) -> bool:
    """Whether the installed ``dist`` is the release the contacts were written for; warns once when not."""
    found = installed_version(dist)
    if found == SUPPORTED[dist]:
        return True
    warnings.warn(
        f"lmms-plugins supports {dist} {SUPPORTED[dist]}, found {found or 'none'}: its contacts with {dist}'s "
        f"internals are off. Off: {OFF[dist]}.",
        HarnessWarning,
        stacklevel=3,
    )
    return False


def unpatched(owner, name: str, what: str):
    """``owner.name`` to wrap; None when it is missing (warned) or already wrapped."""
    original = getattr(owner, name, None) if owner is not None else None
    if original is None:
        warn(f"find {what}")
        return None
    return None if getattr(original, _PATCHED, False) else original


def install(owner, name: str, wrapper) -> None:
    original = getattr(owner, name)
    setattr(wrapper, _PATCHED, True)
    wrapper.__wrapped__ = original
    setattr(owner, name, wrapper)


__all__ = ["HarnessWarning", "OFF", "SUPPORTED", "install", "supported", "unpatched", "warn"]
