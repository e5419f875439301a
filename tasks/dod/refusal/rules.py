"""Judge-free refusal detection: does a response conclude that the request has no valid solution?

The criterion is the official DoD one (README.md): an *explicit conclusion* that the requested edit
cannot be done / no valid result exists counts, in any language and about any kind of result (a
path, an arrangement, a pose, an ordering, a version of the image), even if the model then draws
anyway. A hypothetical, a hedge ("it's possible this has no solution, but ..."), a failed attempt
or a narrower property ("no path that avoids X, but ..."), restating the rules, a negation
("not impossible"), a retraction, an idiom ("impossible to misread"), a capability statement
("impossible for me to generate images") and refusals for other reasons (safety) do not. The
official token counts only in its official position: exactly one ``[ABSTAIN]``, immediately
before ``</think>``.

This module holds the rules; ``classifier.py`` the small trained model, ``language.py`` which languages
the rules cover; their combination (with the third answer ``uncertain``) is ``detect.detect_refusal``.

How the rules read a text: only a bounded window is analysed (:func:`analysed_spans`: the head,
the end of the reasoning and the tail; a conclusion lives at the end of the reasoning or in the
answer), so the cost is linear in the input and bounded. The window is cut into sentences (offsets
kept, so evidence is an exact substring; JSON string values become sentences of their own; a
"sentence" longer than ``MAX_SENTENCE`` characters is cut into pieces, which bounds the work per
match). Each sentence is searched with conclusion patterns; a match counts only if its clause
carries no hedge / conditional / reporting cue, no negation right before it, it is not a question
or inside quotes, it is not about one cell or a narrower property, not an idiom or a capability or
safety statement, and the next sentences do not retract it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["RefusalDecision", "official_abstain", "rule_refusal", "sentences", "analysed_spans",
           "REFUSED", "NOT_REFUSED", "UNCERTAIN"]

REFUSED, NOT_REFUSED, UNCERTAIN = "refused", "not_refused", "uncertain"

# Analysed window: the first HEAD characters, the REASONING_TAIL characters before the last
# </think> (plus ANSWER_HEAD after it) and the last TAIL characters. Longer outputs are mostly
# repetition; a conclusion sits at the end of the reasoning or in the answer.
HEAD, REASONING_TAIL, ANSWER_HEAD, TAIL = 8_000, 24_000, 8_000, 24_000
MAX_SENTENCE = 600  # a longer "sentence" is cut into pieces of at most this many characters
WORD_LETTERS = re.compile(r"[^\W\d_]{2}")  # a sentence without two letters in a row concludes nothing


@dataclass(frozen=True)
class RefusalDecision:
    refused: bool  # best answer: the response concludes that the request has no valid solution
    evidence: str  # exact substring of the text that carries the conclusion ("" if none)
    rule: str  # what decided ("abstain_token", "no_solution", "classifier", ...; "" if none)
    why: str  # one line for humans
    official_abstain: bool = False  # exactly one [ABSTAIN], right before </think>
    rejected: tuple[tuple[str, str], ...] = ()  # (span, why it did not count), for auditing
    verdict: str = ""  # "refused" | "not_refused" | "uncertain" (rules and classifier disagree or are unsure)
    score: float | None = None  # the classifier's probability of a conclusion (None: not used)
    covered: bool = True  # the text is in the languages the rules read (language.COVERED)
    language: str = ""  # the main language of its prose ("" when it has none)
    sentence_p: float | None = None  # the classifier's highest sentence probability (None: not used)


# --- the official token ----------------------------------------------------------------------------

ABSTAIN_TOKEN = "[ABSTAIN]"
_CLOSE_THINK = re.compile(r"</think(?:ing)?>", re.I)


def official_abstain(text: str | None) -> bool:
    """Exactly one ``[ABSTAIN]`` in the text, immediately before ``</think>`` (whitespace allowed).

    A reasoning block cut before its ``</think>`` (an opening ``<think>`` and no closing tag) may
    end with the token instead. ``[ABSTAIN]`` after ``</think>``, or written twice, is not the token.
    """
    text = text or ""
    i = text.find(ABSTAIN_TOKEN)
    if i < 0 or text.find(ABSTAIN_TOKEN, i + 1) >= 0:
        return False
    rest = text[i + len(ABSTAIN_TOKEN):].lstrip()
    if _CLOSE_THINK.match(rest):
        return True
    return rest == "" and "<think" in text[:i].lower() and not _CLOSE_THINK.search(text)


# --- the analysed window and its sentences -----------------------------------------------------------


def analysed_spans(text: str) -> list[tuple[int, int]]:
    """Disjoint (start, end) ranges of ``text`` that are analysed (all of it when it is short)."""
    n = len(text)
    if n <= HEAD + REASONING_TAIL + ANSWER_HEAD + TAIL:
        return [(0, n)]
    ranges = [(0, HEAD), (n - TAIL, n)]
    k = text.rfind("</think>")
    if k >= 0:
        ranges.append((max(0, k - REASONING_TAIL), min(n, k + ANSWER_HEAD)))
    ranges.sort()
    merged: list[list[int]] = []
    for s, e in ranges:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


# A sentence ends at . ! ? (followed by space/quote/end), CJK full stops, an ellipsis, a line break,
# a <think>/</think> tag. Coordinates such as (3,4) and decimals do not end sentences.
_BOUNDARY = re.compile(r"(?:\.\.\.|…|[.!?](?=[\s\"'“”)\]}]|$)|[。！？]|\n+|\\n|</?think(?:ing)?>)", re.I)
# In JSON, a string value is a sentence of its own: cut at the quotes around keys and values.
_JSON_BOUNDARY = re.compile(r"(?:\.\.\.|…|[.!?](?=[\s\"'“”)\]}]|$)|[。！？]|\n+|\\n|</?think(?:ing)?>|\"\s*[:,}\]]\s*\"?|[{\[,:]\s*\")", re.I)
_LOOKS_JSON = re.compile(r"[{\[]\s*\"[^\"\n]{1,40}\"\s*:")


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text[start:end]``, whitespace trimmed, tags excluded."""
    return list(_iter_sentences(text, start, len(text) if end is None else end))


def _iter_sentences(text: str, start: int, end: int):
    boundary = _JSON_BOUNDARY if _LOOKS_JSON.search(text, start, min(end, start + 20_000)) else _BOUNDARY
    s0 = start
    for m in boundary.finditer(text, start, end):
        g = m.group(0)
        keep = g[:1] in ".!?…。！？"  # the punctuation belongs to the sentence; tags and quotes do not
        yield from _trimmed(text, s0, m.end() if keep else m.start())
        s0 = m.end()
    yield from _trimmed(text, s0, end)


def _trimmed(text: str, s: int, e: int):
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    while e - s > MAX_SENTENCE:  # cut at a space near the limit: bounded work per sentence
        cut = text.rfind(" ", s + MAX_SENTENCE // 2, s + MAX_SENTENCE)
        cut = cut if cut > s else s + MAX_SENTENCE
        yield s, cut
        s = cut
        while s < e and text[s].isspace():
            s += 1
    if e > s:
        yield s, e


def window_sentences(text: str) -> list[tuple[int, int]]:
    """The sentences of the analysed window that contain words (the others cannot conclude anything)."""
    out: list[tuple[int, int]] = []
    for s, e in analysed_spans(text):
        out.extend(x for x in _iter_sentences(text, s, e) if WORD_LETTERS.search(text, x[0], x[1]))
    return out


# --- conclusion patterns (English) ---------------------------------------------------------------------

_NOUNS = (r"(?:solutions?|paths?|routes?|edits?|outputs?|answers?|options?|sequences?|passages?|connections?|images?|ways?|"
          r"arrangements?|placements?|poses?|postures?|orderings?|orders?|positions?|targets?|versions?|configurations?|"
          r"outcomes?|results?|layouts?|renderings?|renditions?|edits?|moves?|states?|pictures?|depictions?|combinations?|"
          r"interpretations?|readings?|modifications?|changes?|transformations?|scenes?|frames?|drawings?|possibilit(?:y|ies)|means)")
# the result as a whole (not the maze's items): "has no honest rendering" with any adjective
_RESULT_NOUNS = r"(?:solutions?|answers?|results?|outcomes?|versions?|renderings?|renditions?|depictions?|images?|pictures?|drawings?|edits?)"
_QUAL = (r"(?:(?:valid|legal|possible|feasible|correct|acceptable|continuous|single|such|viable|workable|proper|consistent|"
         r"allowed|permissible|coherent|realistic|admissible|satisfying|compliant|faithful|legitimate|sensible|other|red|complete|"
         r"physically|logically|actual|real|way\s+of|kind\s+of|sort\s+of)\s+){0,3}")
_ADJ = (r"(?:impossible|infeasible|unfeasible|unsolvable|insoluble|unsatisfiable|unachievable|unreachable|unattainable|"
        r"unreali[sz]able|undoable|unworkable|self-contradictory|self-defeating|paradoxical|contradictory|incompatible|inconsistent|"
        r"mutually\s+(?:exclusive|incompatible|contradictory)|"
        r"not\s+(?:possible|feasible|solvable|achievable|satisfiable|reachable|attainable|doable|realizable|realisable|"
        r"accessible|connected|workable)|(?:isn't|aren't|is\s+not|are\s+not)\s+(?:\w+ly\s+)?(?:possible|feasible|solvable|achievable|doable|satisfiable|reachable|realizable|realisable|attainable))")
_PARTICIPLES = (r"(?:solved|done|completed|fulfil+ed|satisfied|accomplished|achieved|carried\s+out|performed|drawn|made|"
                r"followed|met|reached|connected|found|depicted|shown|rendered|created|produced|generated|reali[sz]ed|honou?red|"
                r"applied|executed|implemented|fixed|edited|arranged|placed|reconciled|granted|obeyed|respected|fulfilled)")
_TASK_VERBS = (r"(?:reach|get|connect|join|link|satisfy|complete|make|do|draw|solve|fulfil+|achieve|accomplish|show|depict|"
               r"render|produce|create|generate|perform|carry\s+out|follow|meet|travel|go|edit|comply|honou?r|find|apply|"
               r"execute|arrange|place|pose|position|order|put|realis|realiz|reconcile|fit|honor|obey|respect|implement|"
               r"change|turn|transform|modify|move|have|keep|get)")

# the act of producing the result, and the result as a whole (not a part of it)
_DECLINE_VERB = (r"(?:draw|generat|produc|render|creat|mak|edit|modif|perform|output|return|show|hand|depict|apply|carry\s+out|do|"
                 r"provide|deliver|give|paint|illustrat|fulfil|complet|honou?r|attempt|swap|proceed\s+with|comply\s+with|go\s+(?:ahead\s+)?with)\w*")
_RESULT_OBJECT = (r"(?:(?:an?|the|this|that|any|such\s+an?|your|my|one|the\s+requested|the\s+asked(?:-for)?)\s+(?:(?:\w+|\w+-\w+)\s+){0,2}?"
                  r"(?:image|picture|edit|version|photo|change|swap|scene|request|rendering|output|drawing|result|outcome|modification|edited\s+image|"
                  r"transformation|instruction|task|one|frame|path|route|solution|arrangement|pose)s?\b)")
_REFERENT_VERB = (r"(?:close|open|swap|move|reposition|lift|raise|lower|turn|rotate|fold|unfold|exchange|replace|remove|recolou?r|paint|"
                  r"stack|place|put|pose|adjust|change|edit|modify|shift|flip|hang|light|extinguish|fill|empty|bend|straighten|melt|freeze|"
                  r"break|fix|trade|switch|edit|draw|render|depict|retouch)")

_EN_PATTERNS: list[tuple[str, re.Pattern, str]] = [
    # "there is no valid path", "there isn't a valid arrangement", "there exist zero valid orderings"
    ("no_solution", re.compile(
        rf"\bthere(?:'s|\s+is|\s+are|\s+exists?|\s+remains?|\s+will\s+be|\s+can\s+be)\s+(?:\w+ly\s+)?(?:no|zero|not\s+(?:a|any|one|a\s+single)|n't\s+(?:a|any|one|a\s+single))\s+{_QUAL}{_NOUNS}\b"
        rf"|\bthere\s+(?:isn't|aren't|is\s+not|are\s+not|exists?\s+no|exist\s+no)\s+(?:a\s+|any\s+|one\s+|a\s+single\s+)?(?:such\s+)?{_QUAL}{_NOUNS}\b",
        re.I), "noun"),
    # "no path exists", "zero valid orderings remain", "no arrangement puts every chair at a place"
    ("no_solution", re.compile(rf"(?:^[*_]*|\b(?:so|thus|hence|therefore|and|but|then|since|because|as|that|conclusion|answer|verdict|result|short)\s+|[,;:—–(]\s*[*_]*)(?:no|zero|not\s+(?:a\s+single|one))\s+{_QUAL}{_NOUNS}\b", re.I), "noun_lead"),
    ("no_solution", re.compile(rf"\b(?:has|have|had|with|found|find|admits?|yields?|leaves?|allows?|gives?|offers?)\s+(?:no|zero)\s+(?:{_QUAL}{_NOUNS}|\w+\s+{_RESULT_NOUNS})\b", re.I), "noun"),
    ("no_solution", re.compile(rf"\b(?:(?:this|that|the|your)\s+(?:request|task|edit|maze|puzzle|instruction|problem)|this|it|that)\s+(?:doesn't|does\s+not)\s+(?:really\s+)?have\s+(?:a|any)\s+(?:valid|possible|feasible|correct|workable|consistent|honest|legitimate|sensible|realistic|single)\s+{_NOUNS}\b", re.I), "noun"),
    ("no_solution", re.compile(rf"\bno\s+{_QUAL}{_NOUNS}\s+(?:exists?|is\s+possible|can\s+exist|remains?|works?)\b", re.I), "noun"),
    ("no_solution", re.compile(rf"\b(?:{_NOUNS}|one)\b[^.,;:!?]{{0,40}}?\b(?:does\s+not|doesn't|do\s+not|don't|cannot|can't|can\s+not|could\s+not|couldn't)\s+(?:possibly\s+)?exist\b(?!\s+yet\b)", re.I), "plain"),
    ("no_way", re.compile(rf"\bno\s+(?:(?:possible|legal|valid|other|feasible|conceivable)\s+)?(?:way|means)\s+(?:to|of|for\s+(?:it|this|the\s+\w+)\s+to)\s+(?:\w+\s+){{0,2}}?(?:{_TASK_VERBS}|be\s+{_PARTICIPLES})", re.I), "plain"),
    ("no_way", re.compile(rf"\bno\s+(?:valid\s+|possible\s+|legal\s+)?way\s+(?:for\s+(?:it|this|the\s+\w+)\s+)?to\s+be\s+{_PARTICIPLES}", re.I), "plain"),
    # "the request is impossible", "Unsolvable.", "these constraints are mutually incompatible"
    ("impossible", re.compile(rf"\b{_ADJ}\b", re.I), "adjective"),
    ("impossible", re.compile(r"\b(?:is|are)\s+out\s+of\s+the\s+question\b|\b(?:is|are)\s+(?:simply\s+|just\s+|clearly\s+)?(?:out|off\s+the\s+table|ruled\s+out)\s*(?:[.;!]|$)", re.I), "plain"),
    ("impossible", re.compile(r"\b(?:cannot|can't|can\s+not|could\s+never|can\s+never|will\s+never|won't\s+ever)\s+(?:possibly\s+|actually\s+|really\s+)?happen\b|\bthe\s+part\s+(?:that\s+)?(?:i|we)\s+(?:can't|cannot|can\s+not|couldn't|won't)\s+(?:show|draw|do|render|depict|make)\b", re.I), "plain"),
    # "the edit cannot be applied", "can't be carried out", "cannot possibly be done"
    ("cannot_be_done", re.compile(rf"\b(?:cannot|can't|can\s+not|could\s+not|couldn't|can\s+never|could\s+never|won't|will\s+not|will\s+never)\s+(?:possibly\s+|ever\s+|all\s+|both\s+|actually\s+|really\s+)?be\s+(?:\w+ly\s+)?{_PARTICIPLES}\b", re.I), "participle"),
    ("cannot_be_done", re.compile(r"\b(?:is|are)\s+(?:not|never)\s+(?:able\s+to\s+be|capable\s+of\s+being)\s+\w+", re.I), "participle"),
    # "cannot both be open and shut", "can't simultaneously be ...", "exclude each other"
    ("contradiction", re.compile(r"\b(?:cannot|can't|can\s+not|could\s+not|couldn't)\s+(?:simultaneously|both|at\s+the\s+same\s+time|also)\b", re.I), "contradiction"),
    ("contradiction", re.compile(r"\b(?:cannot|can't|can\s+not|could\s+not|couldn't|never)\s+(?:possibly\s+)?(?:coexist|co-exist|be\s+reconciled|hold\s+(?:at\s+once|simultaneously|together)|both\s+(?:hold|be\s+true|be\s+satisfied|be\s+met))\b", re.I), "contradiction"),
    ("contradiction", re.compile(r"\b(?:contradicts?|conflicts?|clash(?:es)?|excludes?|rules?\s+out)\s+(?:itself|each\s+other|one\s+another)\b|\b(?:contradict|conflict|clash)\s+with\s+(?:each\s+other|one\s+another)\b|\b(?:rule|cancel)s?\s+(?:each\s+other|one\s+another)\s+out\b|\b(?:requirements|constraints|conditions|instructions|demands)\s+(?:directly\s+)?(?:conflict|contradict|clash)\b|\bcontradiction\s+in\s+terms\b|\bthere(?:'s|\s+is)\s+(?:an?\s+)?(?:clear\s+|direct\s+|basic\s+|fundamental\s+|logical\s+|inherent\s+|built-in\s+|real\s+)?(?:contradiction|conflict|paradox)\s+(?:in|between|within|among)\s+(?:the\s+|these\s+|this\s+|your\s+)?(?:two\s+|three\s+)?(?:request|instructions?|constraints?|requirements?|conditions?|task|prompt|demands?|rules?)\b|\b(?:is|forms?|makes?)\s+(?:a\s+)?(?:logical\s+)?(?:contradiction|paradox|cycle)\b", re.I), "contradiction"),
    # "the end is walled off", "the goal is boxed in", "start and goal aren't connected"
    ("disconnected", re.compile(
        r"(?:\b(?:are|is|remains?|lies?|sits?|stays?|gets?)|'s)\s+(?:completely\s+|fully\s+|entirely\s+|totally\s+)?(?:disconnected|separated|isolated|cut\s+off|walled\s+off|walled\s+in|sealed\s+off|sealed|boxed\s+in|enclosed|closed\s+off|trapped|fenced\s+off|blocked\s+off|in\s+(?:different|separate|disconnected)\s+(?:regions|components|parts|areas|pockets))\b"
        r"|\b(?:aren't|isn't|are\s+not|is\s+not|never)\s+(?:\w+\s+)?(?:connected|linked|joined)\b",
        re.I), "endpoint"),
    ("disconnected", re.compile(r"\b(?:all|every|each)\s+(?:possible\s+|single\s+|candidate\s+)?(?:routes?|paths?|ways?|corridors?|directions?|options?|branch(?:es)?|attempts?|alternatives?|variations?|possibilit(?:y|ies))\b[^.;:!?]{0,60}?\b(?:blocked|dead\s+ends?|fail(?:s|ed)?|sealed|runs?\s+into|hits?|requires?\s+(?:an?\s+)?(?:illegal|forbidden|invalid)|leads?\s+nowhere)\b", re.I), "all_fail"),
    ("disconnected", re.compile(r"\b(?:no|none\s+of\s+the)\s+(?:\w+\s+){0,2}(?:routes?|paths?|corridors?|branch(?:es)?|options?|alternatives?|variations?|attempts?)\b[^.;:!?]{0,30}?\b(?:works?|succeeds?|reach(?:es)?|leads?\s+to\s+(?:the\s+)?(?:goal|end|exit|red|finish|target))\b", re.I), "noun"),
    # "the start cannot reach the end", "the green tile can never get to G"
    ("cannot_reach", re.compile(r"\b(?:cannot|can't|can\s+not|can\s+never|could\s+never|is\s+unable\s+to|never)\s+(?:ever\s+)?(?:reach|get\s+to|connect\s+to|access|arrive\s+at)\b", re.I), "reach"),
    # "I don't see any way to make this work", "we can't find a valid arrangement"
    ("no_solution", re.compile(rf"\b(?:i|we)\s+(?:don't|do\s+not|can't|cannot|couldn't|could\s+not)\s+(?:see|find|think\s+of|come\s+up\s+with|identify)\s+(?:any|a|one)\s+{_QUAL}{_NOUNS}\b", re.I), "found_none"),
    # "I don't think a correct image is possible", "I don't see how this can be done"
    ("no_solution", re.compile(r"\b(?:i|we)\s+(?:don't|do\s+not)\s+(?:think|believe|see\s+how)\s+(?:that\s+)?(?:a|an|any|the|this|it|there|such)\b[^.;:]{0,60}?\b(?:is|are|would\s+be|can\s+be|could\s+be|exists?)\s+(?:possible|feasible|achievable|doable|solvable|done|satisfied|made|drawn)\b", re.I), "belief"),
    # "I don't think any valid image satisfies this", "we don't believe there is a single valid ordering":
    # a negated belief about existence states that none exists (as "I don't think it is possible" above)
    ("no_solution", re.compile(rf"\b(?:i|we)\s+(?:don't|do\s+not)\s+(?:think|believe)\s+(?:that\s+)?(?:there(?:'s|\s+is|\s+are|\s+exists?)\s+)?(?:any|a\s+single|one)\s+{_QUAL}(?:\w+\s+)?{_NOUNS}\b"
                               r"(?=[^.;:!?,]{0,20}(?:[.!;]|$)|[^.;:!?]{0,60}?\b(?:exists?|is\s+possible|works?|satisf(?:y|ies)|meets?|fulfil+s|complies|fits|respects|is\s+valid|counts\s+as|can\s+(?:exist|work|satisfy|meet|be\s+(?:drawn|made|found|produced))|would\s+(?:work|satisfy|meet|be\s+valid))\b)", re.I), "noun"),
    # "there is nothing valid to draw"
    ("no_solution", re.compile(r"\bnothing\s+(?:valid|legal|correct|acceptable|feasible|consistent|coherent|legitimate|satisfying)\b", re.I), "plain"),
    # "nothing I could draw would be a correct answer"
    ("no_solution", re.compile(r"\bnothing\b[^.;:!?]{0,50}?\b(?:would|could|can|will)\s+(?:ever\s+)?(?:be|count\s+as|satisfy|meet)\s+(?:a\s+|the\s+)?(?:correct|valid|right|acceptable|legitimate|all)\b", re.I), "plain"),
    # "I cannot draw the requested path because ..." (needs a stated reason, not a capability)
    ("cannot_do", re.compile(
        r"\b(?:i|we)\s*(?:cannot|can't|can\s+not|am\s+unable\s+to|'m\s+unable\s+to|am\s+not\s+able\s+to|'m\s+not\s+able\s+to|won't\s+be\s+able\s+to|will\s+not\s+be\s+able\s+to|could\s+not|couldn't|have\s+no\s+way\s+to)\s+(?:possibly\s+)?(?:complete|fulfil+|perform|do|draw|make|produce|create|generate|satisfy|carry\s+out|accomplish|solve|edit|apply|render|follow|comply\s+with|honou?r|find|reconcile)\b",
        re.I), "first_person"),
    # "Verdict: infeasible", "Feasibility: NO", "Feasible? No.", "Solvable: false"
    ("verdict", re.compile(r"^[#*>\s\-]*(?:final\s+|short\s+|my\s+)?(?:verdict|conclusion|answer|result|decision|assessment|status|outcome|feasib(?:le|ility)|solvab(?:le|ility)|possible|possibility|doable|achievable|reachable|solution)\s*\??\s*\**\s*(?::|=|-|–|—|\?)\s*\**\s*(?:no\b|false\b|none\b|infeasible|impossible|unsolvable|unreachable|not\s+(?:feasible|possible|solvable|doable|reachable)|declined?\b|abstain|refuse)", re.I), "verdict"),
    ("verdict", re.compile(rf"^[#*>\s\-]*(?:so|thus|therefore|hence|verdict|overall|in\s+short|bottom\s+line)?\s*[:,]?\s*\**(?:{_ADJ}|no\s+{_QUAL}(?:solution|path|route|way|answer)s?|no\s+go|cannot\s+be\s+done|can't\s+be\s+done|not\s+doable)\**\s*(?:[.!:—–\-(]|$)", re.I), "verdict"),
    ("verdict", re.compile(rf"^[#*>\s\-]*{_ADJ}\s+(?:goal|end|target|maze|request|task|edit|puzzle|instruction|demand|exit|finish)\b", re.I), "verdict"),
    # The decision not to produce the requested result, stated as an act: "I won't draw it", "I'm not
    # producing this edit", "I have to decline", "I'm leaving the image unedited", "No image from me".
    # Its object is the result as a whole (it, this, the image / edit / request, both), never a part of
    # it ("I won't change the lighting" is a detail of an edit); capability and safety are checked after.
    ("declines", re.compile(
        rf"\b(?:i|we)(?:'m|'ll|'d|'ve|\s+am|\s+will|\s+shall|\s+have|\s+must|\s+would)?\s*(?:(?:just|simply|therefore|then|now)\s+)?"
        rf"(?:won't|will\s+not|shan't|am\s+not\s+going\s+to|'m\s+not\s+going\s+to|not\s+going\s+to|'m\s+not|am\s+not|not|don't|do\s+not|haven't|have\s+not|hasn't|"
        rf"'d\s+rather\s+not|rather\s+not|can't|cannot|can\s+not|am\s+unable\s+to|'m\s+unable\s+to|unable\s+to|am\s+not\s+able\s+to|'m\s+not\s+able\s+to|couldn't|could\s+not|refrain\s+from|'ll\s+refrain\s+from|will\s+refrain\s+from)\s+"
        rf"(?:(?:yet|actually|really|even|be|going\s+to|able\s+to|go\s+ahead\s+and)\s+)*"
        rf"{_DECLINE_VERB}\s+(?:(?:you|them|anyone)\s+)?(?:{_RESULT_OBJECT}|(?:it|this|that|them|both|anything|either|one)\b(?!\s+(?:of|part|side|corner|detail)\b))"
        rf"|\b(?:i|we)\s+(?:haven't|have\s+not)\s+(?:drawn|edited|generated|rendered|made|produced|changed)\s+(?:anything\s+)?(?:yet|so\s+far)\b"
        rf"|^\W*nothing\s+(?:drawn|generated|edited|rendered|produced)\b"
        rf"|\b(?:i|we)(?:'m|'ll|'ve|\s+am|\s+will|\s+must|\s+have\s+to|'ll\s+have\s+to|\s+need\s+to|'ve\s+got\s+to|\s+have\s+got\s+to)?\s+(?:(?:respectfully|politely|therefore|have\s+to|must|going\s+to|just|simply)\s+)*(?:declin(?:e|ing)|pass(?:ing)?\s+on|sit(?:ting)?\s+(?:this|it)\s+(?:one\s+)?out|skip(?:ping)?\s+(?:this|it|the\s+edit|the\s+request))\b(?!\s+to\b)"
        rf"|\b(?:i|we)(?:'m|'ll|\s+am|\s+will)?\s+(?:(?:just|simply|therefore|then)\s+)?(?:leav(?:e|ing)|hand(?:ing)?\s+back|return(?:ing)?|keep(?:ing)?|send(?:ing)?\s+back)\s+(?:(?:the|this|your)\s+(?:\w+\s+)?(?:image|picture|photo|original|scene|input)|it)\s+(?:as\s+(?:it\s+)?is|as\s+it\s+was|unedited|untouched|unchanged|unmodified|alone|without\s+(?:any\s+)?(?:edits?|changes?|modifications?))\b"
        rf"|\b(?:i|we)(?:'m|\s+am)\s+leaving\s+it\s*(?:there\s*|at\s+that\s*)?(?:[.!;]|$)"
        rf"|\b(?:i|we)(?:'ll|\s+will|'m|\s+am)\s+(?:just\s+|simply\s+)?leav(?:e|ing)\s+(?:the|this|that|your|him|her|them)\s+(?!(?:rest|background|other|lighting|remaining|surroundings|floor|wall|sky)\b)(?:\w+\s+){{0,2}}?(?:as\s+(?:he|she|it|they)\s+(?:is|are|was|were)|unchanged|untouched|unedited|alone)\s*[.!]?\s*$"
        rf"|(?:^|[.;:—–]\s*)\W*(?:not|no)\s+(?:drawing|generating|editing|producing|rendering|making)\s+(?:this|that|it|one|anything|an?\s+(?:image|picture|edit))\b"
        rf"|\b(?:no|zero)\s+(?:image|edit|picture|drawing|output|rendering)s?\s+(?:from\s+me|this\s+time|for\s+(?:this|that|now)|on\s+this|here)\b"
        rf"|\b(?:returning|return|giving|producing|generating|making)\s+no\s+(?:edit|image|picture|output|drawing)\b"
        rf"|^\W*declined?\W*(?:[:.—–-]|$)"
        rf"|\b(?:isn't|is\s+not|aren't|are\s+not)\s+(?:one|something|anything)\s+(?:that\s+)?(?:i|we)\s+(?:can|could|am\s+able\s+to)\s+(?:\w+\s+)?{_DECLINE_VERB}"
        rf"|^\W*(?:(?:i'm|i\s+am|we're)\s+)?leaving\s+(?:it|this(?:\s+one)?|that(?:\s+one)?|the\s+\w+)\s+(?:undrawn|unedited|untouched|unchanged|as\s+(?:it\s+)?is)\b"
        rf"|\b(?:i'll|i\s+will|we'll|i'm\s+going\s+to)\s+(?:just\s+)?stop\s+(?:here|there)\s+(?:rather\s+than|instead\s+of)\s+{_DECLINE_VERB}", re.I), "decline_act"),
    # What is given is not the requested result: "this does not satisfy the request", "not what you asked",
    # "the closest I can do", "a relaxed version", "I dropped the ... condition".
    ("substitute", re.compile(
        r"\b(?:does(?:n't|\s+not)|do(?:n't|\s+not)|did(?:n't|\s+not)|won't|will\s+not|can't|cannot|isn't|is\s+not|neither\s+(?:one\s+)?)\s*(?:\w+\s+)?(?:satisf(?:y|ies)|meets?|match(?:es)?|follows?|fulfil+s?|compl(?:y|ies)\s+with)\s+(?:(?:your|the|my|this)\s+)?(?:original\s+|actual\s+|exact\s+)?(?:request|instruction|brief|prompt|constraints|requirements|conditions|what\s+(?:you|was)\s+asked)\b"
        r"|\bnot\s+what\s+(?:you|was)\s+(?:asked|requested|wanted)\b"
        r"|\b(?:closest|nearest)\s+(?:thing\s+)?(?:i\s+can\s+(?:do|get|offer|manage|draw)|consistent|workable|feasible|possible|valid|coherent)\b"
        r"|\brelaxed\s+(?:version|options?|variants?|image|scene|edit|request)s?\b"
        r"|\b(?:i|we)\s+(?:dropped|relaxed|loosened|ignored|gave\s+up)\s+(?:the|that|one|your)\s+(?:\"[^\"]{1,80}\"\s+)?(?:condition|constraint|requirement|rule)\b"
        # "I drew the lit one instead", "generated a glass statue as a compromise": another result in its place
        r"|\b(?:i|we)(?:'ve|\s+have)?\s+(?:drew|drawn|generated|rendered|made|produced|created|painted|edited)\b[^.;!?]{0,80}?\b(?:instead|as\s+a\s+compromise|in\s+its\s+place)\b", re.I), "substitute"),
    # No room for what is asked: "no room for a tenth chair", "there isn't the space", "six won't fit".
    ("no_room", re.compile(
        r"\b(?:no|not\s+enough|isn't\s+(?:enough|the|any)|is\s+not\s+(?:enough|the|any)|aren't\s+enough|too\s+little)\s+(?:\w+\s+)?(?:room|space|surface|places?|spots?|slots?|seats?|capacity)\b(?!\s+(?:for\s+)?(?:doubt|error|improvement|interpretation|debate|argument)\b)"
        r"|\b(?:won't|will\s+not|can't|cannot|can\s+not|couldn't|could\s+not|don't|do\s+not|doesn't|does\s+not|wouldn't|would\s+not|never)\s+(?:all\s+|both\s+|possibly\s+)?fit\b", re.I), "no_room"),
    # Nothing to act on: "nothing to close", "no second painting to swap it with", "I have no pose to change".
    ("missing_referent", re.compile(
        rf"\b(?:nothing|no\s+(?!need\b|reason\b|point\b|problem\b|issue\b|doubt\b|way\b|time\b|more\b|further\b|extra\b|other\s+changes\b)(?:\w+\s+){{0,2}}?\w+|(?:isn't|is\s+not|aren't|are\s+not)\s+(?:a|an|any)\s+(?:\w+\s+){{0,2}}?\w+)\s+(?:(?:here|there|left|in\s+(?:the|this)\s+\w+)\s+)?(?:for\s+me\s+)?to\s+{_REFERENT_VERB}\b", re.I), "referent"),
    # "Nothing to <verb>" with any verb (the request's own: "Nothing to stop here."): nothing to act on, unless the
    # phrase has another reading, an idiom ("nothing to worry about", "nothing to do with", "nothing to add")
    ("missing_referent", re.compile(
        r"\bnothing\s+(?:(?:here|there|left|in\s+(?:the|this)\s+\w+)\s+)?(?:for\s+me\s+)?to\s+"
        r"(?!(?:worry|fear|lose|add|report|say|see|do|declare|prove|hide|gain|complain|be|it|show|note|mention|correct|object|"
        r"argue|discuss|explain|clarify|tell|ask|check|verify|go\s+on|write\s+home|sneeze|laugh|smile)\b)[a-z]{3,}\b(?!\s+(?:about|with|of)\b)", re.I), "referent"),
    # More shapes of the decision and of the verdict: "I'll give this one a miss", "there's nothing I can draw",
    # "what you describe can't exist" (its subject is the requested result, not a thing in the scene)
    ("declines", re.compile(
        r"\b(?:give|giving)\s+(?:this(?:\s+one)?|it|that(?:\s+one)?|the\s+(?:edit|request|image))\s+a\s+miss\b"
        r"|\bnothing\s+(?:that\s+)?(?:i|we)\s+(?:can|could)\s+(?:honestly\s+|faithfully\s+|truthfully\s+)?(?:draw|generate|produce|render|make|show|edit|depict)\b"
        r"(?!\s+(?:better|more|faster|nicer|else)\b)", re.I), "decline_act"),
    ("no_solution", re.compile(
        r"\b(?:what\s+you(?:'re|\s+are)?\s+(?:describe|describing|ask(?:ing)?\s+for|want|request(?:ing)?)|such\s+an?\s+(?:scene|image|picture|photo|result|edit|arrangement|configuration|state|object|thing)|"
        r"(?:this|that|the\s+requested)\s+(?:scene|image|picture|combination|configuration|state|result))\s+"
        r"(?:can't|cannot|can\s+not|couldn't|could\s+not)\s+(?:possibly\s+|really\s+|actually\s+)?exist\b", re.I), "plain"),
    # The thing to edit is absent: "I can't age a tree that isn't there", "the request refers to something the
    # image doesn't contain"
    ("missing_referent", re.compile(
        r"\b(?:can't|cannot|can\s+not|couldn't|could\s+not|unable\s+to|no\s+way\s+to)\s+\w+\s+(?:a|an|the|any|someone|something)\s+(?:\w+\s+){0,2}?"
        r"(?:that|which|who)\s+(?:isn't|is\s+not|aren't|are\s+not|doesn't\s+exist|does\s+not\s+exist|don't\s+exist|do\s+not\s+exist)\b"
        r"|\b(?:refers?\s+to|asks?\s+(?:for|about)|mentions?|names?)\s+(?:something|someone|an?\s+\w+|things?)\s+(?:that\s+)?(?:the|this|your)\s+"
        r"(?:image|photo|picture|scene)\s+(?:doesn't|does\s+not)\s+(?:contain|show|have|include)\b", re.I), "referent"),
    # Two states that cannot both hold: "both can't hold in one picture", "both at once isn't something I can draw".
    ("contradiction", re.compile(r"\bboth\b(?:\s+(?:at\s+once|together|of\s+(?:them|those|these)))?\s+(?:can't|cannot|can\s+not|couldn't|won't|isn't|is\s+not|aren't|are\s+not)\s+(?:\w+\s+){0,2}?(?:hold|true|shown|drawn|satisfied|met|happen|coexist|work|fit|possible|something)\b", re.I), "contradiction"),
]

# After rounds 5 and 6 (2.5), by meaning:
_EN_PATTERNS += [
    # an inability without a subject, with its reason after a colon or a dash: "Unable to edit: the rotation is
    # beyond anatomy.", "Cannot render — sugar dissolves." (a capability reason is checked: "inability")
    ("cannot_do", re.compile(rf"^\W*(?:unable\s+to|cannot|can't|can\s+not|could\s+not|couldn't)\s+(?:{_DECLINE_VERB}|comply|proceed)\b[^:;—–.]{{0,40}}?\s*[:;—–]\s*\w", re.I), "inability"),
    # a bare verdict that it does not work, the whole sentence: "Won't work.", "That can't work.", "No can do."
    ("impossible", re.compile(r"^\W*(?:no\s+can\s+do|(?:(?:it|that|this)\s+)?(?:won't|will\s+not|can't|cannot|can\s+not|doesn't|does\s+not|wouldn't|would\s+not)\s+(?:ever\s+|possibly\s+)?work)\W*$", re.I), "verdict"),
    # no place left for what is asked: "the clock has nowhere to go", "nowhere for it to fit"
    ("no_room", re.compile(r"\bnowhere\s+(?:(?:left|else)\s+)?(?:to\s+(?:go|put|place|fit|stand|sit|hang|land|be\s+put)|for\s+(?:it|them|him|her|the\s+\w+)\s+to\s+(?:go|fit|stand|sit|be))\b(?!\s+but\b)", re.I), "no_room"),
    # a constraint of the world forbids the requested result: "anatomy doesn't allow that posture"
    ("impossible", re.compile(r"\b(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not|wouldn't|would\s+not|can't|cannot|never)\s+(?:allow|permit|support|accommodate)\s+(?:that|this|such\s+an?|the\s+(?:requested|asked(?:-for)?))\s+(?:\w+\s+)?(?:pose|posture|position|movement|motion|bend|rotation|angle|arrangement|configuration|state|scene|edit|result|combination|outcome)s?\b", re.I), "allow"),
    # one thing in two states or places: "cannot be both inside and visible", "can't be in both"
    ("contradiction", re.compile(r"\b(?:cannot|can't|can\s+not|could\s+not|couldn't)\s+(?:really\s+|possibly\s+)?be\s+(?:in\s+|at\s+)?(?:both|two\s+places|simultaneously|at\s+once)\b", re.I), "contradiction"),
    # no result of this request, with any adjective: "there's no honest version of this edit", "no earlier version
    # of this child to show", "no image that matches both parts"
    ("no_solution", re.compile(rf"\bthere(?:'s|\s+is|\s+are)\s+(?:really\s+|simply\s+|just\s+)?no\s+(?:[\w'-]+\s+){{0,4}}?{_RESULT_NOUNS}\s+(?:of\s+(?:this|that|the|your|it)\b|to\s+(?:show|draw|make|render|produce|generate|give|create)\b|that\s+(?:matches|satisfies|fits|is\s+both|meets|keeps|does|shows\s+both))", re.I), "noun"),
    # the decision as an act, more shapes: "I'll hold off", "not going to fake that picture", "Leaving it.",
    # "you won't get an image from me", "I stopped here rather than drawing", "I've left the picture alone",
    # "I haven't changed the picture", "I didn't make the edit"
    ("declines", re.compile(
        r"\b(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'d\s+better|\s+should)?\s+(?:just\s+|simply\s+)?hold\s+off\b(?!\s+(?:on\s+)?(?:the|a|any)\s+(?!edit|image|picture|request)\w+)"
        r"|\b(?:i|we)(?:'m|\s+am)?\s+(?:not\s+going\s+to|won't|will\s+not)\s+(?:fake|invent|force|fudge)\s+(?:it|this|that|one|an?\s+\w+|the\s+\w+)\b"
        r"|^\W*leaving\s+it(?:\s+(?:there|at\s+that|be|alone))?\W*$"
        r"|\byou\s+(?:won't|will\s+not|aren't\s+going\s+to)\s+get\s+(?:an?\s+|any\s+)?(?:image|picture|edit|drawing)\b"
        rf"|\b(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|'ve|\s+have)?\s+(?:just\s+)?(?:stop|stopped|stopping)\s+(?:here|there)\s+(?:rather\s+than|instead\s+of)\s+{_DECLINE_VERB}"
        r"|\b(?:i|we)(?:'ve|\s+have)?\s+(?:left|kept|returned)\s+(?:the|this|your)\s+(?:\w+\s+)?(?:image|picture|photo|original|scene|input)\s+(?:as\s+(?:it\s+)?(?:is|was)|unedited|untouched|unchanged|unmodified|alone)\b(?![,\s]+(?:otherwise|apart|except|but|besides|aside)\b)"
        r"|\b(?:i|we)\s+(?:haven't|have\s+not|didn't|did\s+not|didnt|havent)\s+(?:changed|edited|modified|touched|altered|made|generated|drawn|rendered|change|edit|modify|touch|alter|make|generate|draw|render)\s+"
        r"(?:(?:the|this|your)\s+(?:picture|image|photo|edit)|(?:an?|the)\s+(?:edit|image|picture)|one|anything)\b(?!\s*(?:'s|else|other|more|further|but|except))", re.I), "decline_act"),
    # a verdict line that the result is none: "Path: none.", "Draw: skipped.", "Output: n/a"
    ("verdict", re.compile(r"^[#*>\s\-\d.]*(?:path|route|solution|output|result|draw(?:ing)?|edit|image)\s*:\s*\**(?:none|null|n/?a|skipped|not\s+drawn|nothing)\**\s*[.!]?\s*$", re.I), "verdict"),
]

# --- other languages: conclusion patterns, and the cues that block them ------------------------------------

_ML_PATTERNS: list[tuple[str, re.Pattern, str]] = [
    ("ml_no_solution", re.compile(
        r"불가능|(?:경로|길|방법|해결책|해답|해|방안|배치|루트)(?:가|이|는|은|도)\s*(?:존재하지\s*않|없)|(?:도달|실행|수행|완성|달성|편집|적용|해결|구현|완료|성립)(?:할|될)\s*수\s*(?:가\s*)?없|(?:만족|충족)(?:시킬|할|될)\s*수\s*(?:가\s*)?없|"
        r"(?:서로\s*)?모순(?:됩니다|된다|되어|입니다|이다)|풀\s*수\s*없|(?:해결|편집|구현|실현|생성|수정|적용|도달|실행)\s*불가(?!능)", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"无解|没有(?:任何|可行的|有效的|合法的|合理的|满足[^，。]{0,12}的)?(?:解|办法|方案|路径|路线|通路|解法|可能|答案|方法)|"
        r"不存在(?:任何)?(?:[^，。]{0,14})?(?:解|方案|路径|路线|通路|办法|摆放|排列|方式|编辑|结果|姿势)|"
        r"(?:无法|不能|没法|没办法|不可能)(?:被)?(?:完成|实现|执行|到达|抵达|满足|做到|解决|走通|达成|应用|编辑|绘制|画出)|"
        r"根本(?:无法|不可能|不能)|不可能(?:实现|完成|做到|的)?|不可行|走不通|到不了|(?:做|办|实现|完成|画|达)不(?:到|了|成)|(?:互相|相互|彼此)(?:矛盾|冲突|排斥)|自相矛盾", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"不可能|解け(?:ない|ません)|無理(?:だ|です|である)|解が(?:ない|ありません|存在しない|存在しません)|解は(?:ない|ありません)|解は(?:存在し|あり)ません|解は存在しない|(?:存在し(?:ない|ません))|到達(?:でき|不可能|し得)|たどり着(?:け|く(?:ことは|ことが)でき)(?:ない|ません)|"
        r"(?:実行|実現|達成|適用|編集|完了)(?:でき(?:ない|ません)|不可能)|(?:矛盾して|両立しない|両立しません)|成立し(?:ない|ません)|成り立た(?:ない|ず)|成り立ちません|道はない|経路はない|経路がない|"
        r"(?:経路|道|ルート|方法|解|配置|手段|やり方)(?:は|が|も)(?:ない|ありません|存在しない|存在しません|見つからない|見つかりません)", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"\b(?:impossible|irr[ée]alisable|infaisable|insoluble|inaccessible|inatteignable|incompatibles?|contradictoires?)\b|"
        r"\b(?:aucun|aucune|nul|nulle)\s+(?:\w+\s+){0,2}?(?:chemin|solution|modification|disposition|placement|agencement|fa[çc]on|moyen|trajet|parcours|issue|r[ée]sultat|version|pose|ordre|itin[ée]raire|possibilit[ée]|[ée]dition|repr[ée]sentation)s?\b|\b(?:aucun|aucune|nul|nulle)\s+(?:\w+\s+){0,2}?images?\s+(?:valides?|possibles?|correctes?|acceptables?|coh[ée]rentes?|conformes?|qui|ne|n')|"
        r"\b(?:n'a|n'ont|n'existe|n'y\s+a)\s+(?:\w+\s+)?(?:pas|aucun|aucune)\s+(?:de\s+|d')?(?:\w+\s+)?(?:solution|chemin|moyen|fa[çc]on|issue|r[ée]sultat|version)|\b(?:n'existe|n'y\s+a)\s+(?:\w+\s+)?(?:pas|aucun|aucune)\s+(?:d')?images?\s+(?:valides?|possibles?|correctes?|acceptables?|coh[ée]rentes?|conformes?|qui)|"
        r"\bne\s+(?:peut|peuvent|pourra|pourrait)\s+pas\s+[êe]tre\s+(?:r[ée]alis|appliqu|effectu|satisf|ex[ée]cut|atteint|r[ée]solu|dessin|fait|respect)\w*|"
        r"\bpas\s+de\s+solution\b|\b(?:n'est|ne\s+sont|n'était)\s+pas\s+(?:r[ée]alisable|faisable|possible|soluble|atteignable|r[ée]solvable)\b|"
        r"\bce\s+n'est\s+pas\s+(?:r[ée]alisable|faisable|possible)\b|\b(?:se\s+)?contredisent\b|s'excluent\b"
        r"|\b(?:la\s+demande|la\s+consigne|l'instruction|cela|ça|ceci)\s+se\s+contredit\b"
        # an elliptic verdict, the whole sentence: "Pas faisable.", "Sans solution." (not "Pas possible de faire mieux")
        r"|^\W*(?:pas|absolument\s+pas)\s+(?:r[ée]alisable|faisable|possible|soluble)\W*$|^\W*sans\s+(?:aucune\s+)?(?:solution|issue)\W*$", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"\b(?:imposible|inviable|irrealizable|irresoluble|insoluble|inalcanzable|inaccesible|incompatibles?|contradictori[oa]s?)\b|"
        r"\b(?:ning[úu]n|ninguna)\s+(?:\w+\s+){0,2}?(?:camino|soluci[óo]n|ruta|disposici[óo]n|colocaci[óo]n|forma|manera|edici[óo]n|resultado|versi[óo]n|pose|orden|posibilidad|modo|representaci[óo]n)\b|\b(?:ning[úu]n|ninguna)\s+(?:\w+\s+){0,2}?im[áa]gen(?:es)?\s+(?:v[áa]lida|posible|correcta|aceptable|coherente|que)|"
        r"\bno\s+(?:hay|existe|tiene)\s+(?:una\s+|ninguna\s+|ning[úu]n\s+)?(?:\w+\s+)?(?:soluci[óo]n|camino|ruta|forma|manera|salida|resultado|versi[óo]n)|\bno\s+(?:hay|existe)\s+(?:una\s+|ninguna\s+)?im[áa]gen(?:es)?\s+(?:v[áa]lida|posible|correcta|aceptable|coherente|que)|"
        r"\bno\s+se\s+puede(?:n)?\s+(?:cumplir|realizar|hacer|aplicar|resolver|alcanzar|lograr|satisfacer|ejecutar|llevar\s+a\s+cabo)|"
        r"\bse\s+(?:contradicen|excluyen|contradice)\b|\b(?:eso|esto|algo\s+as[íi]|tal\s+cosa)\s+no\s+puede\s+(?:ocurrir|suceder|existir|pasar)\b|\bno\s+(?:es|son|resulta)\s+(?:factible|posible|realizable|viable|alcanzable)\b"
        # an elliptic verdict, the whole sentence: "Sin solución.", "No factible."
        r"|^\W*sin\s+(?:ninguna\s+)?(?:soluci[óo]n|salida)\W*$|^\W*no\s+(?:factible|realizable|viable)\W*$", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"\b(?:unm[öo]glich|unl[öo]sbar|undurchf[üu]hrbar|unerreichbar|unvereinbar|widerspr[üu]chlich)\b|"
        r"\bnicht\s+(?:l[öo]sbar|machbar|m[öo]glich|umsetzbar|erreichbar|durchf[üu]hrbar|erf[üu]llbar|realisierbar)\b|"
        r"\b(?:kein|keine|keinen|keiner)\s+(?:\w+\s+){0,2}?(?:L[öo]sung|Weg|Pfad|Route|Anordnung|M[öo]glichkeit|Bearbeitung|Ergebnis|Version|Pose|Reihenfolge|Platzierung|Verbindung|Durchgang|Darstellung)(?:en)?\b|\b(?:kein|keine|keinen|keiner)\s+(?:\w+\s+){1,2}?Bild(?:er)?\b|"
        r"\bl[äa]sst\s+sich\s+(?:\w+\s+)?nicht\s+(?:umsetzen|l[öo]sen|erreichen|erf[üu]llen|durchf[üu]hren|realisieren|anwenden)|"
        r"\b(?:kann|k[öo]nnen)\s+(?:\w+\s+){0,3}?nicht\s+(?:\w+\s+)?(?:erf[üu]llt|umgesetzt|durchgef[üu]hrt|gel[öo]st|erreicht|realisiert|angewendet|ausgef[üu]hrt)\s+werden|"
        r"\b(?:ist|sind|w[äa]re|bleibt)\s+(?:(?!(?:nicht|kaum|keineswegs|keinesfalls)\b)\w+\s+)?ausgeschlossen\b|"
        r"\b(?:L[öo]sung|Weg|Pfad|Route|Anordnung|M[öo]glichkeit|Bearbeitung|Ergebnis|Version|Pose|Reihenfolge|Platzierung|Darstellung|Bild)(?:en|er)?\s+gibt\s+es\s+(?:\w+\s+)?nicht\b|"
        r"^\W*ohne\s+(?:jede\s+)?L[öo]sung\W*$|\b(?:widersprechen|schlie[ßs]en)\s+sich\b|\b(?:das|dies|es|die\s+Anfrage|der\s+Auftrag|die\s+Vorgabe)\s+widerspricht\s+sich\b|\b(?:das|es|dies)\s+(?:geht|funktioniert)\s+nicht\b(?!\s+(?:um|darum))", re.I), "ml"),
    ("ml_no_solution", re.compile(
        r"\b(?:impossibile|irrealizzabile|irrisolvibile|irraggiungibile|imposs[íi]vel|invi[áa]vel|inalcan[çc][áa]vel)\b|"
        r"\b(?:nessun|nessuna|nenhum|nenhuma)\s+(?:\w+\s+){0,2}?(?:percorso|soluzione|disposizione|modo|caminho|solu[çc][ãa]o|disposi[çc][ãa]o|forma|maneira|rota)\b|\b(?:nessun|nessuna|nenhum|nenhuma)\s+(?:\w+\s+){0,2}?(?:immagin[ei]|imag(?:em|ens))\s+(?:valid[ae]|possibil[ei]|v[áa]lidas?|poss[íi]vel|corrett[ae]|corretas?|che|que)|"
        r"\bnon\s+esiste\b|\bn[ãa]o\s+existe\b", re.I), "ml"),
]
# The decision not to produce the result, no room for it, nothing to act on (as the English "declines",
# "no_room" and "missing_referent" rules), in the other covered languages.
_ML_PATTERNS.append(("ml_declines", re.compile(
    # fr
    r"\bje\s+ne\s+(?:peux|vais|pourrai|pourrais|veux|compte|souhaite)\s+(?:\w+\s+)?pas\s+(?:\w+\s+)?(?:produire|montrer|dessiner|g[ée]n[ée]rer|cr[ée]er|faire|r[ée]aliser|modifier|[ée]diter|rendre|appliquer|effectuer|livrer|fournir|retoucher)\b(?!\s+(?:des|d')\s*(?:images?|animations?|vid[ée]os?)\b)"
    r"|\bje\s+ne\s+(?:g[ée]n[ée]re|produis|dessine|modifie|fais|cr[ée]e|touche)\s+(?:donc\s+)?pas\b|\bje\s+ne\s+(?:l[ae]\s+|les\s+|l')?(?:dessinerai|produirai|g[ée]n[ée]rerai|ferai|modifierai|cr[ée]erai|montrerai)\s+pas\b|\bje\s+m'abstiens\b|\bje\s+(?:refuse|d[ée]cline)\b(?!\s+(?:pas|de\s+refuser))"
    r"|\bje\s+(?:laisse|rends|renvoie|garde)\s+(?:donc\s+)?(?:l'image|la\s+photo|l'original|le\s+dessin|la\s+sc[èe]ne)(?:\s+\w+){0,2}\s+(?:telle\s+quelle|tel\s+quel|sans\s+(?:aucune\s+)?modification|intacte?|inchang[ée]e?)"
    r"|\bil\s+n'y\s+a\s+rien\s+à\s+\w+|^\W*rien\s+à\s+(?:[ée]diter|modifier|retoucher|dessiner|changer|faire)\b|\bpas\s+de\s+(?:chemin|passage|route|issue|place|solution|sortie)\b|\bla\s+place\s+manque\b|\bil\s+ne\s+reste\s+(?:\w+\s+){0,3}?pas\s+de\s+place\b|\b(?:ne\s+)?(?:tient|tiennent|rentre|rentrent)\s+pas\b"
    # es
    r"|\bno\s+(?:voy\s+a|puedo|podr[ée]|pienso|podemos|vamos\s+a)\s+(?:\w+\s+)?(?:generar|hacer|editar|dibujar|producir|crear|mostrar|modificar|aplicar|realizar)\b(?!\s+im[áa]genes)"
    r"|\bno\s+(?:genero|dibujo|edito|hago|modifico|produzco|muestro|toco)\b(?!\s+(?:im[áa]genes|fotos|v[íi]deos|animaciones|dibujos)\b)|\b(?:lo|la)\s+dejo\s+(?:aqu[íi]|as[íi]|como\s+est[áa])\b|\bdejo\s+la\s+(?:imagen|foto)\s+(?:como\s+est[áa]|sin\s+cambios|intacta|tal\s+cual)"
    r"|\bno\s+(?:caben?|encajan?|puede\s+ser)\b|\bno\s+se\s+puede\s*(?:[.,;:!]|$)|\bno\s+hay\s+(?:un[ao]?\s+)?(?:\w+\s+){0,2}?(?:que|para|con\s+(?:el|la)\s+que)\s+(?:mover|cambiar|cerrar|intercambiar|editar|levantar|girar|abrir|quitar|reemplazar)"
    r"|\bno\s+existe\s+(?:un[ao]?\s+)?(?:\w+\s+)?(?:con\s+(?:el|la)\s+que|que)\s+\w+|\b(?:me\s+)?(?:niego|abstengo)\b|\bno\s+hay\s+(?:sitio|espacio|lugar)\b|\bno\s+hay\s+(?:nada|nadie|a\s+qui[ée]n)\s+(?:que\s+)?(?:editar|modificar|mover|cambiar|retocar|dibujar)\b"
    # de
    r"|\b(?:erzeuge|zeichne|bearbeite|generiere|erstelle|ändere|mache|liefere|male)\s+ich\s+(?:\w+\s+)?(?:kein(?:e|en)?\s+(?:\w+\s+)?(?:Bild|Bearbeitung|Änderung|Version)|(?:das\s+Bild\s+|es\s+|dies(?:es)?\s+|das\s+)?nicht\b)"
    r"|\bich\s+(?:kann|werde|möchte|will)\s+(?:\w+\s+){0,3}?(?:nicht|kein\w*)\s+(?:\w+\s+)?(?:erzeugen|zeichnen|bearbeiten|generieren|erstellen|umsetzen|darstellen|zeigen|liefern)\b(?!\s+Bilder)"
    r"|\b(?:ich|wir)\s+(?:erzeuge|zeichne|bearbeite|generiere|erstelle|mache|liefere|male)n?\s+(?:\w+\s+){0,2}?kein(?:e|en)?\s+(?:\w+\s+)?(?:Bild|Bearbeitung|Änderung|Version)\b"
    r"|^\W*(?:das\s+|so\s+)?geht\s+(?:so\s+)?nicht\W*$|^\W*kein(?:e)?\s+(?:Bild|Bearbeitung)\W*$"
    r"|\b(?:den|die|das)\s+es\s+(?:hier\s+|dort\s+)?(?:gar\s+)?nicht\s+gibt\b[^.]{0,40}?\bkann\s+ich\s+nicht\b"
    r"|\bich\s+lasse\s+(?:das|die)\s+(?:Bild|Foto|Original|Szene)\s+(?:unverändert|so|wie\s+es\s+ist|unbearbeitet)|\bpass(?:t|en)\s+(?:\w+\s+){0,5}?nicht\b"
    r"|\b(?:Lösung|Weg|Pfad|Route|Anordnung|Möglichkeit|Bearbeitung|Ergebnis|Version|Pose|Reihenfolge|Platzierung|Darstellung|Bild)(?:en|er)?\s+gibt\s+es\s+(?:\w+\s+){0,5}?nicht\b"
    # zh
    r"|我?(?:就|先|暂时|这次)?不(?:生成|画|改|修改|编辑|绘制|出图|做修改|做这个修改|处理|做这张图)(?:了|这张图|图片|图像|任何)?(?=[。！，,.!；;]|$|了)|(?:这次|这张图)(?:我)?(?:就)?不(?:做|画|改)"
    r"|没有(?:第二|另一|另外)[^，。]{0,6}(?:可以|能)?(?:移动|收起|交换|替换|修改|调整|编辑|挪)|没有(?:可以|能)[^，。]{0,6}的|没有[^，。？?]{1,8}可以(?:修改|编辑|放|改|画|移动|处理|调整)(?=[。！，,.!；;？?]|$)|(?:摆|放|装|容|塞|挤|坐|画)不(?:出|下)|没有(?:空位|空余的?位置|地方|空间)"
    # ja
    r"|(?:描け|作れ|行え|編集でき|描くことはでき|作ることはでき|表現でき)(?:ません|ない)|(?:編集|修正|変更|加工|作成|描画)(?:は|も)でき(?:ません|ない)|(?:編集|修正|変更|加工)(?:する)?(?:対象|もの)が(?:ありません|ない)|あり(?:え|得)(?:ない|ません)(?!ほど|くらい|ぐらい)|(?:作り|描き|生成し|編集し)ません|相手が(?:ありません|ない|いません)|解なし"
    r"|(?:入れ替える|動かす|移動する|替える)[^、。]{0,8}(?:が|は)(?:ありません|ない|いません|いない)"
    # ko
    r"|(?:만들|그릴|편집할|생성할|보여\s*드릴|바꿀|옮길|표현할|담을)\s*수\s*(?:가\s*)?없|(?:편집|생성|수정|작업|그리기)(?:은|는|를|을)?\s*하지\s*않겠|(?:만들|그리|생성하|편집하|수정하)지\s*(?:않|못)(?:겠|을게|을\s*거|습니다|아요|어요)|담기지\s*않"
    r"|(?:옮길|바꿀|움직일|교체할)\s*(?:\S+\s+){0,2}?\S*(?:이|가)\s*없"
    r"|(?:요청|부탁|주문)(?:은|는|을|를)?\s*(?:들어\s*드릴|들어줄|응할|받아들일)\s*수\s*(?:가\s*)?없"
    # ja: cannot answer the request
    r"|(?:依頼|リクエスト|ご要望|要望|要求)(?:に|には|は)(?:お)?応え(?:られ|でき)(?:ません|ない)"
    # fr, es, de: prefer not to produce, pass one's turn, forgo the image, "nothing will come of it"
    # (the whole result: "ne rien produire", "ne pas la générer" at the sentence's end; never a detail, "ne pas trop modifier le fond")
    r"|\bje\s+pr[ée]f[èe]re\s+ne\s+rien\s+(?:produire|g[ée]n[ée]rer|dessiner|modifier|faire|cr[ée]er|livrer)\b"
    r"|\bje\s+pr[ée]f[èe]re\s+ne\s+pas\s+(?:l'|la\s+|le\s+)?(?:produire|g[ée]n[ée]rer|dessiner|modifier|faire|cr[ée]er)(?:\s+(?:cette|l')\s*(?:image|[ée]dition|modification))?\s*[.!;]?\s*$"
    r"|\bje\s+passe\s+mon\s+tour\b"
    r"|\bprefiero\s+no\s+(?:generar|hacer|dibujar|editar|producir|crear|modificar)\s+(?:nada|esta\s+imagen|la\s+imagen|esta\s+edici[óo]n|eso|esto)\b"
    r"|\bprefiero\s+no\s+(?:generarla|hacerla|dibujarla|editarla|producirla|hacerlo)\b"
    r"|\bich\s+verzichte\s+(?:\w+\s+)?auf\s+(?:ein|das|jedes|eine|jede)\s+(?:Bild|Bearbeitung)\b|^\W*daraus\s+wird\s+nichts\W*$",
    re.I), "ml"))

# After rounds 5 and 6 (2.5), by meaning, in the other covered languages: the requested result does not exist
# ("esa pose no existe"), a bare verdict ("non, pas possible", "不行", "안 돼요"), one thing at two moments
# ("不会同时", "동시에 … 수 없"), nothing to act on with any verb ("rien à déplacer", "nada que mover", "ich kann
# nichts versetzen", "没有可移动的对象"), and the decision as an act in past or polite forms ("je n'ai rien modifié",
# "ich habe das Bild nicht verändert", "图片保持原样", "編集は行っていません", "作成いたしかねます", "그대로 두었습니다").
_ML_PATTERNS.append(("ml_no_solution", re.compile(
    # es, fr, de: the result named, and its existence denied
    r"\b(?:esa|esta|tal|dicha|la)\s+(?:pose|postura|escena|imagen|versi[óo]n|situaci[óo]n|combinaci[óo]n|posici[óo]n)\s+no\s+(?:existe|es\s+posible|puede\s+existir)\b"
    r"|\b(?:cette|une\s+telle|la)\s+(?:pose|posture|sc[èe]ne|image|version|situation|combinaison|position)\s+n'existe\s+pas\b"
    r"|\b(?:diese|so\s+eine|eine\s+solche|die)\s+(?:Pose|Haltung|Szene|Version|Situation|Kombination|Position)\s+gibt\s+es\s+(?:\w+\s+)?nicht\b"
    r"|\bpas\s+d'images?\s+(?:valides?|possibles?|correctes?|coh[ée]rentes?)\b|\bpas\s+de\s+r[ée]sultat\s+(?:valable|valide|possible|coh[ée]rent)\b"
    r"|^\W*(?:non\s*[,.!]?\s*)(?:pas|absolument\s+pas)\s+(?:r[ée]alisable|faisable|possible)\W*$"
    r"|^\W*(?:resultado|veredicto|conclusi[óo]n|r[ée]sultat|verdict|Ergebnis|Fazit)\s*:\s*(?:sin|sans|ohne)\s+(?:ning[úu]n\s+|ninguna\s+|aucun\s+|aucune\s+)?(?:camino|ruta|soluci[óo]n|salida|chemin|solution|issue|Weg|L[öo]sung)\W*$"
    r"|\b(?:das|es|dies)\s+(?:geht|funktioniert)\s+(?:also|so|leider|einfach|schlicht)\s+nicht\b(?!\s+(?:um|darum|nur)\b)|\b(?:zugleich|gleichzeitig)\s+geht\s+(?:das\s+)?nicht\b"
    # zh
    r"|没有(?:一条|任何)?(?:路|出路|通路)(?:能|可以|可)(?:到|通|走)|不(?:会|能|可能)同时|^\W*(?:不行|做不到|办不到|没办法)\W*$"
    r"|没有(?:任何)?[^，。]{1,12}的(?:结果|图片|图像|画面|版本)"
    # ja
    r"|同時に[^。]{0,20}(?:でき|あり得|ありえ)(?:ない|ません)"
    # ko
    r"|(?:모습|장면|결과|이미지|버전|그림)(?:이|가|은|는)\s*(?:존재하지\s*않|없습니다|없어요|없다)"
    r"|(?:만족|충족)(?:하는|시키는)\s*(?:\S+\s*){0,3}?(?:이미지|결과|그림|경로|방법|버전)(?:는|은|가|이)\s*없"
    r"|(?:경로|길|해답|방법|해결책)\s*없음|동시에\s*(?:\S+\s*){0,3}?수(?:는|가)?\s*없|^\W*(?:그건\s*|그렇게는\s*)?안\s*(?:돼요|됩니다|돼|되겠습니다)\W*$", re.I), "ml"))
_ML_PATTERNS.append(("ml_declines", re.compile(
    # fr
    r"^\W*rien\s+à\s+(?!(?:signaler|dire|voir|ajouter|craindre|redire|faire\s+de\s+plus)\b)\w{3,}"
    r"|\b(?:je|nous)\s+n'(?:ai|avons)\s+rien\s+(?:modifi|chang|dessin|fait|touch|[ée]dit|g[ée]n[ée]r|retouch)\w*\b(?!\s+(?:d'autre|de\s+plus|d'autres|ailleurs))"
    r"|\b(?:je|nous)\s+n'(?:ai|avons)\s+pas\s+(?:\w+\s+)?(?:modifi|dessin|fait|touch|[ée]dit|g[ée]n[ée]r|retouch|r[ée]alis)\w*\s+(?:l'image|la\s+photo|cette\s+modification|la\s+modification|l'[ée]dition)"
    r"|\bnous\s+ne\s+(?:pouvons|pourrons|allons)\s+(?:\w+\s+)?pas\s+(?:\w+\s+)?(?:produire|dessiner|g[ée]n[ée]rer|cr[ée]er|faire|r[ée]aliser|modifier|[ée]diter|appliquer|effectuer)\b"
    # es
    r"|\bno\s+tengo\s+nada\s+que\s+(?!(?:a[ñn]adir|agregar|decir|ver|objetar|comentar|ocultar|temer)\b)\w{3,}|\bno\s+existe\s+(?:un[ao]?\s+)?(?:\w+\s+){0,2}?(?:al|a\s+la)\s+que\s+\w+"
    r"|\bla\s+(?:imagen|foto)\s+(?:sigue|queda|se\s+queda)\s+(?:igual|como\s+estaba|sin\s+cambios|intacta)\b(?!\s+(?:de|que)\b)"
    # de
    r"|\bich\s+lasse\s+(?:das|die|den)\s+(?:Bild|Foto|Original|Szene|Pose|Aufnahme|Haltung)\s+(?:\w+\s*,?\s+){0,2}?(?:unverändert|so|wie\s+(?:es|sie|er)\s+(?:ist|war)|unbearbeitet)"
    r"|\b(?:ich|wir)\s+(?:habe|haben)\s+(?:das|dieses)\s+(?:Bild|Foto)\s+(?:\w+\s+)?nicht\s+(?:verändert|bearbeitet|geändert|angefasst)"
    r"|\b(?:ich|wir)\s+(?:kann|können)\s+(?:hier\s+)?nichts\s+(?:versetzen|verschieben|bewegen|umstellen|bearbeiten|ändern|drehen|tauschen)\b"
    # zh
    r"|(?:图片|图像|照片|画面)(?:保持|维持)(?:原样|不变)|我(?:就)?没(?:有)?(?:改动|修改|编辑|动)(?:图片|图像|照片|这张图)|没有可[^，。]{0,6}的(?:对象|东西|物体)"
    # ja
    r"|(?:作成|生成|描画|編集|出力)し(?:ません|ない)|(?:有効な|正しい|妥当な)?(?:結果|画像|編集|解決策)(?:は|が)(?:ありません|ない|存在しません)|(?:^|[。、]\s*|画像の)(?:編集|修正|変更|加工)は?(?:行って|して)(?:いません|いない)|(?:画像|写真)は(?:元の)?(?:まま|そのまま)(?:にしました|にしています|です)"
    r"|(?:作成|編集|対応|作り|描き|生成)(?:いたし|し)かね(?:ます|る)"
    # ko
    r"|(?:사진|이미지|그림)(?:은|는|을|를)?\s*그대로\s*(?:두|뒀|두었)|(?:^\W*|(?:이미지|사진|그림)(?:를|을|는|은)?\s*)(?:수정|편집|변경|생성)하지\s*않았"
    r"|(?:만들어|그려|보여)\s*드릴\s*수\s*(?:가\s*)?없|(?:그렇게는|그건)\s*못\s*(?:그려|만들|그리|해)", re.I), "ml"))

# Cues that make a (non-English) match not a conclusion: hedge, condition, negation of the
# conclusion, retraction, capability. Read in the clause before the match.
_ML_BLOCK_BEFORE = re.compile(
    r"如果|假如|假设|若是|要是|也许|或许|(?<!不)可能(?!性)|似乎|好像|看起来|是否|不一定|并非|并不是|不是|一开始|起初|以为|"
    r"也就|만약|아마|일지도|것\s*같|처음(?:에는|엔|에)|보였지만|보였는데|보이지만|もし|かもしれ|おそらく|たぶん|ようだ|ように見え|一見|かどうか|最初は|と思った|"
    r"\bparec[íi]a\b|\bpareci[óo]\b|\bon\s+(?:pourrait|aurait\s+pu)\s+croire\b|\bon\s+dirait\b|"
    r"\b(?:si|il\s+se\s+peut|se\s+peut|soit|peut-[êe]tre|semble|semblait|sembler|pas\s+s[ûu]r|n'est\s+pas|ce\s+n'est\s+pas|il\s+est\s+possible\s+qu|"
    r"j'ai\s+cru|je\s+croyais|j'ai\s+d'abord\s+cru|au\s+d[ée]but|"  # a first impression, reported (as en "at first I thought")
    r"quiz[áa]s?|tal\s+vez|puede\s+que|parece|no\s+es|no\s+est[áa]|pens[ée]\s+que|cre[íi]\s+que|al\s+principio|"
    r"falls|wenn|vielleicht|m[öo]glicherweise|scheint|ob|nicht\s+(?:ganz\s+)?sicher|ist\s+nicht|dachte|anfangs|zun[äa]chst|"
    r"forse|sembra|se|talvez|parece)\b",
    re.I)
_ML_CONDITIONAL = re.compile(r"如果|假如|假设|要是|若是|もし|(?:\b(?:si|wenn|falls|se|caso)\b)", re.I)
# An impossibility adjective of the other languages, to tell its negations apart: "aucune contrainte
# contradictoire" (no contradictory constraint), "keineswegs unmöglich", "Unmöglich ist hier nichts".
_ML_ADJ = re.compile(
    r"(?:impossib|irr[ée]alisab|infaisab|insolub|inaccessib|inatteignab|incompatib|contradictoi|imposib|inviab|irrealizab|"
    r"irresolub|inalcanzab|inaccesib|contradictori|unm[öo]glich|unl[öo]sbar|undurchf[üu]hrbar|unerreichbar|unvereinbar|"
    r"widerspr[üu]chlich|irrisolvib|irraggiungib|imposs[íi]vel|invi[áa]vel|inalcan[çc][áa]vel)\w*$", re.I)
# "no <noun> (is) <adjective>", "nothing is <adjective>": the negative determiner or pronoun says that
# nothing is impossible or contradictory ("aucune contrainte contradictoire", "keine Anforderung ist
# widersprüchlich", "nada es imposible"); "sans aucun doute" is not one
_ML_NEG_DETERMINER = re.compile(
    r"\b(?:aucun|aucune|nul|nulle|rien|kein|keine|keinen|keiner|keinem|nichts|ning[úu]n|ninguna|ninguno|nada|nessun|nessuna|nessuno|niente|nulla|nenhum|nenhuma)\s+"
    r"(?!(?:doute|duda|dubbio|d[úu]vida|Zweifel)\b)(?:[\w'-]+\s+){1,3}$", re.I)
# a negation adverb right before it ("keineswegs unmöglich", "nullement contradictoires")
_ML_NEG_BEFORE = re.compile(
    r"(?:\b(?:pas|no|nicht|non|não|keineswegs|keinesfalls|nullement|jamais|nie|niemals|nunca|mai)\s*$)|(?:不是|并非|并不)$"
    r"|\b(?:no|non|não)\s+(?:es|fue|era|ser[áa]|ser[íi]a|resulta|result[óo]|parece|è|era|sar[àa]|sarebbe|é|foi|seria)\s*$"  # "no fue imposible"
    r"|\b(?:rien|nada|nichts|niente|nulla)\s*(?:d['’]|de\s+)?$", re.I)  # "rien d'impossible"
# An impossibility that qualifies a thing that does not exist: "편집 불가능한 부분은 없습니다" (no part cannot be edited),
# "不可能的地方没有", "不可能な点はありません"
_ML_NEG_OF_THING = re.compile(r"(?:한|인|할)\s*(?:\S+\s*)?(?:부분|것|점|곳|일|요소)(?:은|는|이|가|도)?\s*(?:하나도\s*|전혀\s*)?없"
                              r"|的(?:地方|部分|东西|点)?(?:都|也)?没有|な(?:点|部分|もの|ところ|こと)(?:は|も)(?:ありません|ない)")
# German inversion: the adjective first, the negation after the verb ("Unmöglich ist das nicht")
_ML_NEG_AFTER = re.compile(r"^\s*(?:ist|war|sind|wäre|scheint|erscheint)\s+(?:\w+\s+){0,3}?(?:nicht|nichts|keineswegs|keinesfalls)\b(?!\s+zu\b)", re.I)
# A named route as the subject (zh / ja): "右边那条路走不通" is a local dead end, not the task;
# "every route" (每 / 所有 / 任何 / 都 / すべて) is not one route, nor is "this maze's path" (这个迷宫的路).
_ML_LOCAL_SUBJECT = re.compile(
    r"(?:这|那|左|右|上|下|前|后|第[一二三四五六七八九十\d]+)(?:(?!迷宫|地图|整个|图中)[^，。！？、]){0,6}(?:条|个)?(?:路|通道|路线|方向|分支|走廊|岔路)"
    r"|(?:この|その|あの|上|下|左|右)[^、。]{0,4}(?:通路|道|ルート|経路|分岐)(?:は|が)")
# optimality: "pas de meilleure solution que ce chemin", "没有比这更短的路线", "이보다 더 짧은 경로는 없습니다"
_ML_COMPARATIVE = re.compile(
    r"\b(?:meilleure?s?|plus\s+(?:court|courte|rapide|simple)s?|m[áa]s\s+(?:corto|corta|r[áa]pido|simple)s?|mejor(?:es)?|k[üu]rzere?[nrsm]?|bessere?[nrsm]?|schnellere?[nrsm]?)\b"
    # any comparison with what exists: "plus direct que celui-ci", "más limpia que esta", "kürzer als dieser"
    r"|\b(?:plus|moins|m[áa]s|menos)\s+\w+\s+(?:que|qu')|\b(?:mieux|mejor)\s+que\b|\b\w+er(?:e[nrsm]?)?\s+als\s+(?:dies|der|die|das|den|jene)\w*"
    r"|更短|更好|更快|更近|更简单|より短い|より良い|より早い|より簡単|더\s*짧은|더\s*나은|더\s*빠른|이보다|これより|比这|これ以上|それ以上|이\s*이상", re.I)
# figurative: "un rouge presque impossible", "de un azul imposible", "ein fast unmöglich tiefes Blau"
_ML_FIGURATIVE_BEFORE = re.compile(
    r"\b(?:presque|quasi|casi|fast|nahezu|beinahe|quasi|几乎|ほとんど)\s*$"
    r"|\b(?:d'un|d'une|un|une|de\s+un[ao]?|un[ao]?|ein(?:e[mnrs]?)?|uno)\s+(?!(?:t[âa]che|demande|requ[êe]te|modification|combinaison|sc[èe]ne|situation|consigne|tarea|petici[óo]n|solicitud|edici[óo]n|combinaci[óo]n|escena|situaci[óo]n|instrucci[óo]n|Aufgabe|Anforderung|Kombination|Bearbeitung|Szene|Situation|Anweisung)\b)\w+\s+(?:presque\s+|casi\s+|fast\s+)?$", re.I)
_ML_UNIVERSAL = re.compile(r"每|所有|任何|全部|都|すべて|全て|どの|どれも")
# After a match, the same sentence says another way works: a narrower property ("Einen kürzeren Weg gibt
# es nicht, aber dieser funktioniert"), as _NARROWER_AFTER for English
_ML_NARROWER_AFTER = re.compile(
    r"^[^.;。]{0,60}?\b(?:aber|mais|pero|ma|mas|doch)\b[^.;。]{0,60}?\b(?:funktioniert|geht|klappt|passt|fonctionne|marche|convient|"
    r"funciona|sirve|vale|funziona|serve|dá\s+certo)\b", re.I)
_ML_BLOCK_AFTER = re.compile(r"^\s*(?:か[？?]|かもしれ|でしょうか|吗|吧[？?]|\?)|^[^。，,.!?！？]{0,6}(?:かもしれ|可能)", re.I)
_RETRACT = re.compile(
    r"^(?:wait|hmm+,?\s+wait|actually|no,|no\s+wait|on\s+second\s+thought|on\s+reflection|then\s+again|correction|scratch\s+that|oops|"
    r"hold\s+on|sorry(?!\W*$)|never\s*mind|rereading|re-reading|looking\s+again|i\s+misread|i\s+was\s+wrong|my\s+mistake)"
    r"|\b(?:i\s+was\s+wrong|my\s+mistake|i\s+made\s+a\s+mistake|i\s+missed|i\s+misread|misread|overlooked|doable\s+after\s+all|possible\s+after\s+all|solvable\s+after\s+all|feasible\s+after\s+all|there\s+is\s+one\s+after\s+all)\b"
    r"|^(?:there\s+(?:is|'s)\s+(?:one|a\s+(?:valid\s+|legal\s+)?(?:path|route|way|solution)))\b"
    r"|^(?:is|was|would\s+be)\s+what\s+(?:i|we|one)(?:'d|\s+would|\s+might|\s+thought)\b"
    r"|^(?:等等|等一下|不对|其实|其實|待って|いや|実は|attends|attendez|en\s+fait|non,|espera|en\s+realidad|moment|doch|eigentlich|aspetta|espere)",
    re.I)
# "sorry" retracts only when a correction follows it ("sorry, I misread"), not as a closing apology ("Unsolvable,
# sorry.", "can't be done, sorry about that")
_RETRACT_SAME = re.compile(
    r"\b(?:wait|actually|no,?\s+hold\s+on|hold\s+on|sorry(?=[,;:\s—-]+[\w(])(?!\s+(?:about|for|to)\b)|i\s+misread|never\s*mind|then\s+again|on\s+second\s+thought|on\s+reflection|hmm+|rethinking|re-?reading|looking\s+again|correction|after\s+all)\b"
    r"|\bbut\b[^.]{0,80}\b(?:isn't|is\s+not|wrong|missed|misread|after\s+all)\b"
    r"|等等|其实|待って|実は|attends|en\s+fait|espera|en\s+realidad|Moment|doch",
    re.I)

# A negation or a stated inability, in any covered language (the grammar's closed class, not phrasings): the
# detector reads it as a sign that a response may decline something when it finds no conclusion and the
# output has no image either (detect.py).
NEGATION = re.compile(
    r"\b(?:not|no|never|nothing|none|neither|nor|without|cannot|unable|declin\w*|refus\w*)\b|n't\b"
    r"|\b(?:ne|n'|pas|rien|aucune?|jamais|sans|nunca|nada|ningun[oa]?|ningún|sin|nicht|kein\w*|nie|nichts|ohne)\b"
    r"|[不没無无未]|ない|ません|できず|없|않|못", re.I)

# A substitute or a concession, in any covered language (a closed class of adverbs, not phrasings): the image
# that follows stands in for what was asked ("instead", "the closest", "plutôt", "stattdessen", "而是", "代わりに",
# "대신") or comes despite what was just said ("anyway", "that said", "quand même", "trotzdem", "不过", "それでも").
# With a negation and an image, and no conclusion read, the text may decline and deliver something else (detect.py).
INSTEAD = re.compile(
    r"\b(?:instead|rather|nearest|closest|alternative(?:ly)?|anyway|regardless|nevertheless|nonetheless|that\s+said|even\s+so|still,|"
    r"compromise|approximation|approximate|workaround|stand-in|substitute|as\s+close\s+as|(?:what|the\s+best|all)\s+i\s+(?:can|could)\s+(?:do|offer|draw|manage|give))"
    r"|\b(?:plutôt|à\s+la\s+place|au\s+lieu|quand\s+même|malgré\s+tout|en\s+(?:su|mi)\s+lugar|en\s+cambio|en\s+vez|de\s+todos\s+modos|"
    r"aun\s+así|stattdessen|ersatzweise|trotzdem|dennoch|jedenfalls|à\s+défaut|compromis|lo\s+más\s+parecido|lo\s+que\s+sí\s+puedo|"
    r"ce\s+que\s+je\s+peux\s+faire|was\s+ich\s+(?:tun|machen)\s+kann|Kompromiss|Annäherung)\b"
    r"|而是|改为|改成|代替|替代|不过|仍然|还是|折中|近似|退而求其次|代わりに|かわりに|それでも|妥協|近いもの|대신|그래도|절충|비슷한", re.I)

# What the delivered image is, when the text says it (2.5, after rounds 5 and 6): with a conclusion, an image that is
# the input unchanged ("the returned image is unchanged from the input", "adjunto la original sin cambios", "画像は元のま
# まです"), only the possible part of the request ("the second part … not done", "这一部分…没做", "그 부분은 하지
# 않았습니다", "Output shows only the first half") or something put in the result's place ("as an alternative I drew",
# "como alternativa", "à la place", "stattdessen", "代わりに", "대신", "作为替代") agrees with the conclusion: the response
# declined the request (or the impossible part of it) and delivered something else.
_INPUT_RETURNED = (
    r"\b(?:unchanged|unedited|unmodified|untouched|as\s+it\s+was)\b[^.!?\n]{0,40}?\b(?:input|original)\b|\b(?:input|original)\s+(?:image\s+)?(?:is\s+)?(?:returned\s+)?(?:unchanged|unedited|as\s+it\s+was)\b"
    r"|\b(?:returned|output|attached|this|the)\s+image\s+is\s+(?:unchanged|the\s+(?:original|input)|identical\s+to\s+the\s+(?:input|original))\b|\b(?:an?\s+)?(?:unedited|unmodified)\s+copy\b"
    r"|\b(?:only|just)\s+the\s+(?:original|input)\b|\bwithout\s+any\s+(?:path|route|edit|change)s?\b"
    r"|\b(?:l'original|l'image\s+(?:d'origine|originale))\s+(?:sans\s+(?:aucune\s+)?(?:modification|changement)|inchang[ée]e?|telle\s+quelle)|\bla\s+original\s+sin\s+cambios\b|\b(?:imagen|foto)\s+original\s+sin\s+cambios\b"
    r"|\b(?:zeigt|ist)\s+(?:\w+\s+){0,3}?das\s+(?:unveränderte\s+)?Original\b|\bOriginal\s+(?:unverändert|ohne\s+Änderung)"
    r"|原始(?:迷宫|图片|图像)|原图|(?:画像|写真)は元のまま|元の(?:画像|写真)のまま|원본\s*(?:그대로|이미지)")
_PART_ONLY = (
    r"\b(?:second|other|latter|first|remaining)\s+(?:part|half)\b|\b(?:that|this|the\s+\w+)\s+part\b[^.!?\n]{0,30}?\b(?:isn't|is\s+not|can't|cannot|not|didn't|wasn't)\b|\bshows\s+(?:\w+\s+){0,4}?only\b|\bonly\s+the\s+first\b"
    r"|\b(?:left|leave|leaving)\s+(?:that|it|this|them)\s+out\b|\bomitted\b|\bleft\s+(?:the|that|it)\s+(?:\w+\s+)?(?:where\s+(?:it|they)\s+(?:was|were)|as\s+(?:it|they)\s+(?:was|were))"
    r"|\b(?:didn't|did\s+not)\s+(?:move|change|draw|add|touch|do|make)\s+(?:it|that|them|this)\b"
    r"|\b(?:cette|la)\s+(?:deuxi[èe]me\s+|seconde\s+|autre\s+)?partie\b|\b(?:esa|la\s+otra|la\s+segunda)\s+parte\b|\b(?:der\s+zweite|dieser|den\s+zweiten)\s+Teil\b|\blasse\s+ich\s+weg\b|\bweggelassen\b"
    r"|这一?部分|那一?部分|第二部分|只有[^，。]{1,8}(?:$|。)|その部分|この部分|그\s*부분|두\s*번째\s*부분")
# something put in the result's place (also after a negation with no conclusion read: detect.py)
STAND_IN = re.compile(
    r"\bas\s+an\s+alternative\b|\balternatively\b|\binstead\s*,?\s+(?:i|we)(?:'ve|\s+have)?\s+\w+|\b(?:i|we)(?:'ve|\s+have)?\s+(?:drew|drawn|rendered|generated|made|posed|shown|showed|gave|painted)\b[^.!?\n]{0,80}?\binstead\b"
    r"|\binstead\s+of\s+the\s+(?:literal|exact|requested|impossible)\b|\b(?:my\s+)?(?:best|closest)\s+attempt\b"
    # in the other languages, with the act of making it ("stattdessen habe ich", not "stattdessen ist sie jetzt weiß")
    r"|\bcomo\s+alternativa\b|\ben\s+su\s+lugar\s*,?\s+(?:te\s+|le\s+|lo\s+|la\s+)?(?:he|propongo|muestro|dibuj\w+|hice)\b|\bà\s+la\s+place\s*,?\s+(?:je|j'|voici|nous)|\ben\s+remplacement\b"
    r"|\bstattdessen\s+(?:habe|hab|zeige|zeichne|liefere|gebe)\s+ich\b|\bersatzweise\b|作为替代|(?:代わりに|かわりに)[^。]{0,40}(?:描き|作り|作成|生成|しました)|대신[^.]{0,40}(?:만들었|그렸|했습니다|바꿨|돌려)",
    re.I)
IMAGE_NOT_THE_EDIT = re.compile(f"{_INPUT_RETURNED}|{_PART_ONLY}|{STAND_IN.pattern}", re.I)

# --- English cues ------------------------------------------------------------------------------------------

# In the clause before a match: hypothetical, hedge, intention to check, reported speech.
_HEDGE = re.compile(
    r"\b(?:if|whether|unless|suppose|supposing|assuming|assume|in\s+case|were|would|should|could|might|may|maybe|"
    r"perhaps|possibly|(?:it's|it\s+is|it\s+was|it\s+may\s+be|it\s+could\s+be)\s+(?:\w+\s+)?possible|probably|likely|unlikely|seems?|seemed|appears?|appeared|looks?|looked|looking|suspect|no\s+reason|wonder|uncertain|unsure|"
    r"not\s+(?:sure|certain|convinced)|conceivabl[ey]|conceivably|possible\s+that|chance|risk|check|verify|determine|see\s+if|test|"
    r"decide|state\s+that|say\s+that|stating|says|said|asks?\s+(?:me|us|to|whether|if|for)|asked\s+(?:me|us|to|whether|if|for)|reminds?|reminder|told|tells|call|calls|called|report|declare|"
    r"answer\s+that|instructions?\s+(?:say|says|state)|prompt|at\s+first|first\s+glance|initially|thought|worried|feared|fear|"
    r"hypothetically|imagine|pretend|claim|claims|someone|suggest|suggests|suggested|(?:going|about|tempted|ready)\s+to\s+(?:say|conclude|write|declare)|would\s+have\s+said|i'd\s+(?:say|have\s+said)|question\s+is|until|before|almost|nearly|hard\s+to\s+say|"
    r"i\s+guess|guess|doubt|unless)\b",
    re.I)
# Right before a match: a negation of it ("not impossible", "never said it was unsolvable").
_NEG_NEAR = re.compile(r"\b(?:not|never|no\s+longer|hardly|far\s+from|nothing|neither|nor|rather\s+than|instead\s+of|without)\b|n't\b", re.I)
# Where a clause starts (hedges are read back to here): punctuation, except a comma inside a coordinate.
_CLAUSE_START = re.compile(r",(?!\s*\d+\s*\))|[;:—–]|\s-\s|\b(?:so|therefore|thus|hence|consequently|but|yet|because|since|as|given\s+that|and\s+so|then|which\s+means|meaning|i\s+conclude|conclusion)\b|[，；：]", re.I)
# Negation is read back only to here (an "and" separates a reason from its conclusion).
_NEG_START = re.compile(r",(?!\s*\d+\s*\))|[;:—–]|\s-\s|\b(?:so|therefore|thus|hence|consequently|but|yet|because|since|as|and|then|or)\b|[，；：]", re.I)

_LOCAL = re.compile(
    r"^\s*(?:(?:leads?|goes|runs|passes|exists?|is\s+possible|is\s+available|works?)\s+)?(?:forward|further|onward|ahead|from\s+there|there\b|through|via|past|around|along|down|up|in\s+this(?!\s+(?:maze|grid|puzzle|map|image|picture|photo|scene|layout|configuration|case|instance|request|task|version)\b)|this\s+way|that\s+way|from\s+(?:here|this|that|there|\(|cell|position|row|col|the\s+(?:left|right|top|bottom|east|west|north|south))|"
    r"here\b|on\s+the\s+(?:left|right)|to\s+the\s+(?:left|right)|(?:left|right)ward|beyond|into|out\s+of\s+(?:this|that)|directly|on\s+this\s+side|in\s+that\s+direction|"
    r"(?:that|which)\s+(?:also|avoids?|keeps?|stays?|skips?|bypasses?|goes\s+around|passes\s+(?:through|by)|uses?|touches|crosses|includes?|leaves?)|"
    r"(?:also|while|besides|other\s+than|except|apart\s+from|avoiding|keeping|without))",
    re.I)
_LOCAL_SUBJECT = re.compile(
    r"\(\s*\d+\s*,\s*\d+\s*\)|\b(?:row|column|col|cell)\s+\d+|\b(?:route|path|way|branch|corridor|direction|move|step|option|turn|detour|left|right|up|down|north|south|east|west)s?\s+(?:via|through|along|past|into|around|down|up|from|to\s+the)\b"
    r"|\b(?:this|that|the\s+(?:left|right|upper|lower|top|bottom|east|west|north|south|first|second|third|last|current|other))\s+(?:branch|corridor|route|path|direction|option|attempt|approach|side|way)\b"
    r"|\b(?:going|moving|turning|continuing|heading)\s+(?:left|right|up|down|north|south|east|west|further|on)\b|\bdiagonal",
    re.I)
_ENDPOINT = re.compile(r"\b(?i:start|end|goal|red|green|target|exit|destination|finish|endpoints?|regions?|halves|two|both|it|entrance|cheese|flag|star|home|treasure|maze|puzzle|magenta|blue|yellow|orange|purple)\b|\b[A-Z]\b(?!\s*\d)")
# the same reasons in the other covered languages
_SAFETY_ML = re.compile(
    r"\b(?:harcel\w*|harc[èe]lement|violen(?:ce|t)|haine|vie\s+priv[ée]e|politique\s+d'utilisation|acos\w*|violencia|odio|privacidad|pol[íi]tica\s+de\s+uso|"
    r"bel[äa]stig\w*|Gewalt|Hass|Privatsph[äa]re|Richtlinien?|Nutzungsbedingungen)\b|骚扰|暴力|隐私|政策|嫌がらせ|暴力|プライバシー|ポリシー|괴롭|폭력|개인\s*정보|정책", re.I)
_SAFETY = re.compile(
    r"\b(?:violen\w*|sexual\w*|nud\w*|harm(?:ful|s)?|harass\w*|hate\w*|polic(?:y|ies)|guidelines?|inappropriate|offensive|"
    r"unsafe|weapons?|consent|privacy|copyright\w*|misleading|explicit|self-harm|public\s+figure|real\s+person|identifiable|"
    r"terms\s+of\s+(?:service|use)|private|medical\s+(?:information|records?|data)|personal\s+(?:data|information)|deceive|deceptive|disinformation|misinformation|deepfake|comfortable|ethic\w*)\b",
    re.I)
# What a conclusion of "impossible to X" is about when X is a perception or a rule, not the task.
_IDIOM_VERB = re.compile(
    r"(?:move|moving|go|pass|cross|jump|step|enter|leave|walk|tell|know|say|see|miss|ignore|determine|judge|be\s+sure|verify|read|misread|"
    r"misunderstand|misinterpret|mistake|notice|overlook|overstate|overstress|exaggerate|stress|emphasi[sz]e|resist|predict|avoid|"
    r"use\s+(?:a\s+)?diagonal|confuse|get\s+(?:this|it|that)\s+wrong|go\s+wrong|forget|deny|argue|improve|beat|describe|put\s+into\s+words|imagine|"
    r"continue|proceed|turn|head|advance|keep\s+going|fit\s+(?:it|that)\s+in)\b",
    re.I)
_CAPABILITY = re.compile(
    r"\b(?:generat\w*|produc\w*|output\w*|creat\w*|render\w*|return\w*|send\w*|draw\w*|mak\w*|display\w*|attach\w*)\s+(?:any\s+|actual\s+|real\s+)?(?:images|pictures|graphics|photos|visuals|drawings|illustrations|pixels|visual\s+output)\b"
    r"|\b(?:image\s+(?:output|generation|tool|editing\s+tool|model|capabilit\w*)|(?:my|the)\s+tools?|this\s+(?:mode|interface|chat|environment|setting)|capabilit\w*|disabled|"
    r"unavailable|not\s+supported|text-only|text\s+only|only\s+(?:describe|output|return|produce|write)\s+text|as\s+a\s+(?:text|language)\s+model|motion\s+blur)\b",
    re.I)
_CAPABILITY_ML = re.compile(
    r"\b(?:d'|des\s+|une\s+|l')?animations?\b|\banimaci[óo]n(?:es)?\b|\bAnimation(?:en)?\b|\bvid[ée]os?\b|\bGIFs?\b|动画|视频|アニメーション|動画|애니메이션|동영상|"
    r"(?:이미지|그림|사진)(?:를|을)?\s*(?:생성|출력|만들)(?:할\s*수\s*없|하지\s*못)|"
    r"(?:无法|不能|没法|没办法)(?:直接|在这里|在此)?(?:生成|输出|产生|画出?)(?:图片|图像)|画像を(?:生成|出力)(?:でき|する(?:こと)?ができ)(?:ない|ません)|"
    r"ne\s+(?:peux|puis|pouvons|peut)\s+pas\s+(?:g[ée]n[ée]rer|produire|cr[ée]er|dessiner)\s+(?:des\s+|d'|les\s+)?images?|"
    r"no\s+(?:puedo|podemos)\s+(?:generar|crear|producir|dibujar)\s+im[áa]genes|no\s+(?:genero|produzco|creo|dibujo)\s+im[áa]genes|je\s+ne\s+(?:g[ée]n[èe]re|produis|cr[ée]e|dessine)\s+pas\s+d'images\b|(?:erzeuge|generiere|erstelle)\s+(?:ich\s+)?keine\s+Bilder|"
    r"(?:kann|k[öo]nnen)\s+(?:\w+\s+){0,3}keine\s+Bilder|"
    r"non\s+posso\s+(?:generare|creare)\s+immagini|n[ãa]o\s+posso\s+(?:gerar|criar)\s+imagens", re.I)
# After a "no X": the sentence goes on to say the request itself is fine (a narrower property)
_NARROWER_AFTER = re.compile(
    r"\b(?:but|though|although|however|yet|which\s+is\s+(?:fine|ok|okay|acceptable)|that's\s+(?:fine|ok|okay))\b[^.;]{0,80}?"
    r"(?:\b(?:the\s+)?(?:instruction|request|task|prompt|rules?|user)\s+(?:does(?:n't|\s+not)|only|never|just|did(?:n't|\s+not))"
    r"|\b(?:isn't|is\s+not|not|aren't|wasn't|was\s+not|never)\s+(?:required|needed|asked|necessary|part\s+of|requested|demanded|specified|mentioned|what\s+(?:was|is)\s+asked)|\bnothing\s+(?:says|requires|asks)"
    r"|\b(?:meets|satisfies|fulfils|fulfills|works?|connects|reaches|is\s+easy|is\s+fine|is\s+doable|is\s+possible|exists|is\s+open)\b"
    r"|\bthe\s+(?:requested|asked|lower|upper|other|left|right|second|main)\b)"
    r"|\b(?:which|that)\s+is\s+(?:fine|ok|okay|acceptable|not\s+required|not\s+needed)\b|\bthat's\s+(?:fine|ok|okay)\b"
    r"|\bbut\s+(?:one|this\s+one|the\s+\w+\s+one|another|the\s+last|the\s+other)\s+(?:does|do|works|can|is\s+open|gets\s+through|reaches)\b",
    re.I)
# Right after a conclusion: a condition or a time qualifier ("cannot be done without ...", "impossible at first")
_CONDITION_AFTER = re.compile(r"^\W*(?:is|was|would\s+be)\s+what\s+(?:i|we|one)(?:'d|\s+would|\s+might|\s+thought|\s+first)|^\s*,?\s*(?:without(?!\s+(?:breaking|violating|crossing|going\s+through|passing\s+through|breaching|contradicting|ignoring|bending|changing|breaking)\b)|on\s+(?:my|the|a)\s+first\s+(?:pass|try|attempt|look)|unless|except|if|while\s+also|at\s+first|initially|at\s+first\s+glance|on\s+the\s+surface|in\s+(?:this|that|the\s+\w+)\s+(?:version|case|variant))\b", re.I)
# After "no X": "is perfect", "is diagonal", "is needed" (a property of the items, not existence)
_PROPERTY_AFTER = re.compile(
    r"^\s*(?:[\w'-]+\s+){0,4}?(?:is|are|was|were|looks?|seems?)\s+(?!possible\b|valid\b|feasible\b|available\b|left\b|viable\b|achievable\b|"
    r"acceptable\b|able\b|allowed\b|legal\b|reachable\b|found\b|open\b|there\b|consistent\b|compatible\b|satisf|correct\b|workable\b|doable\b)\w+", re.I)
_ACT_KINDS = ("decline_act", "no_room", "referent", "substitute", "inability")
# "a shorter path doesn't exist", "no better solution than this", "no other arrangement beats it": optimality
_COMPARATIVE_BEFORE = re.compile(r"\b(?:shorter|better|faster|quicker|simpler|cleaner|cheaper|nicer|more\s+\w+|easier|best|shortest|optimal)\s+(?:\w+\s+)?$|\b(?:shorter|better|faster|quicker|simpler|cleaner|easier)\s+(?:\w+\s+)?(?:path|route|solution|way|arrangement|option|answer|version)s?\b", re.I)
_BEATS_AFTER = re.compile(r"^\s*(?:\w+\s+){0,3}?(?:beats?|than\b|is\s+(?:better|shorter|simpler)|improves?\s+on|would\s+be\s+(?:better|shorter))", re.I)
# "impossible-looking", "an impossible angle" (a non-task noun right after)
_FIGURATIVE_AFTER = re.compile(r"^-?(?:looking|seeming|sounding)\b", re.I)
_ATTRIBUTIVE_BEFORE = re.compile(r"\b(?:an?|almost|nearly|near|most|so|quite|truly|seemingly|an\s+almost|an\s+utterly)\s*$", re.I)
_NON_TASK_NOUN_AFTER = re.compile(
    r"\s+(?!(?:task|request|edit|demand|ask|combination|scene|situation|constraint|instruction|requirement|condition|puzzle|maze|job|order|"
    r"brief|setup|premise|target|goal|result|outcome|state|configuration|arrangement|layout|pose|position|image|picture|version|edit)s?\b)[a-z]\w+", re.I)
_REASON = re.compile(r"\b(?:because|since|as|given|due\s+to|for)\b|:|—|–", re.I)
_INVERTED_CONDITIONAL = re.compile(r"^(?:should|were|had)\s+(?:the|it|this|that|there|a|an|any|we|i)\b[^,]*,", re.I)
_HAS_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_JSON_TRUE_VERDICT = re.compile(
    r"\"(?:feasible|feasibility|is_feasible|possible|solvable|doable|can_(?:be_)?(?:done|solved|edit|draw|complete)|achievable|reachable|"
    r"faisable|r[ée]alisable|factible|posible|machbar|l[öo]sbar|m[öo]glich|fattibile|vi[áa]vel|可行|可解|実行可能)\"\s*:\s*(false|\"(?:no|false|infeasible|impossible)\"|true|\"(?:yes|true|feasible)\")"
    r"|\"(?:decision|verdict|action|conclusion|status|result|answer|outcome|estado|veredicto|statut|d[ée]cision|Entscheidung|Urteil|結論|判定|状态|结论|판정|결론)\"\s*:\s*"
    r"\"(declin\w*|refus\w*|abstain\w*|infeasible|impossible|unsolvable|unreachable|no[ _-]?solution|no[ _-]valid[ _-]\w+|no[ _-](?:realizable|realisable|factible|posible|feasible|possible)|not[ _-](?:feasible|possible|doable)|infaisable|irr[ée]alisable|imposible|unm[öo]glich|edit|draw|generate|feasible|solvable|proceed)\"",
    re.I)


class _Sentence:
    """One sentence, with its clause and negation starts found once (linear work per sentence)."""

    __slots__ = ("text", "clause_starts", "neg_starts", "dq", "cq_open", "cq_close", "sq_open", "sq_close")

    def __init__(self, text: str):
        self.text = text
        self.clause_starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, len(text))]
        self.neg_starts = [m.end() for m in _NEG_START.finditer(text, 0, len(text))]
        self.dq = [i for i, c in enumerate(text) if c == '"']
        if self.dq and self.dq[0] == 0 and re.match(r'"(?:\s|[—–\-,;:)]|$)', text):
            self.dq.pop(0)  # the closing quote of the sentence before (it ended inside the quotation)
        self.cq_open = [i for i, c in enumerate(text) if c == "“"]
        self.cq_close = [i for i, c in enumerate(text) if c == "”"]
        self.sq_open = [m.end() - 1 for m in re.finditer(r"(?:^|[\s:(])'", text)]
        self.sq_close = [m.start() for m in re.finditer(r"'(?=[\s.,;:!?)]|$)", text)]

    def clause_prefix(self, pos: int) -> str:
        i = bisect.bisect_right(self.clause_starts, pos) - 1
        start = self.clause_starts[i] if i >= 0 else 0
        return self.text[start:pos] if start <= pos else ""

    def near_prefix(self, pos: int) -> str:
        i = bisect.bisect_right(self.neg_starts, pos) - 1
        start = self.neg_starts[i] if i >= 0 else 0
        start = max(start, pos - 60)
        return self.text[start:pos] if start <= pos else ""

    def inside_quotes(self, pos: int) -> bool:
        if bisect.bisect_left(self.dq, pos) % 2 == 1:
            return True
        if bisect.bisect_left(self.cq_open, pos) > bisect.bisect_left(self.cq_close, pos):
            return True
        return bisect.bisect_left(self.sq_open, pos) > bisect.bisect_left(self.sq_close, pos)


_NO_REASON = "a refusal without a stated reason (could be for any reason)"
# A sentence that only denies existence, its noun in the sentence before ("There isn't one.", "None exists.")
_NONE_EXISTS = re.compile(r"^\W*(?:(?:and\s+|but\s+|so\s+)?there\s+(?:isn't|is\s+not|wasn't|was\s+not|aren't|are\s+not)\s+(?:one|any)|"
                          r"(?:and\s+|but\s+)?there(?:'s|\s+is)\s+none|none\s+exists?|no\s+such\s+\w+\s+exists?)\W*$", re.I)
# ... whose noun is the result asked for
_RESULT_NOUN = re.compile(r"\b(?:way|solution|arrangement|path|route|layout|placement|pose|ordering|order|version|configuration|answer|edit)s?\b", re.I)
# ... and not a better or another one than one found (optimality, uniqueness)
_COMPARED = re.compile(r"\b(?:\w+er\s+(?:way|solution|arrangement|path|route|layout|placement|pose|order|version)|better|other|another|alternative|else|more|fewer|less)\b", re.I)
_YOU_ASKED = re.compile(r"\b((?:the|this|that|an?|your)\s+(?:\w+\s+){0,2}?\w+\s+)(?:that\s+|which\s+)?you\s+(?:asked|requested|wanted)(?:\s+for)?\b", re.I)


_BUT = re.compile(r"\b(?:but|however)\b", re.I)


def _own_clause(sentence: str, start: int, end: int) -> str:
    """The part of ``sentence`` around [start, end) between the nearest "but" / "however" on each side."""
    before = [b.end() for b in _BUT.finditer(sentence, 0, start)]
    after = _BUT.search(sentence, end)
    return sentence[before[-1] if before else 0: after.start() if after else len(sentence)]


def _check_en(kind: str, s: _Sentence, m: re.Match) -> str:
    """'' when an English match counts, else why it does not."""
    sentence, start = s.text, m.start()
    matched = m.group(0)
    # the pattern may start with a connective or punctuation: judge from the conclusion word on
    lead = re.match(r"^(?:[,;:—–(]\s*|(?:so|thus|hence|therefore|and|but|then|since|because|as|that|conclusion|answer|verdict|result|short)\s+)", matched, re.I)
    if lead:
        start += lead.end()
    prefix = s.clause_prefix(start)
    # "the pose you asked for isn't ...": a relative clause naming the request, not reported speech
    cue = _HEDGE.search(_YOU_ASKED.sub(r"\1", prefix))
    if cue:
        return f"'{cue.group(0)}' before it in the clause (hypothetical, hedged or reported)"
    near = s.near_prefix(start)
    if kind in _ACT_KINDS:  # the pattern holds its own negation: only a negation right before undoes it
        near = " ".join(near.split()[-1:])
    neg = _NEG_NEAR.search(near)
    if neg and neg.group(0).lower() == "without" and re.search(r"\bwithout\s+\w+ing\b", near, re.I):
        neg = None  # "without shrinking": a condition on the subject, not a negation of the conclusion
    if neg:
        return f"'{neg.group(0)}' right before it (negated)"
    if s.inside_quotes(start):
        return "inside quotation marks"
    after = sentence[m.end():m.end() + 160]
    # "can't be in two places at once, so if you wanted it both …": what follows is a condition on what was meant
    if re.match(r"[^.;!?]{0,40}?\b(?:so\s+)?if\s+you\s+(?:wanted|meant|want|mean|asked|intended)\b", after, re.I):
        return "a condition on what the request meant follows (a hypothetical reading), not a conclusion"
    # "impossible not to smile": a double negation says "certainly", about a feeling, not the task
    if kind in ("adjective", "plain") and re.match(r"\s+(?:for\s+\w+\s+)?not\s+to\b", after, re.I):
        return "an idiom (impossible not to ...: a double negation)"
    # "..., I'd have said — but", "impossible, I thought": reported after the match, not concluded
    if re.match(r"[^.;:!?]{0,40}?,\s*(?:i'd|i\s+would|one\s+would|you'd|you\s+would|i)\s+(?:have\s+)?(?:said|thought|think|assumed|guessed)\b", after, re.I):
        return "reported right after it (what one would have said), not concluded"
    # "impossible to misread", "no way to get this wrong": the verb right after the match, or ending it
    to_verb = re.match(r"\s+(?:for\s+(?:me|us|you|anyone|the\s+model|it)\s+)?to\s+(\w+(?:\s+\w+){0,2})", after)
    verb = to_verb.group(1) if to_verb else ""
    if not verb:
        inner = re.search(r"\bto\s+(\w+)$", matched)
        verb = inner.group(1) + after[:30] if inner else ""
    if kind == "referent" and re.search(r"\b(?:need|needs|needed|has|have|had|got|want|wants|wanted|ought|used|is|are)\s+to\s+\w+$", matched, re.I):
        return "a necessity or a plan ('no other objects need to move'), not a missing referent"
    if verb and _IDIOM_VERB.match(verb) and kind not in ("referent", "no_room"):  # "no dog to move", "nowhere to go": these rules list their own verbs
        return f"'{matched} to {verb}' is an idiom or about a rule or one move, not the task"
    if _NARROWER_AFTER.search(after):
        return "a narrower property than the request (the rest of the sentence says the request itself is fine)"
    if _CONDITION_AFTER.match(after) or (kind not in _ACT_KINDS and re.search(r"\binstead\b", after, re.I)):
        return "a condition, or one option among others (not the task)"
    if kind in ("noun", "noun_lead", "plain", "reach") and (_COMPARATIVE_BEFORE.search(matched) or re.search(r"\b(?:better|shorter|simpler|faster|quicker)\s+than\b", sentence, re.I) or _COMPARATIVE_BEFORE.search(sentence[max(0, start - 30):start])
                                                           or _BEATS_AFTER.match(after)):
        return "about a better or other solution than one that exists (optimality), not that none exists"
    if kind == "adjective" and (_FIGURATIVE_AFTER.match(after) or (_ATTRIBUTIVE_BEFORE.search(prefix) and _NON_TASK_NOUN_AFTER.match(after))):
        return "a figurative use (an impossible angle, an impossible-looking finish), not the task"
    if kind in ("noun", "noun_lead") and re.search(r"\b(?:other|alternative|second|different|another)\s+(?:\w+\s+)?\w+$", matched, re.I):
        return "no other solution than one found (uniqueness), not that none exists"
    if kind in ("noun", "noun_lead") and re.search(r"\b(?:the|a|its|this\s+is\s+the)\s+(?:unique|only|sole|one\s+and\s+only)\s+(?:valid\s+)?(?:solution|path|route|way|answer|arrangement)\b", after, re.I):
        return "the sentence goes on to the only solution (one exists): a narrower property, not that none exists"
    if kind in ("noun", "noun_lead"):
        if kind in ("noun", "noun_lead") and _PROPERTY_AFTER.match(after):
            return "says something about the items, not that none exists"
        if _LOCAL.match(after) and (re.search(r"\bbut\b|\bhowever\b|\bthough\b|\bstill\b|\bso\s+i\b|\bwhich\s+is\s+fine\b", after, re.I) or re.search(r"\b(?:paths?|routes?|ways?|passages?|corridors?)\b", matched, re.I)):
            return "narrowed to one place or a narrower property (not the task)"
        if re.search(r"\b(?:paths?|routes?|ways?|passages?)\s+(?:through|via|past|along|around)\b", matched, re.I):
            return "narrowed to one place (a failed attempt)"
    if kind == "adjective":
        if _LOCAL_SUBJECT.search(prefix) or re.match(r"\s+(?:to|from|at|via|through|in)\b[^.;:]{0,30}?(?:\(\s*\d+\s*,\s*\d+\s*\)|\b(?:row|column|col|cell)\s+\d+)", after):
            return "about one route, cell or move, not the task (a failed attempt or a rule)"
        if re.match(r"\s+for\s+(?:me|us)\b", after, re.I) and _CAPABILITY.search(sentence):
            return "about the model's own capability, not the task"
        if re.search(r"(?:unreachable|not\s+reachable|not\s+accessible|not\s+connected)$", matched, re.I):
            subject = sentence[:start][-60:]
            if _LOCAL.match(after) or re.search(r"\(\s*\d+\s*,\s*\d+\s*\)|\b(?:cell|row|column|square|corner|area)\s+\d", subject) or not _ENDPOINT.search(subject):
                return "a cell other than the goal is unreachable"
        if re.match(r"\s+(?:thing|things|dream|mission|standard|task\s+of)\b", after, re.I):
            return "an idiom"
    if kind == "participle" and re.search(r"(?:reached|connected|entered|accessed)$", matched, re.I):
        subject = prefix[-40:]
        if _LOCAL.match(after) or _LOCAL_SUBJECT.search(subject) or not _ENDPOINT.search(subject):
            return "a cell other than the goal cannot be reached (local)"
    if kind == "reach":
        subject = sentence[:start][-60:]
        if not _ENDPOINT.search(after[:50]) or _LOCAL_SUBJECT.search(subject) or _LOCAL_SUBJECT.search(after[:50]):
            return "not about reaching the goal from the start"
    if kind == "found_none" and re.search(r"\b(?:yet|so\s+far|at\s+the\s+moment|right\s+now|immediately|at\s+first|first\s+(?:pass|try|attempt|look)|initially)\b", after, re.I):
        return "not found yet (a search in progress)"
    if kind == "participle" and re.match(r"\s+(?:enough|too\s+much|in\s+words)\b", after, re.I):
        return "an idiom"
    if kind == "endpoint" and not _ENDPOINT.search(prefix[-60:] or sentence[:start]):
        return "not about the start or the goal"
    if kind == "all_fail" and not re.search(r"\b(?:goal|end|target|exit|red|finish|destination|start|so|hence|which\s+means|therefore|thus|alternative|variation|option|possibilit)\w*", sentence, re.I):
        return "not about the start or the goal"
    if kind == "decline_act" and re.search(r"\b(?:can't|cannot|can\s+not|unable|not\s+able|couldn't|could\s+not)\b", matched, re.I) \
            and re.search(r"\b(?:it|this|that|them|anything|one)$", matched, re.I):
        # "I can't do that": an ability to do "that", with no reason, could be a refusal for any reason
        clause = re.split(r"[,;]|\b(?:but|so|however|instead)\b", after, maxsplit=1)[0]
        if not _REASON.search(clause):
            return _NO_REASON
    if kind == "substitute" and re.search(r"\b(?:first|earlier|previous|initial|draft|sketch\s+\d|attempt\s+\d)\b", sentence[max(0, start - 50):start], re.I):
        return "an earlier draft that does not satisfy (a step), not the result"
    if kind == "decline_act" and re.search(r"\bbut\s+(?:here(?:'s|\s+is|\s+it\s+is)|i(?:'ve|\s+have)\s+(?:drawn|made|done|applied|edited)|the\s+(?:edit|image)\s+(?:is|below))", after, re.I):
        return "declines a quality or a part, then gives the result (the sentence goes on to it)"
    if kind == "no_room" and (_LOCAL.match(after) or re.match(r"\s+(?:there|here|on\s+(?:the|that|this)\s+\w+\s+side|at\s+(?:the|that)\s+\w+)\b", after, re.I)):
        return "no room in one place (a failed attempt), not for the result"
    if kind == "first_person":
        if _CAPABILITY.search(sentence):
            return "a refusal because of the model's own tooling, not infeasibility"
        clause = re.split(r"[,;]|\b(?:but|so|however|instead)\b", after, maxsplit=1)[0]
        if not _REASON.search(clause):
            return _NO_REASON
    if kind == "inability" and _CAPABILITY.search(sentence):
        return "about the model's own capability, not the task"
    if kind == "allow" and re.search(r"\b(?:instructions?|rules?|request|prompt|task|brief|you)\b", sentence[:start], re.I):
        return "restates what the request or its rules allow, not a constraint of the world"
    # the capability is read in the match's own clause: "I'm text-only, so I can't edit images — but this edit has no
    # valid version" concludes about the task after its "but"
    own = _own_clause(sentence, start, m.end())
    if kind in ("adjective", "participle", "plain", "noun", "noun_lead", "first_person", "contradiction", "decline_act") and _CAPABILITY.search(own) and re.search(r"\b(?:i|me|my|we)\b", own, re.I) and not re.search(r"\b(?:because|since|as)\b[^.]{0,80}\b(?:wall|contradict|both|missing|absent|no\s+)", own, re.I):
        return "about the model's own capability, not the task"
    if _SAFETY.search(sentence) or _SAFETY_ML.search(sentence):
        return "a refusal for a safety or policy reason, not infeasibility"
    if _RETRACT_SAME.search(after[:120]):
        return "retracted in the same sentence"
    return ""


def _check_ml(s: _Sentence, m: re.Match) -> str:
    sentence = s.text
    start = max(0, m.start() - 40)
    prefix = sentence[start:m.start()]
    # the clause: back to the last comma-like mark
    cut = max(prefix.rfind(c) for c in ",，;；:：")
    if cut >= 0:
        prefix = prefix[cut + 1:]
    # searched in place (pos, endpos), not on a slice: a slice that starts inside a word ("lais|se") would make
    # its end a word of its own ("se", Italian "if")
    pstart = m.start() - len(prefix)
    cue = _ML_BLOCK_BEFORE.search(sentence, pstart, m.start()) or _ML_CONDITIONAL.search(sentence, max(0, m.start() - 80), m.start())
    if cue:
        return f"'{cue.group(0)}' before it (hedged, conditional or negated)"
    if _ML_NEG_BEFORE.search(prefix):
        return "negated"
    if _ML_NEG_OF_THING.match(sentence, m.end()):
        return "negated (nothing that is impossible: 편집 불가능한 부분은 없습니다)"
    if _ML_ADJ.search(m.group(0)) and (_ML_NEG_DETERMINER.search(prefix) or _ML_NEG_AFTER.match(sentence[m.end():m.end() + 60])):
        return "negated (no such thing, or the negation follows the verb)"
    if _ML_LOCAL_SUBJECT.search(prefix) and not _ML_UNIVERSAL.search(prefix):
        return "about one named route (a local dead end), not the task"
    cstart = max([m.start() - 30] + [sentence.rfind(c, 0, m.start()) + 1 for c in ";；–—"])  # not past a ";" or a dash
    if _ML_COMPARATIVE.search(sentence, max(0, cstart), m.end() + 30):
        return "about a better or shorter solution than one that exists (optimality)"
    if _ML_ADJ.search(m.group(0)) and _ML_FIGURATIVE_BEFORE.search(sentence[max(0, m.start() - 40):m.start()]):
        return "a figurative use (a colour or a look described as impossible), not the task"
    if _ML_BLOCK_AFTER.match(sentence[m.end():m.end() + 20]):
        return "a question or a hedge"
    if _ML_NARROWER_AFTER.match(sentence[m.end():m.end() + 140]):
        return "a narrower property (the sentence goes on to a way that works)"
    after = sentence[m.end():m.end() + 60]
    if re.match(r"\s*(?:à|de|d')\s*(?:mal\s+)?(?:comprendre|rater|manquer|ignorer|confondre|malinterpr|dire|savoir)|\s*de\s+(?:malinterpretar|ignorar|confundir|pasar\s+por\s+alto|decir|saber)|\s*(?:misszuverstehen|zu\s+übersehen|zu\s+sagen)|(?:误解|弄错|看错|忽视)|(?:誤解し|見逃)", after, re.I) or re.search(r"(?:misszuverstehen|zu\s+übersehen)", sentence[m.end():m.end() + 60], re.I):
        return "an idiom"
    # "Impossible de ne pas craquer", "imposible no sonreír", "unmöglich, nicht zu lächeln": a double negation
    if re.match(r"\s*(?:,\s*)?(?:de\s+ne\s+pas|d'[ée]viter\s+de|no\s+\w+(?:r|rse)\b|nicht\s+zu)\b", after, re.I):
        return "an idiom (impossible not to ...: a double negation)"
    if _CAPABILITY_ML.search(sentence) and not re.search(r"矛盾|壁|墙|contradi|mur|pared|Wand", sentence):
        return "about the model's own capability"
    if _SAFETY.search(sentence) or _SAFETY_ML.search(sentence):
        return "a safety refusal"
    if _RETRACT_SAME.search(sentence[m.end():m.end() + 80]):
        return "retracted in the same sentence"
    return ""


_EN_WORDS = re.compile(r"\b(?:the|is|are|it|and|to|of|this|that|there|no|not|can't|cannot|so|be|i|a|an|with|from|for)\b", re.I)
_OTHER_WORDS = re.compile(r"\b(?:le|la|les|est|et|de|des|un|une|il|pas|ne|el|los|las|es|y|que|no|en|una|der|die|das|ist|und|nicht|ein|eine|es|zu|il|di|che|non|o|os|as|um|uma|não|é|rien|dans|avec|pour|muy|con|para|auch|mit|für|sehr)\b", re.I)


def _looks_english(sentence: str) -> bool:
    return len(_EN_WORDS.findall(sentence)) >= len(_OTHER_WORDS.findall(sentence))


@dataclass(frozen=True)
class RuleResult:
    refused: bool
    evidence: str
    rule: str
    why: str
    rejected: tuple[tuple[str, str], ...]
    json_verdict: bool | None  # a JSON field such as "feasible": false (True = concludes infeasible)
    strength: int  # 0 none, 1 a weak pattern (all routes fail, first person), 2 a strong one
    spans: tuple[tuple[int, int], ...] = ()  # the analysed sentences
    per_sentence: tuple[tuple[str, str, str, str], ...] = ()  # rule_sentences() of those sentences


_WEAK_RULES = {"all_fail", "first_person"}


# The covered languages besides English whose patterns are _ML_PATTERNS' (language.COVERED; not imported: rules
# come first). A sentence the identifier puts in one of them is read by those patterns whatever its word count.
_ML_LANGUAGES = frozenset({"fr", "es", "de"})


_NO_APOSTROPHE = re.compile(r"\b(can|don|doesn|won|isn|aren|wasn|weren|couldn|wouldn|shouldn|didn|haven|hasn)t\b|\b(there|that|it)s\b(?=\s+(?:no|not|nothing|none|really|just|simply)\b)", re.I)


def _with_apostrophe(m: re.Match) -> str:
    return f"{m.group(1)}'t" if m.group(1) else f"{m.group(2)}'s"


def _sentence_rule(raw: str, language: str = "") -> tuple[str, str, str, str]:
    """(status, rule, kind_or_why, matched): status "fired", "rejected" or "" for one sentence. ``language``: the
    sentence's language as the identifier reads it ("" when not known or too short): the function-word count
    below takes short words of other languages for English ("no hay a quién editar": "no", "a"), so a sentence
    identified as French, Spanish or German is read by their patterns too."""
    if not WORD_LETTERS.search(raw):  # punctuation, numbers, coordinates: nothing to conclude
        return ("", "", "", "")
    stripped = raw.rstrip(" *_\"')]}")
    if stripped.endswith(("?", "？", "か")) or _INVERTED_CONDITIONAL.match(raw):
        return ("rejected", "", "a question or a conditional", "") if _ANY_CONCLUSION_WORD.search(raw) else ("", "", "", "")
    s = _Sentence(raw)
    why = ""
    cjk = bool(_HAS_CJK.search(raw))
    en, other = (len(_EN_WORDS.findall(raw)), len(_OTHER_WORDS.findall(raw))) if not cjk else (0, 1)
    if cjk and len(_EN_WORDS.findall(raw)) >= 4:  # code-switched: "ピッチャーが見当たりません — there's no pitcher …"
        en, other = 1, 0
    english = en >= other
    if english and _HYPOTHETICAL_START.match(raw):
        return ("rejected", "", "a hypothetical (suppose / imagine / assume ...)", "") if _ANY_CONCLUSION_WORD.search(raw) else ("", "", "", "")
    # typed without apostrophes ("cant", "theres", "doesnt"): read as written with them (the evidence stays the raw sentence)
    fixed = _NO_APOSTROPHE.sub(_with_apostrophe, raw) if english else raw
    for text_read, sent in ((raw, s),) + (((fixed, _Sentence(fixed)),) if fixed != raw else ()):
        for rule, pattern, kind in (_EN_PATTERNS if english else ()):
            for m in pattern.finditer(text_read):
                problem = _check_en(kind, sent, m)
                if not problem:
                    return "fired", rule, kind, m.group(0)
                why = why or f"{rule}: {problem}"
    if (en <= other or language in _ML_LANGUAGES or cjk) and not why:  # not clearly English, and nothing English was ruled out
        for rule, pattern, kind in _ML_PATTERNS:
            for m in pattern.finditer(raw):
                problem = _check_ml(s, m)
                if not problem:
                    return "fired", rule, kind, m.group(0)
                why = why or f"{rule}: {problem}"
    return ("rejected", "", why, "") if why else ("", "", "", "")


_HYPOTHETICAL_START = re.compile(r"^\W*(?:suppose|supposing|assume|assuming|imagine|hypothetically|let's\s+say|say\s+that|in\s+the\s+infeasible\s+(?:version|twin|variant)|in\s+a\s+(?:different|variant|hypothetical)|for\s+example|for\s+instance|e\.g\.)\b", re.I)
_FEASIBILITY_QUESTION = re.compile(r"^\W*(?:(?:is|was)\s+(?:it|this|the\s+\w+(?:\s+\w+)?)\s+)?(?:really\s+)?(?:feasible|possible|solvable|doable|achievable|reachable|satisfiable|solvable\s+at\s+all)\W*\?\W*$|^\W*can\s+(?:it|this|the\s+\w+(?:\s+\w+)?)\s+be\s+(?:done|solved|reached|drawn|made|completed)\W*\?\W*$", re.I)
_NO_ANSWER = re.compile(r"^\W*no\b(?!\s*,?\s*(?:wait|doubt|problem|worries|issue))", re.I)
_ANY_CONCLUSION_WORD = re.compile(r"impossib|infeasib|unsolvab|unreachab|no\s+(?:valid\s+)?(?:path|solution|route|way)|无解|不可能|无法|不可能|imposib|unmöglich|keine?\s+Lösung", re.I)


def rule_sentences(text: str, spans: list[tuple[int, int]], language_of=None) -> list[tuple[str, str, str, str]]:
    """Per sentence of ``spans``: (status, rule, kind or why, matched); a fired conclusion that the
    next three sentences retract becomes "rejected". ``language_of``: sentence -> its language ("" when not
    known; language.sentence_language), None to read by the function-word count alone."""
    out = [_sentence_rule(text[a:b], language_of(text[a:b]) if language_of else "") for a, b in spans]
    for i in range(1, len(spans)):  # "There is no baby to depict then. I can't generate that.": the reason is the sentence before
        status, _rule, why, _m = out[i]
        before = text[spans[i - 1][0]:spans[i - 1][1]]
        if status == "rejected" and why.endswith(_NO_REASON) and (NEGATION.search(before) or _ANY_CONCLUSION_WORD.search(before)) \
                and not (_CAPABILITY.search(before) or _SAFETY.search(before) or _HYPOTHETICAL_START.match(before)):
            out[i] = ("fired", "declines", "decline_act", text[spans[i][0]:spans[i][1]])
    for i in range(1, len(spans)):  # "I looked for a way to seat all ten. There isn't one.": the noun is the sentence before
        before = text[spans[i - 1][0]:spans[i - 1][1]]
        if not out[i][0] and _NONE_EXISTS.match(text[spans[i][0]:spans[i][1]]) and _RESULT_NOUN.search(before) \
                and not (_COMPARED.search(before) or _HYPOTHETICAL_START.match(before) or before.rstrip().endswith("?")):
            out[i] = ("fired", "no_solution", "plain", text[spans[i][0]:spans[i][1]])
    for i in range(len(spans) - 1):  # "Feasible? No."
        if _FEASIBILITY_QUESTION.match(text[spans[i][0]:spans[i][1]]) and _NO_ANSWER.match(text[spans[i + 1][0]:spans[i + 1][1]]):
            out[i + 1] = ("fired", "verdict", "verdict", text[spans[i + 1][0]:spans[i + 1][1]])
    for i, (status, rule, kind, matched) in enumerate(out):
        if status == "fired":
            following = [text[x:y] for x, y in spans[i + 1: i + 4]]
            if any(_RETRACT.search(f.lstrip(" *_-\"'")) for f in following):
                out[i] = ("rejected", rule, f"{rule}: retracted in the next sentences", matched)
    return out


def json_verdict(text: str) -> bool | None:
    """A JSON field that states the verdict ("feasible": false, "decision": "decline", ...): True when it
    says infeasible, False when it says feasible, None when there is none (the last one wins)."""
    verdict = None
    for a, b in analysed_spans(text):
        for jm in _JSON_TRUE_VERDICT.finditer(text, a, b):
            v = (jm.group(1) or jm.group(2) or "").strip('"').lower()
            verdict = v in ("false", "no", "infeasible", "impossible", "unsolvable", "unreachable", "infaisable", "imposible") or v.startswith(
                ("declin", "refus", "abstain", "no_solution", "no solution", "nosolution", "no-solution", "no_valid", "no-valid", "no valid",
                 "no_", "no-", "not_", "not-", "irr", "unm"))
        for jm in _JSON_BOOL_FIELD.finditer(text, a, b):  # "path_found": false, "valid_output_exists": false
            said = _json_key_verdict(jm.group(1), jm.group(2).strip('"').lower() in ("true", "yes"))
            verdict = said if said is not None else verdict
    return verdict


# A boolean field whose name states that a valid result exists or is reachable, in any wording of the key:
# "path_found", "end_reachable", "valid_output_exists", "solucionavel", "is_possible" (and their negations).
_JSON_BOOL_FIELD = re.compile(r"\"([^\"\n]{1,40})\"\s*:\s*(false|true|\"(?:no|yes|false|true)\")", re.I)
_KEY_FEASIBLE = re.compile(r"feasib|possib|solv|soluc|l[öo]sbar|machbar|faisab|r[ée]alisab|factib|posib|fattib|vi[áa]vel|doab|achiev|satisf|reach|alcanzab|atteignab|erreichbar|可行|可解|実行可能|到達可能|到达|도달", re.I)
_KEY_EXISTS = re.compile(r"(?:exist|found|valid|possible)", re.I)
_KEY_RESULT = re.compile(r"path|route|solution|output|edit|image|answer|result|way|arrangement|placement|version|scene", re.I)
_KEY_NEGATED = re.compile(r"impossib|infeasib|unsolv|unreach|unsatisf|^no[_ ]|^not[_ ]|^is_?not|_not_", re.I)


def _json_key_verdict(key: str, value: bool) -> bool | None:
    """True (infeasible) / False (feasible) for a boolean field that states feasibility; None for any other field."""
    if not (_KEY_FEASIBLE.search(key) or (_KEY_EXISTS.search(key) and _KEY_RESULT.search(key))):
        return None
    says_feasible = value != bool(_KEY_NEGATED.search(key))
    return not says_feasible


def rule_refusal(text: str | None, language_of=None) -> RuleResult:
    """The rules alone: the first conclusion found in the analysed window, with its evidence. ``language_of``:
    see :func:`rule_sentences` (the detector passes the identifier's reading of each sentence)."""
    text = text or ""
    spans = window_sentences(text)
    per = rule_sentences(text, spans, language_of)
    rejected = tuple((text[a:b][:200], why) for (a, b), (st_, _r, why, _m) in zip(spans, per) if st_ == "rejected")[-20:]
    jv = json_verdict(text)
    for (a, b), (status, rule, kind, matched) in zip(spans, per):
        if status == "fired":
            strength = 1 if kind in _WEAK_RULES else 2
            return RuleResult(True, text[a:b], rule, f"{rule}: '{matched[:80]}'", rejected, jv, strength, tuple(spans), tuple(per))
    return RuleResult(False, "", "", "no conclusion that the request is infeasible", rejected, jv, 0, tuple(spans), tuple(per))
