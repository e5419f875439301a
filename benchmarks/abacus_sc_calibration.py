"""ABACUS scene consistency on the synthetic calibration cases, with two DIS settings side by side:
the plain MEDIUM preset (the default until issue 16.12) and the current default (flow.dis_flow).

    python benchmarks/abacus_sc_calibration.py

Cases are those of tests/abacus/test_synthetic_factors.py (coffee scene 512x384 of the test
fixture, the synthetic editor, the synthetic_test detector): a perfect edit, camera drifts, a
background recolour, and a camera that turned / zoomed / moved further. For each: SC, the flow
term next to its target exp(-|s|/4) where the drift is a pure shift, MS-SSIM and the drift error.
"""

from __future__ import annotations

import argparse
import math


def cases():
    import cv2
    import numpy as np

    from lmms_plugins.tasks.abacus import synthetic as syn

    scene = syn.make_scene(np.random.default_rng(1), (512, 384), "coffee", {"sports ball": 3, "kite": 2, "tv": 1})
    kw = dict(category="sports ball")
    yield "none (add 1)", scene, syn.synthetic_edit(scene, "add", 1, rng=np.random.default_rng(7), **kw).image, (0, 0), None
    yield "recolor (add 1)", scene, syn.synthetic_edit(scene, "add", 1, faults=syn.Faults(recolor=True), rng=np.random.default_rng(7), **kw).image, None, None
    for shift in ((1, 0), (3, 2), (-2, 4), (4, -3), (0, 6)):
        edit = syn.synthetic_edit(scene, "add", 2, faults=syn.Faults(shift=shift), rng=np.random.default_rng(7), **kw)
        yield f"shift {shift} (add 2)", scene, edit.image, shift, None
    base = syn.synthetic_edit(scene, "add", 2, rng=np.random.default_rng(7), **kw).image
    h, w = base.shape[:2]
    for angle, scale, shift in ((1.5, 1.01, (4, -3)), (0.0, 1.02, (0, 0)), (0.0, 1.0, (12, -9))):
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
        m[:, 2] += shift
        moved = cv2.warpAffine(base, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        yield f"rot {angle} deg, zoom {scale}, shift {shift}", scene, moved, None, m


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.parse_args(argv)
    import cv2
    import numpy as np

    from lmms_plugins.tasks.abacus import flow
    from lmms_plugins.tasks.abacus.detectors import get_detector
    from lmms_plugins.tasks.abacus.scoring import score_edit

    cv2.setNumThreads(1)
    det = get_detector("synthetic_test")
    backends = (("MEDIUM", flow.dis_medium_flow), ("default", flow.dis_flow))
    print("| case | SC MEDIUM | SC default | flow term MEDIUM / default (target) | MS-SSIM | drift error MEDIUM / default, px |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for name, scene, edit, shift, m in cases():
        rs = [score_edit(scene.image, edit, operation="add", count=0 if "recolor" in name or "none" in name else 2,
                         category="sports ball", detector=det, flow_fn=fn) for _, fn in backends]
        target = f"{math.exp(-math.hypot(*shift) / flow.FLOW_TAU_PX):.3f}" if shift is not None else "-"
        want = m if m is not None else (np.array([[1.0, 0, shift[0]], [0, 1.0, shift[1]]]) if shift is not None else None)
        drift = " / ".join(f"{np.abs(np.array(r.drift)[:, 2] - want[:, 2]).max():.2f}" for r in rs) if want is not None else "-"
        worst = max(worst, abs(rs[0].sc - rs[1].sc))
        print(f"| {name} | {rs[0].sc:.4f} | {rs[1].sc:.4f} | {rs[0].flow_term:.3f} / {rs[1].flow_term:.3f} ({target}) | "
              f"{rs[1].msssim:.4f} | {drift} |")
    print(f"max |SC default - SC MEDIUM| = {worst:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
