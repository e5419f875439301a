"""Which text of a DoD output decides a refusal: the reasoning (official) or the whole output.

The official judge reads only the model's reasoning (``thinking_text``), "not a final answer", and
its evidence must be a substring of it. This module says what the reasoning of an output is:

* A **reasoning block** is the text inside ``<think>`` … ``</think>`` (also ``<thinking>``, any
  case: the tags the rules' sentence splitter and the ``[ABSTAIN]`` rule know).
* Several blocks: all of them, in order, joined by a line break (a line break ends a sentence, so
  the detector's evidence is always a substring of the output). A repeated opening tag inside a
  block is dropped, the block goes on; a closing tag outside any block is answer text, except:
* a closing tag before any opening tag closes a block that began at the start of the output (the
  chat template wrote ``<think>`` into the prompt; lmms-eval's own stripper reads it so too).
* An opening tag that is never closed (the output was cut off while reasoning) opens a block that
  runs to the end of the output.
* An output **without any think tag** has no separable reasoning: a model without think tags
  writes its reasoning in plain text, so the whole output is read as the reasoning.
* An output with tags but nothing inside them (``<think></think>answer``) has an empty reasoning:
  no conclusion (the judge is not called).

The ``[ABSTAIN]`` token keeps its own position rule (rules.official_abstain), decided on the
whole output in both readings.

The task setting ``refusal_text`` (tasks/dod/settings.py) = ``reasoning`` (default, the official
protocol) or ``all`` (the reasoning and the final answer: the package's earlier reading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .classifier import MARGIN
from .detect import detect_refusal
from .rules import official_abstain

READINGS = ("reasoning", "all")
_TAG = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)


@dataclass(frozen=True)
class ReasoningPart:
    text: str  # the reasoning (blocks joined by "\n"; the whole output when it has no think tag)
    tagged: bool  # the output has at least one think tag
    blocks: int  # reasoning blocks found (0 when untagged)
    unclosed: bool  # the last block was never closed (output cut off while reasoning)
    answer: str = ""  # the text outside the reasoning blocks, without their tags (what only ``all`` adds)


def reasoning_part(text: str | None) -> ReasoningPart:
    """The reasoning of an output, by the rules in the module docstring (linear in the text)."""
    text = text or ""
    first = _TAG.search(text)
    if first is None:
        return ReasoningPart(text, False, 0, False)
    # tags are streamed and empty pieces not kept: memory stays bounded by the text ("<think>" * k)
    pieces: list[str] = []
    outside: list[str] = []
    pos, blocks = 0, 0
    start = 0 if first.group(1) else None  # a closing tag first: the block began in the prompt
    for m in _TAG.finditer(text, first.start()):
        closing = bool(m.group(1))
        if start is not None:  # inside a block: a closing tag ends it, an opening one is dropped
            if m.start() > start:
                pieces.append(text[start:m.start()])
            blocks += closing
            start = None if closing else m.end()
        elif not closing:
            if m.start() > pos:
                outside.append(text[pos:m.start()])
            start = m.end()
        else:  # a closing tag outside any block stays answer text
            continue
        pos = m.end()
    unclosed = start is not None
    if unclosed:
        pieces.append(text[start:])
        blocks += 1
    else:
        outside.append(text[pos:])
    return ReasoningPart("\n".join(pieces), True, blocks, unclosed, "".join(outside))


def text_to_read(text: str | None, reading: str) -> str:
    """What the refusal detector and the refusal judge read of ``text`` under ``reading``."""
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    return (text or "") if reading == "all" else reasoning_part(text).text


def detect_in(text: str | None, reading: str, margin: float = MARGIN, image: bool | None = None):
    """detect.detect_refusal on the text of ``reading``; the official ``[ABSTAIN]`` token is
    recognised by its position in the whole output, whatever the reading. ``image``: whether the
    response delivered an image (None: not known)."""
    if reading == "all" or official_abstain(text):
        return detect_refusal(text, margin=margin, image=image)
    return detect_refusal(text_to_read(text, reading), margin=margin, image=image)


def conclusion_only_after_think(text: str | None, reading: str, decision=None) -> bool:
    """The detector finds a conclusion when it reads the whole output but none in the reasoning part
    alone: a refusal that counts under ``all`` and not under ``reasoning``. ``decision``: the
    detector's answer already computed under ``reading`` (saves one pass). False for an output with
    no text outside its reasoning and for the official ``[ABSTAIN]`` (counted in both readings)."""
    part = reasoning_part(text)
    if not part.answer.strip() or official_abstain(text):
        return False
    known = {reading: decision} if decision is not None else {}
    whole = known.get("all") or detect_refusal(text)
    if not whole.refused:
        return False
    return not (known.get("reasoning") or detect_refusal(part.text)).refused
