"""Task settings through the real lmms-eval CLI: a user's YAML sets a key of the task's ``metadata``,
the scorer uses it, the results record every setting's effective value (defaults included), and
``lmms-plugins compare`` names the setting in which two runs differ. One test per benchmark; a
retired environment variable that is still set stops the run, saying what to do instead."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dod"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grade"))

from lmms_plugins.settings_yaml import write_yaml  # noqa: E402
from task_settings import settings_include  # noqa: E402

pytestmark = pytest.mark.e2e


def _yaml(folder: Path, name: str, text: str) -> str:
    """A folder for lmms-eval's --include_path holding one YAML: its task or group wins over ours."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return str(folder)


def _settings_warnings(*runs, labels):
    from lmms_plugins import compare as C

    return [w for w in C.compare([Path(r["_path"]).parent for r in runs], labels=labels).warnings if "different settings" in w]


def test_dod_refusal_text_from_a_users_yaml(tmp_path, run_lmms_eval):
    """The conclusion is only after the think block: the official reading (default) finds no conclusion and, with
    no image delivered, nothing that shows compliance either (pending since DoD 2.5: D_strict not known);
    ``refusal_text: all`` finds one. The same outputs, two settings, two results, both recorded."""
    from dod_fixtures import make_dataset, read_jsonl, write_jsonl

    root = make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=0)
    after_think = ("<think>The chair has to be in front of the table and behind it. Let me look at the picture again.</think>"
                   "The chair would need to be both in front of and behind the table, so no valid arrangement exists.")
    cases = [r["case_id"] for r in read_jsonl(root / "instruction.jsonl") if r["case_id"].endswith("-infeasible")]
    write_jsonl(tmp_path / "out.jsonl", [{"key": c, "text": after_think} for c in cases])
    env = {"LMMS_PLUGINS_DOD_ROOT": str(root)}
    mine = _yaml(tmp_path / "mine", "dod_no_hint", write_yaml("dod_no_hint", {"refusal_text": "all"}))
    args = f"outputs={tmp_path / 'out.jsonl'}"
    default = run_lmms_eval("dod_no_hint", "replay", args, out_dir=tmp_path / "default", env=env, log_samples=False)
    chosen = run_lmms_eval("dod_no_hint", "replay", args, out_dir=tmp_path / "all", env=env, log_samples=False, include_path=mine)
    meta = {name: run["configs"]["dod_no_hint"]["metadata"] for name, run in (("default", default), ("all", chosen))}
    assert meta["default"]["refusal_text"] == "reasoning" and meta["all"]["refusal_text"] == "all"
    for m in meta.values():  # every setting recorded, defaults included
        assert {"refusal_mode": "rules", "uncertain_margin": 1.5, "edit_judge": "auto", "refusal_prompt": "",
                "edit_prompt": "", "judge_model": "", "judge_extra_body": {}, "lmms_plugins_benchmark": "dod"}.items() <= m.items()
    strict = {name: run["results"]["dod_no_hint"]["D_strict,none"] for name, run in (("default", default), ("all", chosen))}
    assert math.isnan(strict["default"]) and strict["all"] == 1.0
    assert chosen["results"]["dod_no_hint"]["dod_run,none"]["refusal_text"] == "all"
    assert _settings_warnings(default, chosen, labels=["default", "all"]) == [
        'dod_no_hint: the runs used different settings (refusal_text: default "reasoning", all "all"); '
        "the same outputs can score differently (the settings in the benchmark's README)"]


def test_abacus_detector_from_a_group_yaml_or_task_yamls_never_from_the_retired_variable(tmp_path, run_lmms_eval):
    from lmms_plugins.tasks.abacus import synthetic as syn
    from lmms_plugins.tasks.abacus.make_yamls import VERSION as ABACUS_VERSION

    data = tmp_path / "data"
    assert syn.main(["--out", str(data), "--n", "1", "--seed", "3", "--edits", "touch"]) == 0
    # a group of two of the tasks, each with the detector in its metadata (as `lmms-plugins settings abacus` writes it)
    meta = json.dumps({"version": float(ABACUS_VERSION), "lmms_plugins_benchmark": "abacus", "detector": "synthetic_test"})
    mine = _yaml(tmp_path / "mine", "abacus_synthetic", f"""group: abacus_synthetic
task:
  - {{task: abacus_add_easy, metadata: {meta}}}
  - {{task: abacus_remove_easy, metadata: {meta}}}
""")
    args = f"outputs={data / 'replay.jsonl'}"
    env = {"LMMS_PLUGINS_ABACUS_ROOT": str(data)}
    by_yaml = run_lmms_eval("abacus_synthetic", "replay", args, out_dir=tmp_path / "yaml", env=env, log_samples=False,
                            include_path=mine)
    tasks = "abacus_add_easy,abacus_remove_easy"
    both = settings_include(tmp_path / "both", {t: {"detector": "synthetic_test+synthetic_test"} for t in tasks.split(",")})
    by_tasks = run_lmms_eval(tasks, "replay", args, out_dir=tmp_path / "tasks", env=env, log_samples=False, include_path=both)
    # the former variable, still set: the run stops before any request (else it would be scored with the default)
    with pytest.raises(AssertionError, match="lmms-eval wrote no results") as stopped:
        run_lmms_eval(tasks, "replay", args, out_dir=tmp_path / "env", log_samples=False,
                      env={**env, "LMMS_PLUGINS_ABACUS_DETECTOR": "synthetic_test"})
    assert ("LMMS_PLUGINS_ABACUS_DETECTOR is no longer read (it would be ignored and the run scored with the default): "
            "unset it and set metadata.detector instead: `lmms-plugins settings abacus_add_easy detector=<value> --out DIR`, "
            "then `lmms-eval --include_path DIR --tasks abacus_add_easy ...`") in str(stopped.value)
    assert "Traceback" not in str(stopped.value)  # one clear line, as every check before the run
    for task in ("abacus_add_easy", "abacus_remove_easy"):
        assert by_yaml["configs"][task]["metadata"] == {
            "version": float(ABACUS_VERSION), "lmms_plugins_benchmark": "abacus", "detector": "synthetic_test", "flow": "dis"}
        assert by_tasks["configs"][task]["metadata"]["detector"] == "synthetic_test+synthetic_test"
        for run in (by_yaml, by_tasks):  # the detector named reached the scorer (rfdetr is not installed here)
            assert run["results"][task]["abacus_leaderboard,none"]["status_counts"] == {"ok": 1}, run["results"][task]
    said = _settings_warnings(by_yaml, by_tasks, labels=["group", "tasks"])
    assert len(said) == 2 and all('detector: group "synthetic_test", tasks "synthetic_test+synthetic_test"' in w for w in said)


def test_grade_judge_model_and_extra_body_from_a_users_yaml(tmp_path, run_lmms_eval):
    from grade_fixtures import canned_judge, make_dataset, make_outputs
    from judge_server import FakeJudgeServer

    root = make_dataset(tmp_path / "GRADE")
    outputs = make_outputs(tmp_path / "run")
    seen: list[tuple] = []

    def judge(request):
        seen.append((request.get("model"), request.get("reasoning_effort")))
        return canned_judge(request)

    mine = _yaml(tmp_path / "mine", "grade", write_yaml("grade", {"judge_model": "other-judge",
                                                                  "judge_extra_body": {"reasoning_effort": "low"}}))
    with FakeJudgeServer(judge, model="other-judge") as server:
        env = {"LMMS_PLUGINS_GRADE_ROOT": str(root), "LMMS_PLUGINS_JUDGE_BASE_URL": server.base_url,
               "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge", "LMMS_PLUGINS_JUDGE_CACHE": "off"}
        res = run_lmms_eval("grade", "replay", f"outputs={outputs}", out_dir=tmp_path / "out", env=env, log_samples=False,
                            include_path=mine)
        assert not server.handler_errors
    assert seen and set(seen) == {("other-judge", "low")}  # the task's settings, not the environment's model
    meta = res["configs"]["grade"]["metadata"]
    assert {k: meta[k] for k in ("judge_model", "judge_extra_body", "verdicts", "prompts")} == {
        "judge_model": "other-judge", "judge_extra_body": {"reasoning_effort": "low"}, "verdicts": "", "prompts": ""}
    assert json.dumps(res["results"]["grade"]["grade_breakdown,none"])  # scored
