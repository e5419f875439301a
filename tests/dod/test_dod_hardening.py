"""DoD regressions of issue #15: a bad output image is ``bad_image`` with the decoder's reason (6),
on mazes and on real-world requests with a judge (no call made); a path outside the allowed
folders is never opened (8)."""

from __future__ import annotations

import json

import pytest

from dod_fixtures import make_dataset, png, read_jsonl
from judge_server import FakeJudgeServer

from lmms_plugins.tasks.dod import hooks

BAD_FILES = {
    "empty": b"",
    "junk": b"this is not an image",
    "truncated_png": None,  # made from a real PNG below
}


@pytest.fixture(scope="module")
def dod(tmp_path_factory):
    root = make_dataset(tmp_path_factory.mktemp("dod") / "dod", pairs_per_category=1, maze_pairs=1)
    docs = {d["case_id"]: {**d, "dod_root": str(root)} for d in read_jsonl(root / "instruction.jsonl")}
    return root, docs


@pytest.fixture
def no_judge(monkeypatch):
    for var in ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)


def bad_image(tmp_path, kind: str):
    path = tmp_path / f"{kind}.png"
    if kind == "truncated_png":
        good = png(tmp_path / "good.png", (10, 200, 10), size=(256, 256))
        data = good.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(BAD_FILES[kind])
    return path


def answer(path, text="Done.") -> str:
    return json.dumps({"text": text, "images": [str(path)]})


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_dod_bad_image_on_a_maze_is_bad_image_not_unreadable_grid(dod, no_judge, tmp_path, kind):
    _, docs = dod
    res = hooks.process_results(docs["synthetic-maze-001-feasible"], [answer(bad_image(tmp_path, kind))])
    e = res["E"]
    assert e["status"] == "bad_image" and e["value"] is None, e
    assert kind + ".png" in e["reason"] and "unreadable_grid" not in e["reason"]
    assert e["record"]["edit_ok"] is None and e["record"]["has_image"] is True


def test_dod_bad_image_on_an_infeasible_maze_draws_no_conclusion(dod, no_judge, tmp_path):
    _, docs = dod
    rec = hooks.score_sample(docs["synthetic-maze-001-infeasible"], answer(bad_image(tmp_path, "junk"), "It cannot be done."))
    assert rec.status == "bad_image" and rec.maze_drew_path is None and "junk.png" in rec.reason


@pytest.fixture
def accepting_edit_judge(monkeypatch):
    """A loopback editing judge that approves every edit, configured for the rules-mode refusal reader."""
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_CACHE", "off")
    with FakeJudgeServer(lambda req: '{"task_image_correct": true, "unrelated_content_preserved": true}') as server:
        monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", server.base_url)
        yield server


@pytest.mark.parametrize("kind", ["junk", "truncated_png"])
def test_dod_bad_image_with_the_edit_judge_is_bad_image_and_costs_no_call(dod, tmp_path, accepting_edit_judge, kind):
    _, docs = dod
    res = hooks.process_results(docs["pose_adjustment-1-feasible"], [answer(bad_image(tmp_path, kind))])
    assert accepting_edit_judge.calls == 0
    assert res["E"]["status"] == "bad_image" and res["E"]["value"] is None, res["E"]
    assert kind in res["E"]["reason"]


def test_dod_good_image_with_the_edit_judge_still_asks(dod, tmp_path, accepting_edit_judge):
    _, docs = dod
    res = hooks.process_results(docs["pose_adjustment-1-feasible"], [answer(png(tmp_path / "ok.png", (9, 9, 9)))])
    assert accepting_edit_judge.calls == 1
    assert res["E"]["status"] == "ok" and res["E"]["value"] == 1.0


def test_dod_maze_image_over_the_memory_bound_is_bad_image(dod, no_judge, tmp_path, monkeypatch):
    """The maze verifier decodes at full size, so the check does too (a JPEG is not drafted small)."""
    from PIL import Image

    _, docs = dod
    big = tmp_path / "big.jpg"
    Image.new("RGB", (3000, 3000), (200, 200, 200)).save(big)
    monkeypatch.setenv("LMMS_PLUGINS_MAX_IMAGE_MB", "32")  # 3000x3000 RGB needs ~69 MB to decode; drafted to 1500x1500, ~17 MB
    e = hooks.process_results(docs["synthetic-maze-001-feasible"], [answer(big)])["E"]
    assert e["status"] == "bad_image" and "LMMS_PLUGINS_MAX_IMAGE_MB" in e["reason"], e


def test_dod_output_path_outside_allowed_folders_is_missing_image(dod, no_judge):
    _, docs = dod
    res = hooks.process_results(docs["synthetic-maze-001-feasible"], [answer("/etc/passwd")])
    assert res["E"]["status"] == "missing_image"
    assert "outside the allowed image folders" in res["E"]["reason"]


@pytest.mark.e2e
def test_dod_log_samples_keeps_every_line_with_lone_surrogates(dod, run_lmms_eval, tmp_path):
    """#15.5 through the real CLI: a refusal whose sentence carries a "\\ud800" escape becomes the
    record's evidence; lmms-eval's --log_samples used to drop such a line with only a warning."""
    root, docs = dod
    outputs = tmp_path / "run.jsonl"
    text = "I checked the request. Therefore \ud800 no valid solution exists \udfff."
    outputs.write_text("".join(json.dumps({"key": cid, "text": text}) + "\n" for cid in docs), encoding="utf-8")
    res = run_lmms_eval("dod_no_hint", "replay", f"outputs={outputs}", out_dir=tmp_path / "out",
                        env={"LMMS_PLUGINS_DOD_ROOT": str(root), "LMMS_PLUGINS_PREFLIGHT": "off"})
    lines = res["_samples"]["dod_no_hint"]
    assert len(lines) == len(docs)
    assert any("\ufffd" in json.dumps(line, ensure_ascii=False) for line in lines)
