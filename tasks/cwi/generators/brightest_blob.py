"""brightest_blob: the centre of the blob with the brightest peak, to +-2 px.

Construction: a 480x360 grey canvas (the card's 480-px canvas) with a smooth background
gradient and several Gaussian blobs of different widths and peak levels, plus sensor noise.
The blob whose peak (background + amplitude) is highest wins by a margin that shrinks with
the tier, while its width varies, so the widest/most visible blob is often not the brightest.
The answer is its centre (sub-pixel, canvas pixels). Blobs are kept apart so that their sum
does not move a peak. Rule (card): within 2 px (Euclidean, as the task YAML declares).
"""

from __future__ import annotations

from dataclasses import replace

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "brightest_blob"

W, H = 480, 360
_TIERS = {
    "easy": dict(blobs=(3, 4), margin=0.20, noise=2.0, gradient=0.0),
    "medium": dict(blobs=(5, 7), margin=0.12, noise=4.0, gradient=15.0),
    "hard": dict(blobs=(8, 10), margin=0.08, noise=6.0, gradient=25.0),
    "expert": dict(blobs=(11, 14), margin=0.06, noise=8.0, gradient=35.0),
}

PROMPT = (
    "This 480x360 image shows several soft bright blobs on a darker background with a little "
    "noise. Find the blob whose peak is the brightest (the highest intensity of the noise-free "
    "picture) and give the position of its centre in pixels (x to the right, y down, origin at "
    "the top-left corner of the image; sub-pixel precision is welcome)."
) + answer_instruction("as x,y", "123.4,87.9")


def generate(rng, tier: str) -> GeneratedItem:
    import numpy as np

    p = tier_params(_TIERS, tier)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)

    def draw(_attempt):
        n = int(rng.integers(p["blobs"][0], p["blobs"][1] + 1))
        base = float(rng.uniform(20, 50))
        gdir = rng.uniform(-1, 1, size=2)
        gdir /= max(np.linalg.norm(gdir), 1e-9)
        grad = p["gradient"]
        bg = base + grad * ((xx - W / 2) * gdir[0] / W + (yy - H / 2) * gdir[1] / H + 0.5)
        blobs = []
        for _ in range(n):
            for _try in range(200):
                s = float(rng.uniform(4.0, 16.0))
                cx, cy = float(rng.uniform(3 * s, W - 3 * s)), float(rng.uniform(3 * s, H - 3 * s))
                if all(np.hypot(cx - bx, cy - by) > 3.2 * (s + bs) for bx, by, bs, _a in blobs):
                    blobs.append((cx, cy, s, 0.0))
                    break
        if len(blobs) < n:
            return None
        # peak levels: the winner beats the runner-up by the tier's margin
        top = float(rng.uniform(170, 235))
        others = top * (1 - p["margin"]) - rng.uniform(0, 0.35, size=n - 1) * top
        others[0] = top * (1 - p["margin"] * float(rng.uniform(1.0, 1.3)))  # one close runner-up
        peaks = np.concatenate([[top], others])
        img = bg.copy()
        final = []
        for (cx, cy, s, _), pk in zip(blobs, peaks):
            amp = pk - (base + grad * ((cx - W / 2) * gdir[0] / W + (cy - H / 2) * gdir[1] / H + 0.5))
            if amp < 25:
                break
            # the blob only matters within 5 sigma (exp(-12.5) * 255 < 0.001)
            ya, yb = max(0, int(cy - 5 * s)), min(H, int(cy + 5 * s) + 2)
            xa, xb = max(0, int(cx - 5 * s)), min(W, int(cx + 5 * s) + 2)
            img[ya:yb, xa:xb] += amp * np.exp(
                -((xx[ya:yb, xa:xb] - cx) ** 2 + (yy[ya:yb, xa:xb] - cy) ** 2) / (2 * s * s)
            )
            final.append((cx, cy, s, float(amp), float(pk)))
        if len(final) < n:
            return None
        image = to_pil(add_noise(img, rng, p["noise"]))
        cx, cy = final[0][0], final[0][1]
        meta = {
            "tier": tier,
            "width": W,
            "height": H,
            "brightest_centre": [round(cx, 3), round(cy, 3)],
            "blobs": [
                {"x": round(x, 3), "y": round(y, 3), "sigma": round(s, 3), "amplitude": round(a, 3), "peak": round(pk, 3)}
                for x, y, s, a, pk in final
            ],
            "margin": p["margin"],
            "noise_sigma": p["noise"],
            "gradient": grad,
        }
        return GeneratedItem(image, None, PROMPT, f"{cx:.1f},{cy:.1f}", meta)

    item = draw_until_clear(TASK, shortcut_answers, draw)
    blobs = item.meta["blobs"]
    # meta lists blobs in random order (index 0 is not special); drawn once, after the screen
    order = rng.permutation(len(blobs))
    return replace(item, meta={**item.meta, "blobs": [blobs[i] for i in order]})


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    """The canvas centre, and the brightest spot of a heavily blurred view (what stands out
    to the eye: wide blobs win)."""
    import numpy as np
    from PIL import ImageFilter

    blurred = np.asarray(image.convert("L").filter(ImageFilter.GaussianBlur(12)), dtype=np.float64)
    y, x = np.unravel_index(int(np.argmax(blurred)), blurred.shape)
    w, h = image.size
    return {"centre": f"{w / 2:.1f},{h / 2:.1f}", "blurred_max": f"{x:.1f},{y:.1f}"}
