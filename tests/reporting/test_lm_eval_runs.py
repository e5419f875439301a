"""`lmms-plugins compare` / `report` read EleutherAI lm-eval 0.4.x output as well as lmms-eval's
(issue #17, item 3). The folders are built in the layout lm-eval 0.4.13 wrote in a real run of
this package's lm-eval CwI tasks (tests/reporting/runs.py, lm_eval_cwi_run)."""

from __future__ import annotations

import json

from lmms_plugins import compare as C
from lmms_plugins import report as R
from lmms_plugins.runs import LM_EVAL, LMMS_EVAL, load_run
from lmms_plugins.utils import status as st

from .runs import LM_EVAL_DATE, lm_eval_cwi_run, sample_line, write_run

COLOR_COUNT = [True, False, True, True]
FILM_COLOR = [False, False, True, False]


def _lmms_eval_same_items(out, task: str, correct: list[bool], target: str = "3,-2"):
    """lmms-eval's samples of the same items (same ids and gold) with the given answers."""
    lines = []
    for i, ok in enumerate(correct):
        sid = f"{task}_test_{i:03d}"
        acc = st.sample(1.0 if ok else 0.0, st.OK, "", sid, predicted="3,-2" if ok else "8,-2", gold=target, tier="easy")
        lines.append(sample_line(i, {"accuracy": acc, "accuracy_easy": acc}, output=f"<answer>{acc['predicted']}</answer>",
                                 target=target, doc_hash=f"fingerprint-{i}", prompt=f"Find the shift of pair {i}."))
    mean = sum(correct) / len(correct)
    return write_run(out, {task: {"accuracy": mean, "accuracy_easy": mean}}, {task: lines}, model="replay")


def test_an_lm_eval_results_folder_is_read_like_an_lmms_eval_one(tmp_path):
    lm_eval_cwi_run(tmp_path / "lme", {"cwi_color_count": COLOR_COUNT, "cwi_film_color": FILM_COLOR}, group="cwi_color")
    run = load_run(tmp_path / "lme")
    assert run.model == "fake" and run.label == "fake (lme)"  # the model lm-eval names, not its wrapper
    assert set(run.tasks) == {"cwi_color_count", "cwi_film_color", "cwi_color"}
    assert {tr.harness for tr in run.tasks.values()} == {LM_EVAL}
    count = run.tasks["cwi_color_count"]
    assert count.samples_file.name == f"samples_cwi_color_count_{LM_EVAL_DATE}.jsonl" and count.n == 4
    assert count.values["accuracy"] == 0.75 and count.stderr["accuracy"] == 0.25 and count.config["dataset_name"] == "color_count"
    # the group has no samples file: samples_cwi_color_count_<date> is not the group cwi_color's
    group = run.tasks["cwi_color"]
    assert group.samples is None and group.n == 8 and group.values["accuracy"] == 0.5
    line = count.samples[0]
    assert line["input"] == "<image>Find the shift of pair 0 (set-a)."  # the chat prompt's text
    assert line["filtered_resps"] == ["<answer>3,-2</answer>\u2028done"]  # a raw U+2028 does not cut the line
    assert C.sample_values(count.samples, "accuracy") == {f"cwi_color_count_test_{i:03d}": float(ok)
                                                         for i, ok in enumerate(COLOR_COUNT)}
    cmp = C.compare([tmp_path / "lme"])
    acc = next(b for b in cmp.blocks if b.task == "cwi_color_count" and b.metric == "accuracy")
    assert acc.entries[0].value == 75.0 and acc.entries[0].ci_method == "Wilson (3/4)" and acc.entries[0].n == 4
    assert "cwi_color_count" in cmp.text and "fake (lme)" in cmp.text
    p = next(p for p in C.compare([tmp_path / "lme", tmp_path / "lme"]).paired if p.task == "cwi_color" and p.metric == "accuracy")
    # a group has no samples file: it is tested on its tasks' samples, pooled (the same run twice: no change)
    assert p.test == "McNemar exact" and p.n_shared == 8 and p.discordant == (0, 0)


def test_a_results_file_given_directly_is_read_by_the_cli(tmp_path, capsys):
    path = lm_eval_cwi_run(tmp_path / "lme", {"cwi_film_color": FILM_COLOR})
    assert C.main([str(path), "--no-chart", "--out", str(tmp_path / "cmp")]) == 0
    out = capsys.readouterr().out
    assert "cwi_film_color" in out and "25.0" in out
    assert load_run(path).tasks["cwi_film_color"].samples_file is not None


def test_lm_eval_and_lmms_eval_runs_of_the_same_items_are_paired_by_id_and_target(tmp_path):
    lm_eval_cwi_run(tmp_path / "lme", {"cwi_color_count": COLOR_COUNT})
    # lmms-eval: the same items, item 1 now right and item 3 now wrong
    _lmms_eval_same_items(tmp_path / "lmms", "cwi_color_count", [True, True, True, False])
    cmp = C.compare([tmp_path / "lmms", tmp_path / "lme"], labels=["lmms-eval", "lm-eval"])
    assert cmp.runs[0].tasks["cwi_color_count"].harness == LMMS_EVAL
    p = next(p for p in cmp.paired if p.metric == "accuracy")
    assert p.test == "McNemar exact" and p.n_shared == 4 and p.discordant == (1, 1) and p.dropped == 0
    assert p.mean_a == 75.0 and p.mean_b == 75.0
    assert "4 samples of an lm-eval and an lmms-eval run paired by id and target" in p.note
    # a different gold for the same id: those samples are not the same items
    _lmms_eval_same_items(tmp_path / "other", "cwi_color_count", [True] * 4, target="1,1")
    p = next(p for p in C.compare([tmp_path / "other", tmp_path / "lme"]).paired if p.metric == "accuracy")
    assert p.n_shared == 0 and p.dropped == 4 and "differing: target" in p.note


def test_two_lm_eval_runs_are_paired_on_the_docs_lm_eval_hashed(tmp_path):
    lm_eval_cwi_run(tmp_path / "a", {"cwi_color_count": COLOR_COUNT})
    lm_eval_cwi_run(tmp_path / "b", {"cwi_color_count": [True] * 4})
    lm_eval_cwi_run(tmp_path / "c", {"cwi_color_count": [True] * 4}, data="set-b")  # same ids, other docs
    same = next(p for p in C.compare([tmp_path / "a", tmp_path / "b"]).paired if p.metric == "accuracy")
    assert same.n_shared == 4 and same.discordant == (0, 1) and same.note == ""
    other = next(p for p in C.compare([tmp_path / "a", tmp_path / "c"]).paired if p.metric == "accuracy")
    assert other.n_shared == 0 and other.dropped == 4
    assert other.note.startswith("the runs share no sample with the same inputs") and "differing: prompt" in other.note


def test_runs_of_different_task_versions_are_compared_with_a_warning(tmp_path):
    lm_eval_cwi_run(tmp_path / "old", {"cwi_color_count": COLOR_COUNT}, version=1.0)
    lm_eval_cwi_run(tmp_path / "new", {"cwi_color_count": [True] * 4})
    lm_eval_cwi_run(tmp_path / "new2", {"cwi_color_count": COLOR_COUNT})
    mixed = C.compare([tmp_path / "old", tmp_path / "new"])
    said = [w for w in mixed.warnings if "different task versions" in w]
    assert len(said) == 1 and said[0].startswith("cwi_color_count:") and "1.0" in said[0] and "2.0" in said[0]
    assert any(b.task == "cwi_color_count" for b in mixed.blocks)  # still compared
    assert not [w for w in C.compare([tmp_path / "new", tmp_path / "new2"]).warnings if "task versions" in w]

    # a results file whose metadata is not a mapping has no version: compared, no warning, no crash
    from lmms_plugins.runs import load_run, task_version

    bad = next((tmp_path / "new2").rglob("results_*.json"))
    data = json.loads(bad.read_text())
    data["configs"]["cwi_color_count"]["metadata"] = "v2"
    bad.write_text(json.dumps(data))
    assert task_version(load_run(tmp_path / "new2").tasks["cwi_color_count"]) is None
    assert not [w for w in C.compare([tmp_path / "new", tmp_path / "new2"]).warnings if "task versions" in w]


def test_a_memory_address_in_an_lm_eval_doc_does_not_make_the_same_items_differ(tmp_path):
    # lm-eval logs (and hashes) an object without a JSON form by its str(), address included
    image = "<PIL.PngImagePlugin.PngImageFile image mode=RGB size=64x64 at 0x{}>"
    lm_eval_cwi_run(tmp_path / "a", {"cwi_color_count": COLOR_COUNT}, doc_image=image.format("7F3A2C1D0E50"))
    lm_eval_cwi_run(tmp_path / "b", {"cwi_color_count": COLOR_COUNT}, doc_image=image.format("7F00DEADBEEF"))
    lm_eval_cwi_run(tmp_path / "c", {"cwi_color_count": COLOR_COUNT}, doc_image=image.format("7F00DEADBEEF").replace("64x64", "32x32"))
    a, b = (load_run(tmp_path / x).tasks["cwi_color_count"].samples[0]["doc_hash"] for x in "ab")
    assert a != b  # lm-eval's own hashes differ
    p = next(p for p in C.compare([tmp_path / "a", tmp_path / "b"]).paired if p.metric == "accuracy")
    assert p.n_shared == 4 and p.dropped == 0 and p.note == ""
    p = next(p for p in C.compare([tmp_path / "a", tmp_path / "c"]).paired if p.metric == "accuracy")  # another image
    assert p.n_shared == 0 and p.dropped == 4 and "doc fields the samples file does not show" in p.note


def test_metric_dicts_logged_as_python_text_are_read(tmp_path):
    lm_eval_cwi_run(tmp_path / "a", {"cwi_color_count": COLOR_COUNT}, str_metrics=True)
    tr = load_run(tmp_path / "a").tasks["cwi_color_count"]
    assert tr.samples[0]["accuracy"]["id"] == "cwi_color_count_test_000"
    assert C.sample_values(tr.samples, "accuracy") == {f"cwi_color_count_test_{i:03d}": float(ok) for i, ok in enumerate(COLOR_COUNT)}


def test_report_shows_an_lm_eval_run(tmp_path):
    lm_eval_cwi_run(tmp_path / "lme", {"cwi_color_count": COLOR_COUNT})
    page = R.render(load_run(tmp_path / "lme"))
    assert "Find the shift of pair 1 (set-a)." in page and "cwi_color_count_test_001" in page and "dx off by 5" in page
