"""peak_count: how many peaks of a plotted curve rise above a threshold line?

Construction: a line chart (white paper, light grid) of a smooth signal made of Gaussian
bumps, drawn in black, with a red dashed horizontal threshold line. The answer is the number
of local maxima of the curve that lie above the line. The generator keeps every local maximum
clearly a peak (prominence >= 8 px) and every peak clearly above or below the line (>= 4 px,
3 px in the expert tier), so the count is unambiguous for code, while the many narrow, close
peaks near the line make an exact count by eye unreliable. Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.gen_helpers import shortcut_hits
from lmms_plugins.tasks.cwi.gen_types import GeneratedItem

_TIERS = {
    "easy": dict(size=(480, 300), bumps=(6, 14), sigma=(6.0, 14.0), gap=4.0),
    "medium": dict(size=(512, 320), bumps=(14, 24), sigma=(4.0, 9.0), gap=4.0),
    "hard": dict(size=(576, 320), bumps=(22, 34), sigma=(3.0, 6.0), gap=4.0),
    "expert": dict(size=(640, 360), bumps=(30, 46), sigma=(2.5, 4.5), gap=3.0),
}
MIN_PROMINENCE = 8.0  # px
MARGIN = 12  # px of paper around the plot
CONSTANT_GUESS = 12

PROMPT = (
    "This chart plots a curve (black) and a horizontal red dashed threshold line. How many "
    "peaks of the curve (local maxima) lie above the threshold line?\n"
    "Answer inside <answer>…</answer> with a single integer, e.g. <answer>9</answer>."
)


def _tier(tier: str) -> dict:
    try:
        return _TIERS[tier]
    except KeyError:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(_TIERS)}") from None


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np
    from PIL import Image
    from scipy.signal import find_peaks, peak_prominences

    p = _tier(tier)
    w, h = p["size"]
    x = np.arange(MARGIN, w - MARGIN, dtype=np.float64)
    for _attempt in range(400):
        n = int(rng.integers(p["bumps"][0], p["bumps"][1] + 1))
        sig = rng.uniform(*p["sigma"], size=n)
        mu = np.sort(rng.uniform(MARGIN + 10, w - MARGIN - 10, size=n))
        amp = rng.uniform(0.25, 1.0, size=n)
        y = (amp[None, :] * np.exp(-((x[:, None] - mu[None, :]) ** 2) / (2 * sig[None, :] ** 2))).sum(1)
        y = y / y.max()
        height = MARGIN + y * (h - 2 * MARGIN - 10)  # px above the bottom margin
        rows = h - height  # image row of the curve
        peaks, _ = find_peaks(height)
        if len(peaks) == 0:
            continue
        prom = peak_prominences(height, peaks)[0]
        if prom.min() < MIN_PROMINENCE:
            continue  # a peak a viewer (or a program) could argue about
        # plateaus or equal neighbours make "local maximum" ambiguous
        if np.any(np.diff(height)[np.clip(peaks - 1, 0, None)] == 0):
            continue
        ph = height[peaks]
        lo, hi = np.percentile(ph, 25), np.percentile(ph, 85)
        thr = float(rng.uniform(lo, hi))
        if np.abs(ph - thr).min() < p["gap"]:
            continue
        count = int((ph > thr).sum())
        if count < 2:
            continue
        img = np.full((h, w, 3), 255, np.uint8)
        for gx in range(MARGIN, w - MARGIN + 1, 40):
            cv2.line(img, (gx, MARGIN), (gx, h - MARGIN), (225, 225, 225), 1)
        for gy in range(h - MARGIN, MARGIN - 1, -40):
            cv2.line(img, (MARGIN, gy), (w - MARGIN, gy), (225, 225, 225), 1)
        thr_row = int(round(h - thr))
        for sx in range(MARGIN, w - MARGIN, 12):
            cv2.line(img, (sx, thr_row), (min(sx + 7, w - MARGIN), thr_row), (220, 30, 30), 1)
        pts = np.stack([x, rows], 1).round().astype(np.int32)
        cv2.polylines(img, [pts], False, (0, 0, 0), 1, cv2.LINE_8)
        image = Image.fromarray(img)
        answer = str(count)
        if shortcut_hits("peak_count", answer, shortcut_answers(image, None, PROMPT)):
            continue
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "n_bumps": n,
            "n_local_maxima": int(len(peaks)),
            "peaks_x": [int(v) for v in x[peaks]],
            "threshold_row": thr_row,
            "threshold_height_px": round(thr, 3),
            "count": count,
            "min_prominence_px": round(float(prom.min()), 3),
        }
        return GeneratedItem(image=image, image_2=None, prompt=PROMPT, answer=answer, meta=meta)
    raise RuntimeError("peak_count: no sample escaped the constraints in 400 attempts")


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """A typical count."""
    return {"constant": str(CONSTANT_GUESS)}
