"""One independent refusal round, read the way its test file checks it (tests/dod/test_refusal_independent_r*.py).

A round is a frozen JSONL file by another writer (``refused``, ``lang``, ``ambiguous``; ``image`` from round 5
on); the detector reads each whole response (the labels' reading) with the row's image when the row has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lmms_plugins.tasks.dod.refusal import COVERED, UNCERTAIN
from lmms_plugins.tasks.dod.refusal.text import detect_in
from lmms_plugins.utils.jsonl import read_jsonl

DATA = Path(__file__).parent / "data"


def covered_tag(lang: str) -> bool:
    """A code-switched tag ("en-zh") is covered when all its languages are."""
    return all(part in COVERED for part in lang.split("-"))


@dataclass
class Round:
    name: str  # "r5": tests/dod/data/refusal_independent_r5.jsonl
    every: list[dict] = field(init=False)

    def __post_init__(self) -> None:
        self.every = read_jsonl(DATA / f"refusal_independent_{self.name}.jsonl")

    @cached_property
    def rows(self) -> list[dict]:
        """The scored rows (ambiguous ones skipped)."""
        return [r for r in self.every if not r["ambiguous"]]

    @cached_property
    def decisions(self) -> dict:
        return {r["id"]: detect_in(r["response"], "all", image=r.get("image")) for r in self.rows}

    def refused(self, r: dict) -> bool:
        return bool(self.decisions[r["id"]].refused)

    def pending(self, r: dict) -> bool:
        return self.decisions[r["id"]].verdict == UNCERTAIN

    @cached_property
    def covered(self) -> list[dict]:
        return [r for r in self.rows if covered_tag(r["lang"])]

    @cached_property
    def others(self) -> list[dict]:
        return [r for r in self.rows if not covered_tag(r["lang"])]

    @cached_property
    def decided(self) -> list[dict]:
        """The covered responses the judge-free detector decides."""
        return [r for r in self.covered if not self.pending(r)]

    @cached_property
    def wrong(self) -> set[str]:
        """Ids of the decided covered responses whose answer differs from the label."""
        return {r["id"] for r in self.decided if self.refused(r) != r["refused"]}

    @cached_property
    def false_declines(self) -> int:
        return sum(1 for r in self.decided if self.refused(r) and not r["refused"])

    @cached_property
    def against_image(self) -> list[dict]:
        """Covered responses where "no image = refused" is wrong: a decline with an image, a text-only compliance."""
        return [r for r in self.covered if r["image"] == r["refused"]]

    def hybrid_agreement(self) -> float:
        """Agreement with the labels when every uncertain response goes to a judge that answers as the label."""
        return sum((r["refused"] if self.pending(r) else self.refused(r)) == r["refused"] for r in self.rows) / len(self.rows)
