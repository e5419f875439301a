"""peak_count: how many peaks of a plotted curve rise above a threshold line?

Construction: a line chart (white paper, light grid) of a smooth signal made of separated
Gaussian bumps of random heights on a slow wave, drawn in black, with a red dashed horizontal
threshold line. The answer is the number of local maxima of the curve that lie above the line.
It is drawn first, uniformly from 3-45 in EVERY tier (an exact-integer rule needs a flat answer
distribution: tier ranges that overlap would pile up in the middle and make one constant right
too often), on a chart of one size for all tiers; failed constructions are retried for the same
count. Tiers differ in clutter, not in the count: more sub-threshold distractor peaks, wider
(more crowded) bumps and a smaller clearance between the line and the nearest peaks. The
generator keeps every local maximum clearly a peak (prominence >= 8 px) and every peak clearly
above or below the line (>= 6 px easy ... 3 px expert), so the count is unambiguous for code,
while the many narrow, close peaks near the line make an exact count by eye unreliable.
Rule (card): exact integer.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import answer_instruction, draw_until_clear, retry, tier_params
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "peak_count"

COUNT_RANGE = (3, 45)  # shared by all tiers
SIZE = (640, 360)  # one chart size, so the size says nothing about the count or the tier
# distractors: below-line bumps as a fraction of the count (plus a few); sigma: bump width as a
# fraction of the room per bump; gap: clearance (px) of the line from the peaks either side
_TIERS = {
    "easy": dict(distract=(0.0, 0.15), sigma=(0.25, 0.45), gap=6.0),
    "medium": dict(distract=(0.15, 0.3), sigma=(0.3, 0.55), gap=5.0),
    "hard": dict(distract=(0.3, 0.45), sigma=(0.35, 0.65), gap=4.0),
    "expert": dict(distract=(0.45, 0.6), sigma=(0.4, 0.75), gap=3.0),
}
MIN_PROMINENCE = 8.0  # px
MARGIN = 12  # px of paper around the plot
CONSTANT_GUESS = 10

PROMPT = (
    "This chart plots a curve (black) and a horizontal red dashed threshold line. How many "
    "peaks of the curve (local maxima) lie above the threshold line?"
) + answer_instruction("with a single integer", "9")


def generate(rng, tier: str) -> GeneratedItem:
    import cv2
    import numpy as np
    from PIL import Image
    from scipy.signal import find_peaks, peak_prominences

    p = tier_params(_TIERS, tier)
    w, h = SIZE
    x = np.arange(MARGIN, w - MARGIN, dtype=np.float64)
    room = w - 2 * MARGIN - 20  # px of x over which the bump centres spread
    # the count is drawn once, uniformly (so no constant guess is often right); a construction
    # that fails is retried for the same count, which keeps the distribution flat

    def draw_count(_attempt):
        return Draft(str(int(rng.integers(COUNT_RANGE[0], COUNT_RANGE[1] + 1))), PROMPT)

    count = int(draw_until_clear(TASK, shortcut_answers, draw_count).answer)

    def draw(attempt):
        n = count + 2 + int(round(count * rng.uniform(*p["distract"])))
        # widths relative to the room per bump; neighbours at least 2.6 sigma apart so each bump
        # keeps its own maximum (sigma <= 0.75 room/n/2.6 always fits), spare width at random
        sig = rng.uniform(*p["sigma"], size=n) * room / n / 2.6
        need = 2.6 * np.maximum(sig[1:], sig[:-1])
        spare = room - need.sum()
        extra = rng.dirichlet(np.full(n + 1, 3.0)) * spare
        mu = MARGIN + 10 + extra[0] + np.concatenate([[0.0], np.cumsum(need + extra[1:n])])
        # heights: `count` random bumps high, the rest low, around a random level
        level = float(rng.uniform(0.4, 0.65))
        high = np.zeros(n, bool)
        high[rng.permutation(n)[:count]] = True
        amp = np.where(high, rng.uniform(level + 0.06, 1.0, n), rng.uniform(0.15, level - 0.06, n))
        y = (amp[None, :] * np.exp(-((x[:, None] - mu[None, :]) ** 2) / (2 * sig[None, :] ** 2))).sum(1)
        y = y + 0.05 * np.sin(2 * np.pi * x / float(rng.uniform(150, 400)) + float(rng.uniform(0, 6.3)))
        y = (y - y.min()) / (y.max() - y.min())
        height = MARGIN + y * (h - 2 * MARGIN - 10)  # px above the bottom margin
        rows = h - height  # image row of the curve
        peaks, _ = find_peaks(height)
        if len(peaks) <= count:
            return None
        prom = peak_prominences(height, peaks)[0]
        if prom.min() < MIN_PROMINENCE:
            return None  # a peak a viewer (or a program) could argue about
        ph = np.sort(height[peaks])[::-1]
        # the line goes between the count-th and the next peak, clear of both
        if ph[count - 1] - ph[count] < 2 * p["gap"]:
            return None
        thr = float(rng.uniform(ph[count] + p["gap"], ph[count - 1] - p["gap"]))
        if int((height[peaks] > thr).sum()) != count:
            return None
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
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "n_bumps": n,
            "count_range": list(COUNT_RANGE),
            "n_local_maxima": int(len(peaks)),
            "peaks_x": [int(v) for v in x[peaks]],
            "threshold_row": thr_row,
            "threshold_height_px": round(thr, 3),
            "count": count,
            "min_prominence_px": round(float(prom.min()), 3),
            "attempts": attempt + 1,
        }
        return GeneratedItem(Image.fromarray(img), None, PROMPT, str(count), meta)

    return retry(draw, f"{TASK} chart with {count} peaks above the line", attempts=400)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """A typical count."""
    return {"constant": str(CONSTANT_GUESS)}
