"""Task settings: every value that can change a score is a key of the task's YAML ``metadata``.

A benchmark declares its settings once (``tasks/<bench>/settings.py``: a tuple of :class:`Setting`,
named by its task class's ``SETTINGS``). When lmms-eval builds the task, :func:`bind` resolves each
one and writes the effective value, defaults included, into the task's ``metadata``: lmms-eval
writes that into the results (``configs.<task>.metadata``), and ``lmms-plugins compare`` names every
setting in which two runs differ. The scorer receives the values as ``settings=`` (a mapping).

Where a value comes from, first match wins:

1. the task's ``metadata`` (a user's YAML that ``include``s the task and restates ``metadata``,
   e.g. one written by ``lmms-plugins settings``);
2. ``Setting.endpoint_env``, the deployment's own default (only the judge's model:
   ``LMMS_PLUGINS_JUDGE_MODEL``, a local server serves one model under one name);
3. the default.

A value that does not check (a misspelt mode, a margin below 0) stops the run while lmms-eval
builds the task (``SettingError``, a PreflightError), before any request. So does a setting's
former environment variable (``Setting.retired``) that is still set: it is no longer read, and
ignoring it would silently score with the default.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from lmms_plugins.utils.preflight import PreflightError

log = logging.getLogger("lmms_plugins.settings")


class SettingError(PreflightError):
    """A setting's value is not one it accepts (the message names the key and what it accepts)."""


@dataclass(frozen=True)
class Setting:
    key: str  # the metadata key
    default: Any
    check: Callable[[Any], Any]  # the value as the scorer uses it; ValueError saying what is accepted
    help: str = ""  # one line for the README's table and the error message
    endpoint_env: str = ""  # an environment variable that is the deployment's own default (the judge's model)
    retired: str = ""  # the former environment variable: set, it stops the run (see retired_error)


# ------------------------------------------------------------------------- checks for Setting.check


def choice(*allowed: str, aliases: Mapping[str, str] | None = None) -> Callable[[Any], str]:
    """A word from ``allowed`` (any case; ``aliases`` maps other spellings to one of them)."""
    table = {a: a for a in allowed} | dict(aliases or {})

    def check(value: Any) -> str:
        word = str(value).strip().lower() if value is not None else ""
        if word not in table:
            raise ValueError(f"must be one of {', '.join(allowed)}, got {value!r}")
        return table[word]

    return check


def non_negative(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a number >= 0, got {value!r}") from None
    if not number >= 0:  # NaN too
        raise ValueError(f"must be a number >= 0, got {value!r}")
    return number


def text(value: Any) -> str:
    """A string ('' for None): a spec, a file path or a list of them."""
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(f"must be a string, got {value!r}")
    return str(value).strip()


def json_object(value: Any) -> dict:
    """A mapping, or a JSON object in a string (an environment variable's form); {} for None or ''."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"is not valid JSON: {exc}") from None
    if not isinstance(value, Mapping):
        raise ValueError(f"must be a mapping (a JSON object), got {value!r:.60}")
    return dict(value)


# ------------------------------------------------------------------------------------- resolving


def resolve(declared: Sequence[Setting], metadata: Mapping | None, *, task: str = "") -> Mapping[str, Any]:
    """Every declared setting's effective value (read-only mapping), by the order in the module docstring."""
    metadata = metadata if isinstance(metadata, Mapping) else {}
    out: dict[str, Any] = {}
    for s in declared:
        if s.retired and os.environ.get(s.retired, "").strip():
            raise retired_error(s, task)
        if metadata.get(s.key) is not None:
            raw, origin = metadata[s.key], f"metadata.{s.key}"
        elif s.endpoint_env and os.environ.get(s.endpoint_env, "").strip():
            raw, origin = os.environ[s.endpoint_env], s.endpoint_env
        else:
            raw, origin = s.default, f"metadata.{s.key} (default)"
        try:
            out[s.key] = s.check(raw)
        except ValueError as exc:
            where = f"{task}: " if task else ""
            raise SettingError(f"{where}{origin} {exc} ({s.help})" if s.help else f"{where}{origin} {exc}") from None
    return MappingProxyType(out)


def retired_error(s: Setting, task: str = "") -> SettingError:
    """The error for a retired environment variable that is still set: what to do instead."""
    name = task or "<task>"
    return SettingError(
        f"{task + ': ' if task else ''}{s.retired} is no longer read (it would be ignored and the run scored with "
        f"the default): unset it and set metadata.{s.key} instead: `lmms-plugins settings {name} {s.key}=<value> "
        f"--out DIR`, then `lmms-eval --include_path DIR --tasks {name} ...`")


def given_or_default(declared: Sequence[Setting], settings: Mapping | None) -> Mapping[str, Any]:
    """The values the task class gave a hook, else (a hook called on its own) the defaults."""
    return settings if settings is not None else resolve(declared, None)


def recorded(value: Any) -> Any:
    """A value as the results JSON can hold it (a mapping proxy becomes a dict)."""
    return dict(value) if isinstance(value, Mapping) else value


def bind(declared: Sequence[Setting], config: dict) -> dict:
    """A copy of a task's config dict (as lmms-eval hands it to the task class) with every
    setting's effective value in ``metadata`` and ``process_results`` called with ``settings=``."""
    config = dict(config)
    meta = dict(config.get("metadata") or {}) if isinstance(config.get("metadata"), Mapping) else {}
    values = resolve(declared, meta, task=str(config.get("task") or ""))
    meta.update({k: recorded(v) for k, v in values.items()})
    config["metadata"] = meta
    scorer = config.get("process_results")
    if callable(scorer):
        # a plain dict: lmms-eval deep-copies the config (dump_config), which a mappingproxy refuses
        config["process_results"] = functools.partial(scorer, settings=dict(values))
    return config


def differences(metadatas: Mapping[str, Mapping | None], *, skip: Sequence[str] = ("version",)) -> list[str]:
    """``key: label value, label value`` for each metadata key whose value differs between runs
    (a key one run lacks shows ``-``): what ``lmms-plugins compare`` prints per task."""
    keys = list(dict.fromkeys(k for meta in metadatas.values() for k in (meta or {}) if k not in skip))
    lines = []
    for k in keys:
        shown = {label: json.dumps(meta[k], sort_keys=True, default=str) if k in (meta or {}) else "-"
                 for label, meta in metadatas.items()}
        if len(set(shown.values())) > 1:
            lines.append(f"{k}: " + ", ".join(f"{label} {value}" for label, value in shown.items()))
    return lines


__all__ = ["Setting", "SettingError", "bind", "choice", "differences", "given_or_default", "json_object",
           "non_negative", "recorded", "resolve", "retired_error", "text"]
