"""Judge-free refusal detection for DoD: does a response conclude that the request has no valid solution?

Modules, each importing only those listed before it: ``rules`` (the conclusion patterns and their
checks), ``language`` (which languages the rules cover), ``classifier`` (the shipped sentence model and
its combination with the rules), ``detect`` (:func:`detect_refusal`: all three read together), ``text``
(which part of an output is read: the reasoning or all of it). ``tuning_gen`` writes the tuning
material the classifier is fitted on (``labelled.jsonl``, ``tuning.jsonl``; the fitted model is
``model.json.gz``). The README of the DoD task describes the criterion and the measured accuracy.
"""

from .detect import detect_refusal
from .language import COVERED
from .rules import NOT_REFUSED, REFUSED, UNCERTAIN, RefusalDecision, official_abstain
from .text import READINGS, detect_in, reasoning_part, text_to_read

__all__ = ["COVERED", "NOT_REFUSED", "READINGS", "REFUSED", "UNCERTAIN", "RefusalDecision", "detect_in",
           "detect_refusal", "official_abstain", "reasoning_part", "text_to_read"]
