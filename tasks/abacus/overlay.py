"""The verdict of one ABACUS edit as a report overlay (lmms_plugins.report draws it on the
edited image): every source instance, mapped into the edit, as kept / transformed / removed,
and every new instance in the edit as added."""

from __future__ import annotations

COLOURS = {"kept": "#868e96", "transformed": "#f08c00", "removed": "#e03131", "added": "#2f9e44"}


def verdict_overlay(verdicts: dict, mapped: dict, edited: dict, size_wh: tuple[int, int]) -> dict:
    """``verdicts``/``mapped``/``edited``: per category, the matching's Verdicts, the source
    instances mapped into the edit, and the edit's instances. Boxes are in the edit's pixels."""
    shapes = []
    for cat, v in verdicts.items():
        for kind in ("kept", "transformed", "removed"):
            for i in getattr(v, kind):
                shapes.append(_box(mapped[cat][i].box, kind, cat))
        for j in v.added:
            shapes.append(_box(edited[cat][j].box, "added", cat))
    counts = ", ".join(f"{cat}: " + ", ".join(f"{len(getattr(v, k))} {k}" for k in COLOURS) for cat, v in verdicts.items())
    return {"target": "output", "index": 0, "size": [int(size_wh[0]), int(size_wh[1])], "shapes": shapes,
            "caption": f"detections in the edit ({counts})"}


def _box(box, kind: str, category: str) -> dict:
    return {"kind": "box", "xyxy": [round(float(c), 1) for c in box], "label": f"{kind} ({category})",
            "color": COLOURS[kind]}
