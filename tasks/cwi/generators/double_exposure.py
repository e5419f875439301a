"""double_exposure: image 1 is image 2 (the clean photo) exposed again, fainter, at one or more
horizontal offsets (wrap-around).

image 1 = w0 * photo + sum_k w_k * roll(photo, s_k) with w_1 > w_2 > ... The answer lists the
signed horizontal shifts s_k (positive = ghost moved right) from the strongest ghost to the
weakest. Harder tiers: more ghosts, fainter ghosts, more noise. Shifts are spread over
12-150 px either way (nearly the whole unambiguous range of a 320 px wrap-around), so that a
fixed one-ghost answer is within tolerance of few golds; ghosts are kept 20 px apart,
measured around the wrap.
Rule (card): count and order match and every shift within ±8 px.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, int_list, photo_array, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "double_exposure"
_SIZE = (320, 240)
_TIERS = {
    "easy": dict(ghosts=(1, 1), noise=0.0),
    "medium": dict(ghosts=(1, 2), noise=3.0),
    "hard": dict(ghosts=(2, 2), noise=6.0),
    "expert": dict(ghosts=(2, 3), noise=10.0),
}
_MIN_SHIFT, _MAX_SHIFT, _MIN_SEP = 12, 150, 20  # |s| < w/2 - tolerance: s and s - w never mix up
PROMPT = (
    "Image 2 is a photo ({w}x{h} px). Image 1 is the same photo exposed once at full position and "
    "again, fainter, at one or more horizontal offsets: image 1 = w0*photo + sum_k w_k*shift(photo, "
    "s_k), where shift moves the photo right by s_k pixels with wrap-around (negative = left) and "
    "each ghost has a different strength w_k. List the signed shifts s_k of all ghosts, from the "
    "strongest ghost to the weakest."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "[0]", "constant": "[20]", "constant_left": "[-20]"}


def _weights(rng, k: int):
    # distinct ghost strengths, strongest first, gaps of at least 0.05
    for _ in range(1000):
        ws = sorted((float(rng.uniform(0.08, 0.3)) for _ in range(k)), reverse=True)
        if all(ws[i] - ws[i + 1] >= 0.05 for i in range(k - 1)):
            return ws
    return [0.3 - 0.07 * i for i in range(k)]


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    lo, hi = p["ghosts"]
    prompt = PROMPT.format(w=w, h=h) + answer_instruction("as a list of integers (pixels)", "[-31,57]")

    def draw_shifts(_attempt):
        k = int(rng.integers(lo, hi + 1))
        shifts = [int(v) for v in rng.integers(-_MAX_SHIFT, _MAX_SHIFT + 1, size=k)]
        if any(abs(s) < _MIN_SHIFT for s in shifts):
            return None
        # separation around the wrap: a shift of s equals s - w
        if any(min(abs(a - b), w - abs(a - b)) < _MIN_SEP for i, a in enumerate(shifts) for b in shifts[i + 1 :]):
            return None
        return Draft(int_list(shifts), prompt, shifts)

    drawn = draw_until_clear(TASK, shortcut_answers, draw_shifts)
    shifts = drawn.values
    k = len(shifts)
    ws = _weights(rng, k)
    w0 = 1.0 - sum(ws)
    photo = photo_array(rng, w, h)
    img = w0 * photo
    for s, wk in zip(shifts, ws):
        img = img + wk * np.roll(photo, s, axis=1)
    sigma = p["noise"]
    meta = {"shifts": shifts, "weights": [round(x, 4) for x in ws], "w0": round(w0, 4), "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(img, rng, sigma)), to_pil(photo), prompt, drawn.answer, meta)
