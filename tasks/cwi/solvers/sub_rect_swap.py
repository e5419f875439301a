"""sub_rect_swap solver.

1. Match the brightness of the two images (robust gain/offset); where they differ are the two
   rectangles (possibly in fragments where their contents happen to agree).
2. The rectangles are related by one displacement v: the second image at x in A equals the
   first at x + v, and at x in B equals the first at x - v. Candidates for v come from the
   centres of the largest differing regions and from template-matching the largest one; each
   candidate (refined by a small local search) is scored by how much of the difference it
   explains.
3. With the best v, the pixels where that explanation holds both ways form A (in fragments
   where the two contents agree: their union is taken); B = A + v.
"""

from __future__ import annotations


def _shift(arr, dx: int, dy: int):
    """out(x, y) = arr(x + dx, y + dy), zero outside."""
    import numpy as np

    h, w = arr.shape[:2]
    out = np.zeros_like(arr)
    xs0, xs1 = max(0, -dx), min(w, w - dx)
    ys0, ys1 = max(0, -dy), min(h, h - dy)
    if xs1 > xs0 and ys1 > ys0:
        out[ys0:ys1, xs0:xs1] = arr[ys0 + dy : ys1 + dy, xs0 + dx : xs1 + dx]
    return out


def _components(mask, k):
    """Bounding boxes (x0, y0, x1, y1) of the k largest connected regions."""
    import numpy as np
    from scipy import ndimage

    lab, n = ndimage.label(mask)
    if n == 0:
        return []
    sizes = ndimage.sum(mask, lab, range(1, n + 1))
    objs = ndimage.find_objects(lab)
    return [(objs[i][1].start, objs[i][0].start, objs[i][1].stop, objs[i][0].stop) for i in np.argsort(-sizes)[:k]]


def solve(image, image_2, prompt) -> str:
    import cv2
    import numpy as np
    from scipy import ndimage

    a = np.asarray(image.convert("RGB"), dtype=np.float32)
    b = np.asarray(image_2.convert("RGB"), dtype=np.float32)
    h, w = a.shape[:2]
    am, bm = float(np.median(a)), float(np.median(b))
    s = float(np.median(np.abs(b - bm)) / max(np.median(np.abs(a - am)), 1e-6))
    b = (b - bm) / max(s, 1e-6) + am  # second image in the first one's brightness scale
    d = cv2.GaussianBlur(np.abs(b - a).sum(axis=2), (0, 0), 2.0)
    med = float(np.median(d))
    mad = float(np.median(np.abs(d - med)))
    mask = ndimage.binary_opening(d > med + 8.0 * mad + 6.0, iterations=2)
    comps = _components(mask, 4)
    if not comps:
        return "[[0,0,1000,1000],[0,0,1000,1000]]"

    # the displacement search works on grey levels; half-size copies for the coarse part
    ga, gb = a.mean(axis=2), b.mean(axis=2)
    base = np.abs(gb - ga)
    a2 = cv2.resize(ga, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    b2 = cv2.resize(gb, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    base2 = np.abs(b2 - a2)

    def explained(dx, dy, aa, bb, bs, sigma):
        e = bs - np.abs(bb - _shift(aa, dx, dy))
        e2 = bs - np.abs(bb - _shift(aa, -dx, -dy))
        # both must hold: x in A agrees with a(x + v), and x + v in B agrees with a(x)
        both = np.minimum(e, _shift(e2, dx, dy))
        return cv2.GaussianBlur(both, (0, 0), sigma)

    def score(v):
        dx, dy = v
        e = explained(dx // 2, dy // 2, a2, b2, base2, 1.0)
        return float(np.maximum(e, 0).sum())

    cands = set()
    centres = [((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in comps]
    for i in range(len(centres)):
        for j in range(len(centres)):
            if i != j:
                cands.add((int(round(centres[j][0] - centres[i][0])), int(round(centres[j][1] - centres[i][1]))))
    x0, y0, x1, y1 = comps[0]
    if x1 - x0 >= 6 and y1 - y0 >= 6:
        res = cv2.matchTemplate(ga, gb[y0:y1, x0:x1], cv2.TM_CCOEFF_NORMED)
        res[max(0, y0 - 3) : y0 + 4, max(0, x0 - 3) : x0 + 4] = -1  # not where it is now
        tw, th = x1 - x0, y1 - y0
        mean = cv2.boxFilter(ga, -1, (tw, th), anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)
        sq = cv2.boxFilter(ga * ga, -1, (tw, th), anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)
        std = np.sqrt(np.maximum(sq - mean * mean, 0))[: res.shape[0], : res.shape[1]]
        res[std < 2.0] = -1  # flat windows: the normalised score is 0/0
        for _ in range(3):
            _, _, _, loc = cv2.minMaxLoc(res)
            cands.add((loc[0] - x0, loc[1] - y0))
            res[max(0, loc[1] - 5) : loc[1] + 6, max(0, loc[0] - 5) : loc[0] + 6] = -1
    cands = [v for v in cands if v != (0, 0)]
    if not cands:
        return "[[0,0,1000,1000],[0,0,1000,1000]]"
    best = max(cands, key=score)
    # local refinement: +-4 px in steps of 2 at half size, then +-1 px at full size
    best = max(((best[0] + i, best[1] + j) for i in (-4, -2, 0, 2, 4) for j in (-4, -2, 0, 2, 4)), key=score)

    def full_score(v):
        return float(np.maximum(explained(v[0], v[1], ga, gb, base, 1.5), 0).sum())

    best = max(((best[0] + i, best[1] + j) for i in (-1, 0, 1) for j in (-1, 0, 1)), key=full_score)
    dx, dy = best
    e = explained(dx, dy, ga, gb, base, 2.0)
    pos = e[e > 0]
    thr = max(0.2 * float(np.percentile(pos, 99)) if pos.size else 0.0, 3.0)
    # A may show up in fragments (where both contents agree there is no evidence): take the
    # union of the substantial fragments
    ev = ndimage.binary_opening(e > thr, iterations=1)
    lab, n = ndimage.label(ev)
    if n:
        sizes = ndimage.sum(ev, lab, range(1, n + 1))
        keep = np.isin(lab, 1 + np.nonzero(sizes >= 0.2 * sizes.max())[0])
        ys, xs = np.nonzero(keep)
        ax0, ay0, ax1, ay1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
    else:
        ax0, ay0, ax1, ay1 = comps[0]
    boxes = [(ax0, ay0, ax1, ay1), (ax0 + dx, ay0 + dy, ax1 + dx, ay1 + dy)]
    norm = [[bx0 / w * 1000, by0 / h * 1000, bx1 / w * 1000, by1 / h * 1000] for bx0, by0, bx1, by1 in boxes]
    return "[" + ",".join("[" + ",".join(str(int(round(v))) for v in bx) + "]" for bx in norm) + "]"
