"""`compare` and `report` on runs a person edited by hand: valid JSON of the wrong shape ends in one
clear line (exit 2) or a page, never a traceback; a FIFO named like a results or samples file is
never opened; the report embeds images only from the run folder, --media-root and the data root."""

from __future__ import annotations

import copy
import io
import json
import math
import os
import random
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from PIL import Image

from lmms_plugins import compare as C
from lmms_plugins import report as R
from lmms_plugins.utils import status as st

from .runs import cwi_run, lm_eval_cwi_run, sample_line, write_run
from .test_report import make_dod_like_run

#: replacement values of another shape than the field held (types, extremes, hostile strings)
ODD = [[], {}, "", "x", 0, -1, 2.5, 1e308, -1e308, None, True, False, math.nan, math.inf, [1, "a", None],
       {"value": "x"}, {"success": "3", "total": []}, "../../../../etc/passwd", "/etc/passwd", [[[[[]]]]], 10**30,
       {"a": {"b": {"c": []}}}, ["x"] * 3, "N/A", {"value": None, "status": 3}]


def _abacus_run(out: Path) -> Path:
    lines = []
    for i in range(4):
        rec = {"case_id": f"scene-{i}", "operation": "add", "tier": "easy", "CF": 1.0, "SC": 0.9, "OC": 1.0 - 0.5 * (i % 2)}
        score = rec["CF"] * rec["SC"] * rec["OC"]
        lines.append(sample_line(i, {"abacus_score": st.sample(score, st.OK, "", f"scene-{i}", record=rec),
                                     "abacus_cf": st.sample(1.0, st.OK, "", f"scene-{i}")}))
    board = {"score": 0.675, "cf": 1.0, "sc": 0.9, "oc": 0.75, "ci95": {"score": [0.5, 0.9]}}
    return write_run(out, {"abacus_add_easy": {"abacus_score": 0.675, "abacus_cf": 1.0, "abacus_leaderboard": board}},
                     {"abacus_add_easy": lines})


def _nodes(value, path=()):
    """Every (path, value) of a JSON value, containers included."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _set(root, path, new):
    if not path:
        return new
    target = root
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return root


def _mutate(value, rng: random.Random):
    """One hand edit: a node replaced by a value of another shape, a key removed, or a key renamed."""
    value = copy.deepcopy(value)
    path, node = rng.choice(list(_nodes(value)))
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    action = rng.random()
    if path and isinstance(parent, dict) and action < 0.15:
        del parent[path[-1]]
        return value
    if path and isinstance(parent, dict) and action < 0.25:
        parent[str(path[-1]) + rng.choice(["_x", "/../x", "*", ""]) ] = parent.pop(path[-1])
        return value
    return _set(value, path, copy.deepcopy(rng.choice(ODD)))


def _dump(value) -> str:
    return json.dumps(value, allow_nan=True)


def _call(main, argv) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        code = main(argv)
    return code, err.getvalue()


def _runs(tmp_path: Path) -> list[Path]:
    return [make_dod_like_run(tmp_path / "dod"), cwi_run(tmp_path / "cwi", [True, False, True, True, False]).parent,
            _abacus_run(tmp_path / "abacus").parent, lm_eval_cwi_run(tmp_path / "lm", {"cwi_color": [True, False, True]}).parent]


def test_hand_edited_results_and_samples_end_in_one_clear_line_or_a_page(tmp_path):
    rng = random.Random(2027)
    originals = {}
    runs = _runs(tmp_path)
    for run in runs:
        for f in sorted(run.rglob("*.json")) + sorted(run.rglob("*.jsonl")):
            originals[f] = f.read_text(encoding="utf-8")
    files = sorted(originals)
    outcomes = {"page": 0, "clear error": 0}
    for i in range(170):
        f = rng.choice(files)
        if f.suffix == ".json":
            f.write_text(_dump(_mutate(json.loads(originals[f]), rng)), encoding="utf-8")
        else:
            lines = [json.loads(x) for x in originals[f].split("\n") if x.strip()]
            k = rng.randrange(len(lines))
            lines[k] = _mutate(lines[k], rng)
            f.write_text("".join(_dump(x) + "\n" for x in lines), encoding="utf-8")
        run = next(r for r in runs if r in f.parents)
        try:
            for main, argv in ((R.main, [str(run), "--out", str(tmp_path / "r.html")]),
                               (C.main, [str(run), "--out", str(tmp_path / "cmp"), *([] if i % 10 == 0 else ["--no-chart"])])):
                code, err = _call(main, argv)
                assert code in (0, 1, 2), (f, code, err)
                assert "Traceback" not in err and err.count("\n") <= 1, (f, f.read_text()[:400], err)
                if code == 2:  # the clear line names the file (and line) or the run, and what is wrong
                    assert err.startswith("lmms-plugins ") and str(run) in err, err
                    assert "unexpected" not in err, f"a shape no check names reached the last-resort handler: {err}"
                outcomes["page" if code == 0 else "clear error"] += 1
        finally:
            f.write_text(originals[f], encoding="utf-8")
    assert outcomes["page"] > 50 and outcomes["clear error"] > 20, outcomes  # both kinds of edit were made


def test_a_line_of_the_wrong_shape_is_named_by_file_and_line(tmp_path):
    lines = [sample_line(0, {"accuracy": st.sample(1.0, st.OK, "", "it-0")}), {"doc_id": 1, "accuracy": {"value": "yes", "status": "ok"}}]
    write_run(tmp_path / "o", {"cwi_alignment": {"accuracy": 0.5}}, {"cwi_alignment": lines})
    code, err = _call(R.main, [str(tmp_path / "o")])
    assert code == 2 and err.count("\n") == 1
    assert "20260101_120000_samples_cwi_alignment.jsonl:2: accuracy.value is a string" in err
    (tmp_path / "o" / "20260101_120000_samples_cwi_alignment.jsonl").write_text("[1, 2]\n")
    code, err = _call(C.main, [str(tmp_path / "o"), "--no-chart", "--out", str(tmp_path / "c")])
    assert code == 2 and "samples_cwi_alignment.jsonl:1: a samples line is a list, expected an object" in err
    (tmp_path / "o" / "20260101_120000_results.json").write_text(json.dumps({"results": {"cwi_alignment": [0.5]}}))
    code, err = _call(C.main, [str(tmp_path / "o"), "--no-chart", "--out", str(tmp_path / "c")])
    assert code == 2 and "results['cwi_alignment'] is a list, expected an object of metrics" in err


def _with_deadline(fn, seconds: float = 20.0):
    """Run ``fn`` in a thread; fail (not hang) when it does not return in time."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("result", fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the command blocked (it opened a FIFO?)"
    return box["result"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_named_like_a_samples_or_results_file_is_not_opened(tmp_path):
    run = cwi_run(tmp_path / "o", [True, False]).parent
    samples = next(run.glob("*_samples_cwi_alignment.jsonl"))
    samples.unlink()
    os.mkfifo(samples)
    for main, argv in ((R.main, [str(run), "--out", str(tmp_path / "r.html")]),
                       (C.main, [str(run), "--no-chart", "--out", str(tmp_path / "c")])):
        code, err = _with_deadline(lambda: _call(main, argv))
        assert code == 2 and "not a regular file" in err and str(samples) in err
    samples.unlink()
    os.mkfifo(run / "20260201_000000_results.json")  # a second, newer "results file"
    code, err = _with_deadline(lambda: _call(R.main, [str(run), "--out", str(tmp_path / "r.html")]))
    assert code == 2 and "20260201_000000_results.json: not a regular file" in err
    code, err = _with_deadline(lambda: _call(C.main, [str(run / "20260201_000000_results.json"), "--no-chart"]))
    assert code == 2 and "not a regular file" in err


def _png(path: Path, colour=(200, 30, 30)) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (80, 60), colour).save(path)
    return str(path)


def test_report_embeds_input_images_only_from_the_run_the_media_roots_and_the_data_root(tmp_path, monkeypatch):
    for var in ("LMMS_PLUGINS_DOD_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    run = tmp_path / "run"
    inside = _png(run / "inputs" / "a.png")
    private = _png(tmp_path / "home" / "me" / "private.png")
    (run / "inputs" / "link.png").symlink_to(private)  # a link inside the run to a file outside it
    os.mkfifo(run / "inputs" / "fifo.png")
    media = [inside, private, str(run / "inputs" / "link.png"), "inputs/../../home/me/private.png", str(run / "inputs" / "fifo.png")]
    lines = [sample_line(i, {"E": st.sample(1.0, st.OK, "", f"case-{i}", record={"category": "maze"})}, media=[m])
             for i, m in enumerate(media)]
    write_run(run, {"dod_no_hint": {"E": 1.0}}, {"dod_no_hint": lines})
    text = _with_deadline(lambda: R.write_report(run, tmp_path / "a.html").read_text())
    cards = text.split("<article")[1:]
    assert [c.count('alt="input image"') for c in cards] == [1, 0, 0, 0, 0]
    assert all("outside the run folder and the --media-root folders" in c for c in cards[1:4])
    assert "not a regular file" in cards[4]
    # the folder named on the command line is allowed; the data root configured for the benchmark too
    assert R.main([str(run), "--out", str(tmp_path / "b.html"), "--media-root", str(tmp_path / "home")]) == 0
    assert (tmp_path / "b.html").read_text().count('alt="input image"') == 4
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(tmp_path / "home"))
    assert R.write_report(run, tmp_path / "c.html").read_text().count('alt="input image"') == 4


def test_round_images_are_embedded_only_when_inline(tmp_path):
    outside = _png(tmp_path / "home" / "me" / "secret.png")
    trace = {"executions": [{"round": 1, "status": "ok", "exit_code": 0, "stdout": "",
                             "images": [{"name": "a.png", "thumb": outside}, {"name": "b.png", "thumb": R.thumbnail(outside, 32)[0]}]}],
             "replies": ["```python\nprint(1)\n```"], "ended": "answer"}
    line = sample_line(0, {"accuracy": st.sample(1.0, st.OK, "", "it-0")}, output=json.dumps({"trace": trace}))
    write_run(tmp_path / "run", {"cwi_code_alignment": {"accuracy": 1.0}}, {"cwi_code_alignment": [line]})
    card = R.write_report(tmp_path / "run", tmp_path / "r.html").read_text().split("<article")[1]
    assert card.count('alt="output image"') == 1 and "is a path where only an inline image is taken" in card


def test_a_relative_media_root_is_taken_from_the_current_folder(tmp_path, monkeypatch):
    for var in ("LMMS_PLUGINS_DOD_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    _png(tmp_path / "data" / "image" / "m-1.png")
    line = sample_line(0, {"E": st.sample(1.0, st.OK, "", "m-1", record={"category": "maze"})}, media=["image/m-1.png"])
    write_run(tmp_path / "run", {"dod_no_hint": {"E": 1.0}}, {"dod_no_hint": [line]})
    monkeypatch.chdir(tmp_path)
    assert R.main(["run", "--out", "r.html", "--media-root", "data"]) == 0
    assert (tmp_path / "r.html").read_text().count('alt="input image"') == 1


def test_broken_text_and_odd_files_end_in_one_line_naming_the_file(tmp_path):
    run = cwi_run(tmp_path / "o", [True, False, True]).parent
    samples = next(run.glob("*_samples_cwi_alignment.jsonl"))
    results = next(run.glob("*_results.json"))
    good = {samples: samples.read_bytes(), results: results.read_bytes()}
    edits = [lambda b: b[: len(b) // 2], lambda b: b"", lambda b: b"\xff\xfe" + b, lambda b: b.replace(b"{", b"[", 1),
             lambda b: b"[" * 100000 + b"]" * 100000, lambda b: b + b"\n{\"doc_id\": 9, \"accuracy\": {\"value\": [1]}}\n"]
    for f in good:
        for edit in edits:
            f.write_bytes(edit(good[f]))
            for main, argv in ((R.main, [str(run), "--out", str(tmp_path / "r.html")]),
                               (C.main, [str(run), "--no-chart", "--out", str(tmp_path / "c")])):
                code, err = _call(main, argv)
                assert code in (0, 2) and err.count("\n") <= 1 and "unexpected" not in err, (f.name, err)
                assert code == 0 or f.name in err, err
            f.write_bytes(good[f])
    samples.unlink()
    samples.mkdir()  # a folder named like a samples file
    code, err = _call(R.main, [str(run), "--out", str(tmp_path / "r.html")])
    assert code == 2 and "not a regular file" in err
