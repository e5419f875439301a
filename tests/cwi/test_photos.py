"""Bundled source photos: licences recorded, crops deterministic, sized and textured."""

from __future__ import annotations

import os

import numpy as np
import pytest
import skimage.data

from lmms_plugins.tasks.cwi.generators import photos


def test_every_photo_exists_and_has_a_free_licence():
    assert len(photos.PHOTO_LICENCES) >= 4
    for name, info in photos.PHOTO_LICENCES.items():
        assert os.path.isfile(os.path.join(os.path.dirname(skimage.data.__file__), info["file"])), name
        assert any(k in info["licence"] for k in ("CC0", "Public domain", "No known copyright")), name
        assert info["source"]
        assert photos.photo(name).mode == "RGB"


def test_random_photo_is_deterministic_sized_and_textured():
    a = photos.random_photo(np.random.default_rng(3), 321, 123)
    b = photos.random_photo(np.random.default_rng(3), 321, 123)
    assert a.size == (321, 123) and a.mode == "RGB"
    assert a.tobytes() == b.tobytes()
    grey = [np.asarray(photos.random_photo(np.random.default_rng(s), 200, 150).convert("L"), float).std() for s in range(20)]
    assert min(grey) >= 10


def test_max_upscale_bounds_the_enlargement(monkeypatch):
    from PIL import Image

    crops = []
    real = Image.fromarray

    def spy(arr, *a, **k):
        crops.append(arr.shape)
        return real(arr, *a, **k)

    monkeypatch.setattr(Image, "fromarray", spy)
    for s in range(20):
        crops.clear()
        photos.random_photo(np.random.default_rng(s), 600, 200, max_upscale=1.5, min_std=0)
        h, w = crops[-1][:2]
        assert w >= 400 - 1, (s, w)  # 600 px at most 1.5x enlarged
    widths = []
    for s in range(20):
        crops.clear()
        photos.random_photo(np.random.default_rng(s), 600, 200, min_std=0)
        widths.append(crops[-1][1])
    assert min(widths) < 390  # without the bound some crops are enlarged more than 1.5x


def test_bad_sizes_and_names_are_errors():
    with pytest.raises(ValueError):
        photos.random_photo(np.random.default_rng(0), 0, 10)
    with pytest.raises(KeyError, match="unknown photo"):
        photos.photo("mona_lisa")
