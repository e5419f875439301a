"""crop_provenance solver: multi-scale normalised cross-correlation.

The crop keeps its aspect ratio, so one unknown scale: for each candidate original width the
crop is resized back and matched (TM_CCOEFF_NORMED, invariant to gain and offset) at half
resolution; the best (scale, position) is refined at full resolution.
"""

from __future__ import annotations


def _gray(img):
    import numpy as np

    return np.asarray(img.convert("L"), dtype=np.float32)


def _scores(big, tmpl_src, widths, factor):
    """(score, (original width, x, y)) of the best match for each candidate width."""
    import cv2
    import numpy as np

    out = []
    th0, tw0 = tmpl_src.shape
    for cw in widths:
        tw = int(round(cw * factor))
        th = int(round(cw * th0 / tw0 * factor))
        if tw < 6 or th < 6 or tw >= big.shape[1] or th >= big.shape[0]:
            continue
        t = cv2.resize(tmpl_src, (tw, th), interpolation=cv2.INTER_AREA)
        res = cv2.matchTemplate(big, t, cv2.TM_CCOEFF_NORMED)
        # flat windows make the normalised score numerically meaningless: exclude them
        mean = cv2.boxFilter(big, -1, (tw, th), anchor=(0, 0), normalize=True, borderType=cv2.BORDER_CONSTANT)
        sq = cv2.boxFilter(big * big, -1, (tw, th), anchor=(0, 0), normalize=True, borderType=cv2.BORDER_CONSTANT)
        std = np.sqrt(np.maximum(sq - mean * mean, 0))[: res.shape[0], : res.shape[1]]
        res[std < 3.0] = -1.0
        _, v, _, loc = cv2.minMaxLoc(res)
        out.append((v, (cw, loc[0] / factor, loc[1] / factor)))
    return out


def solve(image, image_2, prompt) -> str:
    import cv2
    import numpy as np

    big = _gray(image)
    crop = _gray(image_2)
    h, w = big.shape
    ch2, cw2 = crop.shape
    crop = cv2.GaussianBlur(crop, (0, 0), 1.0)
    big_s = cv2.GaussianBlur(big, (0, 0), 1.0)
    half = cv2.resize(big_s, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    widths = cw2 / np.geomspace(0.55, 1.75, 28)
    coarse = sorted(_scores(half, crop, widths, 0.5), key=lambda r: -r[0])
    if not coarse:
        raise ValueError("crop is larger than the image at every candidate scale")
    # several coarse candidates, each refined at full resolution near its scale
    best = coarse[0]
    for _v, (cw0, _x, _y) in coarse[:4]:
        for r in _scores(big_s, crop, cw0 * np.linspace(0.97, 1.03, 3), 1.0):
            if r[0] > best[0] or best is coarse[0]:
                best = r
    cw, x, y = best[1]
    chh = cw * ch2 / cw2
    box = (x / w * 1000, y / h * 1000, (x + cw) / w * 1000, (y + chh) / h * 1000)
    return "[" + ",".join(str(int(round(v))) for v in box) + "]"
