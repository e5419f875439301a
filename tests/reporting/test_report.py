"""`lmms-plugins report`: a self-contained HTML page, checked as text and in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from lmms_plugins import report as R
from lmms_plugins.utils import status as st

from .runs import sample_line, write_run

MAZE_OVERLAY = {
    "target": "output", "size": [70, 70], "caption": "cells read as walls; path found by BFS",
    "shapes": [
        {"kind": "cells", "origin": [0, 0], "pitch": [10, 10], "cells": [[0, 0], [0, 1], [2, 3]], "color": "#1971c2", "label": "wall"},
        {"kind": "polyline", "points": [[15, 15], [55, 15], [55, 55]], "color": "#e03131", "label": "path"},
        {"kind": "point", "xy": [15, 15], "label": "start", "color": "#2f9e44"},
        {"kind": "wibble"},
    ],
}


def _png(path: Path, colour, size=(140, 100)) -> str:
    img = Image.new("RGB", size, colour)
    ImageDraw.Draw(img).rectangle([20, 20, 60, 60], fill=(255, 255, 255))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return str(path)


def _data_uri() -> str:
    import base64
    import io

    buf = io.BytesIO()
    Image.new("RGB", (30, 20), (10, 200, 10)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def make_dod_like_run(root: Path) -> Path:
    """A DoD-shaped run: 6 requests with every outcome the gallery must show (its images inside the
    run folder, where the report embeds them from)."""
    imgs = root / "out" / "images"
    inp = _png(imgs / "maze-001-A.png", (173, 216, 230))
    out_ok = _png(imgs / "out-0.png", (200, 120, 120), size=(70, 70))
    out_box = _png(imgs / "out-1.png", (120, 200, 120))
    specs = [
        # (case, category, feasible, metric value, status, reason, output, extra)
        ("synthetic-maze-001-feasible", "maze", True, 1.0, st.OK, "maze verifier: path reaches the goal",
         {"text": "<think>route found</think>", "images": [out_ok]}, {"overlay": MAZE_OVERLAY}),
        ("synthetic-maze-001-infeasible", "maze", False, 0.0, st.OK, "no refusal found; an image was drawn",
         {"text": "<think>I will draw it</think>", "images": [out_ok]}, {}),
        ("pose_adjustment-3-feasible", "pose_adjustment", True, None, st.JUDGE_ERROR, "editing judge: timeout after 6 tries",
         {"text": "", "images": [out_box]},
         {"overlay": {"shapes": [{"kind": "box", "xyxy": [10, 10, 80, 60], "label": "added", "color": "#2f9e44"}]}}),
        ("pose_adjustment-3-infeasible", "pose_adjustment", False, 1.0, st.OK, "refusal: 'no valid edit exists'",
         "<think>No valid edit exists. [ABSTAIN]</think>", {}),
        ("synthetic-maze-002-feasible", "maze", True, 0.0, st.MISSING_IMAGE, "the output image does not exist",
         {"text": "done", "images": [str(imgs / "gone.png")]}, {}),
        ("synthetic-maze-002-infeasible", "maze", False, 0.0, st.UNPARSABLE, "output is neither text nor JSON",
         "<script>alert('x')</script>", {}),
    ]
    lines = []
    for i, (case, cat, feasible, value, status, reason, output, extra) in enumerate(specs):
        record = {"case_id": case, "category": cat, "feasible": feasible, "status": status, "reason": reason}
        e = st.sample(value if feasible else None, status, reason, case, applicable=feasible, record=record, **extra)
        d = st.sample(value if not feasible else None, status, reason, case, applicable=not feasible, record=record)
        media = [inp] if i != 3 else [_data_uri()]  # lmms-eval logs small in-document images inline
        lines.append(sample_line(i, {"E": e, "D_strict": d}, media=media,
                                 output=output if isinstance(output, str) else json.dumps(output)))
    write_run(root / "out", {"dod_no_hint": {"E": 1 / 3, "D_strict": 1 / 3, "D_f": 0.0}}, {"dod_no_hint": lines})
    return root / "out"


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _parse(html_text: str) -> list[tuple[str, dict]]:
    p = _Collect()
    p.feed(html_text)
    return p.tags


def test_page_is_self_contained_with_cards_filters_and_overlays(tmp_path):
    out = R.write_report(make_dod_like_run(tmp_path), tmp_path / "r.html")
    text = out.read_text()
    tags = _parse(text)
    cards = [a for t, a in tags if t == "article"]
    assert len(cards) == 6
    assert sorted(a["data-outcome"] for a in cards) == ["fail", "pass", "pass", "pending", "problem", "problem"]
    assert {a["data-category"] for a in cards} == {"maze", "pose_adjustment"}
    assert {a["data-status"] for a in cards} == {"ok", "judge_error", "missing_image", "unparsable"}
    # no network assets: every image is inline, no external script, style or link
    srcs = [a.get("src", "") for t, a in tags if t in ("img", "script")]
    assert srcs and all(s.startswith("data:image/") or s == "" for s in srcs)
    assert not [1 for t, a in tags if t == "link"] and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text
    # the overlay hook: maze cells (3 rects), the path and the start point on the first card; the box on the third
    assert len(re.findall(r'data-kind="cell"', text)) == 3 and text.count('data-kind="polyline"') == 1
    assert text.count('data-kind="box"') == 1 and text.count('data-kind="point"') == 1
    assert "cells read as walls; path found by BFS" in text
    # the missing output and the hostile output are shown, escaped
    assert "output image missing" in text and str(tmp_path / "out" / "images" / "gone.png") in text
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text
    assert "editing judge: timeout after 6 tries" in text
    assert "image not readable" not in text  # the inline (data URI) input was decoded and re-embedded
    for name in ("f-task", "f-status", "f-category", "f-outcome", "f-search", "shown-count"):
        assert f'id="{name}"' in text


def test_many_samples_are_capped_with_failures_first(tmp_path):
    lines = [sample_line(i, {"accuracy": st.sample(1.0 if i % 10 else 0.0, st.OK, "", f"it-{i}", tier="easy")}) for i in range(50)]
    write_run(tmp_path / "o", {"cwi_alignment": {"accuracy": 0.9, "accuracy_counts": {"success": 45, "total": 50}}},
              {"cwi_alignment": lines})
    text = R.write_report(tmp_path / "o", max_samples=8).read_text()
    assert "cwi_alignment · accuracy_counts" in text and "&quot;success&quot;: 45" in text  # task summaries shown
    cards = [a for t, a in _parse(text) if t == "article"]
    assert len(cards) == 8 and sum(a["data-outcome"] == "fail" for a in cards) == 5
    assert "8 of 50 samples shown" in text


def test_cli_main(tmp_path, capsys):
    run = make_dod_like_run(tmp_path)
    assert R.main([str(run)]) == 0
    assert (run / "report.html").exists() and str(run / "report.html") in capsys.readouterr().out
    assert R.main([str(tmp_path / "nope")]) == 2
    assert "no such file" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ real browser
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _artefacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("LMMS_PLUGINS_TEST_ARTEFACTS") or tmp_path / "artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _browser(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(_chromium() is None, reason="Chromium is not installed (Debian: apt-get install -y chromium); "
                                                "the report's browser check needs it")
def test_report_in_headless_chromium_filters_and_screenshot(tmp_path):
    binary = _chromium()
    page = R.write_report(make_dod_like_run(tmp_path), tmp_path / "report.html")
    # 1. the DOM after the page's script ran, with a filter given in the URL
    proc = _browser(binary, tmp_path / "profile", "--dump-dom", page.as_uri() + "#status=unparsable")
    dom = proc.stdout
    assert "<article" in dom, proc.stderr[-2000:]
    tags = _parse(dom)
    body = next(a for t, a in tags if t == "body")
    assert body.get("data-ready") == "1", "the page's script did not run"
    cards = [a for t, a in tags if t == "article"]
    assert len(cards) == 6
    visible = [a for a in cards if "hidden" not in a]
    assert [a["data-status"] for a in visible] == ["unparsable"]
    assert re.search(r'id="shown-count">1<', dom)
    # two filters at once: maze requests that passed
    dom2 = _browser(binary, tmp_path / "profile", "--dump-dom", page.as_uri() + "#category=maze&outcome=pass").stdout
    visible2 = [a for t, a in _parse(dom2) if t == "article" and "hidden" not in a]
    assert [a["data-key"] for a in visible2] == ["synthetic-maze-001-feasible"]
    # the page opens on the answer: the headline table comes before the breakdowns and the gallery
    assert dom.index("<h2>Results</h2>") < dom.index('class="headline"') < dom.index("<h2>Samples</h2>")
    # every embedded image decoded in the browser, and the overlay is drawn as SVG
    assert dom.count("data:image/") >= 9 and 'data-kind="polyline"' in dom
    # 2. a screenshot, kept as a test artefact
    shot = _artefacts(tmp_path) / "report_dod_like.png"
    shot.unlink(missing_ok=True)
    _browser(binary, tmp_path / "profile", "--window-size=1300,1400", "--hide-scrollbars", f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), "Chromium wrote no screenshot"
    with Image.open(shot) as im:
        assert im.size == (1300, 1400)
        colours = im.convert("RGB").resize((130, 140)).getcolors(maxcolors=100000)
        assert colours is not None and len(colours) > 50  # rendered content, not a blank page


def test_relative_input_paths_resolve_under_the_benchmark_data_root(tmp_path, monkeypatch):
    root = tmp_path / "dod_copy"
    _png(root / "image" / "synthetic-maze-009-A.png", (173, 216, 230))
    e = st.sample(1.0, st.OK, "ok", "synthetic-maze-009-feasible", applicable=True, record={"category": "maze"})
    line = sample_line(0, {"E": e}, media=["image/synthetic-maze-009-A.png"], output=json.dumps({"text": "x", "images": []}))
    write_run(tmp_path / "out", {"dod_no_hint": {"E": 1.0}}, {"dod_no_hint": [line]})
    monkeypatch.delenv("LMMS_PLUGINS_DOD_ROOT", raising=False)
    monkeypatch.delenv("LMMS_PLUGINS_DATA_ROOT", raising=False)
    text = R.write_report(tmp_path / "out", tmp_path / "a.html").read_text()
    assert "image not readable" in text and "synthetic-maze-009-A.png" in text  # not found: said so
    monkeypatch.setenv("LMMS_PLUGINS_DOD_ROOT", str(root))
    text = R.write_report(tmp_path / "out", tmp_path / "b.html").read_text()
    assert "image not readable" not in text and text.count('alt="input image"') == 1
    monkeypatch.delenv("LMMS_PLUGINS_DOD_ROOT")
    assert R.main([str(tmp_path / "out"), "--out", str(tmp_path / "c.html"), "--media-root", str(root)]) == 0
    assert 'alt="input image"' in (tmp_path / "c.html").read_text()


# ------------------------------------------------------------------------------------ #16.9
def _cards(text: str) -> list[str]:
    return text.split("<article")[1:]


def test_dod_inputs_are_found_from_the_data_root_in_the_record(tmp_path, monkeypatch):
    root = tmp_path / "somewhere" / "dod"
    _png(root / "image" / "synthetic-maze-009-A.png", (173, 216, 230))
    slim = {"case_id": "synthetic-maze-009-feasible", "category": "maze", "feasible": True}
    e = st.sample(1.0, st.OK, "ok", "synthetic-maze-009-feasible", applicable=True, record=slim)
    run = st.sample(None, st.OK, "", "synthetic-maze-009-feasible", applicable=False,
                    record={**slim, "edit_reason": "maze verifier: ok", "data_root": str(root)})
    line = sample_line(0, {"E": e, "dod_run": run}, media=["image/synthetic-maze-009-A.png"],
                       output=json.dumps({"text": "x", "images": []}))
    write_run(tmp_path / "out", {"dod_no_hint": {"E": 1.0}}, {"dod_no_hint": [line]})
    for var in ("LMMS_PLUGINS_DOD_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    text = R.write_report(tmp_path / "out", tmp_path / "a.html").read_text()
    assert text.count('alt="input image"') == 0 and "outside the run folder and the --media-root folders" in text
    text = R.write_report(tmp_path / "out", tmp_path / "a.html", media_root=[tmp_path / "somewhere"]).read_text()
    assert "image not readable" not in text and text.count('alt="input image"') == 1
    assert "maze verifier: ok" in text  # the full record (dod_run) is the one shown
    assert "dod_no_hint: no per-category table (TypeError" in text  # this hand-made record is partial: said, not fatal


def test_cwi_inputs_come_from_the_local_data_or_are_said_to_be_unavailable(tmp_path, monkeypatch):
    from lmms_plugins.tasks.cwi.generate import main as make_data

    root = tmp_path / "cwi_two_items"
    assert make_data(["--tasks", "alignment", "--n", "2", "--seed", "5", "--out", str(root)]) == 0
    lines = [sample_line(i, {"accuracy": st.sample(1.0, st.OK, "", f"alignment_test_{i:04d}", tier="easy")}) for i in range(2)]
    lines.append(sample_line(2, {"accuracy": st.sample(0.0, st.OK, "", "alignment_test_0099", tier="easy")}))
    write_run(tmp_path / "out", {"cwi_alignment": {"accuracy": 2 / 3}}, {"cwi_alignment": lines})
    for var in ("LMMS_PLUGINS_CWI_ROOT", "LMMS_PLUGINS_DATA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    text = R.write_report(tmp_path / "out", tmp_path / "a.html").read_text()
    assert text.count("LMMS_PLUGINS_CWI_ROOT") == 3 and 'alt="input image"' not in text  # said, per card
    monkeypatch.setenv("LMMS_PLUGINS_CWI_ROOT", str(root))
    cards = _cards(R.write_report(tmp_path / "out", tmp_path / "b.html").read_text())
    assert [c.count('alt="input image"') for c in cards] == [2, 2, 0]  # alignment items hold two images
    assert "item alignment_test_0099 is not in" in cards[2]
    monkeypatch.delenv("LMMS_PLUGINS_CWI_ROOT")
    assert R.main([str(tmp_path / "out"), "--out", str(tmp_path / "c.html"), "--media-root", str(root)]) == 0
    assert (tmp_path / "c.html").read_text().count('alt="input image"') == 4


def test_samples_column_gives_each_metrics_own_count(tmp_path):
    tiers = ["easy"] * 3 + ["hard"] * 2
    lines = []
    for i, tier in enumerate(tiers):
        acc = st.sample(1.0, st.OK, "", f"it-{i}", tier=tier)
        lines.append(sample_line(i, {"accuracy": acc, "accuracy_easy": acc, "accuracy_hard": acc, "accuracy_expert": acc}))
    write_run(tmp_path / "o", {"cwi_alignment": {"accuracy": 1.0, "accuracy_easy": 1.0, "accuracy_hard": 1.0,
                                                 "accuracy_expert": float("nan")}}, {"cwi_alignment": lines})
    text = R.write_report(tmp_path / "o").read_text()
    counts = dict(re.findall(r"<td>cwi_alignment</td><td>(\w+)</td><td>[^<]*</td><td class=\"num\">[^<]*</td><td class=\"num\">(\d*)</td>", text))
    assert counts == {"accuracy": "5", "accuracy_easy": "3", "accuracy_hard": "2", "accuracy_expert": "0"}


def _grade_lines(tmp_path: Path, monkeypatch) -> list[dict]:
    """Two GRADE samples scored by the real hooks from a verdict file (no judge call needed)."""
    from lmms_plugins.tasks.grade import hooks as G
    from lmms_plugins.tasks.grade.records import normalise_record

    root = tmp_path / "grade"
    recs = [
        {"task_id": "chemistry_org_001", "text": "Draw the ester.", "consistency": "style", "sub_task": "Organic",
         "image_path": "img/in1.png", "gt": "img/gt1.png",
         "questions": [{"id": "Q1", "question": "Is the product an ester?", "score": 0.7},
                       {"id": "Q2", "question": "Is water drawn as a by-product?", "score": 0.3}]},
        {"task_id": "engineering_views_001", "text": "Add the top view.", "consistency": "none", "sub_task": "Views",
         "image_path": "img/in2.png", "gt": "img/gt2.png",
         "questions": [{"id": "Q1", "question": "Is the top view drawn?", "score": 1.0}]},
    ]
    for i, rec in enumerate(recs):
        _png(root / rec["image_path"], (200, 200, 255))
        _png(root / rec["gt"], (200, 255, 200))
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(
        json.dumps({"task_id": "chemistry_org_001", "C": 2, "L": 1,
                    "answers": [{"id": "Q1", "answer": "Yes", "reason": "an ester group is drawn"},
                                {"id": "Q2", "answer": "No", "reason": "no water shown"}]}) + "\n"
        + json.dumps({"task_id": "engineering_views_001", "C": "none", "L": 2,
                      "answers": [{"id": "Q1", "answer": "Yes", "reason": "top view present"}]}) + "\n")
    from lmms_plugins.tasks.grade.settings import SETTINGS
    from lmms_plugins.utils.settings import resolve

    settings = resolve(SETTINGS, {"verdicts": str(verdicts)})
    lines = []
    for i, rec in enumerate(recs):
        doc = normalise_record(rec, root, i + 1)
        edited = _png(tmp_path / "edited" / f"{rec['task_id']}.png", (255, 200, 200))
        output = json.dumps({"text": "", "images": [edited]})
        metrics = G.process_results(doc, [output], settings)
        lines.append(sample_line(i, metrics, output=output, media=[doc["image_path"], doc["gt"]], prompt=doc["text"]))
    return lines


def test_grade_card_shows_labelled_images_the_rubric_and_r_c_l(tmp_path, monkeypatch):
    lines = _grade_lines(tmp_path, monkeypatch)
    # the rubric is logged once per sample, on grade_breakdown only
    assert [q["weight"] for q in lines[0]["grade_breakdown"]["rubric"]] == [0.7, 0.3]
    assert "rubric" not in lines[0]["grade_strict"] and "rubric" not in lines[0]["grade_reasoning"]
    write_run(tmp_path / "out", {"grade": {"grade_strict": 0.0}}, {"grade": lines})
    cards = _cards(R.write_report(tmp_path / "out", tmp_path / "g.html", media_root=[tmp_path / "grade"]).read_text())
    assert len(cards) == 2
    first, second = cards
    for card in cards:  # three images, each named
        assert ('<div class="imgtitle">input</div>' in card and '<div class="imgtitle">edited (model output)</div>' in card
                and '<div class="imgtitle">reference (ground truth)</div>' in card)
        assert card.count("<img") == 3
    assert "Is the product an ester?" in first and "0.70" in first and "0.30" in first
    assert re.search(r'<tr class="ans-yes"><td>Q1</td>.*?<b>yes</b></td><td>an ester group is drawn', first)
    assert re.search(r'<tr class="ans-no"><td>Q2</td>.*?<b>no</b></td><td>no water shown', first)
    assert "R = <b>0.70</b>" in first and "C = <b>2/2</b>" in first and "L = <b>1/2</b>" in first and "strict: <b>no</b>" in first
    assert "R = <b>1.00</b>" in second and "C = <b>n/a</b>" in second and "L = <b>2/2</b>" in second and "strict: <b>yes</b>" in second


def test_a_folder_of_several_lmms_eval_calls_names_each_model(tmp_path):
    cwi_lines = [sample_line(0, {"accuracy": st.sample(1.0, st.OK, "", "it-0", tier="easy")})]
    write_run(tmp_path / "o" / "replay", {"cwi_alignment": {"accuracy": 1.0}}, {"cwi_alignment": cwi_lines},
              model="replay", timestamp="20260101_120000")
    write_run(tmp_path / "o" / "abacus", {"cwi_color": {"accuracy": 1.0}}, {"cwi_color": cwi_lines},
              model="abacus_synthetic_editor", timestamp="20260101_130000")
    text = R.write_report(tmp_path / "o", tmp_path / "r.html").read_text()
    meta = text.split('<p class=meta>')[1].split("</p>")[0]
    assert "<code>replay</code>" in meta and "<code>abacus_synthetic_editor</code>" in meta


def test_dod_per_category_rates_are_computed_from_the_samples_records(tmp_path):
    # the results keep only dod_breakdown; the report rebuilds the per-category table from dod_run
    from lmms_plugins.tasks.dod.metrics import SampleRecord

    recs = [SampleRecord("maze-1-f", "maze-1", "maze", True, True, False, edit_ok=True),
            SampleRecord("maze-1-i", "maze-1", "maze", False, False, True),
            SampleRecord("clock-1-f", "clock-1", "clock", True, True, False, edit_ok=None, status="no_edit_judge"),
            SampleRecord("clock-1-i", "clock-1", "clock", False, True, False)]
    lines = [sample_line(i, {"dod_run": st.sample(None, st.OK, "", r.case_id, applicable=False, record=r.to_dict())})
             for i, r in enumerate(recs)]
    write_run(tmp_path / "out", {"dod_no_hint": {"E": 0.5}}, {"dod_no_hint": lines})
    text = R.write_report(tmp_path / "out", tmp_path / "r.html").read_text()
    table = text.split("dod_no_hint per category (from the samples)")[1].split("</table>")[0]
    rows = {r.split("</td>")[0].split("<td>")[-1]: r for r in table.split("<tr>")[2:]}
    assert set(rows) == {"all", "clock", "maze"}
    cells = lambda row: [c.split("</td>")[0] for c in row.split('<td class="num">')[1:]]  # noqa: E731
    # columns E, D_strict, D_lenient, D_f, pair_success, pair_behaviour
    assert cells(rows["maze"])[:2] == ["100.0 % (1/1)", "100.0 % (1/1)"]
    assert cells(rows["clock"])[:2] == ["0.0 % (0/1, 1 pending)", "0.0 % (0/1)"]
    # the clock pair fails whatever E turns out to be (its infeasible request drew): decided, not pending
    assert cells(rows["all"])[0] == "50.0 % (1/2, 1 pending)" and cells(rows["all"])[4] == "50.0 % (1/2)"
