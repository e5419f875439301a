"""sub_rect_swap: which two rectangles of the photo were swapped?

Construction: image = a photo; image_2 = the same photo where two equal-size, non-overlapping
rectangles have exchanged their contents, plus sensor noise (and from the hard tier a slight
global brightness/contrast change), so a plain "where do the pictures differ" needs a
threshold. Harder tiers: smaller rectangles, more noise. The answer is the two boxes,
normalised to 0-1000, in any order. Rule (card): both boxes IoU >= 0.5, order-free.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, box_str, draw_until_clear, norm_box, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "sub_rect_swap"

_TIERS = {
    "easy": dict(size=(480, 360), side=(70, 110), noise=0.0, gain=0.0),
    "medium": dict(size=(512, 384), side=(45, 75), noise=3.0, gain=0.0),
    "hard": dict(size=(512, 384), side=(30, 50), noise=6.0, gain=0.06),
    "expert": dict(size=(640, 480), side=(20, 34), noise=9.0, gain=0.1),
}
# Every quarter of the rectangle must differ visibly from the other rectangle's content
# (grey difference above _DIFF_LEVEL on at least _MIN_DIFF_FRACTION of its pixels): where the
# two contents agree, a swap leaves no trace and the box would be unknowable.
_DIFF_LEVEL = 15.0
_MIN_DIFF_FRACTION = 0.4


def _swap_visible(ra, rb) -> bool:
    import numpy as np

    d = np.abs(ra - rb).mean(axis=2) > _DIFF_LEVEL
    hh, ww = d.shape[0] // 2, d.shape[1] // 2
    quarters = (d[:hh, :ww], d[:hh, ww:], d[hh:, :ww], d[hh:, ww:])
    return all(float(q.mean()) >= _MIN_DIFF_FRACTION for q in quarters)

PROMPT = (
    "The second image is the first image with two equal-size rectangular regions swapped "
    "(each one's content moved into the other's place); it may also carry a little noise and a "
    "slight overall brightness change. Which two rectangles were swapped?"
) + answer_instruction(
    "as two boxes [[x1,y1,x2,y2],[x1,y1,x2,y2]] in any order, coordinates normalised to 0-1000 "
    "(x to the right, y down; integers)",
    "[[100,120,220,260],[610,500,730,640]]",
)


def boxes_str(boxes) -> str:
    return "[" + ",".join(box_str(b) for b in boxes) + "]"


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]

    def draw(_attempt):
        photo = random_photo(rng, w, h)
        src = np.asarray(photo, dtype=np.float64)
        rw = int(rng.integers(p["side"][0], p["side"][1] + 1))
        rh = int(rng.integers(p["side"][0], p["side"][1] + 1))
        ax, ay = int(rng.integers(0, w - rw + 1)), int(rng.integers(0, h - rh + 1))
        bx, by = int(rng.integers(0, w - rw + 1)), int(rng.integers(0, h - rh + 1))
        # apart by a margin, so the two changed regions do not touch
        if not (ax + rw + 12 <= bx or bx + rw + 12 <= ax or ay + rh + 12 <= by or by + rh + 12 <= ay):
            return None
        ra, rb = src[ay : ay + rh, ax : ax + rw].copy(), src[by : by + rh, bx : bx + rw].copy()
        if not _swap_visible(ra, rb):
            return None  # contents too alike somewhere: the swap leaves no trace there
        out = src.copy()
        out[ay : ay + rh, ax : ax + rw] = rb
        out[by : by + rh, bx : bx + rw] = ra
        gain = 1.0 + float(rng.uniform(-p["gain"], p["gain"]))
        image_2 = to_pil(add_noise((out - 128) * gain + 128, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "rect_size_px": [rw, rh],
            "rect_a_xy_px": [ax, ay],
            "rect_b_xy_px": [bx, by],
            "gain": round(gain, 4),
            "noise_sigma": p["noise"],
        }
        answer = boxes_str([norm_box(ax, ay, rw, rh, w, h), norm_box(bx, by, rw, rh, w, h)])
        return GeneratedItem(photo, image_2, PROMPT, answer, meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The central box twice, and the left and right halves' central boxes."""
    return {
        "centre_twice": "[[375,375,625,625],[375,375,625,625]]",
        "left_right": "[[125,375,375,625],[625,375,875,625]]",
        "top_bottom": "[[375,125,625,375],[375,625,625,875]]",
    }
