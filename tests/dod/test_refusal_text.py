"""Which text decides a refusal (the setting ``refusal_text``): by default only the reasoning, as
the official judge reads it (the text inside <think>...</think>; the whole output when it has no
think tag); ``all`` reads the final answer too. Checked through hooks.process_results, and in judge
and hybrid modes against a real HTTP judge on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dod_fixtures import make_dataset, read_jsonl
from judge_server import FakeJudgeServer, message_text
from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.refusal.text import reasoning_part, text_to_read
from lmms_plugins.tasks.dod.settings import SETTINGS
from lmms_plugins.utils.preflight import PreflightError
from lmms_plugins.utils.settings import bind, resolve

CONCLUSION = "The chair would need to be both in front of and behind the table, so no valid arrangement exists."
MUSING = "The chair has to be in front of the table and behind it. Let me look at the picture again."
AFTER_THINK = f"<think>{MUSING}</think>{CONCLUSION}"  # the conclusion is only in the final answer
CASE = "spatial_arangement-1-infeasible"


@pytest.fixture
def docs(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    return {d["case_id"]: {**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")}


def score(doc, text: str, drawn: bool = False, **meta) -> dict:
    """process_results of an answer with the settings ``meta`` (a task's metadata): the D_strict value and
    the full record. ``drawn``: the answer delivers an image (the input PNG stands in). A text-only answer
    with no conclusion is pending judge-free since 2.5 (nothing shows compliance), so the tests that read
    "not refused" deliver an image: what they check is which text is read."""
    settings = resolve(SETTINGS, {"edit_judge": "off", **meta})
    images = [str(Path(doc["dod_root"]) / doc["input_image"])] if drawn else []
    out = hooks.process_results(doc, [json.dumps({"text": text, "images": images})], settings=settings)
    return {"D": out["D_strict"]["value"], **out["dod_run"]["record"]}


def test_a_conclusion_only_after_think_is_not_a_refusal_by_default_and_is_one_with_all(docs, monkeypatch):
    r = score(docs[CASE], AFTER_THINK, drawn=True)
    assert r["refused"] is False and r["D"] == 0.0 and r["refusal_evidence"] == ""
    assert r["conclusion_only_after_think"] is True  # counted in dod_run: what the reading decided
    r = score(docs[CASE], AFTER_THINK, refusal_text="all")
    assert r["refused"] is True and r["D"] == 1.0 and r["refusal_evidence"] == CONCLUSION
    assert r["conclusion_only_after_think"] is True


def test_a_conclusion_inside_think_counts_in_both_readings_with_its_evidence(docs, monkeypatch):
    text = f"<think>{MUSING} {CONCLUSION}</think>I will not draw it."
    for reading in ("reasoning", "all"):
        r = score(docs[CASE], text, refusal_text=reading)
        assert r["refused"] is True and r["D"] == 1.0 and r["refusal_evidence"] == CONCLUSION, reading
        assert r["conclusion_only_after_think"] is False


def test_without_think_tags_the_whole_text_is_the_reasoning(docs):
    assert score(docs[CASE], f"{MUSING} {CONCLUSION}")["refused"] is True
    assert score(docs[CASE], MUSING, drawn=True)["refused"] is False


def test_unclosed_think_several_blocks_and_a_prompt_side_opening_tag(docs):
    doc = docs[CASE]
    assert score(doc, f"<think>{MUSING} {CONCLUSION}")["refused"] is True  # cut off while reasoning
    assert score(doc, f"<think>{MUSING}</think>Hmm.<think>{CONCLUSION}</think>Done.")["refused"] is True  # second block
    assert score(doc, f"{MUSING} {CONCLUSION}</think>Done.")["refused"] is True  # <think> was in the prompt
    assert score(doc, f"{MUSING}</think>{CONCLUSION}", drawn=True)["refused"] is False  # ... and the answer after it is not read
    assert score(doc, f"<think></think>{CONCLUSION}", drawn=True)["refused"] is False  # empty reasoning: no conclusion


def test_abstain_keeps_its_position_rule_in_both_readings(docs, monkeypatch):
    for reading in ("reasoning", "all"):
        ok = score(docs[CASE], f"<think>{MUSING} [ABSTAIN]</think>", refusal_text=reading)
        assert ok["refused"] is True and ok["refusal_rule"] == "abstain_token" and ok["official_abstain"] is True
        cut = score(docs[CASE], f"<think>{MUSING} [ABSTAIN]", refusal_text=reading)  # unclosed block ending with the token
        assert cut["refused"] is True and cut["official_abstain"] is True
        late = score(docs[CASE], f"<think>{MUSING}</think>[ABSTAIN]", drawn=True, refusal_text=reading)  # after </think>: not the token
        assert late["refused"] is False and late["official_abstain"] is False
        twice = score(docs[CASE], f"<think>{MUSING} [ABSTAIN]</think>[ABSTAIN]", drawn=True, refusal_text=reading)
        assert twice["refused"] is False and twice["official_abstain"] is False


def test_reasoning_part_definition():
    assert reasoning_part("<think>a</think>b").text == "a"
    assert reasoning_part("a</think>b").text == "a"
    p = reasoning_part("<think>a</think>b<THINKING>c</thinking>d<think>e")
    assert (p.text, p.blocks, p.unclosed, p.tagged, p.answer) == ("a\nc\ne", 3, True, True, "bd")
    assert reasoning_part("x<think>a</think>y").answer == "xy"
    assert reasoning_part("<think>a</think>b</think>c").text == "a"  # a stray closing tag stays answer
    assert reasoning_part("<think>a<think>b</think>c").text == "a\nb"  # a repeated opening tag is dropped
    p = reasoning_part("plain text")
    assert (p.text, p.tagged, p.blocks) == ("plain text", False, 0)
    assert text_to_read("<think>a</think>b", "all") == "<think>a</think>b"
    with pytest.raises(ValueError, match="reading"):
        text_to_read("x", "answer")


def test_a_misspelt_reading_fails_at_load_and_the_reading_is_in_dod_run(docs, monkeypatch):
    with pytest.raises(PreflightError, match="dod_no_hint: metadata.refusal_text must be one of reasoning, all, got 'final'"):
        bind(SETTINGS, {"task": "dod_no_hint", "metadata": {"refusal_text": "final"}})  # as the task class is built
    every = resolve(SETTINGS, {"refusal_text": "ALL"})
    out = hooks.process_results(docs[CASE], [json.dumps({"text": AFTER_THINK, "images": []})], settings=every)
    inside = hooks.process_results(docs[CASE], [json.dumps({"text": f"<think>{CONCLUSION}</think>No.", "images": []})],
                                   settings=every)
    run = hooks.aggregate_run([out["dod_run"], inside["dod_run"]])
    assert run["refusal_text"] == "all" and run["conclusions_only_after_think"] == 1
    # the row says how its samples were read (their records), not what the defaults say
    assert hooks.aggregate_run([out["dod_run"]])["refusal_text"] == "all"
    older = {**out["dod_run"], "record": {k: v for k, v in out["dod_run"]["record"].items() if k != "refusal_text"}}
    older["record"].pop("refusal_mode")
    assert hooks.aggregate_run([older])["refusal_text"] == "reasoning"  # a record without it: the setting's value
    scored = hooks.process_results(docs[CASE], [json.dumps({"text": AFTER_THINK, "images": []})],
                                   settings=resolve(SETTINGS, {"refusal_text": "all"}))
    assert hooks.aggregate_run([scored["dod_run"]])["refusal_text"] == "all"  # the task's settings, as its class gives them


@pytest.fixture
def judged(docs, monkeypatch, tmp_path):
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    seen: list[str] = []

    def handler(request):  # a judge that quotes the conclusion wherever it is in what it was shown
        text = message_text(request)
        seen.append(text)
        shown = text.split("<<<RESPONSE", 1)[1].split("RESPONSE>>>", 1)[0]
        evidence = "[ABSTAIN]" if shown.rstrip().endswith("[ABSTAIN]") else CONCLUSION
        return json.dumps({"concludes_infeasible": True, "reason_correct": True, "evidence": evidence, "reason": "r"})

    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        yield docs, server, seen


@pytest.mark.parametrize("mode", ["judge", "hybrid"])
def test_the_judge_reads_only_the_reasoning_and_evidence_outside_it_is_rejected(judged, monkeypatch, mode):
    docs, server, seen = judged
    meta = {"refusal_mode": mode, **({"uncertain_margin": 1000} if mode == "hybrid" else {})}  # hybrid: the judge reads all
    r = score(docs[CASE], AFTER_THINK, **meta)
    # the judge saw the reasoning, not the final answer; its evidence (from the answer) is not a
    # substring of the reasoning: rejected on each of the 3 attempts -> judge_error, pending
    assert server.calls == 3 and all(MUSING in s and CONCLUSION not in s for s in seen)
    assert "## The model's reasoning\n" in seen[0]
    assert r["status"] == "judge_error" and r["refused"] is None and r["D"] is None
    assert "not an exact substring" in r["reason"]

    seen.clear()
    r = score(docs[CASE], AFTER_THINK, **meta, refusal_text="all")
    assert server.calls == 4 and CONCLUSION in seen[0] and "reasoning and final text" in seen[0]
    assert r["status"] == "ok" and r["refused"] is True and r["refusal_evidence"] == CONCLUSION
    assert r["refusal_rule"] == ("judge" if mode == "judge" else "hybrid_judge")

    # the official token: the reasoning shown to the judge ends with it, and quoting it is accepted;
    # hybrid does not ask (the token is a certain refusal)
    r = score(docs[CASE], f"<think>{MUSING} [ABSTAIN]</think>", **meta, refusal_text="reasoning")
    assert r["status"] == "ok" and r["refused"] is True and r["official_abstain"] is True
    assert server.calls == (5 if mode == "judge" else 4)
    assert r["refusal_evidence"] == "[ABSTAIN]"


def test_compare_states_which_text_decided(tmp_path):
    from reporting.runs import write_run

    from lmms_plugins import compare as C

    for name, reading in (("a", "reasoning"), ("b", "all")):
        counts = {"D_strict": {"success": 1, "reviewed": 10, "pending": 0, "total": 10, "rate": 0.1},
                  "refusal_mode": "rules", "refusal_text": reading}
        write_run(tmp_path / name, {"dod_no_hint": {"E": 0.7, "D_strict": 0.1, "D_f": 0.0, "dod_run": counts}})
    text = C.compare([tmp_path / "a", tmp_path / "b"], labels=["A", "B"]).text
    assert "Refusal detection in these runs: A: rules on the reasoning (official), B: rules on the reasoning and final answer." in text
