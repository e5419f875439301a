"""Small pieces shared by the CwI generators (numpy images, tiers, shortcut screen)."""

from __future__ import annotations

from ..catalog import TIERS

# Sensor noise (grey-level sigma) per tier: harder tiers are noisier.
NOISE = {"easy": 0.0, "medium": 3.0, "hard": 6.0, "expert": 10.0}
MAX_ATTEMPTS = 200


def check_tier(tier: str) -> str:
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    return tier


def tier_params(table: dict, tier: str) -> dict:
    """A generator's parameters for ``tier``; an unknown tier is an error that lists the tiers."""
    try:
        return table[check_tier(tier)]
    except KeyError:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(table)}") from None


def box_str(box) -> str:
    """A box as the gold spelling ``[x1,y1,x2,y2]`` (integers, 0-1000 normalised by the caller)."""
    return "[" + ",".join(str(int(round(v))) for v in box) + "]"


def photo_array(rng, width: int, height: int):
    """A bundled photo crop as float32 HxWx3 in 0-255, enlarged at most 2x where the photo allows."""
    import numpy as np

    from .photos import random_photo

    return np.asarray(random_photo(rng, width, height, max_upscale=2.0), dtype=np.float32)


def add_noise(arr, rng, sigma: float):
    import numpy as np

    if sigma <= 0:
        return arr
    return arr + rng.normal(0.0, sigma, size=arr.shape).astype(np.float32)


def to_pil(arr):
    import numpy as np
    from PIL import Image

    return Image.fromarray(np.clip(np.rint(arr), 0, 255).astype(np.uint8), "RGB")


def shortcut_hits(task: str, gold: str, shortcuts: dict[str, str]) -> list[str]:
    """Names of the shortcut answers that the task's own rule would score correct."""
    from ..rules import score
    from ..task_rules import rule_for_task

    rule = rule_for_task(task)
    return [name for name, ans in shortcuts.items() if score(rule, f"<answer>{ans}</answer>", gold).correct]


def answer_suffix(fmt: str, example: str) -> str:
    return f"\nAnswer inside <answer>…</answer> as {fmt}, e.g. <answer>{example}</answer>."
