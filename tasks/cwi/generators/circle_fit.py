"""circle_fit: the centre of a circle of which only an arc is drawn, to +-4 px.

Construction: a 480x360 canvas (the card's 480-px canvas) with one dark circular arc (the
circle's centre lies on the canvas; radius 60-260 px) and clutter: straight strokes (shorter than the arc) in a
lighter grey (medium) or in the same ink (hard/expert), specks, and pixel noise; the arc is
at least 150 px long. Harder
tiers show a shorter arc (down to 80 degrees), where the eye cannot place the centre. The
answer is the centre in canvas pixels. Rule (card): within 4 px (Euclidean, as the YAML says).
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "circle_fit"

W, H = 480, 360
_TIERS = {
    "easy": dict(span=(220, 300), lines=0, same_ink=False, specks=0, noise=0.0),
    "medium": dict(span=(150, 220), lines=3, same_ink=False, specks=20, noise=4.0),
    "hard": dict(span=(110, 160), lines=4, same_ink=True, specks=40, noise=8.0),
    "expert": dict(span=(80, 120), lines=6, same_ink=True, specks=80, noise=12.0),
}
R_RANGE = (60, 260)
MIN_ARC_PX = 150

PROMPT = (
    "This 480x360 image shows one circular arc (part of a circle) among some straight strokes "
    "and specks. Where is the centre of the circle that the arc belongs to (the centre lies "
    "inside the image; the radius is between 60 and 260 px)? Give it in pixels (x to the right, "
    "y down, origin at the top-left corner)."
) + answer_instruction("as x,y", "231.5,160.0")


def _segment_distance(xs, ys, x1, y1, x2, y2) -> float:
    """Smallest distance from the points (xs, ys) to the segment (x1,y1)-(x2,y2)."""
    import numpy as np

    vx, vy = x2 - x1, y2 - y1
    t = np.clip(((xs - x1) * vx + (ys - y1) * vy) / max(vx * vx + vy * vy, 1e-9), 0, 1)
    return float(np.hypot(xs - (x1 + t * vx), ys - (y1 + t * vy)).min())


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    p = tier_params(_TIERS, tier)

    def draw(_attempt):
        cx, cy = float(rng.uniform(20, W - 20)), float(rng.uniform(20, H - 20))
        r = float(rng.uniform(*R_RANGE))
        span = float(rng.uniform(*p["span"]))
        start = float(rng.uniform(0, 360))
        t = np.deg2rad(np.linspace(start, start + span, max(60, int(span * r / 4))))
        xs, ys = cx + r * np.cos(t), cy + r * np.sin(t)
        if xs.min() < 4 or xs.max() > W - 5 or ys.min() < 4 or ys.max() > H - 5:
            return None  # the whole arc must be on the canvas
        arc_len = np.deg2rad(span) * r
        if arc_len < MIN_ARC_PX:
            return None  # too few pixels to pin the centre down to a few px
        bg = float(rng.uniform(215, 250))
        ink = float(rng.uniform(20, 70))
        canvas = np.full((H * 4, W * 4), bg, np.float32)  # draw at 4x, then area-downsample (anti-aliasing)
        for _ in range(p["lines"]):
            # straight strokes 40-150 px long: clutter, never longer than the arc and never
            # touching it (a stroke across the arc would make its pixels ambiguous)
            for _try in range(30):
                x1, y1 = rng.uniform(0, 4 * W), rng.uniform(0, 4 * H)
                ang, ln = rng.uniform(0, 2 * np.pi), 4 * rng.uniform(40, min(150, 0.8 * arc_len))
                x2, y2 = x1 + ln * np.cos(ang), y1 + ln * np.sin(ang)
                if _segment_distance(xs, ys, x1 / 4, y1 / 4, x2 / 4, y2 / 4) > 8:
                    break
            else:
                continue
            colour = ink if p["same_ink"] else float(rng.uniform(140, 185))
            cv2.line(canvas, (int(x1), int(y1)), (int(x2), int(y2)), colour, 8, cv2.LINE_AA)
        pts = np.stack([xs * 4 + 1.5, ys * 4 + 1.5], 1).round().astype(np.int32)
        cv2.polylines(canvas, [pts], False, ink, 8, cv2.LINE_AA)
        img = cv2.resize(canvas, (W, H), interpolation=cv2.INTER_AREA)
        for _ in range(p["specks"]):
            sx, sy = int(rng.integers(0, W - 2)), int(rng.integers(0, H - 2))
            img[sy : sy + 2, sx : sx + 2] = ink
        image = to_pil(add_noise(img, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": W,
            "height": H,
            "centre": [round(cx, 3), round(cy, 3)],
            "radius": round(r, 3),
            "arc_start_deg": round(start, 3),
            "arc_span_deg": round(span, 3),
            "n_lines": p["lines"],
            "lines_same_ink": p["same_ink"],
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(image, None, PROMPT, f"{cx:.1f},{cy:.1f}", meta)

    return draw_until_clear(TASK, shortcut_answers, draw, attempts=300)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The canvas centre, the centroid of the dark pixels, and the centre of their bounding box."""
    import numpy as np

    g = np.asarray(image.convert("L"), dtype=np.float64)
    ys, xs = np.nonzero(g < 110)
    h, w = g.shape
    out = {"centre": f"{w / 2:.1f},{h / 2:.1f}"}
    if xs.size:
        out["ink_centroid"] = f"{xs.mean():.1f},{ys.mean():.1f}"
        out["ink_bbox_centre"] = f"{(xs.min() + xs.max()) / 2:.1f},{(ys.min() + ys.max()) / 2:.1f}"
    return out
