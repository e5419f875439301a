"""Which languages a response is written in, and whether the refusal rules can read it.

The rules (``rules.py``) read conclusions in a fixed set of languages, :data:`COVERED`.
Outside them they find nothing and would answer "not refused" by default: a guess that looks like
a verdict. So the detector asks first whether the text it reads is in those languages; when it is
not, its verdict is ``uncertain`` (the judge decides in hybrid mode; the request is pending in
judge-free mode).

Language identification is py3langid's (a naive Bayes model over byte n-grams, 97 languages,
shipped in its wheel; deterministic, no download). It is run on the analysed sentences of the text
(``rules.window_sentences``: JSON string values are sentences of their own, so keys and
syntax are not read as prose), a sentence at a time, so that a code-switched response is measured
by how much of it each language holds:

* only prose counts: a sentence with a word (or two CJK characters) in which letters are at least
  half of the characters, and not a JSON key; keys, coordinates and code symbols are not a language;
* sentences shorter than :data:`MIN_LETTERS` letters are read together with the next ones (a
  three-word sentence is too short to identify alone);
* each covered language gets a prior of :data:`COVERED_PRIOR` nats on py3langid's log-score: the
  prompts are English and most responses are in a covered language, and for a very short text the
  identifier is unsure between related languages ("Impossible." scores Italian 1.2 nats above
  French; "No valid path." Estonian 4.2 above English), while a text of a few words in another
  language is 18 nats or more away (measured on the texts of ``tests/dod/test_refusal_language.py``).
  The prior matters only for texts of a few words: scores grow with length.

:func:`coverage` returns the letters per language and the verdict; the detector
(``detect.detect_refusal``) applies it (README "Languages").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

from .rules import window_sentences

__all__ = ["COVERED", "Coverage", "coverage", "language_of"]

# The languages the rules are written and measured for (ISO 639-1). Italian and Portuguese have a few
# patterns, not enough to answer "not refused" with confidence: they are not covered.
COVERED = ("en", "fr", "es", "de", "zh", "ja", "ko")
COVERED_PRIOR = 8.0  # nats added to a covered language's log-score (see the module docstring)
MIN_LETTERS = 12  # a shorter sentence is identified together with the next ones
MIN_PROSE = 4  # fewer letters of prose in the whole text: no language to speak of (covered)
MAIN_SHARE = 0.5  # below this share of covered letters, the response is mainly in another language
PART_SHARE = 0.2  # an uncovered part this large (of the letters) could hold the conclusion

_LETTER = re.compile(r"[^\W\d_]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\d_]{2,}")
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    with _lock:
        return LanguageIdentifier.from_model_file(MODEL_FILE)


@lru_cache(maxsize=4096)  # the coverage and the rules identify the same sentences
def language_of(text: str) -> str:
    """The most likely language of ``text`` (ISO 639-1 or 639-3), covered languages favoured by the prior."""
    best, best_score = "", float("-inf")
    for lang, score in _identifier().rank(text):
        score += COVERED_PRIOR if lang in COVERED else 0.0
        if score > best_score:
            best, best_score = lang, score
    return best


def sentence_language(sentence: str) -> str:
    """One sentence's language for the rules (rules.rule_sentences): "" when it is too short to tell (fewer than
    MIN_LETTERS letters) or holds CJK characters (the rules tell those by their script)."""
    if _CJK.search(sentence) or len(_LETTER.findall(sentence)) < MIN_LETTERS:
        return ""
    return language_of(sentence)


_JSON_KEY_AFTER = re.compile(r'\s*"?\s*:')
_JSON_LITERAL = re.compile(r"^[\W\d]*(?:true|false|null|none|yes|no)\b[\W\d]*$", re.I)


def _is_prose(text: str, a: int, b: int) -> bool:
    """A sentence of words, not a JSON key (a sentence followed by ``":``) nor code symbols."""
    sentence = text[a:b]
    if _JSON_LITERAL.match(sentence):
        return False
    if not (_WORD.search(sentence) or len(_CJK.findall(sentence)) >= 2) or _JSON_KEY_AFTER.match(text, b):
        return False
    letters = len(_LETTER.findall(sentence))
    visible = sum(1 for c in sentence if not c.isspace())
    return letters * 2 >= visible


@dataclass(frozen=True)
class Coverage:
    covered: bool  # the rules can read the whole text (or it has no prose to read)
    language: str  # the language with the most letters ("" when the text has no prose)
    covered_share: float  # share of the prose letters in covered languages (1.0 without prose)
    letters: tuple[tuple[str, int], ...]  # letters per language, most first
    why: str  # one line for humans ("" when covered)
    # (start, end, language, letters) of each identified piece of prose, in text order
    pieces: tuple[tuple[int, int, str, int], ...] = ()

    def uncovered_after(self, pos: int) -> int:
        """Letters of uncovered prose that start at or after ``pos`` (a retraction could hide there)."""
        return sum(n for s, _e, lang, n in self.pieces if s >= pos and lang not in COVERED)


def coverage(text: str, spans: list[tuple[int, int]] | None = None) -> Coverage:
    """The languages of the prose in ``text`` (``spans``: its analysed sentences, from
    ``rules.window_sentences``) and whether the rules cover it."""
    if spans is None:
        spans = window_sentences(text)
    prose = [(a, b) for a, b in spans if _is_prose(text, a, b)]
    # group short sentences with the following ones until a piece has MIN_LETTERS letters
    pieces: list[tuple[int, int, int]] = []  # (start, end, letters)
    cur: list = []
    for a, b in prose:
        n = len(_LETTER.findall(text, a, b))
        if cur:
            cur = [cur[0], b, cur[2] + n]
        else:
            cur = [a, b, n]
        if cur[2] >= MIN_LETTERS:
            pieces.append(tuple(cur))
            cur = []
    if cur:
        if pieces:  # a short tail joins the piece before it
            s, _e, n = pieces.pop()
            pieces.append((s, cur[1], n + cur[2]))
        else:
            pieces.append(tuple(cur))
    per_lang: dict[str, int] = {}
    sized = []
    for a, b, n in pieces:
        lang = language_of(text[a:b])
        per_lang[lang] = per_lang.get(lang, 0) + n
        sized.append((a, b, lang, n))
    total = sum(per_lang.values())
    ranked = tuple(sorted(per_lang.items(), key=lambda kv: (-kv[1], kv[0])))
    if total < MIN_PROSE:  # a word or two (JSON values, labels): too little to tell a language from
        return Coverage(True, ranked[0][0] if ranked else "", 1.0, ranked, "")
    share = sum(n for lang, n in per_lang.items() if lang in COVERED) / total
    main = ranked[0][0]
    others = [lang for lang, _n in ranked if lang not in COVERED]
    last_uncovered = sized[-1][2] not in COVERED
    if share < MAIN_SHARE:
        why = f"mainly in '{main}' ({1 - share:.0%} of the prose), which the rules do not cover"
    elif 1 - share >= PART_SHARE or last_uncovered:
        where = "ends" if last_uncovered else f"is {1 - share:.0%}"
        why = f"the prose {where} in '{others[0]}', which the rules do not cover"
    else:
        why = ""
    return Coverage(not why, main, share, ranked, why, tuple(sized))
