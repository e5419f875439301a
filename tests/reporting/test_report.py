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
    """A DoD-shaped run: 6 requests with every outcome the gallery must show."""
    imgs = root / "images"
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
    assert "output image missing" in text and str(tmp_path / "images" / "gone.png") in text
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
