"""refusal_mode=hybrid: only the responses the detector is uncertain about go to the
refusal judge (a real HTTP server on 127.0.0.1); the others keep the detector's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dod_fixtures import make_dataset, read_jsonl
from judge_server import FakeJudgeServer

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.refusal import detect_refusal
from lmms_plugins.tasks.dod.settings import SETTINGS
from lmms_plugins.utils.preflight import PreflightError
from lmms_plugins.utils.settings import resolve

CLEAR_REFUSAL = "<think>The chair would need to be both in front of and behind the table, so no valid arrangement exists.</think>"
CLEAR_DRAW = "<think>The chair fits in front of the table.</think>Done."


def hybrid(**meta):
    """The settings the task class hands the scorer for a YAML with ``refusal_mode: hybrid``."""
    return resolve(SETTINGS, {"refusal_mode": "hybrid", "edit_judge": "off", **meta})


def judge_says(concludes: bool, evidence: str = ""):
    def handler(request):
        return json.dumps({"concludes_infeasible": concludes, "reason_correct": None, "evidence": evidence, "reason": "r"})
    return handler


@pytest.fixture
def docs(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL", raising=False)  # a judge only where a test starts one
    return {d["case_id"]: {**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")}


def test_hybrid_asks_the_judge_only_when_uncertain(docs, monkeypatch):
    doc = docs["spatial_arangement-1-infeasible"]
    assert detect_refusal(CLEAR_REFUSAL).verdict == "refused" and detect_refusal(CLEAR_DRAW).verdict == "not_refused"
    with FakeJudgeServer(judge_says(False)) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        a = hooks.score_sample(doc, json.dumps({"text": CLEAR_REFUSAL, "images": []}), settings=hybrid())
        # the draw delivers its image (a real PNG stands in): with no image and no conclusion the detector is
        # uncertain since 2.5 (nothing shows compliance), and the judge would be asked
        drawn = str(Path(doc["dod_root"]) / doc["input_image"])
        b = hooks.score_sample(doc, json.dumps({"text": CLEAR_DRAW, "images": [drawn]}), settings=hybrid())
        assert server.calls == 0  # both are certain: the detector's answers stand
        assert a.refused is True and a.refusal_rule != "hybrid_judge" and b.refused is False

        everything_uncertain = hybrid(uncertain_margin=1000)
        c = hooks.score_sample(doc, json.dumps({"text": CLEAR_REFUSAL, "images": []}), settings=everything_uncertain)
        assert server.calls == 1 and c.refused is False and c.refusal_rule == "hybrid_judge"  # the judge decided


def test_hybrid_judge_failure_is_pending_not_a_verdict(docs, monkeypatch):
    with FakeJudgeServer(lambda r: "not json") as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        rec = hooks.score_sample(docs["spatial_arangement-1-infeasible"], json.dumps({"text": CLEAR_REFUSAL, "images": []}),
                                 settings=hybrid(uncertain_margin=1000))
        assert rec.refused is None and rec.status == "judge_error"


def test_a_bad_margin_is_a_clear_error():
    with pytest.raises(PreflightError, match="dod_no_hint: metadata.uncertain_margin must be a number >= 0, got 'wide'"):
        resolve(SETTINGS, {"uncertain_margin": "wide"}, task="dod_no_hint")


def test_the_task_settings_alone_choose_hybrid_and_its_margin(docs, monkeypatch):
    """What the task class hands the scorer (settings=)."""
    doc = docs["spatial_arangement-1-infeasible"]
    raw = json.dumps({"text": CLEAR_REFUSAL, "images": []})
    with FakeJudgeServer(judge_says(False)) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        narrow = resolve(SETTINGS, {"refusal_mode": "hybrid", "edit_judge": "off"})
        assert hooks.score_sample(doc, raw, settings=narrow).refused is True and server.calls == 0
        wide = resolve(SETTINGS, {"refusal_mode": "hybrid", "edit_judge": "off", "uncertain_margin": 1000})
        rec = hooks.score_sample(doc, raw, settings=wide)
        assert server.calls == 1 and rec.refused is False and rec.refusal_rule == "hybrid_judge"
        # in the default mode (rules) no judge is asked: an uncertain response is pending
        rec = hooks.score_sample(doc, raw, settings=resolve(SETTINGS, {"uncertain_margin": 1000}))
        assert (rec.refused, rec.status, server.calls) == (None, "refusal_uncertain", 1)
