"""``lmms-plugins report RUN``: one self-contained HTML page for one lmms-eval run.

The page holds the run's metrics and a gallery of its samples (input images, prompt, output text and
images, verdict with status and reason), filterable by task, status, category and verdict with a
few lines of inline JavaScript. Images are embedded as base64 thumbnails; nothing is fetched from
the network, so the file can be mailed or archived as it is.

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
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from lmms_plugins.runs import ResultsError, Run, TaskResult, is_regular, load_run, metric_count, sample_key
from lmms_plugins.baselines.mapping import benchmark_of, map_metric
from lmms_plugins.headline import render_headline

#: per-sample metric shown as the verdict of a sample, most preferred first.
VERDICT_METRICS = ("accuracy", "abacus_score", "score", "grade_strict", "E", "D_strict", "D_f")
CATEGORY_FIELDS = ("category", "domain", "operation", "tier", "sub_task", "source_category")
THUMB_PX = 320
METRIC_ROWS_OPEN = 40  # a metrics table longer than this starts folded
MAX_TEXT = 1200
ESC = html.escape


# ------------------------------------------------------------------------------------ one sample
def _metric_items(line: dict) -> dict[str, dict]:
    return {k: v for k, v in line.items() if isinstance(v, dict) and "value" in v and "status" in v}


def verdict_of(line: dict) -> tuple[str, dict] | None:
    """(metric, per-sample dict) that says how the sample was judged, or None."""
    items = _metric_items(line)
    applicable = {k: v for k, v in items.items() if v.get("applicable") is not False}
    for name in VERDICT_METRICS:
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
    scopes = [item or {}] + [v for v in _metric_items(line).values() if v is not item]
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
    for item in _metric_items(line).values():
        for scope in (item, item.get("record") if isinstance(item.get("record"), dict) else {}):
            ov = scope.get("overlay")
            for o in ov if isinstance(ov, list) else [ov] if ov else []:
                o = _overlay(o)
                if o is not None and o not in out:
                    out.append(o)
    return out


def _fullest_record(line: dict) -> dict | None:
    """The per-sample ``record`` with the most fields among the line's metrics, or None."""
    records = [v["record"] for v in _metric_items(line).values() if isinstance(v.get("record"), dict)]
    return max(records, key=len) if records else None


#: per-sample metrics where 1 is the bad outcome (a false refusal, a failure)
LOWER_IS_BETTER = frozenset({"D_f", "extraction_failure_rate", "generation_failure_rate"})


def _outcome(value: Any, status: str, item: dict | None = None, metric: str = "") -> str:
    """pass / fail / partial / pending / problem of a sample's verdict metric. A 0/1 metric (CwI
    accuracy, DoD E and D, GRADE strict) passes when it is 1 (100). An ABACUS edit passes only when
    the official definition calls it right, the requested count delivered exactly (CF = 1) and no
    pre-existing instance destroyed (OC = 1); a Score above 0 otherwise is ``partial``
    (:func:`abacus_shortfall` names the factor that fell)."""
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
    if item is not None and isinstance(item.get("cf"), (int, float)) and isinstance(item.get("oc"), (int, float)):
        if v <= 0:
            return "fail"
        return "pass" if item["cf"] >= 1 - 1e-9 and item["oc"] >= 1 - 1e-9 else "partial"
    if metric in LOWER_IS_BETTER:
        return "fail" if v > 0 else "pass"
    return "pass" if v > 0 else "fail"


def abacus_shortfall(line: dict) -> str:
    """What kept an ABACUS edit from being right, in words ('' when nothing did)."""
    rec = line.get("abacus_leaderboard") if isinstance(line.get("abacus_leaderboard"), dict) else {}
    item = line.get("abacus_score") if isinstance(line.get("abacus_score"), dict) else {}
    cf, oc, sc = (rec.get(k, item.get(k)) for k in ("cf", "oc", "sc"))
    parts = []
    if isinstance(cf, (int, float)) and cf < 1 - 1e-9:
        d, k = rec.get("delivered"), rec.get("requested")
        parts.append(f"count: {d} delivered for {k} requested (CF {cf:.2f})" if d is not None and k is not None else f"CF {cf:.2f}")
    if isinstance(oc, (int, float)) and oc < 1 - 1e-9:
        n, of = rec.get("n_destroyed"), rec.get("n_pre_existing")
        parts.append(f"{n} of {of} pre-existing instances destroyed (OC {oc:.2f})" if n is not None and of else f"OC {oc:.2f}")
    if parts and isinstance(sc, (int, float)):
        parts.append(f"SC {sc:.2f}")
    return "; ".join(parts)


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


def _resolved(folders: list[Path]) -> list[Path]:
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


# ------------------------------------------------------------------------------------ dataset images
CWI_NO_IMAGES = ("input images: not in lmms-eval's samples file (CwI keeps them in its parquet data); "
                 "set LMMS_PLUGINS_CWI_ROOT or pass --media-root <local CwI folder> to show them")


def _cwi_names(task: str, tr: TaskResult | None) -> tuple[str, list[str]]:
    """(the data folder's config name, the splits to look in) of a CwI task."""
    cfg = tr.config if tr is not None else {}
    name = cfg.get("dataset_name")
    if not (isinstance(name, str) and _PLAIN.fullmatch(name)):  # a config name is a folder name, nothing more
        name = task.removeprefix("cwi_code_").removeprefix("cwi_")
    splits = [s for s in (cfg.get("test_split"), cfg.get("validation_split"), "test", "validation", "train")
              if isinstance(s, str) and _PLAIN.fullmatch(s)]
    return name, list(dict.fromkeys(splits))


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


@functools.lru_cache(maxsize=64)
def _parquet_images(path: str, _stamp: int, key_col: str = "id", image_cols: tuple = ("image", "image_2")) -> dict[str, list[str]]:
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


def abacus_images(task: str, key: str, roots: list[Path]) -> tuple[list[str], str]:
    """(the source image, note) of an ABACUS edit, read by image id from the local data
    (``<root>/<operation>/<tier>-*.parquet``): the samples file logs no input image."""
    from lmms_plugins.baselines.mapping import ABACUS_TASK

    m = ABACUS_TASK.match(task)
    if not m or not m.group(1) or not m.group(2):
        return [], ""
    op, tier = m.group(1), m.group(2)
    looked = []
    for root in roots:
        inside = _resolved([Path(root)])
        for folder in (Path(root) / op, Path(root) / "abacus" / op):
            for f in sorted(folder.glob(f"{tier}-*.parquet")) if folder.is_dir() else []:
                if outside_reason(str(f), inside) or not is_regular(f):
                    continue
                looked.append(f)
                found = _parquet_images(str(f), f.stat().st_mtime_ns, "image_id", ("image",)).get(key)
                if found:
                    return found[:1], ""
    if looked:
        return [], f"source image: image {key} is not in {', '.join(str(f) for f in looked[:2])}"
    return [], ("source image: not in lmms-eval's samples file (ABACUS keeps it in its parquet data); "
                "set LMMS_PLUGINS_ABACUS_ROOT or pass --media-root <local ABACUS folder> to show it")


def cwi_images(task: str, key: str, tr: TaskResult | None, roots: list[Path]) -> tuple[list[str], str]:
    """(images, note) of a CwI item, read from the local data folder (the samples file has none)."""
    name, splits = _cwi_names(task, tr)
    looked = []
    for root in roots:
        inside = _resolved([Path(root)])
        for folder in (Path(root) / name, Path(root)):
            files = [f for s in splits for f in sorted(folder.glob(f"{s}-*.parquet"))] if folder.is_dir() else []
            for f in files:
                if outside_reason(str(f), inside):  # a config name such as '../..' from a hand-edited file
                    continue
                looked.append(f)
                found = _parquet_images(str(f), f.stat().st_mtime_ns).get(key)
                if found is not None:
                    return found, ""
    if looked:
        return [], f"input images: item {key} is not in {', '.join(str(f) for f in looked[:3])}"
    return [], CWI_NO_IMAGES


# ------------------------------------------------------------------------------------ GRADE
def grade_block(line: dict) -> str:
    """A GRADE sample's verdict in full: each rubric question with its weight and the judge's
    answer, R, C and L (from the record of ``grade_breakdown``, which carries the rubric)."""
    rec = line.get("grade_breakdown") if isinstance(line.get("grade_breakdown"), dict) else None
    if rec is None:
        rec = next((v for v in _metric_items(line).values() if "R" in v), None)
    if rec is None:
        return ""
    rubric = rec.get("rubric") if isinstance(rec.get("rubric"), list) else []
    answers = rec.get("answers") if isinstance(rec.get("answers"), list) else []
    by_id = {str(a.get("id")): a for a in answers if isinstance(a, dict)}
    rows = []
    for i, q in enumerate(rubric or [{"id": a.get("id"), "question": "", "weight": None} for a in answers]):
        a = by_id.get(str(q.get("id"))) or (answers[i] if i < len(answers) and isinstance(answers[i], dict) else None)
        verdict = "—" if a is None else ("yes" if a.get("yes") else "no")
        weight = q.get("weight")
        rows.append(f'<tr class="ans-{verdict}"><td>{ESC(str(q.get("id", "")))}</td><td>{ESC(str(q.get("question", "")))}</td>'
                    f'<td class="num">{"" if weight is None else f"{float(weight):.2f}"}</td><td><b>{verdict}</b></td>'
                    f'<td>{ESC(str((a or {}).get("reason", "")))}</td></tr>')
    if not rows:
        rows.append('<tr><td colspan=5 class="none">no rubric answers (no judge verdict for R)</td></tr>')

    def dim(name: str, scale: int) -> str:
        v = rec.get(name)
        if v is None:
            return "n/a" if name == "C" and rec.get("consistency_type") == "none" else "pending"
        return f"{float(v):.2f}" if scale == 1 else f"{v:g}/{scale}"

    note = "" if rubric else '<p class="none">the rubric text is not in this samples file (a run made before it was logged)</p>'
    return (f'<div class="grade"><h4>rubric (judge)</h4><table class="rubric"><tr><th>id</th><th>question</th><th>weight</th>'
            f'<th>answer</th><th>why</th></tr>{"".join(rows)}</table>{note}'
            f'<p class="dims">R = <b>{dim("R", 1)}</b> (sum of the weights answered yes) · C = <b>{dim("C", 2)}</b> '
            f'({ESC(str(rec.get("consistency_type", "")))} consistency) · L = <b>{dim("L", 2)}</b> · strict: '
            f'<b>{"yes" if rec.get("strict") else "no"}</b> (R = 1, C = 2 where it applies, L = 2)</p></div>')


def sample_card(task: str, line: dict, px: int = THUMB_PX, roots: list[Path] | None = None,
                tr: TaskResult | None = None) -> str:
    from lmms_plugins.utils.model_output import parse_model_output

    v = verdict_of(line)
    metric, item = v if v else ("", {})
    status = str(item.get("status", "ok")) if item else "no_metric"
    value = item.get("value") if item else None
    outcome = _outcome(value, status, item, metric) if item else "problem"
    category = category_of(line, item, task)
    key = sample_key(line)
    overlays = overlays_of(line)
    raw = line.get("filtered_resps", line.get("resps"))
    while isinstance(raw, list) and raw:
        raw = raw[0]
    out = parse_model_output(raw)
    full = _fullest_record(line)  # a task may keep its whole record on one metric only (DoD: dod_run)
    roots = list(roots or [])
    allowed = _resolved(roots)  # the record's data_root below helps find a file, it does not allow one
    if full and full.get("data_root"):  # the data folder the sample was scored from (DoD)
        roots.insert(0, Path(str(full["data_root"])))
    bench = benchmark_of(task)
    grade_images = (line.get("grade_breakdown") or {}).get("images") if bench == "grade" else None
    titles: dict[str, str] = {}
    if isinstance(grade_images, dict):  # GRADE: the input and the reference, each named
        titles = {str(p): name for name, p in grade_images.items() if p}
    media = [str(p) for p in line.get("input_media") or [] if str(p) not in titles or titles[str(p)] == "input"]
    note = ""
    if not media and bench == "cwi":
        media, note = cwi_images(task, key, tr, roots)
    elif not media and bench == "abacus":
        media, note = abacus_images(task, key, roots)
    media = [resolve_media(p, roots) for p in media]
    inputs = "".join(_figure(p, px, _overlays_for(overlays, "input", i), "input", "input" if titles else "", allowed)
                     for i, p in enumerate(media))
    out_title = "edited (model output)" if bench == "grade" else ""
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
    shortfall = abacus_shortfall(line) if outcome == "partial" else ""
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
  {grade_block(line) if bench == "grade" else ""}
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
    from lmms_plugins.headline import NAMES, ORDER

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
    for bench in [b for b in ORDER if b in by_bench] + [b for b in by_bench if b not in ORDER]:
        rows = by_bench[bench]
        table = ("<table class=metrics><tr><th>task</th><th>metric</th><th>meaning</th><th>value</th><th>samples</th></tr>"
                 + "".join(rows) + "</table>")
        name = NAMES.get(bench, bench)
        if len(rows) > METRIC_ROWS_OPEN:  # a long table (30 CwI tasks) folds, so the gallery is in view
            table = f"<details class=metrics><summary>{name}: all {len(rows)} metric values (click to show)</summary>{table}</details>"
        else:
            table = f"<h3>{name}: every metric</h3>{table}"
        blocks.append(table)
    summaries = "".join(
        f"<details class=summary><summary>{ESC(task)} · {ESC(metric)}</summary><pre>{ESC(json.dumps(value, indent=1, default=str)[:20000])}</pre></details>"
        for task in sorted(run.tasks) for metric, value in run.tasks[task].values.items() if isinstance(value, dict))
    return "".join(blocks) + (f"<h4>summaries written by the tasks (counts, per-category scores, intervals)</h4>{summaries}" if summaries else "")


def _tally_cell(tally: dict) -> str:
    if not tally.get("total"):
        return "–"
    pending = f", {tally['pending']} pending" if tally.get("pending") else ""
    return f"{100 * tally['success'] / tally['total']:.1f} % ({tally['success']}/{tally['total']}{pending})"


def _dod_categories(run: Run) -> str:
    """DoD's rates per category, computed from the logged samples' full records: the results file
    keeps only the compact ``dod_breakdown`` row (tasks/dod/README.md, "How they appear")."""
    from lmms_plugins.tasks.dod.breakdown import records_of
    from lmms_plugins.tasks.dod.metrics import METRICS, PAIR_METRICS, summarize

    blocks = []
    for task in sorted(run.tasks):
        tr = run.tasks[task]
        if benchmark_of(task) != "dod" or not tr.samples:
            continue
        try:
            records = records_of(tr.samples)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a record this version cannot read: say so, show the rest
            blocks.append(f"<p class=notes>{ESC(task)}: no per-category table ({ESC(type(exc).__name__)}: {ESC(str(exc))})</p>")
            continue
        if not records:
            continue
        summary = summarize(records)
        names = METRICS + PAIR_METRICS
        rows = "".join(f"<tr><td>{ESC(category)}</td>" + "".join(f'<td class="num">{_tally_cell(t[m])}</td>' for m in names) + "</tr>"
                       for category, t in [("all", summary), *sorted(summary["by_category"].items())])
        blocks.append(f"<h4>{ESC(task)} per category (from the samples)</h4><table class=dodcat><tr><th>category</th>"
                      + "".join(f"<th>{ESC(m)}</th>" for m in names) + f"</tr>{rows}</table>")
    return "".join(blocks)


def _select(samples: list[dict], limit: int) -> list[dict]:
    """At most ``limit`` samples, problems and failures first, then in doc order."""
    if len(samples) <= limit:
        return samples

    def rank(line):
        v = verdict_of(line)
        item = v[1] if v else {}
        return 0 if _outcome(item.get("value"), str(item.get("status", "ok")), item, v[0] if v else "") != "pass" else 1

    keep = sorted(samples, key=rank)[:limit]
    return sorted(keep, key=lambda line: line.get("doc_id", 0))


def _judge(line: dict) -> tuple[str, str]:
    """(status, verdict) of a sample, as its card shows them."""
    v = verdict_of(line)
    if not v:
        return "no_metric", "problem"
    item = v[1]
    status = str(item.get("status", "ok"))
    return status, _outcome(item.get("value"), status, item, v[0])


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
        chosen = _select(tr.samples, max_samples)
        roots = media_roots(task, run, media_root)
        if len(chosen) < len(tr.samples):
            notes.append(f"{task}: {len(chosen)} of {len(tr.samples)} samples shown (failures and problems first; --max-samples)")
        for line in chosen:
            card = sample_card(task, line, thumb_px, roots, tr)
            v = verdict_of(line)
            item = v[1] if v else {}
            st = str(item.get("status", "ok")) if item else "no_metric"
            statuses[st] += 1
            categories[category_of(line, item, task)] += 1
            outcomes[_outcome(item.get("value"), st, item, v[0]) if item else "problem"] += 1
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
<h2>Breakdowns</h2>{_dod_categories(run)}{_metrics_table(run)}
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
