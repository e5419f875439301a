import numpy as np
import pytest
from PIL import Image

from lmms_plugins.utils import images
from lmms_plugins.utils.images import ImageCorrupt, ImageMissing, ImageTooLarge, PathEscapesRoot, load_rgb


def save(tmp_path, name, img, **kw):
    path = tmp_path / name
    img.save(path, **kw)
    return path


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA", "P", "CMYK", "1"])
def test_any_mode_becomes_rgb(tmp_path, mode):
    img = Image.new("RGB", (8, 6), (200, 100, 50)).convert(mode)
    ext = "jpg" if mode == "CMYK" else "png"
    out = load_rgb(save(tmp_path, f"x.{ext}", img))
    assert out.mode == "RGB" and out.size == (8, 6)


def test_transparent_pixels_become_white(tmp_path):
    img = Image.new("RGBA", (4, 4), (255, 0, 0, 0))
    assert load_rgb(save(tmp_path, "t.png", img)).getpixel((0, 0)) == (255, 255, 255)


def test_sixteen_bit_is_scaled_not_clipped(tmp_path):
    arr = np.full((4, 4), 65535, dtype=np.uint16)
    arr[0, 0] = 32768
    path = save(tmp_path, "d.png", Image.fromarray(arr))
    out = np.asarray(load_rgb(path))
    assert out[1, 1].tolist() == [255, 255, 255] and out[0, 0].tolist() == [128, 128, 128]


def test_palette_with_transparency(tmp_path):
    img = Image.new("P", (4, 4), 0)
    img.putpalette([10, 20, 30] + [0] * 765)
    img.info["transparency"] = 0
    out = load_rgb(save(tmp_path, "p.png", img, transparency=0))
    assert out.getpixel((0, 0)) == (255, 255, 255)


def test_missing_file(tmp_path):
    with pytest.raises(ImageMissing, match="not found"):
        load_rgb(tmp_path / "nope.png")


def test_zero_byte_file(tmp_path):
    path = tmp_path / "empty.png"
    path.write_bytes(b"")
    with pytest.raises(ImageCorrupt, match="0 bytes"):
        load_rgb(path)


def test_truncated_file(tmp_path):
    path = save(tmp_path, "full.png", Image.effect_noise((64, 64), 50).convert("RGB"))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageCorrupt, match="corrupt or truncated"):
        load_rgb(path)


def test_not_an_image(tmp_path):
    path = tmp_path / "x.png"
    path.write_text("hello")
    with pytest.raises(ImageCorrupt, match="not a readable image"):
        load_rgb(path)


def test_pixel_bound_refuses_decompression_bombs(tmp_path):
    path = save(tmp_path, "big.png", Image.new("L", (300, 300)))
    with pytest.raises(ImageTooLarge, match="90,000 pixels"):
        load_rgb(path, max_pixels=10_000)


def test_paths_escaping_the_root(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    save(tmp_path, "outside.png", Image.new("RGB", (2, 2)))
    with pytest.raises(PathEscapesRoot, match="escapes"):
        load_rgb("../outside.png", root=root)
    with pytest.raises(PathEscapesRoot):
        load_rgb(str(tmp_path / "outside.png"), root=root)
    (root / "link.png").symlink_to(tmp_path / "outside.png")
    with pytest.raises(PathEscapesRoot):
        load_rgb("link.png", root=root)


def test_relative_path_inside_root(tmp_path):
    (tmp_path / "image").mkdir()
    save(tmp_path / "image", "a.png", Image.new("RGB", (3, 3), (1, 2, 3)))
    assert load_rgb("image/a.png", root=tmp_path).getpixel((0, 0)) == (1, 2, 3)
    assert images.load_rgb_array("image/a.png", root=tmp_path).shape == (3, 3, 3)


def test_source_bytes_only_for_a_file_whose_pixels_the_image_still_holds(tmp_path):
    import os

    from lmms_plugins.utils.images import source_bytes

    rgb = Image.new("RGB", (64, 40), (10, 200, 30))
    png, jpeg = save(tmp_path, "a.png", rgb), save(tmp_path, "a.jpg", rgb, quality=85)
    assert source_bytes(load_rgb(png, keep_source=True)) == png.read_bytes()
    assert source_bytes(load_rgb(jpeg, keep_source=True)) == jpeg.read_bytes()
    assert source_bytes(load_rgb(png)) is None  # not asked for
    assert source_bytes(rgb) is None
    assert source_bytes(load_rgb(save(tmp_path, "rgba.png", Image.new("RGBA", (8, 8), (1, 2, 3, 100))), keep_source=True)) is None
    assert source_bytes(load_rgb(png, keep_source=True, max_side=16)) is None  # reduced: not the file's pixels
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90: a viewer would show other pixels than those decoded
    assert source_bytes(load_rgb(save(tmp_path, "rot.jpg", rgb, exif=exif), keep_source=True)) is None
    changed = load_rgb(png, keep_source=True)
    changed.putpixel((3, 3), (0, 0, 0))
    assert source_bytes(changed) is None
    later = load_rgb(png, keep_source=True)
    save(tmp_path, "a.png", Image.new("RGB", (64, 40), (99, 99, 99)))
    os.utime(png, ns=(1, 1))
    assert source_bytes(later) is None  # the file changed since


def test_source_bytes_of_an_image_decoded_from_bytes_in_memory(tmp_path):
    import io

    from lmms_plugins.utils.images import has_source, load_rgb_bytes, source_bytes

    def encoded(image, fmt, **kw):
        buf = io.BytesIO()
        image.save(buf, format=fmt, **kw)
        return buf.getvalue()

    rgb = Image.new("RGB", (32, 20), (10, 200, 30))
    png, jpeg = encoded(rgb, "PNG"), encoded(rgb, "JPEG", quality=85)
    assert source_bytes(load_rgb_bytes(png, keep_source=True)) == png
    assert source_bytes(load_rgb_bytes(jpeg, keep_source=True)) == jpeg
    assert source_bytes(load_rgb_bytes(png)) is None  # not asked for
    rgba = load_rgb_bytes(encoded(Image.new("RGBA", (8, 8), (1, 2, 3, 100)), "PNG"), keep_source=True)
    assert not has_source(rgba) and source_bytes(rgba) is None  # composited on white: not the stored pixels
    assert source_bytes(load_rgb_bytes(encoded(rgb, "PNG"), keep_source=True, max_side=8)) is None  # reduced
    changed = load_rgb_bytes(png, keep_source=True)
    changed.putpixel((3, 3), (0, 0, 0))
    assert has_source(changed) and source_bytes(changed) is None  # the pixels changed since
    assert source_bytes(load_rgb_bytes(png, keep_source=True).copy()) is None  # a copy remembers nothing
