"""grating_period solver.

1. Coarse: the strongest peak of the windowed 2-D spectrum, each bin measured against the mean
   of its frequency ring (a photo's energy is spread over the ring, a grating's is one point);
   a square wave's odd harmonics are strong, so a peak at f/3 or f/2 is preferred when there is one.
2. Where: demodulate the image at that frequency, smooth over a period, keep what is above half
   the high level, shrink by half a period (the region's edge, where the picture may change, stays out).
3. Fine: project the kept pixels on the stripes' normal (a 1-D profile), fit a sinusoid plus a
   smooth background by least squares over a fine frequency grid, and turn the orientation to
   where the fitted sinusoid keeps the most energy. A fit, unlike a spectral peak, is unbiased
   when only a few periods are visible.
"""

from __future__ import annotations

PAD = 2048
MIN_PERIOD, MAX_PERIOD = 4.0, 250.0


def _coarse(g):
    import numpy as np

    h, w = g.shape
    spec = np.abs(np.fft.rfft2(g * np.outer(np.hanning(h), np.hanning(w)), s=(PAD, PAD)))
    fy = np.fft.fftfreq(PAD)[:, None]
    fx = np.fft.rfftfreq(PAD)[None, :]
    r = np.hypot(fx, fy)
    ring_of = np.round(r * PAD).astype(int)
    ring_mean = np.bincount(ring_of.ravel(), spec.ravel()) / np.maximum(np.bincount(ring_of.ravel()), 1)
    score = spec / (ring_mean[ring_of] + 0.02 * spec.max())
    score[(r < 1 / MAX_PERIOD) | (r > 1 / MIN_PERIOD)] = 0
    iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
    f = np.array([fx[0, ix], fy[iy, 0]])
    for k in (3, 2):
        sub = f / k
        if np.hypot(*sub) < 1 / MAX_PERIOD:
            continue
        jx, jy = int(round(sub[0] * PAD)), int(round(sub[1] * PAD))
        ys = [(jy + d) % PAD for d in range(-2, 3)]
        xs = [x for x in range(jx - 2, jx + 3) if 0 <= x < spec.shape[1]]
        patch = spec[np.ix_(ys, xs)]
        if patch.max() >= 1.5 * spec[iy, ix]:
            a, b = np.unravel_index(int(np.argmax(patch)), patch.shape)
            return np.array([fx[0, xs[b]], fy[ys[a], 0]])
    return f


def _region(g, f):
    import numpy as np
    from scipy.ndimage import distance_transform_edt, gaussian_filter

    h, w = g.shape
    yy, xx = np.mgrid[0:h, 0:w]
    z = g * np.exp(-2j * np.pi * (f[0] * xx + f[1] * yy))
    s = max(2.0, 1.0 / float(np.hypot(*f)))
    amp = np.hypot(gaussian_filter(z.real, s), gaussian_filter(z.imag, s))
    mask = amp > 0.5 * np.percentile(amp, 95)
    inside = distance_transform_edt(np.pad(mask, 1, constant_values=True))[1:-1, 1:-1]
    return inside > 0.5 * s


def _golden_max(fn, lo, hi, iters):
    for _ in range(iters):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (m1, hi) if fn(m1) < fn(m2) else (lo, m2)
    return (lo + hi) / 2


class _ProfileFit:
    """Sinusoid fits to the region's projection on a direction theta."""

    def __init__(self, g, region):
        import numpy as np

        ys, xs = np.nonzero(region)
        self.x, self.y, self.v = xs.astype(float), ys.astype(float), g[ys, xs]

    def profile(self, theta):
        """Bin means of the projection on theta (0.5 px bins), weighted by bin counts, with a
        quadratic background projected out."""
        import numpy as np

        t = self.x * np.cos(theta) + self.y * np.sin(theta)
        bins = np.round((t - t.min()) / 0.5).astype(int)
        n = np.bincount(bins)
        keep = n > 0
        tt = np.nonzero(keep)[0] * 0.5
        sw = np.sqrt(n[keep])
        u = (tt - tt.mean()) / (np.ptp(tt) / 2 + 1e-9)
        q, _ = np.linalg.qr(np.stack([np.ones_like(u), u, u * u], 1) * sw[:, None])
        y = np.bincount(bins, self.v)[keep] / n[keep] * sw
        return tt, sw, q, y - q @ (q.T @ y)

    @staticmethod
    def energy(prof, fr):
        """Energy of the best sinusoid of frequency fr in the profile."""
        import numpy as np

        tt, sw, q, y = prof
        X = np.stack([np.cos(2 * np.pi * fr * tt), np.sin(2 * np.pi * fr * tt)], 1) * sw[:, None]
        X -= q @ (q.T @ X)
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        e = X @ coef
        return float(e @ e)

    def best(self, theta, f0, lo, hi, n):
        """(energy, frequency) of the best sinusoid along theta with frequency in f0*[lo, hi]."""
        import numpy as np

        prof = self.profile(theta)
        grid = np.linspace(f0 * lo, f0 * hi, n)
        k = int(np.argmax([self.energy(prof, x) for x in grid]))
        fr = _golden_max(lambda x: self.energy(prof, x), grid[max(k - 1, 0)], grid[min(k + 1, n - 1)], 25)
        return self.energy(prof, fr), fr


def solve(image, image_2, prompt) -> str:
    import numpy as np

    g = np.asarray(image.convert("L"), dtype=np.float64)
    g = g - g.mean()
    f = _coarse(g)
    f0, theta0 = float(np.hypot(*f)), float(np.arctan2(f[1], f[0]))
    fit = _ProfileFit(g, _region(g, f))
    # the coarse peak is biased when few periods are visible: search a wide band first
    _, f1 = fit.best(theta0, f0, 0.7, 1.45, 161)
    thetas = theta0 + np.deg2rad(np.arange(-6.0, 6.01, 1.5))
    energies = [fit.best(t, f1, 0.9, 1.1, 41)[0] for t in thetas]
    k = int(np.argmax(energies))
    theta = _golden_max(lambda t: fit.best(t, f1, 0.9, 1.1, 41)[0], thetas[max(k - 1, 0)], thetas[min(k + 1, len(thetas) - 1)], 8)
    _, fr = fit.best(theta, f1, 0.9, 1.1, 81)
    return f"{1.0 / fr:.2f}"
