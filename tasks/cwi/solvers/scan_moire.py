"""scan_moire solver.

The stripes are vertical or horizontal: average the image along them into a 1-D profile
(whichever direction carries more periodic energy), remove the slow photo content, and fit
the product model of two gratings: for each candidate frequency f2 of screen B, a linear
least-squares fit with cosine/sine terms at f1 (known from the stated period), f2 and f1+f2;
the f2 with the smallest residual (refined by a parabola) gives s = f1 / f2.
"""

from __future__ import annotations


def _residual(prof, t, f1, f2):
    import numpy as np

    cols = [np.ones_like(t)]
    for f in (f1, f2, f1 + f2):
        cols += [np.cos(2 * np.pi * f * t), np.sin(2 * np.pi * f * t)]
    X = np.stack(cols, 1)
    coef, *_ = np.linalg.lstsq(X, prof, rcond=None)
    r = prof - X @ coef
    return float(r @ r)


def solve(image, image_2, prompt) -> str:
    import re

    import numpy as np
    from scipy import ndimage

    m = re.search(r"period of exactly ([0-9.]+) px", prompt)
    if not m:
        raise ValueError("no period of screen A in the prompt")
    period = float(m.group(1))
    f1 = 1.0 / period
    g = np.asarray(image.convert("L"), dtype=np.float64)
    cols, rows = g.mean(axis=0), g.mean(axis=1)

    def periodic_power(x):
        x = x - ndimage.gaussian_filter1d(x, 2 * period)
        return float(np.var(x)), x

    pc, xc = periodic_power(cols)
    pr, xr = periodic_power(rows)
    prof = xc if pc >= pr else xr
    t = np.arange(len(prof), dtype=np.float64)
    # coarse scan of s, then a finer one around the best, then a parabola
    grid = np.concatenate([np.linspace(0.74, 0.99, 500), np.linspace(1.01, 1.26, 500)])
    res = np.array([_residual(prof, t, f1, f1 / s) for s in grid])
    s0 = grid[int(np.argmin(res))]
    fine = np.linspace(s0 - 0.002, s0 + 0.002, 81)
    res = np.array([_residual(prof, t, f1, f1 / s) for s in fine])
    i = int(np.argmin(res))
    s = fine[i]
    if 0 < i < len(fine) - 1:
        a, b, c = res[i - 1 : i + 2]
        den = a - 2 * b + c
        if den > 0:
            s += 0.5 * (a - c) / den * (fine[1] - fine[0])
    return f"{s:.4f}"
