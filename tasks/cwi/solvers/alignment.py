"""alignment solver: windowed phase correlation (OpenCV) for the sub-pixel translation."""

from __future__ import annotations

from lmms_plugins.tasks.cwi.solvers.helpers import gray


def solve(image, image_2, prompt) -> str:
    import cv2

    a, b = gray(image), gray(image_2)
    win = cv2.createHanningWindow(a.shape[::-1], cv2.CV_64F)
    (sx, sy), _ = cv2.phaseCorrelate(a, b, win)
    # phaseCorrelate returns how far b's content moved relative to a: b(p) = a(p - s), so the
    # window of b starts at -s in a's frame.
    return f"{int(round(-sx))},{int(round(-sy))}"
