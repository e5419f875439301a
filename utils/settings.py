"""Task settings: every value that can change a score is a key of the task's YAML ``metadata``.

A benchmark declares its settings once (``tasks/<bench>/settings.py``: a tuple of :class:`Setting`,
named by its task class's ``SETTINGS``). When lmms-eval builds the task, :func:`bind` resolves each
one and writes the effective value, defaults included, into the task's ``metadata``: lmms-eval
writes that into the results (``configs.<task>.metadata``), and ``lmms-plugins compare`` names every
setting in which two runs differ. The scorer receives the values as ``settings=`` (a mapping).

Where a value comes from, first match wins:

1. the task's ``metadata`` (a user's YAML that ``include``s the task and restates ``metadata``);
2. the setting's former environment variable, a deprecated alias: it still works, prints a
   warning naming the metadata key, and its value is recorded like any other (the judge's model
   keeps ``LMMS_PLUGINS_JUDGE_MODEL`` as the endpoint's own default, without a warning: a local
   server serves one model under one name);
3. the default.

A value that does not check (a misspelt mode, a margin below 0) stops the run while lmms-eval
builds the task (``SettingError``, a PreflightError), before any request.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
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
    env: str = ""  # the former environment variable (a deprecated alias), if any
    help: str = ""  # one line for the README's table and the error message
    env_deprecated: bool = True  # False: ``env`` is the deployment's own default (the judge's model), no warning


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
        if metadata.get(s.key) is not None:
            raw, origin = metadata[s.key], f"metadata.{s.key}"
        elif s.env and os.environ.get(s.env, "").strip():
            raw, origin = os.environ[s.env], s.env
            if s.env_deprecated:
                _warn_alias(s.env, s.key)
        else:
            raw, origin = s.default, f"metadata.{s.key} (default)"
        try:
            out[s.key] = s.check(raw)
        except ValueError as exc:
            where = f"{task}: " if task else ""
            raise SettingError(f"{where}{origin} {exc} ({s.help})" if s.help else f"{where}{origin} {exc}") from None
    return MappingProxyType(out)


@functools.lru_cache(maxsize=None)
def _warn_alias(env: str, key: str) -> None:
    # once per process; printed: lmms-eval's log level hides warnings of other loggers
    print(f"[lmms_plugins] WARNING: {env} is deprecated: set metadata.{key} in the task's YAML instead "
          f"(`lmms-plugins settings <task> {key}=...`); its value is used and recorded in the results' "
          "configs.<task>.metadata", file=sys.stderr)


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


__all__ = ["Setting", "SettingError", "bind", "choice", "differences", "json_object", "non_negative", "recorded",
           "resolve", "text"]
