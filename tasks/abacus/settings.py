"""ABACUS's score-changing settings: keys of the task's YAML ``metadata`` (lmms_plugins.utils.settings;
README "Settings"). The task class records every effective value in the results."""

from __future__ import annotations

from typing import Any

from lmms_plugins.utils.settings import Setting, choice

from .detectors import DEFAULT_SPEC

FLOWS = ("dis", "raft_small", "raft_large")


def _detector_spec(value: Any) -> str:
    spec = str(value).strip() if isinstance(value, str) else ""
    if not spec:
        raise ValueError(f"must be a detector spec (rfdetr, rfdetr:<Class>, synthetic_test, py:<module>:<factory>, a+b), got {value!r}")
    return spec


SETTINGS = (
    Setting("detector", DEFAULT_SPEC, _detector_spec, retired="LMMS_PLUGINS_ABACUS_DETECTOR",
            help="the detector spec of detectors.py: rfdetr (default), synthetic_test, a+b, py:<module>:<factory>"),
    Setting("flow", "dis", choice(*FLOWS), retired="LMMS_PLUGINS_ABACUS_FLOW",
            help="the optical flow of scene consistency: dis (default), raft_small or raft_large"),
)

