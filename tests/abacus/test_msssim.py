"""MS-SSIM (numpy/OpenCV) against pytorch-msssim, the reference implementation (test extra)."""

import numpy as np
import pytest

from lmms_plugins.tasks.abacus.msssim import ms_ssim, ms_ssim_details


def _pairs():
    from skimage import data

    rng = np.random.default_rng(0)
    coffee, astro = data.coffee(), data.astronaut()
    yield coffee, np.clip(coffee + rng.normal(0, 15, coffee.shape), 0, 255).astype(np.uint8)  # noise
    yield astro, np.roll(astro, (2, 3), axis=(0, 1))  # shift
    yield coffee[:171, :333], (coffee[:171, :333] * 0.7).astype(np.uint8)  # odd sides, darker
    yield astro[:300, :301], np.ascontiguousarray(astro[:300, :301, ::-1])  # channel swap
    g = data.camera()
    yield g[:257, :389], np.clip(g[:257, :389].astype(int) + 40, 0, 255).astype(np.uint8)  # grayscale


def test_matches_pytorch_msssim_within_1e5():
    torch = pytest.importorskip("torch")
    reference = pytest.importorskip("pytorch_msssim")
    for a, b in _pairs():
        ta, tb = (torch.tensor(x, dtype=torch.float32) for x in (a, b))
        if ta.ndim == 2:
            ta, tb = ta[None, None], tb[None, None]
        else:
            ta, tb = ta.permute(2, 0, 1)[None], tb.permute(2, 0, 1)[None]
        want = reference.ms_ssim(ta, tb, data_range=255).item()
        got = ms_ssim(a, b)
        assert abs(got - want) < 1e-5, (a.shape, got, want)


def test_identical_is_one_and_full_mask_is_no_mask():
    from skimage import data

    a = data.chelsea()
    b = np.clip(a.astype(int) + 25, 0, 255).astype(np.uint8)
    assert ms_ssim(a, a) == pytest.approx(1.0)
    assert ms_ssim(a, b, mask=np.ones(a.shape[:2], bool)) == ms_ssim(a, b)
    assert ms_ssim_details(a, b).why == "standard"


def test_mask_ignores_changes_outside_it():
    from skimage import data

    a = data.coffee()
    b = a.copy()
    b[:, 300:] = 0  # destroy the right half
    mask = np.zeros(a.shape[:2], bool)
    # window centres only on the left; the coarsest scale's window reaches ~96 px further
    mask[:, :200] = True
    assert ms_ssim(a, b, mask=mask) == pytest.approx(1.0, abs=1e-6)
    assert ms_ssim(a, b) < 0.8
    with pytest.raises(ValueError):
        ms_ssim(a, b, mask=np.zeros(a.shape[:2], bool))


@pytest.mark.parametrize("side", [1, 2, 5, 11, 20, 90, 160])
def test_defined_for_small_images(side):
    rng = np.random.default_rng(side)
    a = rng.integers(0, 256, (side, side + 3, 3)).astype(np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-30, 30, a.shape), 0, 255).astype(np.uint8)
    d = ms_ssim_details(a, b)
    assert 0.0 <= d.value <= 1.0
    assert ms_ssim(a, a) == pytest.approx(1.0)
    assert d.levels <= 4 and d.why != "standard"
    assert sum(d.weights) == pytest.approx(1.0001)


def test_shape_mismatch_raises():
    with pytest.raises(ValueError):
        ms_ssim(np.zeros((20, 20)), np.zeros((20, 21)))
