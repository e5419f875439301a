"""``lmms-plugins report RUN``: one self-contained HTML page for one lmms-eval run.

The page holds the run's metrics and a gallery of its samples (input images, prompt, output text and
images, verdict with status and reason), filterable by task, status, category and verdict with a
few lines of inline JavaScript. Images are embedded as base64 thumbnails; nothing is fetched from
the network, so the file can be mailed or archived as it is.

This module is the shell (page, headline, gallery, cards, images, overlays) and names no benchmark:
what a benchmark shows beyond a generic card is its report blocks (:class:`ReportBlocks`,
``tasks/<bench>/report_blocks.py``, named by its descriptor).

Overlays (the generic hook benchmarks use to explain a verdict on an image). Any per-sample metric
dict (or its ``record`` dict) may carry ``overlay``: one overlay or a list of them, each

    {"target": "output" | "input",    # which image of the sample (default "output")
     "index": 0,                      # which image of that list (default 0)
     "size": [W, H],                  # coordinate space of the shapes (default: the image's pixels)
     "shapes": [
       {"kind": "box", "xyxy": [x0, y0, x1, y1], "label": "added", "color": "#2f9e44"},
       {"kind": "polyline", "points": [[x, y], ...], "color": "#e03131", "width": 3},
       {"kind": "cells", "origin": [x0, y0], "pitch": [w, h], "cells": [[row, col], ...],
        "color": "#1971c2", "label": "walls read"},
       {"kind": "point", "xy": [x, y], "label": "start", "color": "#000"}
     ],
     "caption": "what the overlay shows"}

``box`` / ``point`` suit detections (ABACUS instances kept/added/removed), ``cells`` a grid read by
a verifier (maze cells) and ``polyline`` a path it found. Unknown kinds are listed, not drawn.
"""

from __future__ import annotations

import argparse
import base64
import functools
import html
import io
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from lmms_plugins.baselines.mapping import benchmark_of, map_metric
from lmms_plugins.headline import render_headline
from lmms_plugins.runs import ResultsError, Run, TaskResult, is_regular, load_run, metric_count, sample_key
from lmms_plugins.utils.benchmarks import all_benchmarks, load, of_task

#: per-sample metric shown as the verdict of a sample after the benchmark's own (``ReportBlocks.verdict_metrics``)
VERDICT_METRICS = ("score",)
CATEGORY_FIELDS = ("category", "domain", "operation", "tier", "sub_task", "source_category")
THUMB_PX = 320
METRIC_ROWS_OPEN = 40  # a metrics table longer than this starts folded
MAX_TEXT = 1200
ESC = html.escape


# ------------------------------------------------------------------------------------ one sample
def metric_items(line: dict) -> dict[str, dict]:
    return {k: v for k, v in line.items() if isinstance(v, dict) and "value" in v and "status" in v}


def verdict_of(line: dict, task: str = "") -> tuple[str, dict] | None:
    """(metric, per-sample dict) that says how the sample was judged, or None: the first applicable
    of the task's benchmark's verdict metrics, else any applicable metric, else any metric."""
    items = metric_items(line)
    applicable = {k: v for k, v in items.items() if v.get("applicable") is not False}
    for name in (*blocks_of(task).verdict_metrics, *VERDICT_METRICS):
        if name in applicable:
            return name, applicable[name]
    if applicable:
        name = next(iter(applicable))
        return name, applicable[name]
    if items:
        name = next(iter(items))
        return name, items[name]
    return None


def category_of(line: dict, item: dict | None, task: str) -> str:
    """The sample's category: a category-like field of the verdict, else of any metric dict, else the benchmark."""
    scopes = [item or {}] + [v for v in metric_items(line).values() if v is not item]
    for scope in scopes:
        for sub in (scope, scope.get("record") if isinstance(scope.get("record"), dict) else {}):
            for f in CATEGORY_FIELDS:
                v = sub.get(f)
                if isinstance(v, str) and v:
                    return v
    return benchmark_of(task) or task


def _overlay(o: Any) -> dict | None:
    """An overlay in the documented shape, or None (a hand-edited or foreign record)."""
    if not isinstance(o, dict):
        return None
    size = o.get("size")
    ok_size = size is None or (isinstance(size, list) and len(size) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1e7 for v in size))
    index = o.get("index", 0)
    if not ok_size or not isinstance(index, int) or isinstance(index, bool) or not isinstance(o.get("target", "output"), str):
        return None
    shapes = o.get("shapes") if isinstance(o.get("shapes"), list) else []
    return {**o, "shapes": [sh for sh in shapes if isinstance(sh, dict)]}


def overlays_of(line: dict) -> list[dict]:
    out: list[dict] = []
    for item in metric_items(line).values():
        for scope in (item, item.get("record") if isinstance(item.get("record"), dict) else {}):
            ov = scope.get("overlay")
            for o in ov if isinstance(ov, list) else [ov] if ov else []:
                o = _overlay(o)
                if o is not None and o not in out:
                    out.append(o)
    return out


def _fullest_record(line: dict) -> dict | None:
    """The per-sample ``record`` with the most fields among the line's metrics, or None."""
    records = [v["record"] for v in metric_items(line).values() if isinstance(v.get("record"), dict)]
    return max(records, key=len) if records else None


#: per-sample metrics where 1 is the bad outcome, besides the benchmarks' own (``ReportBlocks.lower_is_better``)
LOWER_IS_BETTER = frozenset({"generation_failure_rate"})


def lower_is_better() -> frozenset[str]:
    """Per-sample 0/1 metrics where 1 is the bad outcome (a false refusal, a failure), of every benchmark."""
    return LOWER_IS_BETTER.union(*(_blocks(b.report).lower_is_better for b in all_benchmarks() if b.report))


def _outcome(value: Any, status: str, item: dict | None = None, metric: str = "", task: str = "") -> str:
    """pass / fail / partial / pending / problem of a sample's verdict metric. A 0/1 metric (CwI
    accuracy, DoD E and D, GRADE strict) passes when it is 1 (100). A benchmark whose metric says
    more (``ReportBlocks.graded_outcome``: ABACUS) may call a sample ``partial``."""
    if value is None:
        return "pending"
    if status != "ok":
        return "problem"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "problem"
    if v != v:  # NaN: nothing to judge
        return "problem"
    graded = blocks_of(task).graded_outcome(v, item) if item is not None else None
    if graded is not None:
        return graded
    if metric in lower_is_better():
        return "fail" if v > 0 else "pass"
    return "pass" if v > 0 else "fail"


# ------------------------------------------------------------------------------------ images
def thumbnail(path: str | Path, px: int = THUMB_PX) -> tuple[str, tuple[int, int]] | tuple[None, str]:
    """(data URI, original size) of a downscaled copy, or (None, why it could not be read)."""
    ref = str(path)
    try:
        stamp = Path(ref).stat().st_mtime_ns if not ref.startswith("data:") else 0
    except OSError:
        stamp = -1
    return _thumbnail(ref, px, stamp)


@functools.lru_cache(maxsize=512)  # DoD pairs share their input image: encode it once
def _thumbnail(path: str, px: int, _stamp: int) -> tuple[str, tuple[int, int]] | tuple[None, str]:
    from lmms_plugins.utils.images import ImageError, load_rgb, to_rgb

    ref = str(path)
    if ref.startswith(("http://", "https://")):
        return None, f"remote image not embedded (the report fetches nothing): {ref}"
    try:
        if ref.startswith("data:image/"):  # lmms-eval logs small in-document images inline
            from PIL import Image

            img = to_rgb(Image.open(io.BytesIO(base64.b64decode(ref.split(",", 1)[1]))))
        else:
            img = load_rgb(ref)
    except ImageError as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - a bad inline image must not stop the report
        return None, f"inline image not readable ({type(exc).__name__})"
    size = img.size
    img.thumbnail((px, px))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=82) if max(size) > 64 else img.save(buf, format="PNG")
    mime = "image/jpeg" if max(size) > 64 else "image/png"
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode()}", size


def resolve_media(ref: str, roots: list[Path]) -> str:
    """An absolute path, URL or data URI as it is; a relative path under the first root that has it."""
    if ref.startswith(("data:", "http://", "https://")) or Path(ref).is_absolute():
        return ref
    for root in roots:
        candidate = Path(root) / ref
        if candidate.exists():
            return str(candidate)
    return ref


def real_paths(folders: list[Path]) -> list[Path]:
    out = []
    for f in folders:
        try:
            real = Path(f).expanduser().resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if real not in out:
            out.append(real)
    return out


def outside_reason(ref: str, allowed: list[Path] | None) -> str:
    """Why a local image may not be embedded ('' when it may): only regular files whose real path
    (symlinks resolved) lies under the run folder, a --media-root folder or the benchmark's data
    root are. A samples file is data: an ``input_media`` entry such as ``/home/me/private.png``
    must not end up inside a page that gets mailed around."""
    if ref.startswith("data:") or allowed is None:
        return ""
    if ref.startswith(("http://", "https://")):
        return ""  # shown as a link by the thumbnailer, never fetched
    if not allowed:
        return f"not embedded: {ref} is a path where only an inline image is taken"
    if not Path(ref).is_absolute():  # resolve_media found it under no root
        return f"image not readable: {ref} is under none of the run folder, the --media-root folders and the data root"
    try:
        real = Path(ref).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return f"image path not readable as a path: {ref}"
    if not any(real == a or a in real.parents for a in allowed):
        return (f"not embedded: {ref} is outside the run folder and the --media-root folders "
                f"(pass --media-root with its folder to show it)")
    if real.exists() and not is_regular(real):
        return f"not embedded: {ref} is not a regular file"
    return ""


def media_roots(task: str, run: Run, extra: list[str | Path] | None = None) -> list[Path]:
    """Where ``input_media`` may live, which is also where the report embeds images from: given
    folders (--media-root), the benchmark's local data root (LMMS_PLUGINS_<BENCH>_ROOT /
    LMMS_PLUGINS_DATA_ROOT), the run folder."""
    roots = [Path(p) for p in extra or []]
    bench = benchmark_of(task)
    if bench:
        from lmms_plugins.utils.data_roots import local_root

        try:
            root = local_root(bench)
        except Exception:  # noqa: BLE001 - a misconfigured root only costs the thumbnails
            root = None
        if root is not None:
            roots.append(root)
    base = run.path if run.path.is_dir() else run.path.parent
    return [Path(os.path.abspath(p)) for p in roots + [base]]  # a relative --media-root is the current folder's


def _svg(overlay: dict, size: tuple[int, int]) -> str:
    w, h = overlay.get("size") or size
    parts = [f'<svg class="overlay" viewBox="0 0 {float(w):g} {float(h):g}" preserveAspectRatio="none" '
             f'xmlns="http://www.w3.org/2000/svg">']
    stroke = max(float(w), float(h)) / 160  # about 2 px at thumbnail size, whatever the image size
    for sh in overlay.get("shapes", []):
        kind, color = sh.get("kind"), ESC(str(sh.get("color", "#e8590c")))
        label = ESC(str(sh.get("label", "")))
        title = f"<title>{label}</title>" if label else ""
        try:
            if kind == "box":
                x0, y0, x1, y1 = (float(v) for v in sh["xyxy"])
                parts.append(f'<rect data-kind="box" x="{x0:g}" y="{y0:g}" width="{x1 - x0:g}" height="{y1 - y0:g}" fill="none" '
                             f'stroke="{color}" stroke-width="{stroke:g}">{title}</rect>')
            elif kind == "polyline":
                pts = " ".join(f"{float(x):g},{float(y):g}" for x, y in sh["points"])
                width = float(sh.get("width", stroke * 1.5))
                parts.append(f'<polyline data-kind="polyline" points="{pts}" fill="none" stroke="{color}" stroke-width="{width:g}" '
                             f'stroke-linejoin="round" stroke-opacity="0.85">{title}</polyline>')
            elif kind == "cells":
                (ox, oy), (pw, ph) = sh["origin"], sh["pitch"]
                for r, c in sh["cells"]:
                    parts.append(f'<rect data-kind="cell" x="{float(ox) + float(c) * float(pw):g}" y="{float(oy) + float(r) * float(ph):g}" '
                                 f'width="{float(pw):g}" height="{float(ph):g}" fill="{color}" fill-opacity="0.35" '
                                 f'stroke="{color}" stroke-width="{stroke / 2:g}">{title}</rect>')
            elif kind == "point":
                x, y = (float(v) for v in sh["xy"])
                parts.append(f'<circle data-kind="point" cx="{x:g}" cy="{y:g}" r="{stroke * 2.5:g}" fill="{color}">{title}</circle>')
        except (KeyError, TypeError, ValueError):
            parts.append(f"<!-- shape {ESC(str(kind))} not drawn: malformed -->")
    parts.append("</svg>")
    return "".join(parts)


def _figure(path: str, px: int, overlays: list[dict], role: str, title: str = "", allowed: list[Path] | None = None) -> str:
    """One image, embedded as a thumbnail with its overlays. ``allowed``: the folders a local file
    may come from (None: the caller already confined it, as the model-output parser does)."""
    head = f'<div class="imgtitle">{ESC(title)}</div>' if title else ""
    why = outside_reason(str(path), allowed)
    if why:
        return f'{head}<div class="img missing refused" title="{ESC(str(path)[:300])}">{ESC(why[:400])}</div>'
    uri, info = thumbnail(path, px)
    if uri is None:
        return f'{head}<div class="img missing" title="{ESC(str(path)[:300])}">image not readable: {ESC(str(info)[:300])}</div>'
    svgs = "".join(_svg(o, info) for o in overlays)
    caps = "".join(f'<figcaption>{ESC(str(o["caption"]))}</figcaption>' for o in overlays if o.get("caption"))
    legend = sorted({(str(s.get("label", "")), str(s.get("color", "#e8590c"))) for o in overlays for s in o.get("shapes", []) if s.get("label")})
    leg = "".join(f'<span class="key"><i style="background:{ESC(c)}"></i>{ESC(lbl)}</span>' for lbl, c in legend)
    small = ' class="small"' if max(info) < px * 0.75 else ""  # tiny images (maze maps) are enlarged, pixel-sharp
    return (f'<figure class="img {role}">{head}<div class="frame"><img{small} alt="{role} image" src="{uri}">{svgs}</div>'
            f'{caps}{f"<div class=legend>{leg}</div>" if leg else ""}</figure>')


def _overlays_for(overlays: list[dict], target: str, index: int) -> list[dict]:
    return [o for o in overlays if o.get("target", "output") == target and int(o.get("index", 0)) == index]


def _text_block(text: str, cls: str) -> str:
    if not text:
        return ""
    if len(text) <= MAX_TEXT:
        return f'<pre class="{cls}">{ESC(text)}</pre>'
    return (f'<pre class="{cls}">{ESC(text[:MAX_TEXT])}…</pre>'
            f'<details><summary>full text ({len(text)} characters)</summary><pre class="{cls}">{ESC(text)}</pre></details>')


def rounds_block(raw: Any, px: int = THUMB_PX) -> str:
    """The rounds of a multi-round sample whose response is a JSON object holding a trace
    ``{"executions": [{round, code, status, exit_code, stdout, stderr, images: [{name, thumb}]}],
    "replies": [...], "ended": ...}`` (the cwi_code tasks write one): each reply, then its code's
    status, output and saved images."""
    try:
        obj = json.loads(raw) if isinstance(raw, str) and raw.lstrip().startswith("{") else None
    except json.JSONDecodeError:
        return ""
    trace = next((v for v in (obj or {}).values() if isinstance(v, dict) and isinstance(v.get("executions"), list)), None)
    if trace is None:
        return ""
    runs = {e.get("round"): e for e in trace["executions"] if isinstance(e, dict)}
    replies = trace.get("replies") if isinstance(trace.get("replies"), list) else []
    parts = []
    for i in range(1, max([len(replies)] + [r for r in runs if isinstance(r, int)]) + 1):
        ex = runs.get(i)
        body = _text_block(str(replies[i - 1]), "output") if i <= len(replies) else ""
        if ex:
            head = f"{ESC(str(ex.get('status')))} (exit {ESC(str(ex.get('exit_code')))}){' — ' + ESC(str(ex['reason'])) if ex.get('reason') else ''}"
            imgs = "".join(_figure(str(im["thumb"]), px // 2, [], "output", allowed=[]) for im in ex.get("images") or []
                           if isinstance(im, dict) and im.get("thumb"))  # inline thumbnails only: a path here is the model's
            body += (f"<p>execution: <b>{head}</b></p>" + (_text_block(str(ex.get("code", "")), "prompt") if not replies else "")
                     + _text_block(str(ex.get("stdout") or ""), "output") + _text_block(str(ex.get("stderr") or ""), "prompt") + imgs)
        parts.append(f"<details class=round><summary>round {i}{' · code run: ' + ESC(str(ex.get('status'))) if ex else ''}</summary>{body}</details>")
    return f'<div class="rounds"><h4>rounds ({ESC(str(trace.get("ended", "")))})</h4>{"".join(parts)}</div>'


# ------------------------------------------------------------------------------------ benchmark blocks
class ReportBlocks:
    """A benchmark's part of the report, named by its descriptor's ``report``
    (``tasks/<bench>/report_blocks.py``); each default adds nothing."""

    output_title = ""  # the heading of the model's output images
    verdict_metrics: tuple[str, ...] = ()  # per-sample metrics that say how a sample was judged, most preferred first
    lower_is_better: frozenset[str] = frozenset()  # per-sample 0/1 metrics where 1 is the bad outcome

    def graded_outcome(self, value: float, item: dict) -> str | None:
        """pass / partial / fail of a scored sample whose metric says more than its value, else None."""
        return None

    def image_titles(self, line: dict) -> dict[str, str]:
        """Input media path -> its role ("input", "reference"): a titled image; a reference is shown apart."""
        return {}

    def input_images(self, task: str, key: str, tr: TaskResult | None, roots: list[Path]) -> tuple[list[str], str]:
        """(images, note) of a sample whose samples file logs no input image (read from the local data)."""
        return [], ""

    def shortfall(self, line: dict) -> str:
        """What kept a ``partial`` sample from passing, in words."""
        return ""

    def sample_block(self, line: dict) -> str:
        """HTML shown under a sample's input and output (a judge's verdict in full)."""
        return ""

    def breakdown(self, task: str, tr: TaskResult) -> str:
        """HTML of a task in the Breakdowns section, before the metric tables."""
        return ""


@functools.cache
def _blocks(target: str) -> ReportBlocks:
    return load(target)()


def blocks_of(task: str) -> ReportBlocks:
    """The report blocks of the benchmark ``task`` belongs to (the defaults for a foreign task)."""
    bench = of_task(task)
    return _blocks(bench.report) if bench is not None and bench.report else ReportBlocks()


@functools.lru_cache(maxsize=64)
def parquet_images(path: str, _stamp: int, key_col: str = "id", image_cols: tuple = ("image", "image_2")) -> dict[str, list[str]]:
    """item id -> its images as data URIs, from one parquet file of the benchmark's local data
    (CwI: columns id, image, image_2; ABACUS: image_id, image)."""
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    cols = [c for c in (key_col, *image_cols) if c in names]
    if key_col not in cols:
        return {}
    table = pq.read_table(path, columns=cols).to_pylist()
    out: dict[str, list[str]] = {}
    for row in table:
        uris = []
        for col in image_cols:
            im = row.get(col)
            raw = im.get("bytes") if isinstance(im, dict) else im if isinstance(im, bytes) else None
            if raw:
                uris.append("data:image/png;base64," + base64.b64encode(raw).decode())
        out.setdefault(str(row[key_col]), uris)
    return out



def sample_card(task: str, line: dict, px: int = THUMB_PX, roots: list[Path] | None = None,
                tr: TaskResult | None = None) -> str:
    from lmms_plugins.utils.model_output import parse_model_output

    v = verdict_of(line, task)
    metric, item = v if v else ("", {})
    status = str(item.get("status", "ok")) if item else "no_metric"
    value = item.get("value") if item else None
    outcome = _outcome(value, status, item, metric, task) if item else "problem"
    category = category_of(line, item, task)
    key = sample_key(line)
    overlays = overlays_of(line)
    raw = line.get("filtered_resps", line.get("resps"))
    while isinstance(raw, list) and raw:
        raw = raw[0]
    out = parse_model_output(raw)
    full = _fullest_record(line)  # a task may keep its whole record on one metric only (DoD: dod_run)
    roots = list(roots or [])
    allowed = real_paths(roots)  # the record's data_root below helps find a file, it does not allow one
    if full and full.get("data_root"):  # the data folder the sample was scored from (DoD)
        roots.insert(0, Path(str(full["data_root"])))
    blocks = blocks_of(task)
    titles = blocks.image_titles(line)  # GRADE: the input and the reference, each named
    media = [str(p) for p in line.get("input_media") or [] if str(p) not in titles or titles[str(p)] == "input"]
    note = ""
    if not media:  # CwI and ABACUS keep their input images in their parquet data
        media, note = blocks.input_images(task, key, tr, roots)
    media = [resolve_media(p, roots) for p in media]
    inputs = "".join(_figure(p, px, _overlays_for(overlays, "input", i), "input", "input" if titles else "", allowed)
                     for i, p in enumerate(media))
    out_title = blocks.output_title
    # the model-output parser reads images only from the package's allowed folders; one it refused
    # is still shown when it lies in a folder the report was given (the run folder, --media-root)
    given = [p for p in out.refused if not outside_reason(p, allowed) and is_regular(p)]
    outputs = "".join(_figure(p, px, _overlays_for(overlays, "output", i), "output", out_title)
                      for i, p in enumerate([*out.images, *given]))
    outputs += "".join(f'<div class="img missing">output image missing: {ESC(p)}</div>' for p in out.missing if p not in given)
    reference = "".join(_figure(resolve_media(p, roots), px, [], "reference", "reference (ground truth)", allowed)
                        for p, name in titles.items() if name == "reference")
    problems = "".join(f"<li>{ESC(p)}</li>" for p in out.problems if not any(g in p for g in given))
    shown = {k: val for k, val in item.items() if k not in ("value", "status", "reason", "id")} if item else {}
    if full is not None and isinstance(shown.get("record"), dict) and len(full) > len(shown["record"]):
        shown["record"] = full
    mm = map_metric(task, metric) if metric else None
    value_txt = "pending" if value is None else (f"{value:g}" if isinstance(value, (int, float)) else ESC(str(value)))
    prompt = line.get("input") if isinstance(line.get("input"), str) else ""
    shortfall = blocks.shortfall(line) if outcome == "partial" else ""
    no_input = f'<p class="none">{ESC(note)}</p>' if note else '<p class="none">no input image in the samples file</p>'
    return f"""
<article class="sample {outcome}" data-task="{ESC(task)}" data-status="{ESC(status)}" data-category="{ESC(category)}" data-outcome="{outcome}" data-key="{ESC(key)}">
  <header><b>{ESC(task)}</b> · <code>{ESC(key)}</code> <span class="badge st-{ESC(status)}">{ESC(status)}</span>
    <span class="badge oc-{outcome}">{outcome}</span> <span class="cat">{ESC(category)}</span></header>
  <div class="verdict"><b>{ESC(mm.label if mm else metric or "no metric")}</b> = {value_txt}{f' — {ESC(str(item.get("reason")))}' if item and item.get("reason") else ""}{f' — <b>partial</b>: {ESC(shortfall)}' if shortfall else ""}</div>
  <div class="io"><div class="col"><h4>input</h4>{inputs or no_input}{_text_block(prompt, "prompt")}
    {f'<p class="target">expected: <code>{ESC(str(line.get("target")))}</code></p>' if line.get("target") not in (None, "") else ""}</div>
  <div class="col"><h4>output</h4>{outputs}{_text_block(out.text, "output") or ('<p class="none">no text</p>' if not outputs else "")}
    {f"<ul class=problems>{problems}</ul>" if problems else ""}</div>{f'<div class="col"><h4>reference</h4>{reference}</div>' if reference else ""}</div>
  {blocks.sample_block(line)}
  {rounds_block(raw, px)}
  {f'<details class="record"><summary>scorer record</summary><pre>{ESC(json.dumps(shown, indent=1, default=str)[:20000])}</pre></details>' if shown else ""}
</article>"""


# ------------------------------------------------------------------------------------ the page
CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:16px;color:#212529}
h1{font-size:22px;margin:4px 0} h2{font-size:18px;margin:20px 0 8px} h4{margin:4px 0;font-size:12px;color:#495057;text-transform:uppercase}
table{border-collapse:collapse;margin:6px 0} td,th{border:1px solid #dee2e6;padding:3px 8px;text-align:left} td.num{text-align:right;white-space:nowrap}
.meta{color:#495057} code{font-size:12px}
#filters{position:sticky;top:0;background:#f8f9fa;padding:8px;border:1px solid #dee2e6;z-index:2;display:flex;gap:12px;flex-wrap:wrap;align-items:center}
#gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:12px;margin-top:12px}
.sample{border:1px solid #ced4da;border-left:6px solid #adb5bd;border-radius:4px;padding:8px;background:#fff}
.sample.pass{border-left-color:#2f9e44}.sample.partial{border-left-color:#fab005}.sample.fail{border-left-color:#e03131}.sample.pending{border-left-color:#f08c00}.sample.problem{border-left-color:#862e9c}
.sample[hidden]{display:none}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;background:#e9ecef}
.oc-pass{background:#d3f9d8}.oc-partial{background:#fff9db}.oc-fail{background:#ffe3e3}.oc-pending{background:#fff3bf}.oc-problem{background:#f3d9fa}
.cat{color:#495057;font-size:12px;float:right}
.verdict{margin:6px 0}
.io{display:flex;gap:10px}.col{flex:1;min-width:0}
figure{margin:0 0 6px}.frame{position:relative;display:inline-block;line-height:0}
.frame img{max-width:100%;max-height:320px;border:1px solid #dee2e6}.frame img.small{width:240px;image-rendering:pixelated}
svg.overlay{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
figcaption,.legend{font-size:12px;color:#495057}.key{margin-right:8px}.key i{display:inline-block;width:10px;height:10px;margin-right:3px}
pre{white-space:pre-wrap;word-break:break-word;background:#f8f9fa;padding:4px;max-height:220px;overflow:auto;font-size:12px;margin:4px 0}
.missing{padding:20px;background:#fff5f5;color:#c92a2a;font-size:12px;word-break:break-all}.problems{word-break:break-all}
.none{color:#868e96;font-size:12px}.problems{color:#c92a2a;font-size:12px}
.imgtitle{font-size:12px;font-weight:600;color:#343a40;margin:2px 0}
table.rubric{font-size:12px;width:100%}table.rubric td,table.rubric th{padding:2px 5px;vertical-align:top}
table.headline tr.group td{background:#f1f3f5;font-weight:600}table.headline td{vertical-align:top}.grp{font-weight:400;color:#495057;font-size:12px}
.verdicts{color:#495057;font-size:12px}h3{font-size:16px;margin:14px 0 4px}
tr.ans-yes td:nth-child(4){color:#2b8a3e}tr.ans-no td:nth-child(4){color:#c92a2a}.dims{margin:4px 0;font-size:13px}
"""

JS = """
(function(){
  var sel = {task: document.getElementById('f-task'), status: document.getElementById('f-status'),
             category: document.getElementById('f-category'), outcome: document.getElementById('f-outcome')};
  var search = document.getElementById('f-search');
  var cards = Array.prototype.slice.call(document.querySelectorAll('article.sample'));
  function fromHash(){
    var h = location.hash.replace(/^#/, '');
    h.split('&').forEach(function(kv){
      var p = kv.split('='); if (p.length !== 2) return;
      var k = decodeURIComponent(p[0]), v = decodeURIComponent(p[1]);
      if (sel[k]) sel[k].value = v; else if (k === 'q') search.value = v;
    });
  }
  function apply(){
    var shown = 0, q = search.value.toLowerCase();
    cards.forEach(function(c){
      var ok = Object.keys(sel).every(function(k){ return !sel[k].value || c.dataset[k] === sel[k].value; });
      if (ok && q) ok = c.textContent.toLowerCase().indexOf(q) >= 0;
      c.hidden = !ok; if (ok) shown++;
    });
    document.getElementById('shown-count').textContent = shown;
    var parts = [];
    Object.keys(sel).forEach(function(k){ if (sel[k].value) parts.push(k + '=' + encodeURIComponent(sel[k].value)); });
    if (q) parts.push('q=' + encodeURIComponent(q));
    try { history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname); } catch (e) {}
    document.body.dataset.filtered = parts.join('&');
  }
  fromHash();
  Object.keys(sel).forEach(function(k){ sel[k].addEventListener('change', apply); });
  search.addEventListener('input', apply);
  apply();
  document.body.dataset.ready = '1';
})();
"""


def _options(name: str, label: str, values: Counter) -> str:
    opts = "".join(f'<option value="{ESC(v)}">{ESC(v)} ({n})</option>' for v, n in sorted(values.items()))
    return f'<label>{label} <select id="f-{name}"><option value="">all</option>{opts}</select></label>'


def _count_text(tr: TaskResult, metric: str) -> str:
    """The metric's own sample count (a tier's items, the feasible requests of DoD's E), else the task's."""
    n = metric_count(tr, metric)
    return "" if n is None else str(n)


def _metrics_table(run: Run) -> str:
    """Every numeric metric of the run, one table per benchmark (folded when long), then the
    summary objects the tasks wrote (counts, per-category scores)."""
    by_bench: dict[str, list[str]] = {}
    for task in sorted(run.tasks):
        tr = run.tasks[task]
        for metric, value in tr.values.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            mm = map_metric(task, metric)
            shown = f"{mm.to_display(value):.1f} %" if mm and mm.display_unit == "percent" else f"{value:.4g}"
            by_bench.setdefault(benchmark_of(task) or "other", []).append(
                f'<tr><td>{ESC(task)}</td><td>{ESC(metric)}</td><td>{ESC(mm.label if mm else "")}</td>'
                f'<td class="num">{shown}</td><td class="num">{_count_text(tr, metric)}</td></tr>')
    blocks = []
    titles = {b.name: b.title for b in all_benchmarks()}
    for bench in [b for b in titles if b in by_bench] + [b for b in by_bench if b not in titles]:
        rows = by_bench[bench]
        table = ("<table class=metrics><tr><th>task</th><th>metric</th><th>meaning</th><th>value</th><th>samples</th></tr>"
                 + "".join(rows) + "</table>")
        name = titles.get(bench, bench)
        if len(rows) > METRIC_ROWS_OPEN:  # a long table (30 CwI tasks) folds, so the gallery is in view
            table = f"<details class=metrics><summary>{name}: all {len(rows)} metric values (click to show)</summary>{table}</details>"
        else:
            table = f"<h3>{name}: every metric</h3>{table}"
        blocks.append(table)
    summaries = "".join(
        f"<details class=summary><summary>{ESC(task)} · {ESC(metric)}</summary><pre>{ESC(json.dumps(value, indent=1, default=str)[:20000])}</pre></details>"
        for task in sorted(run.tasks) for metric, value in run.tasks[task].values.items() if isinstance(value, dict))
    return "".join(blocks) + (f"<h4>summaries written by the tasks (counts, per-category scores, intervals)</h4>{summaries}" if summaries else "")


def _breakdowns(run: Run) -> str:
    """Each task's breakdown from its benchmark's report blocks (DoD: rates per category)."""
    return "".join(blocks_of(task).breakdown(task, run.tasks[task]) for task in sorted(run.tasks))


def _select(samples: list[dict], limit: int, task: str = "") -> list[dict]:
    """At most ``limit`` samples, problems and failures first, then in doc order."""
    if len(samples) <= limit:
        return samples

    def rank(line):
        v = verdict_of(line, task)
        item = v[1] if v else {}
        return 0 if _outcome(item.get("value"), str(item.get("status", "ok")), item, v[0] if v else "", task) != "pass" else 1

    keep = sorted(samples, key=rank)[:limit]
    return sorted(keep, key=lambda line: line.get("doc_id", 0))


def _judge(task: str, line: dict) -> tuple[str, str]:
    """(status, verdict) of a sample, as its card shows them."""
    v = verdict_of(line, task)
    if not v:
        return "no_metric", "problem"
    item = v[1]
    status = str(item.get("status", "ok"))
    return status, _outcome(item.get("value"), status, item, v[0], task)


def render(run: Run, *, max_samples: int = 200, thumb_px: int = THUMB_PX, title: str | None = None,
           media_root: list[str | Path] | None = None) -> str:
    cards, statuses, categories, outcomes, tasks = [], Counter(), Counter(), Counter(), Counter()
    notes = []
    for task in sorted(run.tasks):
        tr = run.tasks[task]
        if tr.samples is None:
            if run.groups.get(task):  # a group: its samples are its tasks' (the headline row says so)
                continue
            if any(isinstance(v, (int, float)) for v in tr.values.values()):
                notes.append(f"{task}: no samples file (run lmms-eval with --log_samples to see samples)")
            continue
        chosen = _select(tr.samples, max_samples, task)
        roots = media_roots(task, run, media_root)
        if len(chosen) < len(tr.samples):
            notes.append(f"{task}: {len(chosen)} of {len(tr.samples)} samples shown (failures and problems first; --max-samples)")
        for line in chosen:
            card = sample_card(task, line, thumb_px, roots, tr)
            v = verdict_of(line, task)
            item = v[1] if v else {}
            st = str(item.get("status", "ok")) if item else "no_metric"
            statuses[st] += 1
            categories[category_of(line, item, task)] += 1
            outcomes[_outcome(item.get("value"), st, item, v[0], task) if item else "problem"] += 1
            tasks[task] += 1
            cards.append(card)
    title = title or f"lmms-plugins report: {run.label}"
    cfg = run.config
    # a folder may hold several lmms-eval calls (several models): name each once
    calls = list(dict.fromkeys((str(c.get("model", "")), str(c.get("model_args", ""))) for c in run.configs or [cfg]))
    models = "; ".join(f"model <code>{ESC(m or run.model)}</code> · model_args <code>{ESC(a)}</code>" for m, a in calls)
    meta = f"<p class=meta>{models} · results <code>{ESC(str(run.path))}</code></p>"
    filters = (_options("task", "task", tasks) + _options("status", "status", statuses) + _options("category", "category", categories)
               + _options("outcome", "verdict", outcomes)
               + '<label>search <input id="f-search" type="search" placeholder="id, text, reason"></label>'
               + f'<span><b id="shown-count">{len(cards)}</b> of {len(cards)} samples shown</span>')
    note_html = "".join(f"<li>{ESC(n)}</li>" for n in notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{ESC(title)}</title><style>{CSS}</style></head>
<body>
<h1>{ESC(title)}</h1>{meta}
<h2>Results</h2>{render_headline(run, _judge)}
<h2>Breakdowns</h2>{_breakdowns(run)}{_metrics_table(run)}
{f"<ul class=notes>{note_html}</ul>" if note_html else ""}
<h2>Samples</h2>
<div id="filters">{filters}</div>
<div id="gallery">{"".join(cards) or '<p class="none">no logged samples</p>'}</div>
<script>{JS}</script>
</body></html>
"""


def write_report(run_path: str | Path, out: str | Path | None = None, *, label: str | None = None,
                 max_samples: int = 200, thumb_px: int = THUMB_PX, media_root: list[str | Path] | None = None) -> Path:
    """Write the report of one run; returns the HTML path (default ``<run folder>/report.html``)."""
    run = load_run(run_path, label)
    if out is None:
        base = Path(run_path)
        out = (base if base.is_dir() else base.parent) / "report.html"
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(run, max_samples=max_samples, thumb_px=thumb_px, media_root=media_root), encoding="utf-8")
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lmms-plugins report",
                                description="Write a self-contained HTML report (metrics and a filterable sample gallery) of one lmms-eval run.")
    p.add_argument("run", help="an lmms-eval or lm-eval output folder, or one results file (samples need --log_samples)")
    p.add_argument("--out", help="HTML file to write (default: report.html in the run's folder)")
    p.add_argument("--label", help="name of the run in the title")
    p.add_argument("--max-samples", type=int, default=200, help="samples per task in the gallery (failures first; default 200)")
    p.add_argument("--thumb-px", type=int, default=THUMB_PX, help="longest side of the embedded thumbnails")
    p.add_argument("--media-root", action="append", default=[],
                   help="folder that relative input image paths are under (repeatable; the benchmark's "
                        "LMMS_PLUGINS_<BENCH>_ROOT and the run folder are tried too)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        path = write_report(args.run, args.out, label=args.label, max_samples=args.max_samples, thumb_px=args.thumb_px,
                            media_root=args.media_root)
    except ResultsError as exc:
        print(f"lmms-plugins report: {exc}", file=sys.stderr)
        return 2
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        # last resort: a shape no check names; one line, not a traceback
        print(f"lmms-plugins report: {args.run}: unexpected content in the results or samples files "
              f"({type(exc).__name__}: {str(exc)[:200]})", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
