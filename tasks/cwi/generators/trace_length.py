"""trace_length: the length of a winding red curve, in pixels.

Construction: a smooth random meandering red curve, anti-aliased, on light paper, never
touching itself (its points keep a clearance of 4 stroke widths from the rest of the curve);
from the medium tier on, curves in other colours cross it (drawn underneath) and the paper
gets noise. The gold is the arc length of the curve's centreline (the polyline the renderer
draws). Interpretation of the card's "length/200 within +-0.3": the answer is the length in
pixels and the rule compares length / 200, i.e. a tolerance of +-60 px (the task YAML
declares it that way). Rule (card): |L / 200 - L* / 200| <= 0.3.

Design against the constant shortcut: the tolerance window is 120 px wide, so for lengths
spread flat over a range R the best single answer hits ~120 / R of the items. Every tier
draws the length from the same flat range, 250-5750 px, and every tier uses the same
1024x768 canvas, so neither the image size nor the tier says anything about the length. The
answers in shortcut_answers are cut out of that range (4 windows of 120 px), leaving
R ~ 5000 px: a constant answer hits ~2.4 % (the earlier 300-2700 px range gave 8 %). The
tiers differ only in difficulty: stroke thickness, crossing curves in other colours, paper
noise and curliness (more and mixed waves).

The curve is the graph of a smooth random function across a main axis (horizontal or
vertical), so it never crosses itself. Its span along the axis is shorter than the length
(short curves fit), and the number of waves grows with (length - span) / height so that long
curves fill the canvas with tall meanders instead of ever-sharper ones; the axis is warped
(slow where the curve is steep) so the turns stay round. The amplitude is then scaled until
the arc length matches.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "trace_length"

SIZE = (1024, 768)  # every tier: the image size must not hint at the length
LENGTH = (250.0, 5750.0)  # every tier: one flat range, so a constant answer hits ~120/5000
_TIERS = {
    "easy": dict(curl=(0.5, 1.5), waves=(1, 2), mix=0.3, thick=4, others=0, noise=0.0),
    "medium": dict(curl=(0.8, 2.0), waves=(1, 3), mix=0.4, thick=3, others=2, noise=4.0),
    "hard": dict(curl=(1.0, 2.5), waves=(2, 4), mix=0.5, thick=2, others=4, noise=6.0),
    "expert": dict(curl=(1.5, 3.0), waves=(2, 5), mix=0.7, thick=2, others=6, noise=8.0),
}
RED = (210, 25, 25)
_OTHER_COLOURS = [(30, 60, 200), (20, 150, 60), (120, 120, 120), (150, 40, 170), (0, 150, 160), (200, 140, 0)]
_STEP = 0.5  # px between centreline samples (uniform in arc length)
_MARGIN = 10

PROMPT = (
    "A single red curve winds across this image (other curves, in other colours, may cross "
    "it). How long is the red curve: the length in pixels of its centreline from one end to "
    "the other?"
) + answer_instruction("as a number of pixels", "812.5")


def _random_path(rng, length, curl, waves, mix, margin=_MARGIN):
    """A smooth meandering path of about the given length inside the canvas, as points every
    _STEP px of arc length, or None when this draw does not fit."""
    import numpy as np

    w, h = SIZE
    horizontal = bool(rng.random() < 0.5)
    along, across = (w, h) if horizontal else (h, w)
    room_u, room_v = along - 2 * margin, across - 2 * margin
    span = min(room_u * float(rng.uniform(0.8, 1.0)), length * float(rng.uniform(0.3, 0.8)))
    # a wave filling half the height adds about room_v of length: enough waves for the excess
    cycles = max(float(rng.uniform(*curl)), (length - span) / room_v * float(rng.uniform(1.0, 1.4)))
    k = int(rng.integers(waves[0], waves[1] + 1))
    freqs = cycles * np.concatenate([[1.0], rng.uniform(0.4, 2.0, size=k - 1)]) / span
    amps = np.concatenate([[1.0], rng.uniform(0.1, mix, size=k - 1)])
    phases = rng.uniform(0, 2 * np.pi, size=k)
    t = np.linspace(0.0, span, max(2000, int(4 * length)))
    f = (amps * np.sin(2 * np.pi * t[:, None] * freqs + phases)).sum(1)
    f -= (f.max() + f.min()) / 2
    df = np.diff(f)
    dt = t[1] - t[0]

    def curve(scale):
        # slow the axis down where the slope passes ~1.5: tall, straight runs and round
        # turns (a plain sum of sines gets ever-sharper tips as it gets taller)
        du = dt / np.sqrt(1.0 + (scale * df / dt / 1.5) ** 2)
        du *= span / du.sum()
        return np.concatenate([[0.0], np.cumsum(du)]), scale * f

    def arc(scale):
        u, v = curve(scale)
        return float(np.hypot(np.diff(u), np.diff(v)).sum())

    lo, hi = 0.0, 1.0
    while arc(hi) < length:
        hi *= 2
        if hi > 1e5:
            return None
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if arc(mid) < length else (lo, mid)
    u, v = curve(hi)
    if v.max() - v.min() > room_v:
        return None
    # resample uniformly in arc length (the clearance test counts arc length in samples)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(u), np.diff(v)))])
    si = np.append(np.arange(0.0, s[-1], _STEP), s[-1])
    u, v = np.interp(si, s, u), np.interp(si, s, v)
    u = u + float(rng.uniform(margin, along - margin - span))
    v = v + float(rng.uniform(margin - v.min(), across - margin - v.max()))
    if rng.random() < 0.5:
        u, v = u[::-1], v[::-1]
    return np.stack([u, v], 1) if horizontal else np.stack([v, u], 1)


def _self_clear(path, clearance):
    """True when no two points farther apart along the path than 3*clearance come within
    `clearance` px of each other (the curve never touches itself)."""
    import numpy as np
    from scipy.spatial import cKDTree

    pts = path[::2]  # 1 px apart is fine enough here
    pairs = cKDTree(pts).query_pairs(clearance, output_type="ndarray")
    if len(pairs) == 0:
        return True
    return bool(np.all(np.abs(pairs[:, 0] - pairs[:, 1]) * 2 * _STEP <= 3 * clearance))


def _draw(canvas, path, colour, thick, ss):
    import cv2
    import numpy as np

    pts = (path * ss * 16).round().astype(np.int32)  # 4 fractional bits: subpixel placement
    cv2.polylines(canvas, [pts], False, colour, thick * ss, cv2.LINE_AA, shift=4)


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np

    p = tier_params(_TIERS, tier)
    w, h = SIZE
    ss = 2  # supersampling

    def draw(_attempt):
        length = float(rng.uniform(*LENGTH))
        # keep this length until a path fits: retrying with a new length would skew the
        # length distribution towards the easy-to-fit ones
        path = None
        for _try in range(200):
            path = _random_path(rng, length, p["curl"], p["waves"], p["mix"])
            if path is not None and _self_clear(path, 4.0 * p["thick"]):
                break
            path = None
        if path is None:
            return None
        true_len = float(np.hypot(*np.diff(path, axis=0).T).sum())
        paper = float(rng.uniform(235, 252))
        canvas = np.full((h * ss, w * ss, 3), paper, np.uint8)
        others = []
        for k in range(p["others"]):
            op = None
            for _try in range(20):
                op = _random_path(rng, float(rng.uniform(300, 2500)), p["curl"], p["waves"], p["mix"], 4)
                if op is not None:
                    break
            if op is None:
                continue
            colour = _OTHER_COLOURS[k % len(_OTHER_COLOURS)]
            _draw(canvas, op, colour, p["thick"], ss)
            others.append(colour)
        _draw(canvas, path, RED, p["thick"], ss)
        img = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float64)
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "length_px": round(true_len, 3),
            "length_range": list(LENGTH),
            "start": [round(float(v), 2) for v in path[0]],
            "end": [round(float(v), 2) for v in path[-1]],
            "thickness_px": p["thick"],
            "curl": list(p["curl"]),
            "waves": list(p["waves"]),
            "mix": p["mix"],
            "other_curves": len(others),
            "noise_sigma": p["noise"],
            "tolerance_note": "rule compares length/200 within 0.3, i.e. +-60 px",
        }
        return GeneratedItem(to_pil(add_noise(img, rng, p["noise"])), None, PROMPT, f"{true_len:.1f}", meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """A typical length (the middle of the range), and the image's width and diagonal (a
    curve 'about as long as the picture'). Each is a 120 px hole the generator cuts out of
    the flat length range, which raises the density elsewhere: keep this list short."""
    w, h = image.size
    return {
        "constant": "3000.0",
        "width": f"{w:.1f}",
        "diagonal": f"{(w * w + h * h) ** 0.5:.1f}",
        "two_widths": f"{2 * w:.1f}",
    }
