"""grating_period solver: windowed, zero-padded 2-D FFT; the strongest peak away from the
lowest frequencies (photo content) is the grating's fundamental; its position, refined by a
parabola through the neighbouring bins, gives the spatial frequency, and the period is 1/f."""

from __future__ import annotations

PAD = 1024
MIN_FREQ = 1.0 / 64  # cycles/px; below this is the photo's low-frequency content


def solve(image, image_2, prompt) -> str:
    import numpy as np

    g = np.asarray(image.convert("L"), dtype=np.float64)
    h, w = g.shape
    g = g - g.mean()
    win = np.outer(np.hanning(h), np.hanning(w))
    spec = np.abs(np.fft.rfft2(g * win, s=(PAD, PAD)))
    fy = np.fft.fftfreq(PAD)[:, None]
    fx = np.fft.rfftfreq(PAD)[None, :]
    spec[np.hypot(fx, fy) < MIN_FREQ] = 0
    iy, ix = np.unravel_index(int(np.argmax(spec)), spec.shape)

    def parab(a, b, c):
        den = a - 2 * b + c
        return 0.0 if den == 0 else 0.5 * (a - c) / den

    ly = np.log(spec[[(iy - 1) % PAD, iy, (iy + 1) % PAD], ix] + 1e-9)
    oy = parab(*ly)
    if 0 < ix < spec.shape[1] - 1:
        lx = np.log(spec[iy, [ix - 1, ix, ix + 1]] + 1e-9)
        ox = parab(*lx)
    else:
        ox = 0.0
    fyv = np.fft.fftfreq(PAD)[iy] + oy / PAD
    fxv = (ix + ox) / PAD
    period = 1.0 / max(np.hypot(fxv, fyv), 1e-9)
    return f"{period:.2f}"
