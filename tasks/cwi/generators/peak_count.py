"""peak_count: how many peaks of a plotted curve rise above a threshold line?

Construction: a line chart (white paper, light grid) of a smooth signal made of separated
Gaussian bumps of random heights on a slow wave, drawn in black, with a red dashed horizontal threshold line. The answer is the number
of local maxima of the curve that lie above the line; it is drawn first, uniformly from the
tier's range (3-12 easy ... 22-42 expert), and the line is placed between that many peaks and
the rest. The generator keeps every local maximum
clearly a peak (prominence >= 8 px) and every peak clearly above or below the line (>= 4 px,
3 px in the expert tier), so the count is unambiguous for code, while the many narrow, close
peaks near the line make an exact count by eye unreliable. Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.gen_helpers import shortcut_hits, tier_params
from lmms_plugins.tasks.cwi.gen_types import GeneratedItem

_TIERS = {
    "easy": dict(size=(480, 300), count=(3, 12), sigma=(4.0, 8.0), gap=4.0),
    "medium": dict(size=(512, 320), count=(8, 20), sigma=(3.0, 5.5), gap=4.0),
    "hard": dict(size=(576, 320), count=(14, 30), sigma=(2.5, 4.2), gap=4.0),
    "expert": dict(size=(640, 360), count=(22, 42), sigma=(2.0, 3.4), gap=3.0),
}
MIN_PROMINENCE = 8.0  # px
MARGIN = 12  # px of paper around the plot
CONSTANT_GUESS = 10

PROMPT = (
    "This chart plots a curve (black) and a horizontal red dashed threshold line. How many "
    "peaks of the curve (local maxima) lie above the threshold line?\n"
    "Answer inside <answer>…</answer> with a single integer, e.g. <answer>9</answer>."
)


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np
    from PIL import Image
    from scipy.signal import find_peaks, peak_prominences

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    x = np.arange(MARGIN, w - MARGIN, dtype=np.float64)
    for _attempt in range(400):
        # the count is drawn first (uniform over the tier's range, so no constant guess is
        # often right), then the picture is built around it
        count = int(rng.integers(p["count"][0], p["count"][1] + 1))
        n = count + int(rng.integers(2, max(3, count // 2 + 2)))
        sig = rng.uniform(*p["sigma"], size=n)
        # centres left to right, neighbours at least 2.6 sigma apart so each bump keeps its own
        # maximum; the spare width is spread at random between them
        need = 2.6 * np.maximum(sig[1:], sig[:-1])
        spare = (w - 2 * MARGIN - 20) - need.sum()
        if spare <= 0:
            continue
        extra = rng.dirichlet(np.ones(n + 1)) * spare
        mu = MARGIN + 10 + extra[0] + np.concatenate([[0.0], np.cumsum(need + extra[1:n])])
        amp = rng.uniform(0.15, 1.0, size=n)
        y = (amp[None, :] * np.exp(-((x[:, None] - mu[None, :]) ** 2) / (2 * sig[None, :] ** 2))).sum(1)
        y = y + 0.05 * np.sin(2 * np.pi * x / float(rng.uniform(150, 400)) + float(rng.uniform(0, 6.3)))
        y = (y - y.min()) / (y.max() - y.min())
        height = MARGIN + y * (h - 2 * MARGIN - 10)  # px above the bottom margin
        rows = h - height  # image row of the curve
        peaks, _ = find_peaks(height)
        if len(peaks) <= count:
            continue
        prom = peak_prominences(height, peaks)[0]
        if prom.min() < MIN_PROMINENCE:
            continue  # a peak a viewer (or a program) could argue about
        ph = np.sort(height[peaks])[::-1]
        # the line goes between the count-th and the next peak, clear of both
        if ph[count - 1] - ph[count] < 2 * p["gap"]:
            continue
        thr = float(rng.uniform(ph[count] + p["gap"], ph[count - 1] - p["gap"]))
        if int((height[peaks] > thr).sum()) != count:
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
            "count_range": list(p["count"]),
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
