"""The official GRADE evaluator's result files, as it writes them, are accepted as verdicts (issue 19)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_fixtures import CASES, make_dataset, write_png  # noqa: E402

from lmms_plugins.tasks.grade import hooks  # noqa: E402
from lmms_plugins.utils.judge_client import reset_shared_clients  # noqa: E402
from lmms_plugins.tasks.grade.records import load_records  # noqa: E402
from lmms_plugins.tasks.grade.verdicts import VerdictFileError, load_verdicts  # noqa: E402
from lmms_plugins.tasks.grade.settings import SETTINGS  # noqa: E402
from lmms_plugins.utils.settings import resolve  # noqa: E402


def reasoning_result(case, yes=None) -> dict:
    """reasoning.py's file: the judge's answers with every id overwritten by the task id, and R."""
    yes = case.yes if yes is None else yes
    vqa = [{"question": q, "answer": "Yes" if qid in yes else "No", "reason": "seen", "id": case.task_id, "score": w}
           for qid, q, w in case.questions]
    return {"vqa": vqa, "score": sum(w for qid, _, w in case.questions if qid in yes)}


def consis_result(case) -> dict:
    score = "none" if case.consistency == "none" else case.C
    return {"Instruction": f"Edit {case.task_id}", "Final Score": score, "Reason": "r", "task_id": case.task_id}


def read_result(case) -> dict:
    return {"Final Score": case.L, "Reason": "r", "task_id": case.task_id}


def write_folder(folder: Path, results) -> Path:
    folder.mkdir(parents=True)
    for tid, result in results:
        (folder / f"{tid}.json").write_text(json.dumps(result, indent=4))
    return folder


@pytest.fixture
def docs(tmp_path, monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_JUDGE_BASE_URL", raising=False)
    reset_shared_clients()
    return {d["task_id"]: d for d in load_records(make_dataset(tmp_path / "GRADE"))}


def test_the_three_official_result_folders_give_R_C_L_with_no_judge(docs, tmp_path):
    run = tmp_path / "model_x"
    reasoning = write_folder(run / "gemini_flash_eval_1", [(c.task_id, reasoning_result(c)) for c in CASES])
    consis = write_folder(run / "gemini_flash_consis_4", [(c.task_id, consis_result(c)) for c in CASES])
    read = write_folder(run / "gemini_flash_read_4", [(c.task_id, read_result(c)) for c in CASES])
    # the task setting, as the task class hands it to the scorer
    settings = resolve(SETTINGS, {"verdicts": os.pathsep.join(map(str, (reasoning, consis, read)))})
    for case in CASES:
        rec = hooks.process_results(docs[case.task_id], ["no image needed"], settings=settings)["grade_strict"]
        expected_r = sum(w for qid, _, w in case.questions if qid in case.yes)
        assert rec["status"] == "ok", rec
        assert (rec["R"], rec["C"], rec["L"]) == (pytest.approx(expected_r), case.C, case.L)


def test_merged_official_arrays_and_full_result_file(tmp_path):
    case = CASES[0]  # physics_mech_001, consistency overall
    arrays = tmp_path / "run"
    arrays.mkdir()
    (arrays / "gemini_flash_eval_1.json").write_text(json.dumps([reasoning_result(c) for c in CASES]))
    (arrays / "gemini_flash_consis_4.json").write_text(json.dumps([consis_result(c) for c in CASES]))
    (arrays / "gemini_flash_read_4.json").write_text(json.dumps([read_result(c) for c in CASES]))
    merged = load_verdicts(os.pathsep.join(str(arrays / n) for n in
                                           ("gemini_flash_eval_1.json", "gemini_flash_consis_4.json", "gemini_flash_read_4.json")))
    v = merged[case.task_id]
    assert (v.R, v.C, v.L) == (1.0, 2, 2)
    assert merged["engineering_views_001"].C_none

    full = tmp_path / "full_result_gemini_flash.json"
    full.write_text(json.dumps([{"task_id": c.task_id, "reasoning": reasoning_result(c), "consis": consis_result(c),
                                 "read": read_result(c), "acc_score": 0, "relax_score": 0} for c in CASES]))
    from_full = load_verdicts(full)
    assert {t: (x.R, x.C, x.C_none, x.L) for t, x in from_full.items()} == {
        t: (x.R, x.C, x.C_none, x.L) for t, x in merged.items()}


def test_a_bare_final_score_is_consistency_or_readability_by_its_source_or_shape(tmp_path):
    case = CASES[5]  # eco_macro_001: C 2, L 1
    # without a telling file name: consis.py always writes "Instruction", read.py never does
    plain = tmp_path / "a.jsonl"
    plain.write_text(json.dumps(consis_result(case)) + "\n" + json.dumps(read_result(case)) + "\n")
    v = load_verdicts(plain)[case.task_id]
    assert (v.C, v.L) == (2, 1)
    named = tmp_path / "my_read_scores.jsonl"  # the name says readability, whatever the keys
    named.write_text(json.dumps({**read_result(case), "Instruction": "x"}) + "\n")
    assert load_verdicts(named)[case.task_id].L == 1 and load_verdicts(named)[case.task_id].C is None


def test_the_official_failure_mark_is_no_verdict_so_the_sample_stays_pending(docs, tmp_path):
    case = CASES[5]
    folder = write_folder(tmp_path / "gemini_flash_read_4", [(case.task_id, {"Final Score": "bad response", "Reason": "bad response",
                                                                             "task_id": case.task_id})])
    reasoning = write_folder(tmp_path / "gemini_flash_eval_1", [(case.task_id, reasoning_result(case))])
    consis = write_folder(tmp_path / "gemini_flash_consis_4", [(case.task_id, consis_result(case))])
    settings = resolve(SETTINGS, {"verdicts": os.pathsep.join(map(str, (reasoning, consis, folder)))})
    edited = write_png(tmp_path / "edit.png", (64, 48), case.colour)
    rec = hooks.process_results(docs[case.task_id], [json.dumps({"text": "", "images": [str(edited)]})], settings)["grade_strict"]
    assert rec["status"] == "missing_verdict" and rec["L"] is None and "L" in rec["reason"]


def test_an_official_result_without_any_task_id_is_an_error_naming_the_file(tmp_path):
    bad = tmp_path / "gemini_flash_read_4.json"
    bad.write_text(json.dumps([{"Final Score": 2, "Reason": "r"}]))
    with pytest.raises(VerdictFileError, match=r"gemini_flash_read_4.json\[1\].*task_id"):
        load_verdicts(bad)
