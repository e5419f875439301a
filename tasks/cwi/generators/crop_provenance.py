"""crop_provenance: where in the photo was this crop taken from?

Construction: image = a photo; image_2 = a crop of it, resized by an unknown factor (from the
medium tier on), with brightness/contrast change and sensor noise in the harder tiers. The
answer is the crop's box in the photo, normalised to 0-1000. Rule (card): IoU >= 0.5 with the
true crop box.

Crop size and position are spread so that no fixed box has IoU >= 0.5 with many golds: all
tiers share one crop-area range, log-uniform over 2-15 % of the photo (large crops are what a
fixed box hits most, so the range stays small), any aspect 0.6-1.6, uniform position. The
size is drawn once per item; only the position/photo is redrawn when a crop is flat. Harder
tiers: wider resize range, more noise, brightness/contrast change.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, box_str, draw_until_clear, norm_box, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "crop_provenance"

_TIERS = {
    "easy": dict(size=(480, 360), scale=(1.0, 1.0), noise=0.0, gain=0.0),
    "medium": dict(size=(512, 384), scale=(0.75, 1.35), noise=2.0, gain=0.0),
    "hard": dict(size=(512, 384), scale=(0.65, 1.5), noise=5.0, gain=0.15),
    "expert": dict(size=(640, 480), scale=(0.7, 1.5), noise=7.0, gain=0.25),
}
_AREA = (0.02, 0.15)  # crop area / photo area, log-uniform, shared by all tiers

_MIN_CROP_STD = 12.0

_FORMAT = answer_instruction(
    "as a box [x1,y1,x2,y2] in the first image's coordinates normalised to 0-1000 (x to the right, y down; integers)",
    "[120,340,410,600]",
)


def _prompt(scaled: bool) -> str:
    how = (
        "It may have been resized (aspect ratio kept) and its brightness, contrast and noise may "
        "differ. "
        if scaled
        else "It has the original pixel size. "
    )
    return (
        "The second image is a rectangular crop of the first image. " + how + "Where in the first "
        "image was the crop taken from?" + _FORMAT
    )


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np
    from PIL import Image

    from lmms_plugins.tasks.cwi.generators.photos import random_photo

    p = tier_params(_TIERS, tier)
    w, h = p["size"]
    # the crop size is drawn once (redrawing it on a failure would skew the size distribution)
    area = float(np.exp(rng.uniform(np.log(_AREA[0]), np.log(_AREA[1])))) * w * h
    aspect = float(rng.uniform(0.6, 1.6))
    cw = min(w - 8, int(round(np.sqrt(area * aspect))))
    ch = min(h - 8, int(round(np.sqrt(area / aspect))))

    def draw(_attempt):
        photo = random_photo(rng, w, h)
        x0, y0 = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        crop = photo.crop((x0, y0, x0 + cw, y0 + ch))
        if float(np.asarray(crop.convert("L"), dtype=np.float64).std()) < _MIN_CROP_STD:
            return None  # a flat crop (sky, wall) matches everywhere: no answer exists
        scale = float(np.round(rng.uniform(*p["scale"]), 3))
        if scale != 1.0:
            crop = crop.resize((max(8, int(round(cw * scale))), max(8, int(round(ch * scale)))), Image.BICUBIC)
        arr = np.asarray(crop, dtype=np.float64)
        gain = 1.0 + float(rng.uniform(-p["gain"], p["gain"]))
        bias = float(rng.uniform(-20, 20)) if p["gain"] else 0.0
        crop = to_pil(add_noise((arr - 128) * gain + 128 + bias, rng, p["noise"]))
        meta = {
            "tier": tier,
            "width": w,
            "height": h,
            "crop_xywh_px": [x0, y0, cw, ch],
            "scale": scale,
            "gain": round(gain, 4),
            "bias": round(bias, 3),
            "noise_sigma": p["noise"],
        }
        return GeneratedItem(photo, crop, _prompt(p["scale"] != (1.0, 1.0)), box_str(norm_box(x0, y0, cw, ch, w, h)), meta)

    return draw_until_clear(TASK, shortcut_answers, draw)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """A crop-sized box at the centre, the central quarter, and the whole image."""
    w, h = image.size
    cw, ch = min(image_2.size[0], w), min(image_2.size[1], h)
    cx, cy = w / 2, h / 2
    same = ((cx - cw / 2) / w * 1000, (cy - ch / 2) / h * 1000, (cx + cw / 2) / w * 1000, (cy + ch / 2) / h * 1000)
    return {"centre_same_size": box_str(same), "centre_quarter": "[250,250,750,750]", "full": "[0,0,1000,1000]"}
