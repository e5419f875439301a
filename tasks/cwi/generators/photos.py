"""Source photos for CwI generators: free-licence photographs bundled with scikit-image.

The official test split uses COCO val2017 photos, which cannot be downloaded here; these
photos play the same role (natural texture for shift / rotation / jigsaw tasks). Only colour
photos whose licence scikit-image documents as CC0 or public domain are used (licence text
as written in ``skimage/data/_fetchers.py`` of scikit-image 0.26).
"""

from __future__ import annotations

import functools
from typing import Any

# name -> (file in skimage/data, licence, source), as scikit-image documents them.
PHOTO_LICENCES: dict[str, dict[str, str]] = {
    "astronaut": {
        "file": "astronaut.png",
        "licence": "Public domain (no known copyright restrictions)",
        "source": "NASA Great Images database, https://flic.kr/p/r9qvLn (Eileen Collins)",
    },
    "coffee": {
        "file": "coffee.png",
        "licence": "CC0 (no copyright restrictions)",
        "source": "Rachel Michetti, courtesy of Pikolo Espresso Bar",
    },
    "chelsea": {
        "file": "chelsea.png",
        "licence": "CC0 (no copyright restrictions)",
        "source": "Stefan van der Walt (Chelsea the cat)",
    },
    "rocket": {
        "file": "rocket.jpg",
        "licence": "Public domain (released by SpaceX)",
        "source": "SpaceX Photos, https://www.flickr.com/photos/spacexphotos/16511594820/",
    },
    "immunohistochemistry": {
        "file": "ihc.png",
        "licence": "No known copyright restrictions",
        "source": "Center for Microscopy And Molecular Imaging (CMMI)",
    },
}

PHOTO_NAMES: tuple[str, ...] = tuple(PHOTO_LICENCES)

# A crop this flat (grey-level std) gives alignment/jigsaw tasks nothing to lock onto.
_MIN_CROP_STD = 18.0
_MAX_TRIES = 12


@functools.lru_cache(maxsize=None)
def _photo_array(name: str):
    """The photo as an RGB uint8 array (read once per process; read-only)."""
    import os

    import numpy as np
    import skimage.data
    from PIL import Image

    path = os.path.join(os.path.dirname(skimage.data.__file__), PHOTO_LICENCES[name]["file"])
    with Image.open(path) as im:
        arr = np.asarray(im.convert("RGB"), dtype=np.uint8).copy()
    arr.setflags(write=False)
    return arr


def photo(name: str) -> Any:
    """The whole photo ``name`` as a PIL RGB image."""
    from PIL import Image

    if name not in PHOTO_LICENCES:
        raise KeyError(f"unknown photo {name!r}; known: {', '.join(PHOTO_NAMES)}")
    return Image.fromarray(_photo_array(name))


def random_photo(rng, width: int, height: int, *, min_std: float = _MIN_CROP_STD, max_upscale: float | None = None) -> Any:
    """A random crop of a random bundled photo, resized to ``width`` x ``height`` (PIL RGB).

    Deterministic given ``rng`` (a ``numpy.random.Generator``). The crop keeps the target
    aspect ratio and covers 45-100 % of the largest such crop; flat crops (grey std below
    ``min_std``) are re-drawn a few times so that the picture has texture.
    """
    import numpy as np
    from PIL import Image

    width, height = int(width), int(height)
    if width <= 0 or height <= 0:
        raise ValueError(f"photo size must be positive, got {width}x{height}")
    best = None
    for _ in range(_MAX_TRIES):
        arr = _photo_array(PHOTO_NAMES[int(rng.integers(len(PHOTO_NAMES)))])
        ph, pw = arr.shape[:2]
        aspect = width / height
        max_w = min(pw, int(ph * aspect))
        lo = 0.45
        if max_upscale:
            lo = min(1.0, max(lo, width / max_upscale / max(1, max_w)))
        frac = float(rng.uniform(lo, 1.0)) if lo < 1.0 else 1.0
        cw = max(8, int(round(max_w * frac)))
        ch = max(8, min(ph, int(round(cw / aspect))))
        cw = min(cw, pw)
        x0 = int(rng.integers(0, pw - cw + 1))
        y0 = int(rng.integers(0, ph - ch + 1))
        crop = Image.fromarray(arr[y0 : y0 + ch, x0 : x0 + cw]).resize((width, height), Image.LANCZOS)
        std = float(np.asarray(crop.convert("L"), dtype=np.float32).std())
        if best is None or std > best[0]:
            best = (std, crop)
        if std >= min_std:
            return crop
    return best[1]
