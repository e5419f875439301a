"""#15.6: a truncated output image is a bad image even inside lmms-eval, whose ``lmms_eval.api.task``
sets ``PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True`` for the whole process on import (PIL then
fills the missing part silently, and a half-written edit would be scored as an edit)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageFile

from lmms_plugins.utils.images import ImageCorrupt, load_rgb


@pytest.mark.parametrize("ext", ["png", "jpg"])
def test_truncated_image_is_corrupt_even_with_lmms_eval_truncation_tolerance(tmp_path, monkeypatch, ext):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    full = tmp_path / f"full.{ext}"
    Image.effect_noise((256, 256), 50).convert("RGB").save(full)
    data = full.read_bytes()
    cut = tmp_path / f"cut.{ext}"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageCorrupt, match="truncated"):
        load_rgb(cut)
    assert load_rgb(full).size == (256, 256)  # a whole file still loads
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True  # lmms-eval's setting is left alone


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_truncated_image_bytes_are_corrupt_even_with_lmms_eval_truncation_tolerance(monkeypatch, fmt):
    import io

    from lmms_plugins.utils.images import load_rgb_bytes

    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    buf = io.BytesIO()
    Image.effect_noise((256, 256), 50).convert("RGB").save(buf, format=fmt)
    data = buf.getvalue()
    with pytest.raises(ImageCorrupt, match="out.img.*truncated"):
        load_rgb_bytes(data[: len(data) // 2], name="out.img")
    assert load_rgb_bytes(data).size == (256, 256)
