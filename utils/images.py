"""Safe image loading: every failure is a specific :class:`ImageError`, every success is RGB."""

from __future__ import annotations

import os
from pathlib import Path

#: Default bound on width*height (about 8k x 8k): larger files are refused as possible
#: decompression bombs before their pixels are decoded.
DEFAULT_MAX_PIXELS = 64_000_000


class ImageError(ValueError):
    """An image could not be used; the subclass and message say why."""


class ImageMissing(ImageError):
    pass


class ImageCorrupt(ImageError):
    pass


class ImageTooLarge(ImageError):
    pass


class PathEscapesRoot(ImageError):
    pass


def resolve_under(root: str | os.PathLike, relative: str | os.PathLike) -> Path:
    """``root/relative``, refusing paths that leave ``root`` (``../``, absolute paths, symlinks out)."""
    base = Path(root).resolve()
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise PathEscapesRoot(f"image path {str(relative)!r} escapes the dataset root {base}")
    return target


def to_rgb(image):
    """Any PIL mode -> 8-bit RGB. Transparent pixels are composited on white (a blank page)."""
    from PIL import Image

    if image.mode == "RGB":
        return image
    if image.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        import numpy as np

        arr = np.asarray(image, dtype=np.float64)
        top = 65535.0 if image.mode.startswith("I;16") or arr.max(initial=0) > 255 else 255.0
        arr8 = np.clip(arr / top * 255.0 + 0.5, 0, 255).astype(np.uint8)
        return Image.fromarray(arr8, "L").convert("RGB")
    if image.mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "PA", "La", "RGBa"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(canvas, rgba).convert("RGB")
    return image.convert("RGB")


def load_rgb(path: str | os.PathLike, *, root: str | os.PathLike | None = None, max_pixels: int = DEFAULT_MAX_PIXELS):
    """Open ``path`` (relative to ``root`` when given) as a fully decoded RGB PIL image."""
    from PIL import Image, UnidentifiedImageError

    full = resolve_under(root, path) if root is not None else Path(path)
    if not full.is_file():
        raise ImageMissing(f"image not found: {full}")
    if full.stat().st_size == 0:
        raise ImageCorrupt(f"image file is empty (0 bytes): {full}")
    try:
        with Image.open(full) as img:
            width, height = img.size
            if width * height > max_pixels:
                raise ImageTooLarge(
                    f"image {full} has {width}x{height} = {width * height:,} pixels, over the bound of {max_pixels:,}"
                )
            img.load()  # decode now, so truncation shows here and not later
            return to_rgb(img).copy()
    except ImageError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"image {full} is too large to decode safely: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise ImageCorrupt(f"not a readable image file: {full}") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageCorrupt(f"image {full} is corrupt or truncated: {exc}") from exc


def load_rgb_array(path, **kwargs):
    """:func:`load_rgb` as a ``uint8`` array of shape (H, W, 3)."""
    import numpy as np

    return np.asarray(load_rgb(path, **kwargs))
