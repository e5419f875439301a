"""shift_rot_align: image 2 shows the scene of image 1 rotated about the image centre by θ
(counter-clockwise as displayed) and then translated by (dx, dy).

Both images are windows of one larger photo, so there are no empty corners. Harder tiers:
larger angles and shifts, more noise, blur and a contrast change.
Rule (card): dx, dy within ±2 px each and θ within ±1.875° (circular).
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    MAX_ATTEMPTS, NOISE, add_noise, answer_suffix, check_tier, photo_array, shortcut_hits, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import GeneratedItem

TASK = "shift_rot_align"
_SIZE = (320, 240)
_MAX_ANGLE = {"easy": 20.0, "medium": 35.0, "hard": 50.0, "expert": 60.0}
_MAX_SHIFT = {"easy": 16, "medium": 24, "hard": 32, "expert": 40}
_BLUR = {"easy": 0.0, "medium": 0.0, "hard": 0.7, "expert": 1.0}
PROMPT = (
    "Image 2 shows the scene of image 1 ({w}x{h} px) rotated about the image centre "
    "({cx}, {cy}) by theta degrees counter-clockwise as displayed (negative = clockwise), and then "
    "translated right by dx and down by dy pixels: the scene point at p in image 1 appears at "
    "R(theta)(p - c) + c + (dx, dy) in image 2. Image 2 may be noisier and blurrier. "
    "Find dx, dy and theta."
)


def shortcut_answers(image, image_2, prompt) -> dict[str, str]:
    return {"zero": "dx=0, dy=0, theta=0", "constant": "dx=0, dy=0, theta=15"}


def warp_window(big, w: int, h: int, dx: float, dy: float, theta: float, scale: float = 1.0):
    """The central w x h window of ``big`` after rotation/scale about the window centre + shift."""
    import cv2

    H, W = big.shape[:2]
    M = cv2.getRotationMatrix2D((W / 2 - 0.5, H / 2 - 0.5), theta, scale)
    M[0, 2] += dx
    M[1, 2] += dy
    out = cv2.warpAffine(big, M, (W, H), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    x0, y0 = (W - w) // 2, (H - h) // 2
    return out[y0 : y0 + h, x0 : x0 + w], big[y0 : y0 + h, x0 : x0 + w]


def has_texture(img, min_std: float = 20.0, min_edges: float = 0.02) -> bool:
    """Well-posedness: a window of flat sky has nothing to register (checked on the clean image)."""
    import numpy as np

    g = img.mean(axis=-1)
    edges = np.hypot(np.diff(g, axis=0)[:, :-1], np.diff(g, axis=1)[:-1, :]) > 8.0
    return float(g.std()) >= min_std and float(edges.mean()) >= min_edges


def generate(rng, tier: str) -> GeneratedItem:
    import cv2

    check_tier(tier)
    w, h = _SIZE
    for _ in range(MAX_ATTEMPTS):
        theta = round(float(rng.uniform(-_MAX_ANGLE[tier], _MAX_ANGLE[tier])), 2)
        dx, dy = (int(v) for v in rng.integers(-_MAX_SHIFT[tier], _MAX_SHIFT[tier] + 1, size=2))
        answer = f"dx={dx}, dy={dy}, theta={theta}"
        if not shortcut_hits(TASK, answer, shortcut_answers(None, None, "")):
            break
    for _ in range(MAX_ATTEMPTS):
        big = photo_array(rng, 2 * w, 2 * h)
        b, a = warp_window(big, w, h, dx, dy, theta)
        if has_texture(a) and has_texture(b):
            break
    if _BLUR[tier] > 0:
        b = cv2.GaussianBlur(b, (0, 0), _BLUR[tier])
    sigma = NOISE[tier]
    prompt = PROMPT.format(w=w, h=h, cx=w / 2 - 0.5, cy=h / 2 - 0.5) + answer_suffix(
        "dx=<px>, dy=<px>, theta=<degrees>", "dx=-7, dy=12, theta=-23.5"
    )
    meta = {"dx": dx, "dy": dy, "theta": theta, "width": w, "height": h, "blur_sigma": _BLUR[tier], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, answer, meta)
