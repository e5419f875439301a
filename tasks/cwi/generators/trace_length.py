"""trace_length: the length of a winding red curve, in pixels.

Construction: a smooth random meandering curve (the graph of a random sum of sinusoids across
a horizontal or vertical axis, its amplitude scaled to the drawn length) in red, anti-aliased,
on light paper, never touching itself (its bends keep a clearance of 4 stroke widths);
from the medium tier on, curves in other colours cross it (drawn underneath) and the paper
gets noise; harder tiers have longer, curlier, thinner curves. The gold is the arc length of
the curve's centreline (the polyline the renderer draws). Interpretation of the card's
"length/200 within +-0.3": the answer is the length in pixels and the rule compares
length / 200, i.e. a tolerance of +-60 px (the task YAML declares it that way).
Rule (card): |L / 200 - L* / 200| <= 0.3.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.gen_helpers import shortcut_hits, tier_params
from lmms_plugins.tasks.cwi.gen_types import GeneratedItem

_TIERS = {
    "easy": dict(size=(480, 360), length=(400, 900), cycles=(0.5, 2.0), thick=3, others=0, noise=0.0),
    "medium": dict(size=(512, 384), length=(700, 1400), cycles=(1.0, 3.0), thick=3, others=2, noise=4.0),
    "hard": dict(size=(512, 384), length=(1000, 1900), cycles=(1.5, 4.0), thick=2, others=3, noise=6.0),
    "expert": dict(size=(640, 480), length=(1400, 2600), cycles=(2.0, 5.0), thick=2, others=5, noise=8.0),
}
RED = (210, 25, 25)
_OTHER_COLOURS = [(30, 60, 200), (20, 150, 60), (120, 120, 120), (150, 40, 170), (0, 150, 160)]
_STEP = 0.5  # px between centreline samples

PROMPT = (
    "A single red curve winds across this image (other curves, in other colours, may cross "
    "it). How long is the red curve: the length in pixels of its centreline from one end to "
    "the other?\n"
    "Answer inside <answer>…</answer> as a number of pixels, e.g. <answer>812.5</answer>."
)


def _random_path(rng, length, cycles, w, h, margin):
    """A smooth meandering path of the given length inside the canvas (points every ~_STEP
    px along its axis), or None.

    The path is the graph of a smooth random function across a main axis (horizontal or
    vertical, either direction), x = f(u), so it never crosses itself; its amplitude is scaled
    until the arc length matches.
    """
    import numpy as np

    horizontal = bool(rng.random() < 0.5)
    along, across = (w, h) if horizontal else (h, w)
    span = float(rng.uniform(0.55, 0.9)) * (along - 2 * margin)
    u = np.arange(0.0, span + _STEP, _STEP)
    k = int(rng.integers(2, 5))
    freqs = rng.uniform(cycles[0], cycles[1], size=k) / span
    amps = rng.uniform(0.3, 1.0, size=k) / np.arange(1, k + 1)
    phases = rng.uniform(0, 2 * np.pi, size=k)
    f = (amps[None, :] * np.sin(2 * np.pi * u[:, None] * freqs[None, :] + phases[None, :])).sum(1)
    f -= f.mean()
    df = np.diff(f)

    def arc(scale):
        return float(np.sqrt(_STEP**2 + (scale * df) ** 2).sum())

    lo, hi = 0.0, 1.0
    while arc(hi) < length:
        hi *= 2
        if hi > 1e4:
            return None
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if arc(mid) < length else (lo, mid)
    g = hi * f
    if g.max() - g.min() > across - 2 * margin:
        return None
    u0 = float(rng.uniform(margin, along - margin - span))
    v0 = float(rng.uniform(margin - g.min(), across - margin - g.max()))
    pu, pv = u + u0, g + v0
    if rng.random() < 0.5:
        pu, pv = pu[::-1], pv[::-1]
    return np.stack([pu, pv], 1) if horizontal else np.stack([pv, pu], 1)


def _self_clear(path, clearance):
    """True when no two points farther apart along the path than 3*clearance come within
    `clearance` px of each other (the curve never touches itself)."""
    import numpy as np
    from scipy.spatial import cKDTree

    pairs = cKDTree(path).query_pairs(clearance, output_type="ndarray")
    if len(pairs) == 0:
        return True
    return bool(np.all(np.abs(pairs[:, 0] - pairs[:, 1]) * _STEP <= 3 * clearance))


def _draw(canvas, path, colour, thick, ss):
    import cv2
    import numpy as np

    pts = (path * ss).round().astype(np.int32)
    cv2.polylines(canvas, [pts], False, colour, thick * ss, cv2.LINE_AA)


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np
    from PIL import Image

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    ss = 2  # supersampling
    for _attempt in range(300):
        length = float(rng.uniform(*p["length"]))
        path = None
        for _try in range(40):
            path = _random_path(rng, length, p["cycles"], w, h, 8)
            if path is not None and _self_clear(path, 4.0 * p["thick"]):
                break
            path = None
        if path is None:
            continue
        true_len = float(np.hypot(*np.diff(path, axis=0).T).sum())
        paper = float(rng.uniform(235, 252))
        canvas = np.full((h * ss, w * ss, 3), paper, np.uint8)
        others = []
        for k in range(p["others"]):
            op = None
            for _try in range(20):
                op = _random_path(rng, float(rng.uniform(300, 900)), p["cycles"], w, h, 4)
                if op is not None:
                    break
            if op is None:
                continue
            colour = _OTHER_COLOURS[k % len(_OTHER_COLOURS)]
            _draw(canvas, op, colour, p["thick"], ss)
            others.append(colour)
        _draw(canvas, path, RED, p["thick"], ss)
        img = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float64)
        if p["noise"]:
            img = img + rng.normal(0, p["noise"], size=img.shape)
        image = Image.fromarray(np.clip(np.round(img), 0, 255).astype(np.uint8))
        answer = f"{true_len:.1f}"
        if shortcut_hits("trace_length", answer, shortcut_answers(image, None, PROMPT)):
            continue
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "length_px": round(true_len, 3),
            "start": [round(float(v), 2) for v in path[0]],
            "end": [round(float(v), 2) for v in path[-1]],
            "thickness_px": p["thick"],
            "cycles": list(p["cycles"]),
            "other_curves": len(others),
            "noise_sigma": p["noise"],
            "tolerance_note": "rule compares length/200 within 0.3, i.e. +-60 px",
        }
        return GeneratedItem(image=image, image_2=None, prompt=PROMPT, answer=answer, meta=meta)
    raise RuntimeError("trace_length: no sample escaped the shortcuts in 300 attempts")


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """Typical lengths, and the image's width and diagonal (a curve 'about as long as the
    picture')."""
    w, h = image.size
    return {
        "constant": "1000.0",
        "constant_long": "1600.0",
        "width": f"{w:.1f}",
        "diagonal": f"{(w * w + h * h) ** 0.5:.1f}",
        "two_widths": f"{2 * w:.1f}",
    }
