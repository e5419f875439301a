"""brightest_blob solver.

Smoothing lowers narrow peaks more than wide ones, so the highest smoothed pixel is not always
the brightest blob. Instead: take the strongest local maxima of a lightly smoothed image as
candidates; for each, fit a quadratic to the log-intensity above the local background (exact
for a Gaussian), which gives its centre, width and peak; undo the smoothing's effect on the
peak (a Gaussian of width s blurred by t has its peak scaled by s^2 / (s^2 + t^2)); answer the
centre of the candidate with the highest estimated peak.
"""

from __future__ import annotations

SMOOTH = 1.5  # px, Gaussian sigma of the denoising blur
R_FIT = 4  # half-size of the fit window
N_CANDIDATES = 10


def _fit(sm, x0, y0, bg):
    import numpy as np

    h, w = sm.shape
    r = R_FIT
    ya, yb, xa, xb = max(0, y0 - r), min(h, y0 + r + 1), max(0, x0 - r), min(w, x0 + r + 1)
    win = sm[ya:yb, xa:xb] - bg
    yy, xx = np.mgrid[ya:yb, xa:xb]
    ok = win > 1.0
    if ok.sum() < 8:
        return None
    dx, dy = (xx[ok] - x0).astype(float), (yy[ok] - y0).astype(float)
    X = np.stack([np.ones(ok.sum()), dx, dy, dx * dx, dy * dy, dx * dy], 1)
    # weight by intensity: the log of faint pixels is noisy
    wts = win[ok]
    coef, *_ = np.linalg.lstsq(X * wts[:, None], np.log(win[ok]) * wts, rcond=None)
    c, bx, by, axx, ayy, axy = coef
    A = np.array([[2 * axx, axy], [axy, 2 * ayy]])
    if axx >= 0 or ayy >= 0 or np.linalg.det(A) <= 0:
        return None
    ox, oy = np.linalg.solve(A, -np.array([bx, by]))
    if abs(ox) > r or abs(oy) > r:
        return None
    logpeak = c + bx * ox + by * oy + axx * ox * ox + ayy * oy * oy + axy * ox * oy
    s2 = -1.0 / (axx + ayy)  # mean of -1/(2 axx) and -1/(2 ayy)
    amp = float(np.exp(logpeak)) * s2 / max(s2 - SMOOTH**2, 0.5)
    return x0 + ox, y0 + oy, bg + amp


def solve(image, image_2, prompt) -> str:
    import cv2
    import numpy as np
    from scipy import ndimage

    g = np.asarray(image.convert("L"), dtype=np.float64)
    sm = cv2.GaussianBlur(g, (0, 0), SMOOTH)
    h, w = g.shape
    peaks = (ndimage.maximum_filter(sm, size=9) == sm) & (sm > np.percentile(sm, 50))
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-sm[ys, xs])[:N_CANDIDATES]
    best = None
    for i in order:
        x0, y0 = int(xs[i]), int(ys[i])
        ring = sm[max(0, y0 - 45) : y0 + 46, max(0, x0 - 45) : x0 + 46]
        bg = float(np.percentile(ring, 10))
        fit = _fit(sm, x0, y0, bg)
        if fit is None:
            fit = (float(x0), float(y0), float(sm[y0, x0]))
        if best is None or fit[2] > best[2]:
            best = fit
    if best is None:
        y0, x0 = np.unravel_index(int(np.argmax(sm)), sm.shape)
        best = (float(x0), float(y0), 0.0)
    return f"{best[0]:.1f},{best[1]:.1f}"
