"""A tiny GRADE-layout dataset, model outputs and a canned judge, shared by the GRADE tests.

Each sample's edited image is a solid colour of its own, so the fake judge can tell which sample
a request is about from the pixels it receives (the readability request carries no text about
the sample), and answer with that sample's canned verdict.
"""

from __future__ import annotations

import base64
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import image_urls, message_text  # noqa: E402


@dataclass(frozen=True)
class Case:
    task_id: str
    consistency: str
    sub_task: str
    questions: tuple  # ((id, question, weight), ...)
    yes: tuple  # ids the judge answers Yes
    C: int | None  # judge's consistency score (None when consistency is none)
    L: int
    colour: tuple  # the edited image's colour; None = the model returns no image


CASES = (
    Case("physics_mech_001", "overall", "Mechanics", (("Q1", "Is the force arrow reversed?", 0.5), ("Q2", "Is F labelled?", 0.5)),
         ("Q1", "Q2"), 2, 2, (230, 30, 30)),
    Case("board_chess_001", "style", "Chess", (("Q1", "Is the knight on f3?", 0.6), ("Q2", "Is the board unchanged?", 0.4)),
         ("Q1",), 2, 2, (30, 200, 30)),
    Case("engineering_views_001", "none", "Orthographic views",
         (("Q1", "Is the front view drawn?", 0.3), ("Q2", "Is the top view drawn?", 0.3), ("Q3", "Are hidden lines dashed?", 0.4)),
         ("Q1", "Q2", "Q3"), None, 2, (30, 30, 230)),
    Case("chemistry_org_001", "style", "Organic", (("Q1", "Is the product an ester?", 1.0),), ("Q1",), 1, 2, (230, 230, 30)),
    Case("math_geo_001", "overall", "Plane geometry", (("Q1", "Is the bisector drawn?", 1.0),), ("Q1",), 2, 2, None),
    Case("eco_macro_001", "overall", "Macroeconomics", (("Q1", "Is AD shifted right?", 0.5), ("Q2", "Is E1 marked?", 0.5)),
         ("Q2",), 2, 1, (200, 30, 200)),
)


def expected_scores(cases=CASES) -> dict:
    """The published formulas applied by hand to the canned verdicts (missing image: all 0)."""
    rows = []
    for c in cases:
        if c.colour is None:
            rows.append((0.0, None if c.consistency == "none" else 0, 0))
        else:
            r = sum(w for qid, _, w in c.questions if qid in c.yes)
            rows.append((r, c.C, c.L))
    n = len(rows)
    reasoning = 100 * sum(r for r, _, _ in rows) / n
    cs = [c for (_, c, _), case in zip(rows, cases) if case.consistency != "none"]
    consistency = 50 * sum(cs) / len(cs)
    readability = 50 * sum(l for _, _, l in rows) / n
    strict = 100 * sum(1 for (r, c, l), case in zip(rows, cases)
                       if r > 0.99 and (case.consistency == "none" or c == 2) and l == 2) / n
    return {
        "strict": strict, "reasoning": reasoning, "consistency": consistency, "readability": readability,
        "lenient": 0.6 * reasoning + 0.3 * consistency + 0.1 * readability,
    }


def write_png(path: Path, size, colour) -> Path:
    from PIL import Image, ImageDraw

    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, colour)
    ImageDraw.Draw(img).line((0, 0, size[0] - 1, size[1] - 1), fill=(0, 0, 0), width=3)
    img.save(path)
    return path


def make_dataset(root: Path, cases=CASES) -> Path:
    """data.json + images in the official layout (paths relative to the root)."""
    records = []
    for i, c in enumerate(cases):
        size = (1600, 800) if i == 0 else (320, 240)  # one image above 1024 px: the judge gets it shrunk
        write_png(root / "images" / "input" / f"{c.task_id}.png", size, (255, 255, 255))
        write_png(root / "images" / "gt" / f"{c.task_id}.png", size, (240, 240, 240))
        records.append({
            "image_path": f"images/input/{c.task_id}.png",
            "gt": f"images/gt/{c.task_id}.png",
            "text": f"Edit the diagram of {c.task_id}.",
            "task_id": c.task_id,
            "consistency": c.consistency,
            "sub_task": c.sub_task,
            "questions": [{"id": q, "question": text, "score": w} for q, text, w in c.questions],
        })
    (root / "data.json").write_text(json.dumps(records, indent=1))
    return root


def make_outputs(folder: Path, cases=CASES) -> Path:
    """A replay JSONL (key = task_id) with one solid-colour edited image per sample."""
    lines = []
    for c in cases:
        if c.colour is None:
            lines.append({"key": c.task_id, "text": "I could not draw this."})
        else:
            write_png(folder / "edited" / f"{c.task_id}.png", (256, 256), c.colour)
            lines.append({"key": c.task_id, "text": "", "image": f"edited/{c.task_id}.png"})
    path = folder / "outputs.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def decode_image(url: str):
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def case_of_image(url: str, cases=CASES) -> Case:
    """The case whose colour is nearest to the centre pixel of an edited image."""
    img = decode_image(url).convert("RGB")
    px = img.getpixel((img.width // 2 + 20, img.height // 2 - 20))
    best = min((c for c in cases if c.colour), key=lambda c: sum((a - b) ** 2 for a, b in zip(px, c.colour)))
    return best


def kind_of(request: dict) -> str:
    system = request["messages"][0]["content"]
    if "Checkpoints:" in message_text(request):
        return "reasoning"
    if "unintended changes" in system:
        return "consistency_overall"
    if "representation style" in system:
        return "consistency_style"
    if "readable" in system:
        return "readability"
    raise AssertionError(f"unknown judge request: {system[:80]}")


def reasoning_reply(case: Case, *, shuffle: bool = True, fence: bool = False) -> str:
    items = [{"id": q, "answer": "Yes" if q in case.yes else "No", "reason": "seen"} for q, _, _ in case.questions]
    if shuffle:
        items = items[::-1]
    text = json.dumps(items)
    return f"Here is my assessment:\n```json\n{text}\n```" if fence else text


def canned_judge(request: dict, cases=CASES) -> str:
    """The judge of the tests: correct protocol, verdicts from CASES, answers in reverse order."""
    kind = kind_of(request)
    urls = image_urls(request)
    edited = urls[1] if kind != "readability" else urls[0]
    case = case_of_image(edited, cases)
    if kind == "reasoning":
        return reasoning_reply(case, fence=case.task_id.startswith("board"))
    if kind.startswith("consistency"):
        assert kind == f"consistency_{case.consistency}", (kind, case.task_id)
        return json.dumps({"score": case.C, "reason": "canned"})
    return json.dumps({"score": case.L, "reason": "canned"})
