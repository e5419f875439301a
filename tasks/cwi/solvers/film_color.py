"""film_color solver: regress the filmed photo on the original.

out_c = s * in_c + b_c for every channel c with a common slope s = 1 - opacity; then the film
colour is C_c = b_c / (1 - s). Saturated pixels are left out (clipping breaks the model).
"""

from __future__ import annotations


def solve(image, image_2, prompt) -> str:
    import numpy as np

    a = np.asarray(image.convert("RGB"), dtype=np.float64).reshape(-1, 3)
    b = np.asarray(image_2.convert("RGB"), dtype=np.float64).reshape(-1, 3)
    keep = np.all((b > 0) & (b < 255), axis=1)
    if keep.sum() > 100:
        a, b = a[keep], b[keep]
    am, bm = a.mean(0), b.mean(0)
    ac, bc = a - am, b - bm
    s = float((ac * bc).sum() / max((ac * ac).sum(), 1e-9))
    opacity = min(max(1.0 - s, 1e-3), 1.0)
    colour = (bm - s * am) / opacity
    return ",".join(str(int(round(v))) for v in np.clip(colour, 0, 255))
