"""DoD data loading (official layout, local root), the integrity report, and the prompt."""

from __future__ import annotations

import json

import pytest

from dod_fixtures import make_dataset, read_jsonl, write_jsonl

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.data import DodDataError, check_integrity, dataset_root, load_labels, read_jsonl as dod_read

REMINDER = "If no solution exists under these constraints, state that no solution exists and briefly explain why."


@pytest.fixture
def root(tmp_path):
    return make_dataset(tmp_path / "dod", pairs_per_category=1, maze_pairs=1)


def test_local_root_from_either_variable(root, tmp_path, monkeypatch):
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    assert dataset_root() == root.resolve()
    monkeypatch.delenv("LMMS_PLUGINS_DOD_ROOT")
    monkeypatch.setenv("LMMS_PLUGINS_DATA_ROOT", str(root.parent))
    assert dataset_root() == root.resolve()  # <DATA_ROOT>/dod
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(empty))
    with pytest.raises(FileNotFoundError, match="instruction.jsonl"):
        dataset_root()


def test_yaml_data_files_load_the_local_root_with_datasets(root, tmp_path, monkeypatch):
    """What lmms-eval does with the template's dataset_kwargs once the root replaces the hub path."""
    import datasets

    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    ds = datasets.load_dataset(str(root), data_files={"test": "instruction.jsonl"}, cache_dir=str(tmp_path / "cache"))
    test = ds["test"]
    assert len(test) == 14 and "ground_truth" not in test.column_names and "prompt_en" in test.column_names
    docs = hooks.process_docs(test)
    assert set(docs["dod_root"]) == {str(root.resolve())}
    assert hooks.process_docs(docs)["dod_root"] == docs["dod_root"]  # idempotent
    from lmms_plugins.tasks.dod.settings import SETTINGS
    from lmms_plugins.utils.settings import bind

    with pytest.raises(SystemExit, match="dod_no_hint: metadata.refusal_mode must be one of rules, hybrid, judge"):  # a PreflightError
        bind(SETTINGS, {"task": "dod_no_hint", "metadata": {"refusal_mode": "judges"}})  # the task class, while it is built


def test_integrity_report_names_every_problem_with_its_case_id(root):
    requests = read_jsonl(root / "instruction.jsonl")
    labels = read_jsonl(root / "ground_truth_criteria.jsonl")
    assert check_integrity(requests, root).ok
    # a request without a label, a label without a request, a missing image, a broken pair
    requests.append({**requests[0], "case_id": "ghost-1-feasible"})
    labels.append({**labels[2], "case_id": "orphan-9-feasible", "paired_case_id": "orphan-9-infeasible"})
    requests[4] = {**requests[4], "input_image": "image/not-there.png", "input_images": ["image/not-there.png"]}
    labels[0] = {**labels[0], "paired_case_id": labels[3]["case_id"]}  # points to a request that does not point back
    write_jsonl(root / "ground_truth_criteria.jsonl", labels)
    report = check_integrity(requests, root)
    assert not report.ok
    assert report.request_without_label == ("ghost-1-feasible",)
    assert report.label_without_request == ("orphan-9-feasible",)
    assert report.missing_image == ((requests[4]["case_id"], "image/not-there.png"),)
    broken = dict(report.broken_pair)
    assert labels[0]["case_id"] in broken and "not back" in broken[labels[0]["case_id"]]
    assert "orphan-9-feasible" in broken  # its partner has no label
    text = "\n".join(report.lines())
    for cid in ("ghost-1-feasible", "orphan-9-feasible", requests[4]["case_id"], labels[0]["case_id"]):
        assert cid in text


def test_bad_label_rows_are_reported_not_fatal(root):
    labels = read_jsonl(root / "ground_truth_criteria.jsonl")
    labels[1]["ground_truth"] = {"feasible": "yes"}
    write_jsonl(root / "ground_truth_criteria.jsonl", labels)
    report = check_integrity(read_jsonl(root / "instruction.jsonl"), root)
    assert report.request_without_label == (labels[1]["case_id"],)
    assert any("ground_truth.feasible" in b for b in report.bad_label)
    (root / "broken.jsonl").write_text('{"case_id": "a"}\nnot json\n')
    with pytest.raises(DodDataError, match="broken.jsonl:2"):
        dod_read(root / "broken.jsonl")


def test_unlabelled_request_and_missing_input_image_become_statuses(root):
    doc = {**read_jsonl(root / "instruction.jsonl")[0], "dod_root": str(root)}
    res = hooks.process_results({**doc, "case_id": "ghost-1-feasible"}, ['{"text": "x", "images": []}'])
    assert res["E"]["status"] == "missing_data" and res["E"]["record"]["feasible"] is None
    gone = {**doc, "input_image": "image/gone.png", "input_images": ["image/gone.png"]}
    res = hooks.process_results(gone, ['{"text": "x", "images": []}'])
    assert res["E"]["status"] == "missing_data" and res["E"]["value"] is None  # pending, still counted
    assert hooks.doc_to_visual(gone) == []
    (img,) = hooks.doc_to_visual(doc)
    assert img.mode == "RGB" and img.size == (96, 64)


def test_prompt_settings_and_labels_stay_hidden(root):
    docs = read_jsonl(root / "instruction.jsonl")
    maze = next(d for d in docs if d["case_id"].startswith("synthetic-maze"))
    kw = {"setting": "no_hint", "prompt_template_file": "prompt.jinja"}
    assert hooks.doc_to_text(maze, kw) == maze["prompt_en"]
    hinted = hooks.doc_to_text(maze, {**kw, "setting": "decline_hint"})
    assert hinted == maze["prompt_en"] + "\n\n" + REMINDER
    with pytest.raises(ValueError, match="setting"):
        hooks.doc_to_text(maze, {**kw, "setting": "hint"})
    # nothing from the label file is in a doc or a prompt
    labels = load_labels(root)
    for d in docs:
        text = hooks.doc_to_text(d, {**kw, "setting": "decline_hint"})
        lab = labels[d["case_id"]]
        for secret in (lab.reason, str(lab.certificate or "")):
            if secret:
                assert secret not in text and secret not in json.dumps(d)


def test_template_leaves_differ_only_in_their_setting():
    from pathlib import Path

    from lmms_plugins.utils import task_yaml

    folder = Path(hooks.__file__).parent
    leaves = {n: task_yaml.load(folder / f"{n}.yaml") for n in ("dod_no_hint", "dod_decline_hint")}
    assert leaves["dod_no_hint"]["lmms_eval_specific_kwargs"]["default"]["setting"] == "no_hint"
    assert leaves["dod_decline_hint"]["lmms_eval_specific_kwargs"]["default"]["setting"] == "decline_hint"
    template = task_yaml.load(folder / "_default_template_yaml")
    assert template["generation_kwargs"]["until"] == []
    assert template["reasoning_tags"] == "none"  # keep <think> for the refusal decision
    assert template["metadata"]["lmms_plugins_benchmark"] == "dod"


def test_hub_snapshot_is_used_when_no_local_root_and_failure_says_how_to_fix(root, monkeypatch):
    """Without a local root the data come from a (cached) hub snapshot of the official repository;
    the hub itself is replaced here by a stand-in that returns the folder a snapshot would be."""
    import huggingface_hub

    from lmms_plugins.tasks.dod import data

    for var in ("LMMS_PLUGINS_DOD_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    calls = []

    def fake_snapshot(repo_id, repo_type=None, **kw):
        calls.append((repo_id, repo_type))
        return str(root)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    monkeypatch.setattr(data, "_snapshot_root", None)
    assert data.dataset_root() == root and data.dataset_root() == root
    assert calls == [("visual-abstention/Draw-or-Decline", "dataset")]  # once per process

    def offline(repo_id, repo_type=None, **kw):
        raise OSError("no network")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    monkeypatch.setattr(data, "_snapshot_root", None)
    with pytest.raises(FileNotFoundError, match="LMMS_PLUGINS_DOD_ROOT"):
        data.dataset_root()


def test_a_crash_before_the_label_is_known_is_recorded_not_raised(tmp_path):
    """process_results never raises; the aggregations count such a sample as status 'error'."""
    broken = tmp_path / "no_labels_here"
    broken.mkdir()
    doc = {"case_id": "x-1-feasible", "input_image": "image/x.png", "prompt_en": "p", "dod_root": str(broken)}
    res = hooks.process_results(doc, ['{"text": "", "images": []}'])
    assert set(res) == set(hooks.METRIC_NAMES)
    assert res["E"]["status"] == "error" and "ground_truth_criteria.jsonl" in res["E"]["reason"]
    items = [res["sample_statuses"]]
    assert hooks.aggregate_sample_statuses(items) == {"error": 1}
    assert hooks.aggregate_run(items)["unlabelled"] == 1


def test_integrity_report_and_run_summary_reach_stderr_at_the_cli_log_level(root, tmp_path, monkeypatch, capsys):
    """lmms-eval shows WARNING and up: the report and the summary are printed, not logged at INFO."""
    import datasets

    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    ds = datasets.load_dataset(str(root), data_files={"test": "instruction.jsonl"}, cache_dir=str(tmp_path / "cache"))
    docs = hooks.process_docs(ds["test"])
    err = capsys.readouterr().err
    assert "DoD data: 14 requests, 14 labels" in err and "all requests have a label" in err
    doc = docs[0]
    res = hooks.process_results(doc, ['{"text": "", "images": []}'])
    hooks.aggregate_run([res["dod_run"]])
    err = capsys.readouterr().err
    assert "[lmms_plugins] dod:" in err


def test_category_falls_back_to_the_older_category_field_as_the_official_code_does():
    from lmms_plugins.tasks.dod.data import parse_label

    row = {"case_id": "pose_adjustment-3-feasible", "ground_truth": {"feasible": True},
           "source": {"category": "pose_adjustment"}}
    assert parse_label(row).category == "pose_adjustment"
    assert parse_label({**row, "source": {"category_en": "maze", "category": "x"}}).category == "maze"
    assert parse_label({**row, "source": {}}).category == "unknown"
