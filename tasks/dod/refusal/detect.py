"""The judge-free refusal detector: the rules (``rules.py``), the classifier (``classifier.py``) and
the languages the rules cover (``language.py``), read together into one :class:`RefusalDecision`."""

from __future__ import annotations

from dataclasses import replace

from .classifier import MARGIN, combine
from .language import MAIN_SHARE, coverage
from .rules import ABSTAIN_TOKEN, NOT_REFUSED, REFUSED, UNCERTAIN, RefusalDecision, RuleResult, official_abstain, rule_refusal

__all__ = ["detect_refusal"]


def detect_refusal(text: str | None, use_classifier: bool = True, margin: float = MARGIN) -> RefusalDecision:
    """Decide whether ``text`` (reasoning and final text) concludes that no valid solution exists.

    Rules and the small classifier (``classifier.py``) are read together; ``verdict`` is
    ``uncertain`` where they disagree or the classifier is unsure, and ``refused`` is then the best
    guess (see README.md "Refusal detection" for the policy and its measured accuracy). ``margin``:
    the classifier's |z| below which it is unsure (the task setting ``uncertain_margin``).
    """
    text = text or ""
    if official_abstain(text):
        return RefusalDecision(True, ABSTAIN_TOKEN, "abstain_token", "official [ABSTAIN] before </think>", True,
                               verdict=REFUSED, score=1.0)
    r = rule_refusal(text)
    if not use_classifier:
        decision = RefusalDecision(r.refused, r.evidence, r.rule, r.why, False, r.rejected,
                                   REFUSED if r.refused else NOT_REFUSED, None)
    else:
        decision = combine(text, r, margin)
    return _with_coverage(text, r, decision)


def _with_coverage(text: str, r: RuleResult, decision: RefusalDecision) -> RefusalDecision:
    """``uncertain`` when the text is not in the languages the rules read: their "not refused" there
    would be a guess. A conclusion the rules read stands when the text is mainly in a covered language
    and nothing uncovered follows it (nothing there could take it back)."""
    cov = coverage(text, list(r.spans))
    if cov.covered:
        return replace(decision, language=cov.language)
    if decision.refused and r.refused and cov.covered_share >= MAIN_SHARE:
        end = next((b for (a, b), per in zip(r.spans, r.per_sentence) if per[0] == "fired"), len(text))
        if not cov.uncovered_after(end):
            return replace(decision, language=cov.language)
    return replace(decision, verdict=UNCERTAIN, covered=False, language=cov.language,
                   why=f"{cov.why}; {decision.why}")
