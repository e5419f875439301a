"""double_exposure solver: image 1 is image 2 convolved (along x, circularly) with a few
spikes; Wiener deconvolution over all rows recovers the spike train, whose peaks are the ghosts."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import gray

_MIN_WEIGHT = 0.04


def solve(image, image_2, prompt) -> str:
    import numpy as np

    y, x = gray(image), gray(image_2)
    fy = np.fft.fft(y - y.mean(), axis=1)
    fx = np.fft.fft(x - x.mean(), axis=1)
    num = (fy * np.conj(fx)).sum(axis=0)
    den = (np.abs(fx) ** 2).sum(axis=0)
    kernel = np.fft.ifft(num / (den + 1e-5 * den.max())).real
    w = kernel.size
    peaks = []
    for i in range(w):
        s = i if i <= w // 2 else i - w
        if abs(s) < 4:
            continue  # the main exposure
        v = kernel[i]
        if v >= _MIN_WEIGHT and v >= kernel[i - 1] and v >= kernel[(i + 1) % w]:
            peaks.append((v, s))
    peaks.sort(reverse=True)
    return "[" + ",".join(str(s) for _, s in peaks) + "]"
