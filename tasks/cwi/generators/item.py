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
