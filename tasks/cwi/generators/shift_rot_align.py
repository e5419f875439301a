"""shift_rot_align: image 2 shows the scene of image 1 rotated about the image centre by θ
(counter-clockwise as displayed) and then translated by (dx, dy).

Both images are windows of one larger photo, so there are no empty corners. Harder tiers:
larger angles and shifts, more noise, blur and a contrast change.
Rule (card): dx, dy within ±2 px each and θ within ±1.875° (circular).
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.generators.helpers import (
    add_noise, answer_instruction, draw_until_clear, photo_array, retry, tier_params, to_pil,
)
from lmms_plugins.tasks.cwi.generators.item import Draft, GeneratedItem

TASK = "shift_rot_align"
_SIZE = (320, 240)
_TIERS = {
    "easy": dict(max_angle=20.0, max_shift=16, blur=0.0, noise=0.0),
    "medium": dict(max_angle=35.0, max_shift=24, blur=0.0, noise=3.0),
    "hard": dict(max_angle=50.0, max_shift=32, blur=0.7, noise=6.0),
    "expert": dict(max_angle=60.0, max_shift=40, blur=1.0, noise=10.0),
}
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


def textured_windows(rng, w: int, h: int, dx: float, dy: float, theta: float, scale: float = 1.0):
    """(warped, original) windows of a fresh photo, or None when either has too little texture."""
    big = photo_array(rng, 2 * w, 2 * h)
    b, a = warp_window(big, w, h, dx, dy, theta, scale)
    return (b, a) if has_texture(a) and has_texture(b) else None


def generate(rng, tier: str) -> GeneratedItem:
    import cv2

    p = tier_params(_TIERS, tier)
    w, h = _SIZE
    prompt = PROMPT.format(w=w, h=h, cx=w / 2 - 0.5, cy=h / 2 - 0.5) + answer_instruction(
        "as dx=<px>, dy=<px>, theta=<degrees>", "dx=-7, dy=12, theta=-23.5"
    )

    def draw_motion(_attempt):
        theta = round(float(rng.uniform(-p["max_angle"], p["max_angle"])), 2)
        dx, dy = (int(v) for v in rng.integers(-p["max_shift"], p["max_shift"] + 1, size=2))
        return Draft(f"dx={dx}, dy={dy}, theta={theta}", prompt, (dx, dy, theta))

    motion = draw_until_clear(TASK, shortcut_answers, draw_motion)
    dx, dy, theta = motion.values
    b, a = retry(lambda _: textured_windows(rng, w, h, dx, dy, theta), "textured window")
    if p["blur"] > 0:
        b = cv2.GaussianBlur(b, (0, 0), p["blur"])
    sigma = p["noise"]
    meta = {"dx": dx, "dy": dy, "theta": theta, "width": w, "height": h, "blur_sigma": p["blur"], "noise_sigma": sigma, "tier": tier}
    return GeneratedItem(to_pil(add_noise(a, rng, sigma)), to_pil(add_noise(b, rng, sigma)), prompt, motion.answer, meta)
