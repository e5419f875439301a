"""A small trained sentence classifier for DoD refusal conclusions, and its combination with the rules.

Model: character n-grams (2-5, word-bounded; any language, robust to spelling) and word 1-2-grams
of a sentence, plus character n-grams of the two sentences after it (retractions: "wait, ..."), a
TF-IDF + logistic regression (scikit-learn, liblinear: deterministic). A response's score is its
best sentence. Trained on the tuning material only (``refusal_labelled.jsonl`` and
``refusal_tuning.jsonl``; never the frozen split in tests/dod/data/): positives are the evidence
sentences of responses labelled as conclusions, negatives every sentence of the other responses.

Training takes about two seconds on one core; it happens once per process, on first use, from the
files shipped beside this module (no pickled model: nothing to keep in step with the scikit-learn
version, and the result is the same on every machine).

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
import os
import threading
from functools import lru_cache
from pathlib import Path

from .refusal_rules import _LETTERS
from .refusal_rules import (NOT_REFUSED, REFUSED, UNCERTAIN, RefusalDecision, RuleResult, json_verdict,
                            rule_sentences, window_sentences)

_HERE = Path(__file__).resolve().parent
TUNING_FILES = (_HERE / "refusal_labelled.jsonl", _HERE / "refusal_tuning.jsonl")

# chosen by 5-fold cross-validation on the tuning material (see the module docstring)
W_FIRED, W_WEAK, W_BLOCKED, W_JSON, B_NONE, MARGIN = 3.0, 2.0, 6.0, 4.0, -3.0, 1.5
WEIGHTS = (W_FIRED, W_WEAK, W_BLOCKED, W_JSON, B_NONE)
FIRED_FLOOR = 2.5  # a strong rule's sentence scores at least W_FIRED - FIRED_FLOOR = 0.5 (refused, uncertain)
ENV_MARGIN = "LMMS_PLUGINS_DOD_UNCERTAIN_MARGIN"  # |z| below it is "uncertain" (hybrid mode: asks the judge)


def margin() -> float:
    raw = os.environ.get(ENV_MARGIN, "").strip()
    if not raw:
        return MARGIN
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{ENV_MARGIN} must be a number >= 0, got {raw!r}") from None
    if not value >= 0:
        raise ValueError(f"{ENV_MARGIN} must be a number >= 0, got {raw!r}")
    return value
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


class SentenceModel:
    def __init__(self, rows: list[dict]):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        xs, cs, ys = sentence_examples(rows)
        self.char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True, max_features=80_000, lowercase=True)
        self.word = TfidfVectorizer(analyzer="word", ngram_range=(1, 2), min_df=2, sublinear_tf=True, token_pattern=r"(?u)\b\w[\w']*\b", lowercase=True)
        self.ctx = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True, max_features=20_000, lowercase=True)
        X = self._stack(self.char.fit_transform(xs), self.word.fit_transform(xs), self.ctx.fit_transform(cs))
        self.lr = LogisticRegression(C=4.0, class_weight="balanced", solver="liblinear", random_state=0, max_iter=200)
        self.lr.fit(X, ys)
        self.n_train = len(ys)

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


def _cache_path() -> Path:
    """Where the trained model is kept between processes: keyed by the training files, this module
    and the scikit-learn version, so a change to any of them trains again."""
    import hashlib
    import os

    import sklearn

    h = hashlib.sha256(sklearn.__version__.encode())
    for p in (*TUNING_FILES, Path(__file__), _HERE / "refusal_rules.py"):
        h.update(p.read_bytes())
    root = Path(os.environ.get("LMMS_PLUGINS_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lmms-plugins")
    return root / f"dod-refusal-model-{h.hexdigest()[:16]}.pkl"


@lru_cache(maxsize=1)
def default_model() -> SentenceModel:
    """The model trained on the tuning files: loaded from the cache when it is there (written by this
    package, keyed as above), else trained (a few seconds) and cached. Training is deterministic, so
    a cached model equals a fresh one."""
    import pickle

    with _lock:
        try:
            path = _cache_path()
            with path.open("rb") as f:
                model = pickle.load(f)
            if isinstance(model, SentenceModel):
                return model
        except Exception:  # noqa: BLE001 - no cache, or one from elsewhere: train
            pass
        model = SentenceModel(load_rows())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with tmp.open("wb") as f:
                pickle.dump(model, f)
            os.replace(tmp, path)
        except Exception:  # noqa: BLE001 - a read-only home: keep the model in memory only
            pass
        return model


def _logit(p: float) -> float:
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
    worded = [i for i, x in enumerate(sents) if _LETTERS.search(x)]  # no words, no conclusion: p = 0
    probs = [0.0] * len(sents)
    for i, p in zip(worded, model.sentence_probs([sents[i] for i in worded], [ctx[i] for i in worded])):
        probs[i] = p
    return [(a, b, p, st, why) for (a, b), p, (st, _rule, why, _m) in zip(spans, probs, per)], jv


def z_score(rows, jv, w=WEIGHTS) -> tuple[float, int]:
    """The response's z and the index of the sentence that gives it (-1: none)."""
    w_fired, w_weak, w_blocked, w_json, b_none = w
    best, arg = -30.0, -1
    for i, (_a, _b, p, status, why) in enumerate(rows):
        z = _logit(p)
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


def combine(text: str, rules: RuleResult) -> RefusalDecision:
    rows, jv = sentence_scores(text, rules)
    z, i = z_score(rows, jv)
    p = 1 / (1 + math.exp(-max(min(z, 30), -30)))
    refused = z > 0
    verdict = UNCERTAIN if abs(z) < margin() else (REFUSED if refused else NOT_REFUSED)
    evidence, rule = "", ""
    if refused:
        if rules.refused:
            evidence, rule = rules.evidence, rules.rule
        elif i >= 0:
            a, b = rows[i][0], rows[i][1]
            evidence, rule = text[a:b], "classifier" if jv is not True else "json_verdict"
    why = f"z={z:.2f} ({'rules: ' + rules.why if rules.refused else 'no rule fired'}; classifier p={p:.2f})"
    return RefusalDecision(refused, evidence, rule, why, False, rules.rejected, verdict, p)
