import math

import numpy as np
import pytest

from lmms_plugins.tasks.abacus import flow


def _pair(shift=(3, 2)):
    import cv2
    from skimage import data

    g = cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2GRAY)[:256, :320]
    m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    return g, cv2.warpAffine(g, m, (g.shape[1], g.shape[0]), borderMode=cv2.BORDER_REFLECT)


def test_dis_recovers_a_shift_and_the_flow_term_follows_the_formula():
    a, b = _pair((3, 2))
    f = flow.dis_flow(a, b)
    inner = f[20:-20, 20:-20]
    assert np.median(inner[..., 0]) == pytest.approx(3, abs=0.2) and np.median(inner[..., 1]) == pytest.approx(2, abs=0.2)
    mask = np.zeros(a.shape, bool)
    mask[20:-20, 20:-20] = True
    assert flow.flow_term(f, mask) == pytest.approx(math.exp(-math.hypot(3, 2) / flow.FLOW_TAU_PX), abs=0.03)
    assert flow.flow_term(flow.dis_flow(a, a.copy())) == pytest.approx(1.0, abs=1e-3)
    with pytest.raises(ValueError):
        flow.flow_term(f, np.zeros(a.shape, bool))


def test_raft_backend_runs_with_random_weights_on_small_images():
    pytest.importorskip("torchvision")
    a, b = _pair()
    a, b = a[:100, :90].copy(), b[:100, :90].copy()  # under RAFT's 128 px minimum: padded
    f = flow.get_backend("raft_small", pretrained=False)(a, b)
    assert f.shape == (100, 90, 2) and np.isfinite(f).all()


def test_unknown_backend():
    with pytest.raises(ValueError, match="raft_large"):
        flow.get_backend("farneback")
