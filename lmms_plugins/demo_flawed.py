"""The demo's second, imperfect run: the program baselines' answers with known flaws.

The baselines score 100 % on the demo data, so a comparison of them alone shows only a ceiling.
From their logged samples this writes a ``replay`` outputs file (lmms_plugins/models/replay.py)
in which some answers are spoiled, each in a way the scorers must catch:

* CwI: every 6th item (from the 2nd) gets its answer's digits shifted by 5 (a wrong value of the
  right shape), every 6th (from the 5th) a sentence with no ``<answer>`` span (unparsable);
* DoD mazes: of the feasible requests, every 3rd (from the 2nd) has its path stop one cell short
  of the end (``wrong_endpoint``), every 3rd (from the 3rd) takes the straight way through walls
  (``crosses_wall``); every 2nd infeasible request (from the 2nd) gets a path drawn anyway,
  through walls, instead of the decline.

Everything else is the baseline's answer as it was. ABACUS needs no file: its synthetic editor has
its own fault injection (``fault=touch``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lmms_plugins.utils.jsonl import read_jsonl

ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def _shift_digits(text: str) -> str:
    def spoil(m: re.Match) -> str:
        inner = m.group(1)
        changed = re.sub(r"\d", lambda d: str((int(d.group()) + 5) % 10), inner)
        return f"<answer>{changed if changed != inner else 'none'}</answer>"

    out, n = ANSWER.subn(spoil, text, count=1)
    return out if n else "<answer>none</answer>"


def _text(raw) -> str:
    from lmms_plugins.utils.model_output import parse_model_output

    while isinstance(raw, list) and raw:
        raw = raw[0]
    return parse_model_output(raw).text


def _samples(run_dir: Path, pattern: str) -> dict[str, list[dict]]:
    """task -> logged samples, from a folder of lmms-eval output."""
    out = {}
    for f in sorted(run_dir.rglob(f"*_samples_{pattern}.jsonl")):
        task = f.name.split("_samples_", 1)[1][: -len(".jsonl")]
        out[task] = read_jsonl(f)
    return out


def cwi_rows(baseline: Path) -> list[dict]:
    rows, i = [], 0
    for task, lines in sorted(_samples(baseline, "cwi_*").items()):
        for line in sorted(lines, key=lambda x: int(x["doc_id"])):
            text = _text(line.get("filtered_resps"))
            if i % 6 == 1:
                text = _shift_digits(text)
            elif i % 6 == 4:
                text = "I looked at the image but could not work out the answer."
            rows.append({"task": task, "doc_id": int(line["doc_id"]), "text": text})
            i += 1
    return rows


def _draw(input_path: Path, cells: list, out: Path) -> Path:
    from lmms_plugins.tasks.dod.maze import geometry as mg
    from lmms_plugins.tasks.dod.maze.render import PATH_WIDTH_FRACTION, draw_polyline

    geom = mg.read_geometry(str(input_path))
    img, _ = mg.open_rgb(str(input_path), allow_draft=False)
    img = img.copy()
    pitch = min(geom.box.pitch_x, geom.box.pitch_y)
    width = 2 * round(pitch * PATH_WIDTH_FRACTION / 2) + 1
    draw_polyline(img, [geom.box.centre(tuple(c)) for c in cells], width, tuple(mg.DEFAULT_PATH_RGB))
    out.parent.mkdir(parents=True, exist_ok=True)
    img.save(out, format="PNG")
    return out


def _paths(input_path: Path) -> tuple[list | None, list]:
    """(the legal path or None, the straight way ignoring walls) of a maze image."""
    from lmms_plugins.tasks.dod.maze import bfs
    from lmms_plugins.tasks.dod.maze import geometry as mg

    geom = mg.read_geometry(str(input_path))
    legal = bfs.shortest_path(geom.grid, geom.start, geom.goal)
    inner = tuple(tuple(0 if 0 < r < geom.n - 1 and 0 < c < geom.n - 1 else 1 for c in range(geom.n)) for r in range(geom.n))
    straight = bfs.shortest_path(inner, geom.start, geom.goal) or [geom.start, geom.goal]
    return (list(legal) if legal else None), list(straight)


def dod_rows(baseline: Path, data_root: Path, images: Path) -> list[dict]:
    rows = []
    feasible_k = infeasible_k = 0
    for task, lines in sorted(_samples(baseline, "dod_*").items()):
        for line in sorted(lines, key=lambda x: int(x["doc_id"])):
            rec = (line.get("dod_run") or {}).get("record") or {}
            case = str(rec.get("case_id") or line["doc_id"])
            raw = line.get("filtered_resps")
            payload = json.loads(raw) if isinstance(raw, str) and raw.lstrip().startswith("{") else {"text": _text(raw), "images": []}
            row = {"task": task, "doc_id": int(line["doc_id"]), "text": payload.get("text", ""), "images": payload.get("images", [])}
            media = line.get("input_media") or []
            if rec.get("category") == "maze" and media:
                inp = data_root / str(media[0])
                legal, straight = _paths(inp)
                if rec.get("feasible"):
                    if legal and feasible_k % 3 == 1:
                        row["images"] = [str(_draw(inp, legal[:-1], images / f"{case}.png"))]
                        row["text"] = "<think>Route found.</think>\nHere is the path (it stops one cell early)."
                    elif feasible_k % 3 == 2 and straight != legal:
                        row["images"] = [str(_draw(inp, straight, images / f"{case}.png"))]
                        row["text"] = "<think>The straight way is shortest.</think>\nHere is the path."
                    feasible_k += 1
                else:
                    if infeasible_k % 2 == 1:
                        row["images"] = [str(_draw(inp, straight, images / f"{case}.png"))]
                        row["text"] = "<think>I will connect the start and the end.</think>\nHere is the path."
                    infeasible_k += 1
            rows.append(row)
    return rows


def write_outputs(baseline: Path, dod_root: Path, out_dir: Path) -> tuple[Path, dict[str, int]]:
    """The replay JSONL of the flawed run (and its images under ``out_dir``); counts per benchmark."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cwi = cwi_rows(baseline)
    dod = dod_rows(baseline, dod_root, out_dir / "dod_images")
    path = out_dir / "flawed_outputs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in cwi + dod), encoding="utf-8")
    return path, {"cwi": len(cwi), "dod": len(dod)}
