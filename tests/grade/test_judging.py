"""GRADE's judge path against a real OpenAI-compatible server on 127.0.0.1, through the task's hooks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grade_fixtures import (  # noqa: E402
    CASES,
    canned_judge,
    decode_image,
    expected_scores,
    kind_of,
    make_dataset,
    make_outputs,
    reasoning_reply,
)
from judge_server import FakeJudgeServer, Reply, Sleep, image_urls  # noqa: E402

from lmms_plugins.tasks.grade import hooks  # noqa: E402
from lmms_plugins.tasks.grade.settings import SETTINGS  # noqa: E402
from lmms_plugins.utils.settings import resolve  # noqa: E402
from lmms_plugins.utils.judge_client import reset_shared_clients  # noqa: E402
from lmms_plugins.utils.jsonl import read_jsonl  # noqa: E402
from lmms_plugins.tasks.grade.records import load_records  # noqa: E402
from lmms_plugins.tasks.grade.scoring import breakdown  # noqa: E402


@pytest.fixture
def data(tmp_path):
    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    docs = {d["task_id"]: d for d in load_records(root)}
    rows = {r["key"]: r for r in read_jsonl(outputs)}
    answers = {}
    for key, row in rows.items():  # what an image-editing model returns to lmms-eval
        images = [str(outputs.parent / row["image"])] if row.get("image") else []
        answers[key] = json.dumps({"text": row["text"], "images": images})
    return docs, answers, tmp_path


@pytest.fixture
def judge_env(monkeypatch, tmp_path):
    """A fake judge server wired through the documented environment variables."""
    reset_shared_clients()
    with FakeJudgeServer(canned_judge) as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_API_KEY", "dummy")
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", str(tmp_path / "judge-cache"))
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_TIMEOUT", "5")
        yield server
        reset_shared_clients()
        assert not server.handler_errors, server.handler_errors[0]


def grade(**meta):
    """The settings the task class hands the scorer for a YAML that sets ``meta`` in its metadata."""
    return resolve(SETTINGS, meta)


def run_all(docs, answers, settings=None):
    return {tid: hooks.process_results(doc, [answers[tid]], settings) for tid, doc in docs.items()}


def test_full_judging_matches_hand_computed_scores(data, judge_env):
    docs, answers, _ = data
    out = run_all(docs, answers)
    rec = {tid: r["grade_strict"] for tid, r in out.items()}
    assert rec["math_geo_001"]["status"] == "missing_image"
    assert {tid: r["status"] for tid, r in rec.items() if tid != "math_geo_001"} == {
        c.task_id: "ok" for c in CASES if c.colour
    }
    for c in CASES:
        r = rec[c.task_id]
        if c.colour is None:
            assert (r["R"], r["C"], r["L"], r["judge_calls"]) == (0.0, 0, 0, 0)
            continue
        assert r["R"] == pytest.approx(sum(w for q, _, w in c.questions if q in c.yes))
        assert (r["C"], r["L"]) == (c.C, c.L)
        assert r["matched_by"] == "id"  # the canned judge answers in reverse order, with ids
    # calls: R and L for every sample with an image, C only where consistency is not none
    with_image = [c for c in CASES if c.colour]
    assert judge_env.calls == 2 * len(with_image) + sum(1 for c in with_image if c.consistency != "none")
    kinds = [kind_of(r) for r in judge_env.requests]
    assert kinds.count("consistency_overall") == 2 and kinds.count("consistency_style") == 2
    # every image sent is a JPEG with its longest side <= 1024 (the 1600x800 input becomes 1024x512)
    sizes = {decode_image(u).size for r in judge_env.requests for u in image_urls(r)}
    assert all(decode_image(u).format == "JPEG" for r in judge_env.requests for u in image_urls(r))
    assert max(max(s) for s in sizes) == 1024 and (1024, 512) in sizes
    # readability: the edited image alone
    assert all(len(image_urls(r)) == 1 for r in judge_env.requests if kind_of(r) == "readability")
    # aggregations over the records give the hand-computed published scores
    items = [r["grade_lenient"] for r in out.values()]
    exp = expected_scores()
    assert hooks.aggregate_lenient(items) == pytest.approx(exp["lenient"])
    assert hooks.aggregate_strict(items) == pytest.approx(exp["strict"])
    assert hooks.aggregate_consistency(items) == pytest.approx(exp["consistency"])
    assert hooks.aggregate_breakdown(items) == {"n": 6, "n_consistency": 5, "status_counts": {"missing_image": 1, "ok": 5}}
    b = breakdown(hooks.sample_scores(items))  # the details: from the records (the log prints them)
    assert set(b["by_domain"]) == {"physics", "sports", "chemistry", "math", "eco"}
    assert b["by_domain"]["physics"]["n"] == 2  # physics_mech + engineering_views


def test_rerun_is_served_from_the_cache(data, judge_env):
    docs, answers, _ = data
    first = run_all(docs, answers)
    calls = judge_env.calls
    reset_shared_clients()  # a new run: new client, same cache folder
    second = run_all(docs, answers)
    assert judge_env.calls == calls
    assert all(r["grade_strict"]["cached"] for tid, r in second.items() if tid != "math_geo_001")
    strip = lambda recs: {t: {k: v for k, v in r["grade_strict"].items() if k not in ("cached", "judge_calls")} for t, r in recs.items()}
    assert strip(first) == strip(second)


def test_wrong_count_fenced_and_invalid_json_are_retried(data, judge_env):
    docs, answers, _ = data
    doc = docs["physics_mech_001"]
    case = CASES[0]
    served = {"reasoning": 0}

    def handler(req):
        kind = kind_of(req)
        if kind == "reasoning":
            served["reasoning"] += 1
            n = served["reasoning"]
            if n == 1:
                return json.dumps([{"id": "Q1", "answer": "Yes"}])  # one answer for two questions
            if n == 2:
                return "[{'id': 'Q1', 'answer': 'Yes'}"  # not JSON
            return reasoning_reply(case, fence=True)  # fenced, reordered: accepted
        return canned_judge(req)

    judge_env.handler = handler
    rec = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert rec["status"] == "ok" and rec["R"] == 1.0 and served["reasoning"] == 3
    assert rec["judge_calls"] == 3 + 2  # three answers for R, one each for C and L
    # each retry shows the judge its rejected answer and what was wrong with it
    retries = [r for r in judge_env.requests if kind_of(r) == "reasoning"][1:]
    assert "answered 1 question(s), expected 2" in retries[0]["messages"][-1]["content"]
    assert retries[1]["messages"][-2]["content"] == "[{'id': 'Q1', 'answer': 'Yes'}"


def test_exhausted_answers_leave_the_dimension_pending(data, judge_env):
    docs, answers, _ = data
    doc = docs["eco_macro_001"]
    judge_env.handler = lambda req: "[]" if kind_of(req) == "reasoning" else canned_judge(req)
    rec = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert rec["status"] == "judge_error" and rec["R"] is None and (rec["C"], rec["L"]) == (2, 1)
    assert "answered 0 question(s), expected 2" in rec["reason"]
    assert judge_env.calls == 3 + 2
    # nothing wrong was cached: a later run with a working judge fills R in and reuses C and L
    judge_env.handler = canned_judge
    reset_shared_clients()
    rec = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert rec["status"] == "ok" and rec["R"] == 0.5 and judge_env.calls == 5 + 1


def test_429_and_500_with_retry_after_and_timeouts(data, judge_env, monkeypatch):
    docs, answers, _ = data
    doc = docs["chemistry_org_001"]
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_TIMEOUT", "0.5")
    reset_shared_clients()
    trouble = {"consistency_style": [Reply(429, "slow down", {"Retry-After": "0"}), Reply(500, "oops", {"Retry-After": "0"})],
               "readability": [Sleep(3.0)]}

    def handler(req):
        queue = trouble.get(kind_of(req))
        if queue:
            return queue.pop(0)
        return canned_judge(req)

    judge_env.handler = handler
    rec = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert rec["status"] == "ok" and (rec["R"], rec["C"], rec["L"]) == (1.0, 1, 2)
    assert rec["judge_calls"] == 1 + 3 + 2


def test_missing_and_bad_images_cost_no_call(data, judge_env, tmp_path):
    docs, answers, _ = data
    doc = docs["physics_mech_001"]
    for raw, status in [
        (json.dumps({"text": "sorry", "images": []}), "missing_image"),
        (json.dumps({"text": "", "images": [str(tmp_path / "gone.png")]}), "missing_image"),
        ("plain text, no image", "missing_image"),
    ]:
        rec = hooks.process_results(doc, [raw])
        assert {r["status"] for r in rec.values()} == {status}
        assert (rec["grade_strict"]["R"], rec["grade_strict"]["C"], rec["grade_strict"]["L"]) == (0.0, 0, 0)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG not really")
    rec = hooks.process_results(doc, [json.dumps({"text": "", "images": [str(junk)]})])["grade_strict"]
    assert rec["status"] == "bad_image" and "junk.png" in rec["reason"]
    assert judge_env.calls == 0


def test_no_judge_configured_is_a_judge_error_naming_the_variables(data, monkeypatch):
    docs, answers, _ = data
    for var in ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    reset_shared_clients()
    doc = docs["physics_mech_001"]
    rec = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert rec["status"] == "judge_error" and "LMMS_PLUGINS_JUDGE_BASE_URL" in rec["reason"]
    assert rec["R"] is None and rec["value"] == 0.0


def test_precomputed_verdicts_offline_and_with_judge_fallback(data, judge_env, monkeypatch, tmp_path):
    docs, answers, _ = data
    vfile = tmp_path / "verdicts.jsonl"
    vfile.write_text("\n".join(json.dumps(x) for x in [
        {"task_id": "physics_mech_001", "answers": [{"id": "Q2", "answer": "Yes"}, {"id": "Q1", "answer": "No"}], "C": 2, "L": 2},
        {"task_id": "engineering_views_001", "reasoning": 1.0, "consistency": "none", "readability": 1},
        {"task_id": "eco_macro_001", "R": 0.5, "L": 2},  # no C: asked from the judge
    ]) + "\n")
    verdicts = grade(verdicts=str(vfile))
    p = hooks.process_results(docs["physics_mech_001"], ["no image at all"], verdicts)["grade_strict"]
    assert (p["status"], p["R"], p["C"], p["L"], p["source"]) == ("ok", 0.5, 2, 2, "verdicts")
    e = hooks.process_results(docs["engineering_views_001"], ["no image"], verdicts)["grade_strict"]
    assert (e["status"], e["R"], e["C"], e["L"]) == ("ok", 1.0, None, 1)
    assert judge_env.calls == 0
    m = hooks.process_results(docs["eco_macro_001"], [answers["eco_macro_001"]], verdicts)["grade_strict"]
    assert (m["status"], m["R"], m["C"], m["L"], m["source"]) == ("ok", 0.5, 2, 2, "verdicts+judge")
    assert [kind_of(r) for r in judge_env.requests] == ["consistency_overall"]
    # without a judge, a sample with no verdict is pending with its own status
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL")
    reset_shared_clients()
    c = hooks.process_results(docs["chemistry_org_001"], [answers["chemistry_org_001"]], verdicts)["grade_strict"]
    assert c["status"] == "missing_verdict" and c["R"] is None and "R, C, L" in c["reason"]


def test_a_judged_run_can_be_rescored_from_its_samples_log(data, judge_env, monkeypatch, tmp_path):
    docs, answers, _ = data
    first = run_all(docs, answers)
    log = tmp_path / "grade_samples.jsonl"  # the shape of lmms-eval's --log_samples lines
    log.write_text("".join(json.dumps({"doc_id": i, "grade_strict": r["grade_strict"], "grade_lenient": r["grade_lenient"]}) + "\n"
                           for i, r in enumerate(first.values())))
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL")
    reset_shared_clients()
    calls = judge_env.calls
    again = run_all(docs, answers, grade(verdicts=str(log)))
    assert judge_env.calls == calls
    for tid, r in again.items():
        assert (r["grade_strict"]["R"], r["grade_strict"]["C"], r["grade_strict"]["L"]) == (
            first[tid]["grade_strict"]["R"], first[tid]["grade_strict"]["C"], first[tid]["grade_strict"]["L"])


def test_user_prompt_files_replace_ours_and_change_the_cache_key(data, judge_env, monkeypatch, tmp_path):
    docs, answers, _ = data
    doc = docs["board_chess_001"]
    hooks.process_results(doc, [answers[doc["task_id"]]])
    calls = judge_env.calls
    prompts = tmp_path / "official-prompts"
    prompts.mkdir()
    (prompts / "readability.txt").write_text("You judge how readable this is. Output {\"Final Score\": 0-2, \"Reason\": \"...\"}")
    judge_env.handler = lambda req: (json.dumps({"Final Score": 1, "Reason": "x"}) if "readable this is" in req["messages"][0]["content"]
                                     else canned_judge(req))
    rec = hooks.process_results(doc, [answers[doc["task_id"]]], grade(prompts=str(prompts)))["grade_strict"]
    assert rec["L"] == 1 and judge_env.calls == calls + 1  # only the replaced prompt was asked again


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"task_id": "physics_mech_001", "R": 1.5}', "R must be between 0 and 1"),
        ('{"task_id": "physics_mech_001", "C": 3}', "C must be 0, 1 or 2"),
        ('{"R": 1.0}', "not an object with a task_id"),
        ("not json", "not JSON"),
    ],
)
def test_a_broken_verdict_file_is_an_error_naming_file_and_line(data, monkeypatch, tmp_path, line, message):
    docs, answers, _ = data
    vfile = tmp_path / "v.jsonl"
    vfile.write_text('{"task_id": "eco_macro_001", "R": 1.0, "C": 2, "L": 2}\n' + line + "\n")
    rec = hooks.process_results(docs["eco_macro_001"], [answers["eco_macro_001"]], grade(verdicts=str(vfile)))["grade_strict"]
    assert rec["status"] == "error" and f"{vfile}:2" in rec["reason"] and message in rec["reason"]
    assert rec["R"] is None and rec["domain"] == "eco"  # pending, still attributed to its domain


def test_an_official_style_fstring_prompt_pasted_as_text(data, judge_env, monkeypatch, tmp_path):
    docs, answers, _ = data
    prompts = tmp_path / "official"
    prompts.mkdir()
    (prompts / "consistency_overall.txt").write_text(
        "Judge consistency for: {instruct}\nAnswer {{\"Instruction\": \"...\", \"Final Score\": 0-2, \"Reason\": \"...\"}}\n")
    seen = []

    def handler(req):
        system = req["messages"][0]["content"]
        if system.startswith("Judge consistency"):
            seen.append(system)
            return json.dumps({"Instruction": "x", "Final Score": 2, "Reason": "same"})
        return canned_judge(req)

    judge_env.handler = handler
    rec = hooks.process_results(docs["eco_macro_001"], [answers["eco_macro_001"]], grade(prompts=str(prompts)))["grade_strict"]
    assert rec["status"] == "ok" and rec["C"] == 2
    assert seen == ['Judge consistency for: Edit the diagram of eco_macro_001.\n'
                    'Answer {"Instruction": "...", "Final Score": 0-2, "Reason": "..."}']


def test_a_changed_extra_body_asks_the_judge_again(data, judge_env, monkeypatch):
    """The setting judge_extra_body (e.g. the paper's reasoning effort) is part of every request and
    of the cache key: R, C and L are asked again with it, not served the verdicts given without it."""
    docs, answers, _ = data
    doc = docs["physics_mech_001"]  # R, C and L: three questions
    reset_shared_clients()
    first = hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]
    assert first["status"] == "ok" and judge_env.calls == 3
    assert hooks.process_results(doc, [answers[doc["task_id"]]])["grade_strict"]["cached"] and judge_env.calls == 3
    low = grade(judge_extra_body={"reasoning_effort": "low"})
    again = hooks.process_results(doc, [answers[doc["task_id"]]], low)["grade_strict"]
    assert not again["cached"] and judge_env.calls == 6
    assert [r.get("reasoning_effort") for r in judge_env.requests] == [None] * 3 + ["low"] * 3
    assert (again["R"], again["C"], again["L"]) == (first["R"], first["C"], first["L"])
    assert hooks.process_results(doc, [answers[doc["task_id"]]], low)["grade_strict"]["cached"] and judge_env.calls == 6
