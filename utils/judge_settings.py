"""The judge's score-changing settings, shared by the benchmarks that ask an LLM judge (DoD, GRADE).

``judge_model``: the model the judge requests name; default the endpoint's
``LMMS_PLUGINS_JUDGE_MODEL`` ('' when no judge is configured). ``judge_extra_body``: fields merged
into every judge request (e.g. ``{"reasoning_effort": "low"}``); its former variable
``LMMS_PLUGINS_JUDGE_EXTRA_BODY`` is retired (set, it stops the run). The endpoint, key, timeout,
concurrency and cache stay environment variables (lmms_plugins.utils.judge_client): they change where and how fast, not what is scored.
"""

from __future__ import annotations

from typing import Any, Mapping

from lmms_plugins.utils.settings import Setting, json_object, text

JUDGE_SETTINGS = (
    Setting("judge_model", None, text, endpoint_env="LMMS_PLUGINS_JUDGE_MODEL",
            help="the judge model (default: LMMS_PLUGINS_JUDGE_MODEL, the endpoint's model)"),
    Setting("judge_extra_body", None, json_object, retired="LMMS_PLUGINS_JUDGE_EXTRA_BODY",
            help='fields merged into every judge request, e.g. {"reasoning_effort": "low"}'),
)


def judge_overrides(settings: Mapping[str, Any]) -> dict:
    """Keyword overrides for ``judge_client.shared_client`` / ``JudgeConfig.from_env`` from a task's settings."""
    out: dict[str, Any] = {"extra_body": dict(settings.get("judge_extra_body") or {})}
    if settings.get("judge_model"):
        out["model"] = settings["judge_model"]
    return out
