"""swatch_rgb solver: measure the reference patches, fit the affine map seen -> true colour by
least squares, apply it to the measured target swatch."""

from __future__ import annotations


def solve(image, image_2, prompt) -> str:
    import numpy as np

    from lmms_plugins.tasks.cwi.generators.swatch_rgb import parse_layout, patch_mean

    arr = np.asarray(image.convert("RGB"))
    refs, (x, y, s) = parse_layout(prompt)
    seen = np.array([patch_mean(arr, rx, ry, rs) for rx, ry, rs, _c in refs])
    true = np.array([c for *_r, c in refs], dtype=np.float64)
    design = np.hstack([seen, np.ones((len(seen), 1))])
    coef, *_ = np.linalg.lstsq(design, true, rcond=None)
    out = np.append(patch_mean(arr, x, y, s), 1.0) @ coef
    return ",".join(str(int(round(v))) for v in np.clip(out, 0, 255))
