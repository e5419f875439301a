"""Judge-free refusal detection: does a response conclude that the request has no valid solution?

The criterion is the official DoD one (see README.md): an *explicit conclusion* that the task
has no legal solution counts, even if the model then draws anyway; a hypothetical ("if it were
impossible ..."), hedging ("it seems there might be no path"), a failed attempt ("this route is
a dead end"), restating the rules ("walls cannot be crossed"), a negated conclusion ("it is not
impossible"), a retracted one ("no path ... wait, there is one") and refusals for unrelated
reasons (safety, policy, capability) do not.

How: the text is cut into sentences (with character offsets, so the evidence is an exact
substring); each sentence is searched with a small set of conclusion patterns; a match is kept
only if the part of its clause before it carries no hypothetical / hedging / negation / quoting
cue, it is not inside quotation marks, the sentence is not a question, a local qualifier does not
narrow it to one corridor ("no path *through the top*"), the sentence gives no safety reason, and
the next sentences do not retract it. The official abstention token (``[ABSTAIN]`` right before
``</think>``) is recognised first.

Accuracy on the labelled set shipped beside this file: see README.md and
``benchmarks/dod_refusal_detector.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["RefusalDecision", "detect_refusal", "official_abstain", "sentences"]


@dataclass(frozen=True)
class RefusalDecision:
    refused: bool  # the response concludes that the request has no valid solution
    evidence: str  # exact substring of the text that carries the conclusion ("" if none)
    rule: str  # which rule fired ("abstain_token", "no_solution", ...; "" if none)
    why: str  # one line for humans
    official_abstain: bool = False  # the official protocol token [ABSTAIN] right before </think>
    rejected: tuple[tuple[str, str], ...] = ()  # (span, why it did not count), for auditing


# --- the official token --------------------------------------------------------------------------

_ABSTAIN = re.compile(r"\[ABSTAIN\](?=\s*(?:</think>|$))")


def official_abstain(text: str) -> bool:
    """``[ABSTAIN]`` immediately before ``</think>`` (whitespace allowed), or ending the text.

    The second form accepts a reasoning block cut before its closing tag.
    """
    return bool(_ABSTAIN.search(text or ""))


# --- sentences with offsets ----------------------------------------------------------------------

# A sentence ends at . ! ? (followed by space/quote/end), at an ellipsis, at a line break, or at a
# <think>/</think> tag. Coordinates such as (3,4) and decimals do not end sentences.
_BOUNDARY = re.compile(r"(?:\.\.\.|…|[.!?](?=[\s\"')\]]|$)|\n+|</?think>)")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, whitespace trimmed, tags excluded."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        is_tag = m.group(0).startswith("<")
        end = m.start() if is_tag or m.group(0).startswith("\n") else m.end()
        spans.append((start, end))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


# --- conclusion patterns -------------------------------------------------------------------------

_TASK_VERBS = (
    r"(?:reach|get|connect|join|link|satisfy|complete|make|do|draw|solve|fulfil+|achieve|accomplish|show|depict|"
    r"render|produce|create|generate|perform|carry\s+out|follow|meet|travel|go\s+from|edit|comply|honou?r|find\s+a)"
)
_ADVERBS = (
    r"(?:(?:clearly|definitely|simply|therefore|thus|hence|really|truly|certainly|indeed|completely|entirely|"
    r"absolutely|fundamentally|strictly|logically|physically|then|just|actually|now|still|also|consequently)\s+)*"
)
_QUALIFIERS = r"(?:(?:valid|legal|possible|feasible|correct|acceptable|continuous|single|such|viable|workable|proper|red|other|allowed)\s+){0,2}"
_NOUNS = r"(?:solution|path|route|edit|output|answer|option|sequence|passage|connection|image|way)s?"
_ADJ = (
    r"(?:impossible|infeasible|unsolvable|insoluble|unsatisfiable|unachievable|unreachable|unattainable|"
    r"not\s+(?:possible|feasible|solvable|achievable|satisfiable|reachable|attainable)|self-contradictory|"
    r"contradictory|mutually\s+exclusive)"
)
_PARTICIPLES = (
    r"(?:solved|done|completed|fulfil+ed|satisfied|accomplished|achieved|carried\s+out|performed|drawn|made|"
    r"followed|met|reached|connected|found|depicted|shown|rendered|created|produced|generated|reali[sz]ed|honou?red)"
)

# (rule name, pattern, kind) — kind says which extra check applies to the match.
_PATTERNS: list[tuple[str, re.Pattern, str]] = [
    ("abstain_token", _ABSTAIN, "token"),
    # "there is no valid path", "there exists no sequence of legal moves"
    ("no_solution", re.compile(rf"\bthere(?:'s|\s+is|\s+exists|\s+remains)\s+{_ADVERBS}no\s+{_QUALIFIERS}(?!way\b){_NOUNS}\b", re.I), "noun"),
    # "no path exists", "no edit can satisfy ...", "no route joins the start to the end"
    ("no_solution", re.compile(
        rf"\bno\s+{_QUALIFIERS}(?!way\b){_NOUNS}\b[^.,;:!?]{{0,60}}?\b(?:exists?|remains?|is\s+possible|can\s+(?:be|satisfy|reach|connect|join|meet|fulfil+|show|depict|get)|joins?|connects?|leads?\s+(?:from\s+[^.,;:!?]{{1,30}}?\s+)?to\s+(?:the\s+)?(?:end|goal|red|finish|exit|target)|satisf(?:y|ies))\b",
        re.I), "noun"),
    # "there is no way to reach the end"
    ("no_way", re.compile(rf"\bno\s+(?:(?:possible|legal|valid|other)\s+)?way\s+to\s+{_TASK_VERBS}\b", re.I), "plain"),
    # "a solution does not exist", "a legal one does not exist"
    ("no_solution", re.compile(r"\b(?:solution|path|route|edit|one|answer|output|way)s?\b[^.,;:!?]{0,60}?\b(?:does\s+not|doesn't|do\s+not|don't|cannot|can't|can\s+not)\s+exist\b", re.I), "plain"),
    # "this maze has no solution", "I found no route to the goal"
    ("no_solution", re.compile(r"\b(?:has|have|with|found|find)\s+no\s+(?:(?:valid|legal|possible|feasible|correct)\s+)?(?:solution|path|route|answer)s?\b", re.I), "noun"),
    # "Verdict: infeasible."
    ("verdict", re.compile(r"^(?:verdict|conclusion|answer|result|final\s+answer|short\s+answer)\s*(?::|-|–|—)\s*(?:no\b|infeasible|impossible|unsolvable|not\s+(?:feasible|possible|solvable))", re.I), "plain"),
    ("verdict", re.compile(r"^(?:(?:so|thus|therefore|hence)\s*[:,]?\s*)?no\s+(?:(?:valid|legal|possible|feasible)\s+)?(?:solution|path|route)s?\s*[.!]?$", re.I), "plain"),
    # "the request is impossible", "it is not possible to connect the start and the end"
    ("impossible", re.compile(rf"\b(?:is|are|'s|was\s+found\s+to\s+be|proves?\s+to\s+be|remains?|becomes?)\s+{_ADVERBS}{_ADJ}\b", re.I), "adjective"),
    ("impossible", re.compile(rf"\b(?:isn't|aren't|is\s+not|are\s+not)\s+{_ADVERBS}(?:possible|feasible|solvable|achievable|satisfiable|doable)\b", re.I), "adjective"),
    # "which makes this maze impossible", "that renders the request unsatisfiable"
    ("impossible", re.compile(rf"\b(?:makes?|making|renders?|rendering)\s+(?:this|the|that|it|such\s+an?)\s*(?:\w+\s+)?{_ADJ}\b", re.I), "adjective"),
    ("impossible", re.compile(r"\b(?:an?|this|such\s+an?)\s+(?:impossible|infeasible|unsolvable|unsatisfiable)\s+(?:request|task|edit|instruction|maze|puzzle|demand)\b", re.I), "plain"),
    ("impossible", re.compile(r"\bis\s+out\s+of\s+the\s+question\b", re.I), "plain"),
    # "the requirements contradict each other", "the edit contradicts itself"
    ("contradiction", re.compile(r"\b(?:contradicts?\s+(?:itself|each\s+other|one\s+another)|(?:requirements|constraints|conditions|instructions)\s+(?:directly\s+)?(?:conflict|contradict))\b", re.I), "plain"),
    # "the end is walled off", "the start and the end lie in separate regions"
    ("disconnected", re.compile(
        r"\b(?:are|is|remains?|lies?)\s+(?:completely\s+|fully\s+|entirely\s+)?(?:disconnected|not\s+connected|separated|isolated|cut\s+off|walled\s+off|sealed\s+off|boxed\s+in|enclosed|closed\s+off|in\s+(?:different|separate|disconnected)\s+(?:regions|components|parts|areas))\b",
        re.I), "endpoint"),
    ("disconnected", re.compile(r"\b(?:start|green(?:\s+cell|\s+square)?)\s+(?:cannot|can't|can\s+not|can\s+never|could\s+never)\s+reach\b", re.I), "plain"),
    ("disconnected", re.compile(r"\b(?:all|every)\s+(?:possible\s+)?(?:routes?|paths?|ways?|corridors?|directions?|options?)\b[^.;:!?]{0,50}?\b(?:blocked|dead\s+ends?|fail|sealed)\b", re.I), "endpoint_loose"),
    # "the maze cannot be solved", "this can't be done", "the red cell can never be reached"
    ("cannot_be_done", re.compile(rf"\b(?:cannot|can't|can\s+not|could\s+not|couldn't|can\s+never)\s+(?:possibly\s+|ever\s+|all\s+|both\s+)?be\s+{_PARTICIPLES}\b", re.I), "participle"),
    # "I cannot draw the requested path because ..." (needs a stated reason, not a safety one)
    ("cannot_do", re.compile(
        rf"\b(?:i|we)\s*(?:cannot|can't|can\s+not|am\s+unable\s+to|'m\s+unable\s+to|am\s+not\s+able\s+to|'m\s+not\s+able\s+to|won't\s+be\s+able\s+to|will\s+not\s+be\s+able\s+to|could\s+not|couldn't)\s+(?:possibly\s+)?(?:complete|fulfil+|perform|do|draw|make|produce|create|generate|satisfy|carry\s+out|accomplish|solve|edit|apply|render|follow|comply\s+with|honou?r)\b",
        re.I), "first_person"),
]

# Cues in the clause before a match that make it not a conclusion.
_BLOCKING_CUES = re.compile(
    r"\b(?:if|whether|unless|suppose|supposing|assuming|assume|in\s+case|were|had|would|should|could|might|may|maybe|"
    r"perhaps|possibly|probably|likely|seems?|appears?|looks?|suspect|wonder|uncertain|check|verify|determine|see\s+if|"
    r"decide|not|never|no\s+reason|nothing|hardly|without|instead\s+of|rather\s+than|state\s+that|say\s+that|"
    r"stating|says|said|asks?|asked|reminds?|reminder|told|call|calls|called|concluding|conclude\s+yet|report|declare|answer\s+that)\b|n't\b",
    re.I,
)
# Where a clause starts: punctuation (not the comma inside a coordinate such as (2,5)) or a connective.
_CLAUSE_START = re.compile(r",(?!\s*\d+\s*\))|[;:—–]|\s-\s|\b(?:so|therefore|thus|hence|consequently|but|yet|because|since|as|given\s+that|and\s+so|then)\b", re.I)
# A qualifier right after "no path" that narrows it to one place: a failed attempt, not a conclusion.
_LOCAL = re.compile(
    r"^\s*(?:through|via|past|around|along|down|up|in\s+this|this\s+way|that\s+way|from\s+(?:here|this|that|there|\(|cell|position|row|col)|"
    r"here\b|on\s+the\s+(?:left|right)|to\s+the\s+(?:left|right)|(?:left|right)ward|beyond|into|out\s+of\s+(?:this|that)|directly)",
    re.I,
)
# "the route via (2,5) is impossible", "moving to (3,4) is impossible": one step, not the task
_LOCAL_SUBJECT = re.compile(
    r"\(\s*\d+\s*,\s*\d+\s*\)|\b(?:route|path|way|branch|corridor|direction|move|step|option)s?\s+(?:via|through|along|past|into|around|down|up)\b",
    re.I,
)
_ENDPOINT_WORDS = re.compile(r"\b(?:start|end|goal|red|green|target|exit|destination|finish|endpoints?|regions?|halves|two)\b", re.I)
_REACH_SUBJECT = re.compile(r"\b(?:end|goal|red|target|destination|exit|finish|it)\b", re.I)
_SAFETY = re.compile(
    r"\b(?:violen\w*|sexual\w*|nud\w*|harm\w*|harass\w*|hate\w*|polic(?:y|ies)|guidelines?|inappropriate|offensive|"
    r"illegal|unsafe|dangerous|weapons?|consent|privacy|copyright\w*|misleading|explicit|self-harm|public\s+figure|"
    r"real\s+person|identifiable|terms\s+of\s+(?:service|use))\b",
    re.I,
)
# "impossible to move diagonally / to tell / to miss": about a rule or a perception, not the task
_RULE_VERBS = re.compile(
    r"(?:move|moving|go|pass|cross|jump|step|enter|leave|walk|tell|know|say|see|miss|ignore|determine|judge|be\s+sure|"
    r"verify|read|notice|overlook|avoid|use\s+(?:a\s+)?diagonal)\b",
    re.I,
)
# A first-person "cannot" whose reason is the model's own tooling, not the request
_CAPABILITY = re.compile(
    r"\b(?:image\s+(?:output|generation|tool|editing\s+tool)|(?:my|the)\s+tools?|this\s+mode|capabilit\w*|disabled|"
    r"unavailable|not\s+supported|text-only|only\s+(?:describe|output\s+text))\b",
    re.I,
)
_REASON = re.compile(r"\b(?:because|since|as|given|due\s+to)\b|:", re.I)
# "Should the end turn out to be enclosed, ...", "Had the request asked ..., ...": conditionals
_INVERTED_CONDITIONAL = re.compile(r"^(?:should|were|had)\s+(?:the|it|this|that|there|a|an|any|we|i)\b[^,]*,", re.I)
_RETRACT_NEXT = re.compile(
    r"^(?:wait|hmm,?\s+wait|actually|no,|on\s+second\s+thought|correction|scratch\s+that|oops|hold\s+on|let\s+me\s+re-?check)"
    r"|\b(?:i\s+was\s+wrong|my\s+mistake|i\s+made\s+a\s+mistake|after\s+all|i\s+missed)\b"
    r"|^there\s+(?:is|'s)\s+(?:one|a\s+(?:valid\s+|legal\s+)?(?:path|route|way|solution))\b",
    re.I,
)
_RETRACT_SAME = re.compile(r"\b(?:wait|actually)\b|\bbut\b[^.]*\b(?:isn't|is\s+not|wrong|missed|after\s+all)\b", re.I)


def _clause_prefix(sentence: str, pos: int) -> str:
    start = 0
    for m in _CLAUSE_START.finditer(sentence, 0, pos):
        start = m.end()
    return sentence[start:pos]


def _inside_quotes(sentence: str, pos: int) -> bool:
    before = sentence[:pos]
    if before.count('"') % 2 == 1 or before.count("“") > before.count("”"):
        return True
    # single quotes: only when an opening quote follows a space or colon (not apostrophes)
    opens = len(re.findall(r"(?:^|[\s:(])'", before))
    closes = len(re.findall(r"'(?=[\s.,;:!?)]|$)", before))
    return opens > closes


def _check(kind: str, sentence: str, m: re.Match) -> str:
    """'' when the match counts, else why it does not."""
    prefix = _clause_prefix(sentence, m.start())
    cue = _BLOCKING_CUES.search(prefix)
    if cue:
        return f"'{cue.group(0)}' before it in the clause (hypothetical, hedged, negated or reported)"
    if _inside_quotes(sentence, m.start()):
        return "inside quotation marks"
    after = sentence[m.end():]
    if kind == "noun" and re.search(r"\b(?:path|route|way|passage)s?\b", m.group(0), re.I) and (
        _LOCAL.match(after) or re.search(r"\b(?:path|route|way|passage)s?\s+(?:through|via|past|along|around)\b", m.group(0), re.I)
    ):
        return "narrowed to one place (a failed attempt, not the task)"
    if kind == "adjective":
        if _LOCAL_SUBJECT.search(prefix):
            return "about one route or cell, not the task (a failed attempt)"
        to_verb = re.match(r"\s+to\s+(\w+(?:\s+\w+)?)", after)
        if to_verb and not re.match(_TASK_VERBS + r"\b", to_verb.group(1), re.I) and _RULE_VERBS.match(to_verb.group(1)):
            return f"'impossible to {to_verb.group(1)}' is about a rule, not the task"
        if re.search(r"(?:unreachable|not\s+reachable)$", m.group(0), re.I) and (
            _LOCAL.match(after) or not _REACH_SUBJECT.search(prefix)
        ):
            return "a cell other than the goal is unreachable"
    if kind == "participle" and re.search(r"(?:reached|connected)$", m.group(0), re.I):
        if _LOCAL.match(after) or not _REACH_SUBJECT.search(prefix):
            return "a cell other than the goal cannot be reached (local)"
    if kind == "endpoint" and not _ENDPOINT_WORDS.search(prefix):
        return "not about the start or the end"
    if kind == "endpoint_loose" and not _ENDPOINT_WORDS.search(sentence):
        return "not about the start or the end"
    if kind == "first_person" and _CAPABILITY.search(sentence):
        return "a refusal because of the model's own tooling, not infeasibility"
    if kind == "first_person" and not _REASON.search(re.split(r"[,;]|\b(?:but|so|however|instead)\b", after, maxsplit=1)[0]):
        return "a refusal without a stated reason (could be for any reason)"
    if kind in ("first_person", "participle", "plain", "noun", "adjective") and _SAFETY.search(sentence):
        return "a refusal for a safety or policy reason, not infeasibility"
    if _RETRACT_SAME.search(after):
        return "retracted in the same sentence"
    return ""


def detect_refusal(text: str | None) -> RefusalDecision:
    """Decide whether ``text`` (reasoning and final text) concludes that no valid solution exists."""
    text = text or ""
    if official_abstain(text):
        m = _ABSTAIN.search(text)
        return RefusalDecision(True, m.group(0), "abstain_token", "official [ABSTAIN] before </think>", True)
    spans = sentences(text)
    rejected: list[tuple[str, str]] = []
    for i, (s, e) in enumerate(spans):
        sentence = text[s:e]
        if sentence.rstrip().endswith("?") or _INVERTED_CONDITIONAL.match(sentence):
            continue
        for rule, pattern, kind in _PATTERNS[1:]:
            for m in pattern.finditer(sentence):
                problem = _check(kind, sentence, m)
                if not problem:
                    following = [text[a:b] for a, b in spans[i + 1 : i + 3]]
                    if any(_RETRACT_NEXT.search(f) for f in following):
                        problem = "retracted in the next sentences"
                if problem:
                    rejected.append((sentence, f"{rule}: {problem}"))
                    continue
                return RefusalDecision(
                    True, sentence, rule, f"{rule}: '{m.group(0)}'", False, tuple(rejected)
                )
    why = "no conclusion that the request is infeasible" + (f" ({len(rejected)} candidate(s) ruled out)" if rejected else "")
    return RefusalDecision(False, "", "", why, False, tuple(rejected))
