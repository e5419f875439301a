"""DoD judges against a real OpenAI-compatible HTTP server on 127.0.0.1 (tests/judge_server.py)."""

from __future__ import annotations

import json

import pytest

from dod_fixtures import make_dataset, png, read_jsonl
from judge_server import FakeJudgeServer, Reply, Sleep, image_urls, message_text, sequence

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.data import Label, load_labels
from lmms_plugins.tasks.dod.judges import JudgeUnavailable, judge_edit, judge_refusal
from lmms_plugins.tasks.dod.settings import SETTINGS
from lmms_plugins.utils.judge_client import JudgeClient, JudgeConfig
from lmms_plugins.utils.settings import resolve

REASONING = "<think>The glass must be full and empty at once. Therefore the request is impossible.</think>"
EVIDENCE = "Therefore the request is impossible."
INFEASIBLE = Label("x-1-infeasible", "x-1", "x-1-feasible", False, "pose_adjustment",
                   reason="Full and empty contradict.", certificate="A glass cannot be full and empty.")
FEASIBLE = Label("x-1-feasible", "x-1", "x-1-infeasible", True, "pose_adjustment",
                 reason="Feasible.", witness="The glass is now full.")


def verdict(concludes, evidence="", correct=None, reason="r") -> str:
    return json.dumps({"concludes_infeasible": concludes, "reason_correct": correct, "evidence": evidence, "reason": reason})


def make_client(server, tmp_path, **kw) -> JudgeClient:
    cfg = dict(base_url=server.base_url, model="fake-judge", cache_dir=tmp_path / "cache", backoff_s=0.01, max_backoff_s=0.02)
    cfg.update(kw)
    return JudgeClient(JudgeConfig(**cfg))


def test_refusal_judge_reads_the_ground_truth_and_returns_its_verdict(tmp_path):
    def handler(request):
        text = message_text(request)
        assert "A glass cannot be full and empty." in text  # the certificate reaches the judge
        assert "Label: infeasible" in text
        assert REASONING in text
        return verdict(True, EVIDENCE, True)

    with FakeJudgeServer(handler) as server:
        v = judge_refusal(doc_prompt="Fill the glass and keep it empty.", label=INFEASIBLE, reasoning=REASONING,
                          judge=make_client(server, tmp_path))
        assert (v.concludes_infeasible, v.reason_correct, v.evidence) == (True, True, EVIDENCE)
        assert server.calls == 1

    with FakeJudgeServer(lambda r: verdict(False)) as server:
        v = judge_refusal(doc_prompt="p", label=FEASIBLE, reasoning="I fill the glass.", judge=make_client(server, tmp_path))
        assert v.concludes_infeasible is False and v.reason_correct is None and v.evidence == ""


def test_evidence_that_is_not_a_substring_is_rejected_and_asked_again(tmp_path):
    paraphrase = "The model says the request is impossible."  # not in the reasoning
    with FakeJudgeServer(sequence(verdict(True, paraphrase, True), verdict(True, EVIDENCE, True))) as server:
        v = judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING, judge=make_client(server, tmp_path))
        assert v.evidence == EVIDENCE and v.calls == 2
        assert server.calls == 2
    with FakeJudgeServer(lambda r: verdict(True, paraphrase, True)) as server:
        with pytest.raises(JudgeUnavailable, match="exact substring"):
            judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING, judge=make_client(server, tmp_path / "b"))
        assert server.calls == 3  # three answers, then give up


def test_invalid_json_http_500_and_timeouts_are_retried(tmp_path):
    good = verdict(True, EVIDENCE, True)
    with FakeJudgeServer(sequence("I think it is infeasible.", "{not json", good)) as server:
        v = judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING, judge=make_client(server, tmp_path / "a"))
        assert v.concludes_infeasible is True and server.calls == 3
    with FakeJudgeServer(sequence(Reply(500, "boom"), Reply(503, "busy"), good)) as server:
        v = judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING, judge=make_client(server, tmp_path / "b"))
        assert v.concludes_infeasible is True and server.calls == 3
    with FakeJudgeServer(lambda r: Reply(500, "always broken")) as server:
        with pytest.raises(JudgeUnavailable):
            judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING,
                          judge=make_client(server, tmp_path / "c", max_attempts=2))
        assert server.calls == 2
    with FakeJudgeServer(sequence(Sleep(1.5, good), good)) as server:
        v = judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING,
                          judge=make_client(server, tmp_path / "d", timeout_s=0.3))
        assert v.concludes_infeasible is True and server.calls == 2


def test_a_rerun_is_served_from_the_cache(tmp_path):
    reasonings = [REASONING, "<think>No path exists from the start to the end.</think>", "I draw the path."]
    answers = {REASONING: verdict(True, EVIDENCE, True),
               reasonings[1]: verdict(True, "No path exists from the start to the end.", False),
               reasonings[2]: verdict(False)}

    def handler(request):
        text = message_text(request)
        return next(a for r, a in answers.items() if r in text)

    with FakeJudgeServer(handler) as server:
        first = [judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=r, judge=make_client(server, tmp_path)) for r in reasonings]
        assert server.calls == 3
        again = [judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=r, judge=make_client(server, tmp_path)) for r in reasonings]
        assert server.calls == 3  # a fresh client, same cache folder: no new call
        assert all(v.cached for v in again)
        assert [(v.concludes_infeasible, v.evidence) for v in again] == [(v.concludes_infeasible, v.evidence) for v in first]


def test_edit_judge_sends_both_images_and_parses_its_verdict(tmp_path):
    inp, out = png(tmp_path / "in.png", (200, 0, 0)), png(tmp_path / "out.png", (0, 200, 0), mark=3)
    seen = []

    def handler(request):
        seen.append(request)
        assert len(image_urls(request)) == 2
        assert "The glass is now full." in message_text(request)
        return '```json\n{"task_image_correct": true, "unrelated_content_preserved": false, "reason": "background changed"}\n```'

    with FakeJudgeServer(handler) as server:
        v = judge_edit(instruction="Fill the glass.", label=FEASIBLE, input_image=inp, output_image=out,
                       judge=make_client(server, tmp_path))
        assert (v.task_image_correct, v.unrelated_content_preserved, v.ok) == (True, False, False)
    with FakeJudgeServer(sequence('{"task_image_correct": "maybe"}', '{"task_image_correct": true, "unrelated_content_preserved": true}')) as server:
        v = judge_edit(instruction="Fill the glass.", label=FEASIBLE, input_image=inp, output_image=out,
                       judge=make_client(server, tmp_path / "b"))
        assert v.ok and server.calls == 2


def test_judge_mode_through_the_hooks_with_a_user_prompt(tmp_path, monkeypatch):
    """refusal_mode=judge: the refusal comes from the judge; the editing judge scores
    real-world E; a replaced prompt file is used; a failing judge gives judge_error (pending)."""
    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    prompt = tmp_path / "my_refusal_prompt.txt"
    prompt.write_text("MY PROMPT for {{ label }} request. Reasoning:\n{{ reasoning }}")
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", str(tmp_path / "cache"))
    docs = {d["case_id"]: {**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")}
    out_img = png(tmp_path / "edit.png", (10, 200, 10))
    refusal_text = "<think>Moving and staying contradict each other.</think>"
    judge_mode = resolve(SETTINGS, {"refusal_mode": "judge", "refusal_prompt": str(prompt)})

    def handler(request):
        text = message_text(request)
        if image_urls(request):
            return '{"task_image_correct": true, "unrelated_content_preserved": true, "reason": "fine"}'
        assert text.startswith("MY PROMPT for ")
        if "contradict" in text:
            return verdict(True, "Moving and staying contradict each other.", True)
        return verdict(False)

    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        feas = hooks.process_results(docs["pose_adjustment-1-feasible"], [json.dumps({"text": "Done.", "images": [str(out_img)]})],
                                     settings=judge_mode)
        infeas = hooks.process_results(docs["pose_adjustment-1-infeasible"], [json.dumps({"text": refusal_text, "images": []})],
                                       settings=judge_mode)
        assert feas["E"]["value"] == 1.0 and feas["D_f"]["value"] == 0.0
        assert infeas["D_strict"]["value"] == 1.0
        assert infeas["dod_run"]["record"]["refusal_evidence"] == "Moving and staying contradict each other."
        assert infeas["dod_run"]["record"]["reason_correct"] is True
        assert server.calls == 3  # two refusal questions + one edit question

    with FakeJudgeServer(lambda r: "no json here") as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
        res = hooks.process_results(docs["material_modification-1-infeasible"], [json.dumps({"text": "Some other reasoning.", "images": []})],
                                    settings=judge_mode)
        assert res["D_strict"]["value"] is None and res["D_strict"]["status"] == "judge_error"
        assert res["D_lenient"]["value"] is None
        rec = hooks.score_sample(docs["material_modification-1-feasible"], json.dumps({"text": "", "images": [str(out_img)]}),
                                 settings=judge_mode)
        # empty text: no refusal question; the edit question fails 3 times -> E pending with judge_error
        assert rec.refused is False and rec.edit_ok is None and rec.status == "judge_error"


def test_without_a_judge_real_world_e_is_pending_and_maze_e_uses_the_verifier(tmp_path, monkeypatch):
    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=1)
    for var in ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    docs = {d["case_id"]: {**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")}
    out_img = png(tmp_path / "edit.png", (10, 200, 10))
    rec = hooks.score_sample(docs["pose_adjustment-1-feasible"], json.dumps({"text": "Done.", "images": [str(out_img)]}))
    assert rec.edit_ok is None and rec.status == "no_edit_judge"
    ref = root / "image" / "synthetic-maze-001-A-reference.png"
    rec = hooks.score_sample(docs["synthetic-maze-001-feasible"], json.dumps({"text": "Done.", "images": [str(ref)]}))
    assert rec.edit_ok is True and rec.edit_reason == "maze verifier: ok"
    assert load_labels(root)["synthetic-maze-001-feasible"].is_maze


def test_a_changed_extra_body_asks_the_judge_again(tmp_path, monkeypatch):
    """The setting judge_extra_body is part of the request and of the cache key: the same two
    questions with another extra body are asked again (and sent with it), not served the verdicts
    given without it; each is then served from its own cache entry."""
    from lmms_plugins.tasks.dod import judges
    from lmms_plugins.utils.judge_client import reset_shared_clients, shared_client
    from lmms_plugins.utils.judge_settings import judge_overrides

    inp, out = png(tmp_path / "in.png", (200, 0, 0)), png(tmp_path / "out.png", (0, 200, 0), mark=3)
    built = []
    real_edit_messages = judges.edit_messages

    def counting_edit_messages(*args):
        built.append(1)
        return real_edit_messages(*args)

    monkeypatch.setattr(judges, "edit_messages", counting_edit_messages)

    def handler(request):
        if image_urls(request):
            return '{"task_image_correct": true, "unrelated_content_preserved": true}'
        return verdict(True, EVIDENCE, True)

    def ask_both(extra_body=None):  # the overrides the hooks pass (utils/judge_settings.judge_overrides)
        overrides = judge_overrides({"judge_extra_body": extra_body})
        r = judge_refusal(doc_prompt="p", label=INFEASIBLE, reasoning=REASONING, overrides=overrides)
        e = judge_edit(instruction="Fill the glass.", label=FEASIBLE, input_image=inp, output_image=out, overrides=overrides)
        return r.cached, e.cached

    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", str(tmp_path / "cache"))
    reset_shared_clients()
    with FakeJudgeServer(handler) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        assert judges.client() is shared_client()  # the one GRADE's hooks use for the same settings
        assert ask_both() == (False, False) and server.calls == 2
        assert ask_both() == (True, True) and server.calls == 2
        assert len(built) == 1  # a verdict served from the cache encodes no image
        low = {"reasoning_effort": "low"}
        assert ask_both(low) == (False, False) and server.calls == 4
        assert [r.get("reasoning_effort") for r in server.requests] == [None, None, "low", "low"]
        assert ask_both(low) == (True, True) and server.calls == 4
        assert ask_both() == (True, True) and server.calls == 4  # the first entries are still there
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 4
    reset_shared_clients()
