"""Safe image loading: every failure is a specific :class:`ImageError`, every success is RGB."""

from __future__ import annotations

import os
from pathlib import Path

#: Default bound on width*height (about 8k x 8k): larger files are refused as possible
#: decompression bombs before their pixels are decoded.
DEFAULT_MAX_PIXELS = 64_000_000
#: Default bound on the memory one :func:`load_rgb` may need (decoded pixels + conversion to RGB),
#: estimated from the header before decoding. 384 MB passes an 8-bit RGB image of ~48 MP or a
#: 16-bit one of ~55 MP; ABACUS scores 4 samples at once, so 4 x this is the worst case there.
DEFAULT_MAX_DECODE_MB = 384
ENV_MAX_DECODE_MB = "LMMS_PLUGINS_MAX_IMAGE_MB"

# Bytes per pixel PIL holds for a decoded image of a mode (3-band modes are stored in 4 bytes).
_DECODED_BPP = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16L": 2, "I;16B": 2, "I;16N": 2, "I": 4, "F": 4}
_WIDE_MODES = ("I;16", "I;16B", "I;16L", "I;16N", "I", "F")
_ALPHA_MODES = ("RGBA", "LA", "PA", "La", "RGBa")


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


def decode_cost(mode: str, size: tuple[int, int]) -> int:
    """Bytes that decoding an image of ``mode`` and ``size`` and turning it into RGB may hold at once.

    Decoded pixels (PIL's storage for the mode) + the RGB result + what :func:`to_rgb` needs on
    the way (an 8-bit plane for 16/32-bit modes, a mask for transparent ones, a copy for RGB).
    """
    width, height = size
    decoded = _DECODED_BPP.get(mode, 4)
    if mode in _WIDE_MODES:
        extra = 1 + 4  # 8-bit plane + RGB (the scaling runs in strips of rows)
    elif mode in _ALPHA_MODES or mode == "P":
        extra = 4 + 4 + 1  # RGBA (when converted) + white RGB canvas + alpha mask
    else:
        extra = 4  # the RGB image (a copy when already RGB)
    return int(width) * int(height) * (decoded + extra)


def _wide_to_l(image):
    """16/32-bit grey -> 8-bit "L", scaled to the full range, in strips (no float copy of the whole)."""
    import numpy as np
    from PIL import Image

    width, height = image.size
    if image.mode.startswith("I;16"):
        top = 65535.0
    else:
        low, high = image.getextrema()
        top = 65535.0 if high > 255 else 255.0
    out = np.empty((height, width), dtype=np.uint8)
    step = max(1, (1 << 20) // max(1, width))  # ~1 M pixels per strip
    for y in range(0, height, step):
        strip = np.asarray(image.crop((0, y, width, min(height, y + step))), dtype=np.float32)
        out[y:y + strip.shape[0]] = np.clip(strip * (255.0 / top) + 0.5, 0, 255).astype(np.uint8)
    return Image.fromarray(out, "L")


def to_rgb(image):
    """Any PIL mode -> 8-bit RGB. Transparent pixels are composited on white (a blank page)."""
    from PIL import Image

    if image.mode == "RGB":
        return image
    if image.mode in _WIDE_MODES:
        return _wide_to_l(image).convert("RGB")
    if image.mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in _ALPHA_MODES:
        rgba = image if image.mode == "RGBA" else image.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, (255, 255, 255))
        canvas.paste(rgba.convert("RGB") if rgba.mode != "RGBA" else rgba, mask=rgba.getchannel("A"))
        return canvas
    return image.convert("RGB")


def max_decode_bytes() -> int:
    """The memory bound of :func:`load_rgb`: ``LMMS_PLUGINS_MAX_IMAGE_MB`` or the default."""
    raw = os.environ.get(ENV_MAX_DECODE_MB, "").strip()
    try:
        mb = float(raw) if raw else DEFAULT_MAX_DECODE_MB
    except ValueError:
        raise ValueError(f"{ENV_MAX_DECODE_MB}={raw!r} is not a number of megabytes") from None
    return int(mb * (1 << 20))


def load_rgb(
    path: str | os.PathLike,
    *,
    root: str | os.PathLike | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int | None = None,
    max_side: int | None = None,
    keep_source: bool = False,
):
    """Open ``path`` (relative to ``root`` when given) as a fully decoded RGB PIL image.

    Refused before decoding (:class:`ImageTooLarge`): more than ``max_pixels`` pixels, or a
    :func:`decode_cost` over ``max_bytes`` (default :func:`max_decode_bytes`), read from the header.
    ``max_side``: the caller only needs the longest side down to this many pixels (a judge gets
    1024): a JPEG is then decoded at 1/2, 1/4 or 1/8 scale (never below ``max_side``), other
    formats are reduced by an integer factor right after decoding, before the RGB conversion.
    ``keep_source``: the image remembers its file, so that :func:`source_bytes` can give an
    image-edit API the file itself instead of a new encoding (the tasks' input images).
    """
    full = resolve_under(root, path) if root is not None else Path(path)
    if not full.is_file():
        raise ImageMissing(f"image not found: {full}")
    if full.stat().st_size == 0:
        raise ImageCorrupt(f"image file is empty (0 bytes): {full}")
    return _decode(full, str(full), max_pixels=max_pixels, max_bytes=max_bytes, max_side=max_side,
                   source_file=full if keep_source else None)


def load_rgb_bytes(data: bytes, *, name: str = "<bytes>", max_pixels: int = DEFAULT_MAX_PIXELS,
                   max_bytes: int | None = None, max_side: int | None = None, keep_source: bool = False):
    """:func:`load_rgb` for an image held in memory (e.g. a file a sandboxed program wrote, a dataset's
    stored image); ``name`` stands for it in messages. ``keep_source``: as for :func:`load_rgb`, the
    image remembers ``data`` while its pixels are those bytes' own."""
    import io

    if not data:
        raise ImageCorrupt(f"image {name} is empty (0 bytes)")
    data = bytes(data)
    return _decode(io.BytesIO(data), name, max_pixels=max_pixels, max_bytes=max_bytes, max_side=max_side,
                   source_file=data if keep_source else None)


def _decode(source, name: str, *, max_pixels: int, max_bytes: int | None, max_side: int | None,
            source_file: Path | bytes | None = None):
    """Decode ``source`` (a path or a binary file object) with the checks of :func:`load_rgb`;
    with ``source_file`` (a path, or the bytes themselves), the image remembers it when its pixels
    are the file's own."""
    from PIL import Image, UnidentifiedImageError

    budget = max_decode_bytes() if max_bytes is None else int(max_bytes)
    try:
        with Image.open(source) as img:
            stored_size = img.size
            if max_side and img.format == "JPEG" and max(img.size) > max_side:
                img.draft("RGB", (max_side, max_side))  # DCT scaling: the big raster is never made
            width, height = img.size
            if width * height > max_pixels:
                raise ImageTooLarge(
                    f"image {name} has {width}x{height} = {width * height:,} pixels, over the bound of {max_pixels:,}"
                )
            cost = decode_cost(img.mode, img.size)
            if cost > budget:
                raise ImageTooLarge(
                    f"image {name} ({width}x{height}, mode {img.mode}) needs about {cost / (1 << 20):,.0f} MB to "
                    f"decode, over the bound of {budget / (1 << 20):,.0f} MB ({ENV_MAX_DECODE_MB})"
                )
            img.load()  # decode now, so truncation shows here and not later
            _check_complete(source, name, img.format)
            small = img
            if max_side and max(img.size) >= 2 * max_side:
                small = img.reduce(max(img.size) // max_side)  # box-average by an integer factor, >= max_side
            rgb = to_rgb(small)
            out = rgb.copy() if rgb is img else rgb  # a new image outlives the closed file
            if (source_file is not None and rgb is img and img.format in ("PNG", "JPEG") and img.size == stored_size
                    and img.getexif().get(_EXIF_ORIENTATION, 1) == 1):  # the file's own pixels, as stored
                _remember_source(out, source_file)
            return out
    except ImageError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"image {name} is too large to decode safely: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise ImageCorrupt(f"not a readable image file: {name}") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageCorrupt(f"image {name} is corrupt or truncated: {exc}") from exc


_EXIF_ORIENTATION = 0x0112
_SOURCE_ATTR = "_lmms_plugins_source"


def _fingerprint(image) -> int:
    import zlib

    return zlib.crc32(image.tobytes())


def _remember_source(image, source: Path | bytes) -> None:
    if isinstance(source, bytes):  # held in memory: nothing can change it (bytes are immutable)
        setattr(image, _SOURCE_ATTR, (source, len(source), None, image.size, _fingerprint(image)))
        return
    stat = source.stat()
    setattr(image, _SOURCE_ATTR, (source, stat.st_size, stat.st_mtime_ns, image.size, _fingerprint(image)))


def has_source(image) -> bool:
    """Whether ``image`` came from ``load_rgb``/``load_rgb_bytes(..., keep_source=True)`` with the
    file's own pixels (cheap; :func:`source_bytes` is the check that the pixels are unchanged)."""
    return getattr(image, _SOURCE_ATTR, None) is not None


def source_bytes(image) -> bytes | None:
    """The PNG or JPEG file (or bytes) that ``load_rgb``/``load_rgb_bytes(..., keep_source=True)``
    decoded ``image`` from, when its pixels are exactly the file's (stored as RGB, not reduced, no
    EXIF rotation) and neither the image nor the file changed since; else None (the caller encodes
    the pixels itself). A copy or conversion of the image is a new image that remembers nothing."""
    source = getattr(image, _SOURCE_ATTR, None)
    if source is None:
        return None
    path, size, mtime_ns, dims, fingerprint = source
    if isinstance(path, bytes):
        return path if image.size == dims and _fingerprint(image) == fingerprint else None
    try:
        stat = path.stat()
        if (stat.st_size, stat.st_mtime_ns) != (size, mtime_ns) or image.size != dims or _fingerprint(image) != fingerprint:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) == size else None


def _check_complete(source, name: str, fmt: str | None) -> None:
    """Truncation, even when ``ImageFile.LOAD_TRUNCATED_IMAGES`` is on.

    lmms-eval (``lmms_eval.api.task``) turns that flag on for the whole process, and PIL then
    fills a cut-off file's missing pixels silently. The flag is left alone (lmms-eval wants it for
    its datasets); instead a PNG's chunks are checked to the end and a JPEG must end with EOI.
    """
    from PIL import Image, ImageFile

    if not ImageFile.LOAD_TRUNCATED_IMAGES:
        return  # load() has already raised on truncation
    if hasattr(source, "seek"):
        source.seek(0)
    if fmt == "PNG":
        try:
            with Image.open(source) as again:
                again.verify()
        except Exception as exc:  # noqa: BLE001 - PIL raises OSError, SyntaxError, struct.error...
            raise ImageCorrupt(f"image {name} is corrupt or truncated: {exc}") from exc
    elif fmt == "JPEG":
        if hasattr(source, "getbuffer"):
            tail = bytes(source.getbuffer()[-1024:])
        else:
            with open(source, "rb") as fh:
                fh.seek(max(0, Path(source).stat().st_size - 1024))
                tail = fh.read()
        if b"\xff\xd9" not in tail:
            raise ImageCorrupt(f"image {name} is corrupt or truncated: the JPEG has no end marker")


def load_rgb_array(path, **kwargs):
    """:func:`load_rgb` as a ``uint8`` array of shape (H, W, 3)."""
    import numpy as np

    return np.asarray(load_rgb(path, **kwargs))
