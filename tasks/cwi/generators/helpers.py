"""Small pieces shared by the CwI generators (tiers, numpy images, the shortcut screen).

Every generator is written the same way: its tier settings are one table ``_TIERS`` (a row
per tier, read with :func:`tier_params`), the prompt ends with :func:`answer_instruction`,
and the item is drawn by :func:`draw_until_clear` (which redraws any sample a shortcut answer
would get right); a construction that can fail without a shortcut involved is retried by
:func:`retry`.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from ..catalog import TIERS

T = TypeVar("T")
# Draws before a generator gives up with an error (peak_count, circle_fit and gain_center, whose
# constructions fail more often, pass more).
MAX_ATTEMPTS = 200


def tier_params(table: dict, tier: str) -> dict:
    """A generator's row of ``_TIERS`` for ``tier``; an unknown tier is an error that lists the tiers."""
    if tier not in TIERS or tier not in table:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    return table[tier]


def retry(draw: Callable[[int], T | None], what: str, *, attempts: int = MAX_ATTEMPTS) -> T:
    """The first result of ``draw(attempt)`` that is not None (``attempt`` counts from 0).

    RuntimeError naming ``what`` after ``attempts`` failures: a generator never hands on a
    construction that failed its own check.
    """
    for attempt in range(attempts):
        got = draw(attempt)
        if got is not None:
            return got
    raise RuntimeError(f"no {what} in {attempts} attempts")


def draw_until_clear(task: str, shortcut_answers, draw, *, attempts: int = MAX_ATTEMPTS):
    """The first candidate of ``draw(attempt)`` that no shortcut answer gets right.

    ``draw`` returns a ``GeneratedItem``, a ``Draft`` (an answer and prompt whose images are
    made afterwards, for shortcuts that ignore the pixels) or None when that construction
    failed. A candidate is redrawn when any of ``shortcut_answers(image, image_2, prompt)``
    scores correct under the task's own rule (``task_rules``). Every redraw continues the
    generator's random stream, so the same seed gives the same item.
    """

    def clear(attempt: int):
        got = draw(attempt)
        if got is None or shortcut_hits(task, got.answer, shortcut_answers(got.image, got.image_2, got.prompt)):
            return None
        return got

    return retry(clear, f"{task} sample that escapes the shortcuts", attempts=attempts)


def answer_instruction(how: str, example: str) -> str:
    """The line that ends every prompt: ``how`` the answer is written and one example."""
    return f"\nAnswer inside <answer>…</answer> {how}, e.g. <answer>{example}</answer>."


def int_list(values) -> str:
    """Integers as the gold spelling of a list, ``[2,0,1]`` (no spaces)."""
    return "[" + ",".join(str(int(v)) for v in values) + "]"


def prompt_ints(prompt: str, pattern: str, what: str) -> tuple[int, ...]:
    """The integers captured by the groups of ``pattern`` in a generated prompt.

    Shortcut answers read the item's layout back from its prompt; a prompt without it is a
    ValueError that names ``what`` was looked for.
    """
    import re

    m = re.search(pattern, prompt)
    if not m:
        raise ValueError(f"the prompt lacks {what}")
    return tuple(int(v) for v in m.groups())


def rgb_str(colour) -> str:
    """A colour as the gold spelling ``R,G,B`` (each channel rounded and clipped to 0-255)."""
    import numpy as np

    return ",".join(str(int(round(v))) for v in np.clip(colour, 0, 255))


def norm_box(x, y, box_w, box_h, w: int, h: int) -> list[float]:
    """A ``box_w`` x ``box_h`` pixel box at (x, y) of a w x h image, as [x1,y1,x2,y2] in 0-1000."""
    return [x / w * 1000, y / h * 1000, (x + box_w) / w * 1000, (y + box_h) / h * 1000]


def box_str(box) -> str:
    """A box as the gold spelling ``[x1,y1,x2,y2]`` (integers, 0-1000 normalised by the caller)."""
    return "[" + ",".join(str(int(round(v))) for v in box) + "]"


def photo_array(rng, width: int, height: int):
    """A bundled photo crop as float32 HxWx3 in 0-255, enlarged at most 2x where the photo allows."""
    import numpy as np

    from .photos import random_photo

    return np.asarray(random_photo(rng, width, height, max_upscale=2.0), dtype=np.float32)


def add_noise(arr, rng, sigma: float):
    """``arr`` plus Gaussian sensor noise of ``sigma`` grey levels, in ``arr``'s precision."""
    if sigma <= 0:
        return arr
    return arr + rng.normal(0.0, sigma, size=arr.shape).astype(arr.dtype, copy=False)


def to_pil(arr):
    """A float image (HxW grey or HxWx3) as an 8-bit RGB PIL image (rounded, clipped)."""
    import numpy as np
    from PIL import Image

    out = np.clip(np.rint(arr), 0, 255).astype(np.uint8)
    if out.ndim == 2:
        out = np.repeat(out[:, :, None], 3, axis=2)
    return Image.fromarray(out, "RGB")


def shortcut_hits(task: str, gold: str, shortcuts: dict[str, str]) -> list[str]:
    """Names of the shortcut answers that the task's own rule would score correct."""
    from ..rules import score
    from ..task_rules import rule_for_task

    rule = rule_for_task(task)
    return [name for name, ans in shortcuts.items() if score(rule, f"<answer>{ans}</answer>", gold).correct]
