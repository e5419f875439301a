"""channel_mix solver: least-squares fit of the affine colour map, then apply it to the query
colour from the prompt.

Clipped pixels break the linear model, and dropping pixels by their *observed* value biases
the fit (noise decides which pixels survive near 0 and 255). So: a first fit on pixels well
inside the range, then a second fit on pixels whose *predicted* value is inside the range
(selection on the input, which does not bias least squares).
"""

from __future__ import annotations


def _fit(a, b, keep):
    import numpy as np

    design = np.hstack([a[keep], np.ones((int(keep.sum()), 1))])
    coef, *_ = np.linalg.lstsq(design, b[keep], rcond=None)  # (4, 3)
    return coef


def solve(image, image_2, prompt) -> str:
    import re

    import numpy as np

    m = re.search(r"\((\d+)\s*,\s*(\d+)\s*,\s*(\d+)\)", prompt)
    if not m:
        raise ValueError("no query colour (R,G,B) in the prompt")
    q = np.array([float(m.group(i)) for i in (1, 2, 3)])
    a = np.asarray(image.convert("RGB"), dtype=np.float64).reshape(-1, 3)
    b = np.asarray(image_2.convert("RGB"), dtype=np.float64).reshape(-1, 3)
    step = max(1, len(a) // 60000)  # 12 parameters: 60k pixels are plenty (and 5x faster)
    a, b = a[::step], b[::step]
    keep = np.all((b > 25) & (b < 230), axis=1)
    if keep.sum() < 50:
        keep = np.all((b > 0) & (b < 255), axis=1)
    coef = _fit(a, b, keep)
    for _ in range(2):
        pred = np.hstack([a, np.ones((len(a), 1))]) @ coef
        keep2 = np.all((pred > 12) & (pred < 243), axis=1)
        if keep2.sum() < 50:
            break
        coef = _fit(a, b, keep2)
    out = np.append(q, 1.0) @ coef
    return ",".join(str(int(round(v))) for v in np.clip(out, 0, 255))
