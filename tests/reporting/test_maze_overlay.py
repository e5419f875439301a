"""The DoD maze overlay (#16.9): what the verifier read, drawn by the report on the output image.

Real generated mazes, the real DoD hooks (process_results) and the real verifier; the overlay is
kept on the full record (``dod_run``) only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmms_plugins import report as R
from lmms_plugins.demo_flawed import _draw, _paths
from lmms_plugins.utils.jsonl import read_jsonl

from .runs import sample_line, write_run


@pytest.fixture(scope="module")
def mazes(tmp_path_factory) -> Path:
    from lmms_plugins.tasks.dod.maze.generate import main as make_mazes

    root = tmp_path_factory.mktemp("dod")
    assert make_mazes(["--pairs", "1", "--sizes", "9", "--seed", "3", "--out", str(root)]) == 0
    return root


def _doc(root: Path, case: str) -> dict:
    row = next(r for r in read_jsonl(root / "instruction.jsonl") if r["case_id"] == case)
    return {**row, "prompt_en": row.get("prompt_en") or row["instruction_en"], "dod_root": str(root)}


def _score(root: Path, case: str, image: Path) -> dict:
    from lmms_plugins.tasks.dod import hooks
    from lmms_plugins.tasks.dod.settings import SETTINGS
    from lmms_plugins.utils.settings import resolve

    output = json.dumps({"text": "<think>route</think>\nHere is the path.", "images": [str(image)]})
    return hooks.process_results(_doc(root, case), [output], settings=resolve(SETTINGS, {"edit_judge": "off"})), output


def test_overlay_shows_cells_path_and_reason(mazes, tmp_path):
    case = "synthetic-maze-001-feasible"
    inp = mazes / _doc(mazes, case)["input_image"]
    legal, _straight = _paths(inp)
    good = _draw(inp, legal, tmp_path / "good.png")
    short = _draw(inp, legal[:-1], tmp_path / "short.png")  # stops one cell before the end

    ok, ok_out = _score(mazes, case, good)
    ov = ok["dod_run"]["record"]["overlay"]
    kinds = [s["kind"] for s in ov["shapes"]]
    assert ok["E"]["value"] == 1.0 and ov["caption"] == "maze verifier: ok"
    assert kinds == ["box", "cells", "polyline"]
    path_cells = next(s for s in ov["shapes"] if s["kind"] == "cells")["cells"]
    assert path_cells == [list(c) for c in legal]  # in path order
    assert len(next(s for s in ov["shapes"] if s["kind"] == "polyline")["points"]) == len(legal)
    # the overlay lives on the full record only, and stays small
    assert all("overlay" not in (v.get("record") or {}) for k, v in ok.items() if k != "dod_run")
    assert len(json.dumps(ov)) < 1500

    bad, bad_out = _score(mazes, case, short)
    ov_bad = bad["dod_run"]["record"]["overlay"]
    assert bad["E"]["value"] == 0.0 and ov_bad["caption"] == "maze verifier: wrong_endpoint (misses end)"
    assert "polyline" not in [s["kind"] for s in ov_bad["shapes"]]  # no path found to draw

    lines = [sample_line(0, ok, output=ok_out, media=[_doc(mazes, case)["input_image"]]),
             sample_line(1, bad, output=bad_out, media=[_doc(mazes, case)["input_image"]])]
    write_run(tmp_path / "out", {"dod_no_hint": {"E": 0.5}}, {"dod_no_hint": lines})
    text = R.write_report(tmp_path / "out", tmp_path / "r.html").read_text()
    first, second = text.split("<article")[1:]
    assert first.count('data-kind="cell"') == len(legal) and 'data-kind="polyline"' in first
    assert "maze verifier: ok" in first and "path cells read" in first and "grid read (9x9)" in first
    assert "maze verifier: wrong_endpoint (misses end)" in second and 'data-kind="polyline"' not in second
    # found through the record's data_root (a relative path), embedded once its folder is allowed:
    # a path the samples file names does not authorise itself
    assert 'alt="input image"' not in first and "outside the run folder and the --media-root folders" in first
    text = R.write_report(tmp_path / "out", tmp_path / "r2.html", media_root=[mazes]).read_text()
    assert 'alt="input image"' in text.split("<article")[1]


def test_infeasible_maze_with_a_path_drawn_anyway_gets_its_overlay(mazes, tmp_path):
    case = "synthetic-maze-001-infeasible"
    inp = mazes / _doc(mazes, case)["input_image"]
    legal, straight = _paths(inp)
    assert legal is None  # no legal path on the infeasible map
    out, _ = _score(mazes, case, _draw(inp, straight, tmp_path / "drawn.png"))
    rec = out["dod_run"]["record"]
    assert rec["maze_drew_path"] is True and out["D_strict"]["value"] == 0.0
    blamed = [s for s in rec["overlay"]["shapes"] if s["label"] == "path over a wall"]
    assert blamed and blamed[0]["cells"] and rec["overlay"]["caption"].startswith("maze verifier: crosses_wall")
