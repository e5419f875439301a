"""patch_mean_dots solver: average every pixel of the box given in the prompt."""

from __future__ import annotations


def solve(image, image_2, prompt) -> str:
    import re

    import numpy as np

    m = re.search(r"x from (\d+) to (\d+) and y from (\d+) to (\d+)", prompt)
    if not m:
        raise ValueError("no pixel box in the prompt")
    x0, x1, y0, y1 = (int(m.group(i)) for i in (1, 2, 3, 4))
    arr = np.asarray(image.convert("RGB"), dtype=np.float64)
    mean = arr[y0:y1, x0:x1].reshape(-1, 3).mean(0)
    return ",".join(str(int(round(v))) for v in mean)
