"""The judge-free refusal detector: the rules (``rules.py``), the classifier (``classifier.py``) and
the languages the rules cover (``language.py``), read together into one :class:`RefusalDecision`."""

from __future__ import annotations

from dataclasses import replace

from .classifier import MARGIN, combine, logit
from .language import MAIN_SHARE, coverage, sentence_language
from .rules import (ABSTAIN_TOKEN, IMAGE_NOT_THE_EDIT, INSTEAD, NEGATION, STAND_IN, NOT_REFUSED, REFUSED, UNCERTAIN, RefusalDecision, RuleResult, official_abstain,
                    rule_refusal)

__all__ = ["detect_refusal"]


def detect_refusal(text: str | None, use_classifier: bool = True, margin: float = MARGIN,
                   image: bool | None = None) -> RefusalDecision:
    """Decide whether ``text`` (reasoning and final text) concludes that no valid solution exists.

    Rules and the small classifier (``classifier.py``) are read together; ``verdict`` is
    ``uncertain`` where they disagree or the classifier is unsure, where the text is not in a covered
    language, and where the text and the output disagree (``image``: whether the response delivered an
    image; None when not known); ``refused`` is then the best guess (see README.md "Refusal detection"
    for the policy and its measured accuracy). ``margin``: the classifier's |z| below which it is unsure
    (the task setting ``uncertain_margin``).
    """
    text = text or ""
    if official_abstain(text):
        return RefusalDecision(True, ABSTAIN_TOKEN, "abstain_token", "official [ABSTAIN] before </think>", True,
                               verdict=REFUSED, score=1.0)
    r = rule_refusal(text, sentence_language)
    if not use_classifier:
        decision = RefusalDecision(r.refused, r.evidence, r.rule, r.why, False, r.rejected,
                                   REFUSED if r.refused else NOT_REFUSED, None)
    else:
        decision = combine(text, r, margin)
    return _with_output(text, r, _with_coverage(text, r, decision), image, margin)


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


# The rule that says the delivered image is not the request ("the closest I can do", "a relaxed version")
SUBSTITUTE_RULES = frozenset({"substitute"})
# A conclusion this sure (z: rules and classifier both sure) stands when an image follows: drawn anyway. The
# conclusions undone in ways the rules did not know scored at most 3.2 on the round-3 first run, and up to 4.6 on
# round 4's ("No other solution exists … Drawn.", 4.57): 5.0 since 2.5 ("This edit is impossible. Here is an image
# anyway." scores 5.6)
DRAWN_SURE_Z = 5.0


def _with_output(text: str, r: RuleResult, decision: RefusalDecision, image: bool | None,
                 margin: float = MARGIN) -> RefusalDecision:
    """``uncertain`` where what the text concludes and what the response did disagree, or where a "not refused"
    would rest on nothing but the absence of words the rules know (README "Abstention"; calibrated by replaying
    the first runs of rounds 3 and 4 and the fifth frozen split):

    * a conclusion the rules and the classifier are not both sure of, and an image is delivered that the
      text does not call a substitute: drawn anyway (it counts), or a conclusion undone in a way the rules
      do not know (a retraction, optimality, another sense of the word);
    * no conclusion and no image: nothing shows compliance (no edit delivered), only that the rules read no
      conclusion; a JSON verdict that a result exists is the one positive reading that stands (2.5; before,
      only a text that negated something);
    * no conclusion, an image, and a text that negates something and offers the image instead or despite it
      ("won't fit … here's the nearest arrangement", "ne flotte pas. Voici plutôt …"): a relaxed substitute
      or a drawing made anyway, after a decline in words the rules do not read (2.5).

    ``image`` None (not known) applies none of them: with nothing known about the output, the unmarked sets
    would lose half their decisions (README "Abstention", 2.5).

    And the other way: a conclusion the rules read that only the classifier doubts (inside the default band),
    in a covered text, with no image delivered, is decided "refused": what the response did agrees with the
    rules (2.5; on the replayed first runs every such response was a decline). A wider ``margin`` than the
    default (the user asks for more judging) keeps them uncertain.
    """
    if image is False and decision.verdict == UNCERTAIN and decision.covered and r.json_verdict is True \
            and not r.refused and margin <= MARGIN and not decision.official_abstain:
        # a JSON verdict field that no result exists ("feasible": false), and no image: the output agrees with it
        return replace(decision, refused=True, verdict=REFUSED, rule="json_verdict", evidence=decision.evidence or text.strip()[:300],
                       why=f"a JSON verdict that no result exists and no image delivered: the output agrees; {decision.why}")
    if image is False and decision.verdict == UNCERTAIN and decision.covered and r.refused and decision.refused \
            and margin <= MARGIN and not decision.official_abstain:
        return replace(decision, verdict=REFUSED,
                       why=f"a conclusion the rules read and no image delivered: the output agrees (the classifier's doubt set aside); {decision.why}")
    if image and decision.verdict == UNCERTAIN and decision.covered and r.refused and decision.refused \
            and margin <= MARGIN and not decision.official_abstain and IMAGE_NOT_THE_EDIT.search(text):
        return replace(decision, verdict=REFUSED,
                       why=f"a conclusion the rules read, and the text says the image is not the requested edit: the output agrees (the classifier's doubt set aside); {decision.why}")
    if image is None or decision.official_abstain or decision.verdict == UNCERTAIN:
        return decision
    if decision.refused and image:
        if r.json_verdict is True or any(st == "fired" and rule in SUBSTITUTE_RULES for st, rule, *_ in r.per_sentence):
            return decision
        if r.refused and IMAGE_NOT_THE_EDIT.search(text):  # the input returned, only the possible part, or a stand-in
            return replace(decision, verdict=REFUSED,
                           why=f"a conclusion, and the text says the image is not the requested edit; {decision.why}")
        if decision.score is None or logit(decision.score) >= DRAWN_SURE_Z:
            return decision
        why = "a conclusion, yet an image is delivered and not called a substitute (drawn anyway, or the conclusion undone)"
    elif not decision.refused and not image:
        if r.json_verdict is False:
            return decision
        why = "no conclusion and no image: nothing shows compliance (a decline in words the rules do not read?)"
    elif not decision.refused and image:
        if not (NEGATION.search(text) and INSTEAD.search(text)):
            return decision
        stand_in = STAND_IN.search(text)
        if stand_in and NEGATION.search(text, 0, stand_in.start()):
            # a negation, then something named as put in the result's place ("… doesn't bend that way. Stattdessen
            # habe ich …"): a relaxed image instead of the impossible one
            return replace(decision, refused=True, verdict=REFUSED, rule="stand_in", evidence=stand_in.group(0),
                           why=f"a negation, then an image named as a stand-in for the requested result; {decision.why}")
        why = "an image, yet the text negates something and offers the image instead or despite it (a substitute after a decline?)"
    else:
        return decision
    return replace(decision, verdict=UNCERTAIN, why=f"{why}; {decision.why}")
