"""What a CwI generator produces for one item (shared by all 30 generator modules)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GeneratedItem:
    image: Any  # PIL.Image.Image, RGB
    image_2: Any | None  # second image of two-image tasks, else None
    prompt: str  # the question, ending with the <answer> format instruction
    answer: str  # gold answer string, in the task's canonical spelling
    meta: dict = field(default_factory=dict)  # generation parameters (the constructive truth)


@dataclass(frozen=True)
class Draft:
    """An answer drawn before its images, for tasks whose shortcut answers do not look at the
    pixels: it is screened on its answer and prompt alone, and the images are made once, after."""

    answer: str
    prompt: str
    values: Any = None  # what the generator drew, to build the images from
    image = None  # no pixels yet (what helpers.draw_until_clear hands to shortcut_answers)
    image_2 = None
