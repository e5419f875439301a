"""A small trained sentence classifier for DoD refusal conclusions, and its combination with the rules.

Model: character n-grams (2-5, word-bounded; any language, robust to spelling) and word 1-2-grams
of a sentence, plus character n-grams of the two sentences after it (retractions: "wait, ..."), a
TF-IDF + logistic regression (scikit-learn, liblinear: deterministic). A response's score is its
best sentence. Trained on the tuning material only (``labelled.jsonl`` and
``tuning.jsonl``; never the frozen split in tests/dod/data/): positives are the evidence
sentences of responses labelled as conclusions, negatives every sentence of the other responses.

The fitted model is shipped beside this module (``model.json.gz``): vocabularies, IDF weights
and coefficients as plain numbers, read back into scikit-learn objects without fitting (no pickle, so
nothing to keep in step with the scikit-learn version). Nothing is trained at run time. Fitting is
deterministic (liblinear, fixed order) and done by ``python -m lmms_plugins.tasks.dod.refusal.classifier
--write`` whenever the tuning files or the sentence splitter change; ``tests/dod/test_refusal_model.py``
checks that the shipped model is exactly what a fresh fit gives. Its version (:func:`model_version`, a
hash of the file) is written into the results (``dod_run.refusal_model``).

Combination (:func:`combine`): per sentence, z = logit(p) + W_FIRED when a rule fires on it
(W_WEAK for the weak rules), - W_BLOCKED when a rule found a conclusion word but ruled it out
(hedge, negation, idiom, capability, retraction, ...), + B_NONE (< 0) when no rule saw anything:
the classifier alone must be sure. The response's z is the best sentence's, moved by W_JSON when a
JSON field states the verdict. ``refused`` is z > 0; the verdict is ``uncertain`` when |z| < MARGIN.
The weights were chosen by 5-fold cross-validation on the tuning material
(``benchmarks/dod_refusal_detector.py --fit``).
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from pathlib import Path

from .rules import WORD_LETTERS
from .rules import (NOT_REFUSED, REFUSED, UNCERTAIN, RefusalDecision, RuleResult, json_verdict,
                            rule_sentences, window_sentences)

_HERE = Path(__file__).resolve().parent
TUNING_FILES = (_HERE / "labelled.jsonl", _HERE / "tuning.jsonl")
MODEL_FILE = _HERE / "model.json.gz"  # the fitted model (see the module docstring)
_VECTORIZERS = ("char", "word", "ctx")

# chosen by 5-fold cross-validation on the tuning material (see the module docstring)
W_FIRED, W_WEAK, W_BLOCKED, W_JSON, B_NONE, MARGIN = 3.0, 2.0, 6.0, 4.0, -3.0, 1.5
WEIGHTS = (W_FIRED, W_WEAK, W_BLOCKED, W_JSON, B_NONE)
FIRED_FLOOR = 2.5  # a strong rule's sentence scores at least W_FIRED - FIRED_FLOOR = 0.5 (refused, uncertain)
_CONTEXT = 160  # characters of the following sentences the classifier sees
_lock = threading.Lock()


def load_rows(paths=TUNING_FILES) -> list[dict]:
    from lmms_plugins.utils.jsonl import read_jsonl

    rows = []
    for p in paths:
        rows += read_jsonl(p)
    return rows


def _features(text: str, spans: list[tuple[int, int]]) -> tuple[list[str], list[str]]:
    sents = [text[a:b] for a, b in spans]
    ctx = [" ".join(sents[i + 1: i + 3])[:_CONTEXT] for i in range(len(sents))]
    return sents, ctx


def sentence_examples(rows: list[dict]) -> tuple[list[str], list[str], list[int]]:
    """(sentences, contexts, labels) for training; positives are the evidence sentences."""
    xs, cs, ys = [], [], []
    for r in rows:
        text = r["text"]
        spans = window_sentences(text)
        sents, ctx = _features(text, spans)
        if r["label"]:
            ev = r.get("evidence") or ""
            k = text.find(ev) if ev and ev != "[ABSTAIN]" else -1
            if k < 0:
                continue
            for (a, b), s, c in zip(spans, sents, ctx):
                if a < k + len(ev) and k < b:
                    xs.append(s), cs.append(c), ys.append(1)
        else:
            for s, c in zip(sents, ctx):
                xs.append(s), cs.append(c), ys.append(0)
    return xs, cs, ys


def _vectorizers(vocabularies: dict | None = None) -> dict:
    """The three TF-IDF vectorizers (with a fixed vocabulary when given: then they need no fitting)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    v = vocabularies or {}
    return {
        "char": TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True, max_features=80_000, lowercase=True,
                                vocabulary=v.get("char")),
        "word": TfidfVectorizer(analyzer="word", ngram_range=(1, 2), min_df=2, sublinear_tf=True, token_pattern=r"(?u)\b\w[\w']*\b",
                                lowercase=True, vocabulary=v.get("word")),
        "ctx": TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True, max_features=20_000, lowercase=True,
                               vocabulary=v.get("ctx")),
    }


class SentenceModel:
    def __init__(self, rows: list[dict]):
        """Fit on labelled rows (the tuning material): only for ``--write`` and cross-validation."""
        from sklearn.linear_model import LogisticRegression

        xs, cs, ys = sentence_examples(rows)
        vec = _vectorizers()
        self.char, self.word, self.ctx = vec["char"], vec["word"], vec["ctx"]
        X = self._stack(self.char.fit_transform(xs), self.word.fit_transform(xs), self.ctx.fit_transform(cs))
        self.lr = LogisticRegression(C=4.0, class_weight="balanced", solver="liblinear", random_state=0, max_iter=200)
        self.lr.fit(X, ys)
        self.n_train = len(ys)

    def state(self) -> dict:
        """The fitted model as plain JSON values (terms in column order, IDF, coefficients)."""
        out: dict = {"format": 1, "n_train": self.n_train, "intercept": float(self.lr.intercept_[0]),
                     "coef": [float(x) for x in self.lr.coef_[0]]}
        for name in _VECTORIZERS:
            vec = getattr(self, name)
            out[name] = {"terms": [t for t, _ in sorted(vec.vocabulary_.items(), key=lambda kv: kv[1])],
                         "idf": [float(x) for x in vec.idf_]}
        return out

    @classmethod
    def from_state(cls, state: dict) -> "SentenceModel":
        """The model of :meth:`state`, without fitting anything."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression

        if state.get("format") != 1:
            raise ValueError(f"unknown refusal model format {state.get('format')!r}")
        self = cls.__new__(cls)
        vec = _vectorizers({name: {t: i for i, t in enumerate(state[name]["terms"])} for name in _VECTORIZERS})
        for name in _VECTORIZERS:
            vec[name].idf_ = np.asarray(state[name]["idf"], dtype=np.float64)
            setattr(self, name, vec[name])
        self.lr = LogisticRegression()
        self.lr.classes_ = np.array([0, 1])
        self.lr.coef_ = np.asarray([state["coef"]], dtype=np.float64)
        self.lr.intercept_ = np.asarray([state["intercept"]], dtype=np.float64)
        self.n_train = int(state["n_train"])
        return self

    @staticmethod
    def _stack(a, b, c):
        from scipy.sparse import hstack

        return hstack([a, b, 0.5 * c]).tocsr()

    def sentence_probs(self, sents: list[str], ctx: list[str]) -> list[float]:
        out: list[float] = []
        for i in range(0, len(sents), 32):  # in batches: memory stays small for a long window
            s, c = sents[i:i + 32], ctx[i:i + 32]
            X = self._stack(self.char.transform(s), self.word.transform(s), self.ctx.transform(c))
            out += [float(p) for p in self.lr.predict_proba(X)[:, 1]]
        return out


def write_model(path: Path = MODEL_FILE) -> str:
    """Fit on the tuning files and write the model (gzip with a fixed time stamp: the same bytes on every
    machine for the same fit); returns its version."""
    import gzip
    import json

    raw = json.dumps(SentenceModel(load_rows()).state(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    Path(path).write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    return model_version(path)


def model_version(path: Path = MODEL_FILE) -> str:
    """The shipped model's version: the first 12 hex digits of the sha256 of its file."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


@lru_cache(maxsize=1)
def default_model() -> SentenceModel:
    """The shipped model (``model.json.gz``), read once per process; nothing is fitted here."""
    import gzip
    import json

    with _lock:
        try:
            state = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"the DoD refusal model {MODEL_FILE} is missing or unreadable ({exc}); "
                               "reinstall the package or rebuild it with "
                               "`python -m lmms_plugins.tasks.dod.refusal.classifier --write`") from exc
        return SentenceModel.from_state(state)


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def sentence_scores(text: str, rules: RuleResult | None = None, model: SentenceModel | None = None):
    """Per analysed sentence: (start, end, p, rule status, why); and the JSON verdict."""
    model = model or default_model()
    if rules is not None and rules.spans:
        spans, per, jv = list(rules.spans), list(rules.per_sentence), rules.json_verdict
    else:
        spans = window_sentences(text)
        per, jv = rule_sentences(text, spans), json_verdict(text)
    sents, ctx = _features(text, spans)
    worded = [i for i, x in enumerate(sents) if WORD_LETTERS.search(x)]  # no words, no conclusion: p = 0
    probs = [0.0] * len(sents)
    for i, p in zip(worded, model.sentence_probs([sents[i] for i in worded], [ctx[i] for i in worded])):
        probs[i] = p
    return [(a, b, p, st, why) for (a, b), p, (st, _rule, why, _m) in zip(spans, probs, per)], jv


def z_score(rows, jv, w=WEIGHTS) -> tuple[float, int]:
    """The response's z and the index of the sentence that gives it (-1: none)."""
    w_fired, w_weak, w_blocked, w_json, b_none = w
    best, arg = -30.0, -1
    for i, (_a, _b, p, status, why) in enumerate(rows):
        z = logit(p)
        if status == "fired":
            weak = why in ("all_fail", "first_person")
            # a strong rule that fired is a conclusion the classifier may not know the wording of: its doubt
            # can make the answer uncertain, not turn it (measured: declines without keywords, round 3)
            z = z + w_weak if weak else max(z, -FIRED_FLOOR) + w_fired
        elif status == "rejected":
            z -= w_blocked
        else:
            z += b_none
        if z > best:
            best, arg = z, i
    if jv is True:
        best += w_json
    elif jv is False:
        best -= w_json
    return best, arg


def combine(text: str, rules: RuleResult, margin: float = MARGIN) -> RefusalDecision:
    """Rules and classifier read together; |z| below ``margin`` (the task setting ``uncertain_margin``) is uncertain."""
    rows, jv = sentence_scores(text, rules)
    z, i = z_score(rows, jv)
    p = 1 / (1 + math.exp(-max(min(z, 30), -30)))
    refused = z > 0
    verdict = UNCERTAIN if abs(z) < margin else (REFUSED if refused else NOT_REFUSED)
    evidence, rule = "", ""
    if refused:
        if rules.refused:
            evidence, rule = rules.evidence, rules.rule
        elif i >= 0:
            a, b = rows[i][0], rows[i][1]
            evidence, rule = text[a:b], "classifier" if jv is not True else "json_verdict"
    why = f"z={z:.2f} ({'rules: ' + rules.why if rules.refused else 'no rule fired'}; classifier p={p:.2f})"
    best_p = max((row[2] for row in rows), default=0.0)
    return RefusalDecision(refused, evidence, rule, why, False, rules.rejected, verdict, p, sentence_p=best_p)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m lmms_plugins.tasks.dod.refusal.classifier --write   (refit and write model.json.gz)")
    print(f"wrote {MODEL_FILE} (version {write_model()})")
