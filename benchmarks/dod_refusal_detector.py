"""Accuracy of the DoD refusal detector (rules + classifier) on its labelled sets.

    python benchmarks/dod_refusal_detector.py [--split frozen|frozen2|independent|tuning|all] [--text all|reasoning] [--errors] [--fit]
    python benchmarks/dod_refusal_detector.py --readings
    python benchmarks/dod_refusal_detector.py --routing [--round r3|r4|r5|frozen5] [--text all|reasoning]
    python benchmarks/dod_refusal_detector.py --replay DIR/tasks/dod --round r3|r4|frozen3|frozen5

* ``--split frozen`` (default): the frozen test split (tests/dod/data/refusal_frozen.jsonl), never
  tuned or trained on. ``frozen2``: a second frozen split (refusal_frozen2.jsonl), hand-written after
  the detector's probes and measured once. ``independent``: 235 responses written by another hand
  (tests/dod/data/refusal_independent.jsonl) without reading the rules or the other sets, frozen
  before the detector was run on them; each row has ``label`` (the reasoning reading, the package's
  default, which this split is measured under unless ``--text all``) and ``label_all``. ``tuning``: the material the rules were tuned and the classifier trained on
  (its figures are optimistic by construction; the cross-validated ones come with ``--fit``).
* Prints accuracy / precision / recall (positive = "concludes the request is infeasible") for the
  rules alone, the classifier alone and the combination, then per language, category and style,
  and the hybrid trade-off: the share of responses whose verdict is ``uncertain`` (those a hybrid
  run sends to the judge) against the accuracy when the judge answers them, for several margins.
  The judge is simulated as agreeing with the label (an upper bound) and at the refusal judge's
  published 98.5 % agreement with human majority (expected value).
* ``--fit``: 5-fold cross-validation on the tuning material (train the classifier on 4/5, score
  the rest) and a grid search of the combination weights; prints the best ones.
* ``--errors``: list the misclassified responses (tuning split only; the frozen split stays unread).
* ``--text all|reasoning``: what the detector reads (``refusal/text.py``). ``all`` (default here:
  the labels of these sets were written on the whole output, so the figures stay comparable) or
  ``reasoning`` (the package's default, the official protocol): the detector reads the reasoning
  part and a label counts only if its evidence lies in it (or it is the official ``[ABSTAIN]``).
* ``--readings``: on each labelled set, how many responses have a reasoning part, how many labels
  change between the two readings (conclusions only after ``</think>``), how many of the combined
  detector's decisions change, and its accuracy under each reading against that reading's labels.
* ``--routing``: the round-3 independent set (tests/dod/data/refusal_independent_r3.jsonl, 21 languages,
  labels for the whole response, ambiguous rows skipped) and the third frozen split, as a run sees them:
  judge-free (a response the rules do not cover is pending, the others scored with the best answer) on
  the covered languages and per language / class; hybrid with a judge stand-in that answers as the label
  (and at the paper's 98.5 % agreement, expected value); and the routing: how many responses, and which
  languages and classes, go to the judge. ``--round r4|r5`` reads that round instead (round 5's rows say
  whether an image was delivered, ``image``, as a run's hooks know it; earlier sets show it by image marks
  in the text, ``IMAGE_MARK``, or not at all); ``--round frozen5`` the fifth frozen split.
* ``--replay DIR --round R``: an earlier commit's detector (``git archive <sha> tasks/dod | tar -x -C DIR``)
  replayed on a set, its decisions passed through today's abstention on the output (whole-output reading):
  how the policy would have done on that set's first run.
* ``--scaling``: time and peak memory of ``detect_refusal`` and ``extract_json`` against input size
  (1 KB to 5 MB of adversarial text: one long sentence, ". " repeated, unclosed ``<think>``), with the
  log-log slope (1 = linear; below 1 = the bounded window at work).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from lmms_plugins.tasks.dod.refusal import classifier as C
from lmms_plugins.tasks.dod.refusal.rules import official_abstain, rule_refusal
from lmms_plugins.tasks.dod.refusal.text import detect_in, reasoning_part, text_to_read

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "tests" / "dod" / "data" / "refusal_frozen.jsonl"
FROZEN2 = ROOT / "tests" / "dod" / "data" / "refusal_frozen2.jsonl"  # written later, after the probes
INDEPENDENT = ROOT / "tests" / "dod" / "data" / "refusal_independent.jsonl"  # another writer, labels for both readings
JUDGE_AGREEMENT = 0.985  # the paper's refusal-judge agreement with the human majority


def scores(pairs: list[tuple[bool, bool]]) -> dict:
    tp = sum(1 for y, p in pairs if y and p)
    fp = sum(1 for y, p in pairs if not y and p)
    fn = sum(1 for y, p in pairs if y and not p)
    tn = sum(1 for y, p in pairs if not y and not p)
    n = len(pairs)
    nan = float("nan")
    return {"n": n, "tp": tp, "fp": fp, "fn": fn, "tn": tn, "accuracy": (tp + tn) / n if n else nan,
            "precision": tp / (tp + fp) if tp + fp else nan, "recall": tp / (tp + fn) if tp + fn else nan}


def fmt(s: dict) -> str:
    return (f"n={s['n']:4d} accuracy={s['accuracy']:.3f} precision={s['precision']:.3f} recall={s['recall']:.3f} "
            f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']}, tn {s['tn']})")


def load(split: str) -> list[dict]:
    rows = []
    if split in ("frozen", "all"):
        rows += C.load_rows([FROZEN])
    if split in ("frozen2", "all"):
        rows += C.load_rows([FROZEN2])
    if split in ("tuning", "all"):
        rows += C.load_rows()
    if split == "independent":
        rows += C.load_rows([INDEPENDENT])
    for r in rows:
        r.setdefault("lang", "en")
        r.setdefault("category", "maze" if r.get("domain") == "maze" else r.get("category", "real"))
        r.setdefault("style", r.get("kind", "?"))
    return rows


# Hand labels for the reasoning reading (read once, after the splits were frozen): the frozen splits
# carry no evidence span, so each of their conclusions whose output also has a final answer is
# listed; two tuning rows whose evidence span is in the answer but whose reasoning concludes too.
# None of the non-conclusions turns into one when the answer is dropped (all read).
REASONING_LABELS = ROOT / "tests" / "dod" / "data" / "refusal_frozen_reasoning_labels.jsonl"


def _hand_reasoning_labels() -> dict[str, bool]:
    rows = C.load_rows([REASONING_LABELS])
    return {r["id"]: bool(r["label_reasoning"]) for r in rows}


def reasoning_label(row: dict, hand: dict[str, bool] | None = None) -> bool:
    """The row's label when only the reasoning is read: a conclusion whose evidence lies outside the
    reasoning part no longer counts; the official token keeps its position rule. Rows without an
    evidence span whose output has a final answer take the hand label (an error when it is missing)."""
    text = row["text"]
    if not row["label"] or official_abstain(text):
        return bool(row["label"])
    part = reasoning_part(text)
    if not part.answer.strip():
        return True  # nothing outside the reasoning: the label stands
    hand = _hand_reasoning_labels() if hand is None else hand
    if row["id"] in hand:
        return hand[row["id"]]
    ev = row.get("evidence") or ""
    if ev:
        return ev in part.text
    if row["id"] not in hand:
        raise KeyError(f"{row['id']}: a conclusion without evidence and with a final answer has no label in {REASONING_LABELS.name}")
    return hand[row["id"]]


def apply_reading(rows: list[dict], reading: str) -> list[dict]:
    """The rows as the detector sees them under ``reading``, with that reading's labels."""
    rows = [{**r, "label": r["label_all"] if reading == "all" else r["label"],
             "text": r["text"] if reading == "all" or official_abstain(r["text"]) else text_to_read(r["text"], reading)}
            if "label_all" in r else r for r in rows]  # the independent split labels both readings itself
    if reading == "all":
        return rows
    hand = _hand_reasoning_labels()
    return [r if "label_all" in r else {**r, "text": r["text"] if official_abstain(r["text"]) else text_to_read(r["text"], reading),
             "label": reasoning_label(r, hand)} for r in rows]


SETS = (("frozen", [FROZEN]), ("frozen2", [FROZEN2]), ("tuning, generated", [C.TUNING_FILES[1]]),
        ("tuning, earlier", [C.TUNING_FILES[0]]))


def readings() -> None:
    """Effect of the reading (reasoning vs all) on each labelled set."""
    print("set: responses | with a think tag | with text after the reasoning | conclusions (all -> reasoning) | "
          "labels changed | decisions changed (refusal -> not, not -> refusal) | accuracy all / reasoning")
    for name, paths in SETS:
        rows = C.load_rows(paths)
        hand = _hand_reasoning_labels()
        tagged = after = labels_changed = to_not = to_yes = right_all = right_reasoning = 0
        conclusions_all = conclusions_reasoning = 0
        examples = []
        for r in rows:
            text, y_all = r["text"], bool(r["label"])
            part = reasoning_part(text)
            y_reasoning = reasoning_label(r, hand)
            tagged += part.tagged
            after += bool(part.answer.strip())
            conclusions_all += y_all
            conclusions_reasoning += y_reasoning
            labels_changed += y_all != y_reasoning
            d_all, d_reasoning = detect_in(text, "all").refused, detect_in(text, "reasoning").refused
            to_not += d_all and not d_reasoning
            to_yes += d_reasoning and not d_all
            right_all += d_all == y_all
            right_reasoning += d_reasoning == y_reasoning
            if d_all != d_reasoning and len(examples) < 3:
                examples.append(f"{r['id']}: {d_all} -> {d_reasoning}, label {y_all} -> {y_reasoning}")
        n = len(rows)
        print(f"{name}: {n} | {tagged} | {after} | {conclusions_all} -> {conclusions_reasoning} | {labels_changed} | "
              f"{to_not + to_yes} ({to_not}, {to_yes}) | {right_all / n:.3f} / {right_reasoning / n:.3f}")
        for e in examples:
            print(f"    e.g. {e}")


def score_items(rows: list[dict], model=None) -> list[dict]:
    """For each row: label, the rules' answer, the classifier's, z, and the official token."""
    out = []
    for r in rows:
        text = r["text"]
        token = official_abstain(text)
        rules = rule_refusal(text)
        per, jv = C.sentence_scores(text, rules, model)
        p_clf = max((x[2] for x in per), default=0.0)
        out.append({"row": r, "y": bool(r["label"]), "token": token, "rules": token or rules.refused,
                    "clf": token or p_clf > 0.5, "per": per, "jv": jv})
    return out


def decide(item: dict, w=None, margin: float = C.MARGIN) -> tuple[bool, bool]:
    """(refused, uncertain) for one scored item."""
    if item["token"]:
        return True, False
    z, _ = C.z_score(item["per"], item["jv"], w or C.WEIGHTS)
    return z > 0, abs(z) < margin


def hybrid_table(items: list[dict]) -> list[str]:
    lines = ["hybrid (uncertain -> judge): margin, judge calls, accuracy with an always-right judge, expected accuracy with a 98.5 % judge"]
    n = len(items)
    for margin in (0.0, 0.5, 1.0, C.MARGIN, 2.0, 3.0, 4.0):
        calls = right_oracle = 0
        expected = 0.0
        for it in items:
            pred, unsure = decide(it, margin=margin)
            if unsure:
                calls += 1
                right_oracle += 1
                expected += JUDGE_AGREEMENT
            else:
                right_oracle += pred == it["y"]
                expected += pred == it["y"]
        tag = "  <- default" if margin == C.MARGIN else ""
        lines.append(f"  margin {margin:3.1f}: judge calls {calls:4d} ({calls / n:5.1%}), accuracy {right_oracle / n:.3f} / {expected / n:.3f}{tag}")
    return lines


def fit(rows: list[dict]) -> None:
    """Two validations of the classifier on the tuning rows: 5-fold by response, and across authors
    (trained on the generated tuning set, scored on the hand-written labelled set, and the other way
    round: closer to new material). The weights maximise the mean of the two accuracies."""
    folds = 5
    random_cv: list[dict] = []
    for k in range(folds):
        train = [r for i, r in enumerate(rows) if i % folds != k]
        test = [r for i, r in enumerate(rows) if i % folds == k]
        random_cv += score_items(test, C.SentenceModel(train))
    gen = [r for r in rows if r.get("source") == "tuning_gen"]
    hand = [r for r in rows if r.get("source") != "tuning_gen"]
    cross = score_items(hand, C.SentenceModel(gen)) + score_items(gen, C.SentenceModel(hand))
    for name, held in (("5-fold", random_cv), ("across authors", cross)):
        print(f"{name}: classifier alone {fmt(scores([(it['y'], it['clf']) for it in held]))}")
        print(f"{name}: rules alone      {fmt(scores([(it['y'], it['rules']) for it in held]))}")
    best = None
    for w in itertools.product((1.0, 2.0, 3.0, 4.0, 6.0), (0.0, 1.0, 2.0), (1.0, 2.0, 3.0, 4.0, 6.0), (0.0, 1.0, 2.0, 4.0), (0.0, -1.0, -2.0, -3.0)):
        accs = [sum(decide(it, w)[0] == it["y"] for it in held) / len(held) for held in (random_cv, cross)]
        if best is None or sum(accs) > sum(best[0]) + 1e-9:
            best = (accs, w)
    print(f"best weights (W_FIRED, W_WEAK, W_BLOCKED, W_JSON, B_NONE) = {best[1]}: accuracy 5-fold {best[0][0]:.3f}, across authors {best[0][1]:.3f}")
    for name, held in (("5-fold", random_cv), ("across authors", cross)):
        cur = sum(decide(it)[0] == it["y"] for it in held) / len(held)
        print(f"shipped weights {C.WEIGHTS}, {name}: accuracy {cur:.3f}")
        for line in hybrid_table(held):
            print(f"  {line}")


def scaling() -> None:
    import time
    import tracemalloc

    from lmms_plugins.tasks.dod.refusal import detect_refusal
    from lmms_plugins.utils.judge_client import extract_json

    def no_json(text):
        try:
            extract_json(text)
        except ValueError:
            pass

    cases = [
        ("detect_refusal", "'I cannot draw it ' * k", lambda n: "I cannot draw it " * (n // 17), detect_refusal),
        ("detect_refusal", "'. ' * k", lambda n: ". " * (n // 2), detect_refusal),
        ("detect_refusal", "<think> + prose, no close", lambda n: "<think>" + "The wall at (3,4) is not impossible to pass. " * (n // 45), detect_refusal),
        ("extract_json", "'<think>' * k", lambda n: "<think>" * (n // 7), no_json),
    ]
    detect_refusal("warm up: load or train the classifier")
    sizes = [1_000, 10_000, 100_000, 1_000_000, 5_000_000]
    for name, shape, make, fn in cases:
        times, peaks = [], []
        for n in sizes:
            text = make(n)
            tracemalloc.start()
            t0 = time.perf_counter()
            fn(text)
            times.append(time.perf_counter() - t0)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        slope = math.log(max(times[-1], 1e-6) / max(times[2], 1e-6)) / math.log(sizes[-1] / sizes[2])
        cells = ", ".join(f"{n // 1000} KB: {t * 1000:.0f} ms / {p / 2**20:.1f} MB" for n, t, p in zip(sizes, times, peaks))
        print(f"{name:15s} {shape:28s} slope {slope:4.2f} (100 KB -> 5 MB); peak/input max {max(p / n for p, n in zip(peaks, sizes)):.1f}x; {cells}")


R3 = ROOT / "tests" / "dod" / "data" / "refusal_independent_r3.jsonl"  # round 3, 21 languages, another writer
R4 = ROOT / "tests" / "dod" / "data" / "refusal_independent_r4.jsonl"  # round 4, another writer, frozen before the run
R5 = ROOT / "tests" / "dod" / "data" / "refusal_independent_r5.jsonl"  # round 5, another writer; rows say whether an image was delivered
R6 = ROOT / "tests" / "dod" / "data" / "refusal_independent_r6.jsonl"  # round 6, another writer; image per row, `lang` = the prompt's
R7 = ROOT / "tests" / "dod" / "data" / "refusal_independent_r7.jsonl"  # round 7, another writer; image per row
ROUNDS = {"r3": R3, "r4": R4, "r5": R5, "r6": R6, "r7": R7}
FROZEN3 = ROOT / "tests" / "dod" / "data" / "refusal_frozen3.jsonl"  # written here before the round-3 changes
FROZEN5 = ROOT / "tests" / "dod" / "data" / "refusal_frozen5.jsonl"  # written before round 5's changes, with ``image``
# How the labelled sets show that a response delivered an image (they hold text only)
IMAGE_MARK = re.compile(r"<image(?:[:\s][^>]*)?>|\[image\]|!\[[^\]]*\]\([^)]*\)|\b[\w./-]+\.(?:png|jpe?g|webp)\b", re.I)
MARKED_SHARE = 0.1  # a set marks its images when at least this share of its responses carries a mark


def image_flags(texts: list[str], given: list | None = None) -> list[bool | None]:
    """Whether each response delivered an image, as its set shows it. A row's own ``image`` field (round 5 on:
    what a run's hooks know) wins; otherwise, where the writer marks images (a tenth of the responses or more
    carry a mark), a response without a mark delivered none; in a set that does not mark them, it is not known
    (None), as for a run whose output could not be read."""
    marks = [bool(IMAGE_MARK.search(t)) for t in texts]
    known = bool(texts) and sum(marks) >= MARKED_SHARE * len(texts)
    guessed = [m if known else None for m in marks]
    given = given or [None] * len(texts)
    return [bool(g) if isinstance(g, bool) else m for g, m in zip(given, guessed)]


def row_images(rows: list[dict]) -> list[bool | None]:
    """:func:`image_flags` for a set's rows (the ``image`` field where a row has one)."""
    return image_flags([r["text"] for r in rows], [r.get("image") for r in rows])


_DECLINED = {"declined", "decline", "refused", "refusal", "true", "yes"}
_NOT_DECLINED = {"not_declined", "not declined", "not_refused", "not refused", "complied", "false", "no"}


def _label(row: dict) -> bool | None:
    """A row's label: ``refused`` (bool) or ``label`` (a bool, or "declined" / "not_declined" and their like);
    None when the row has none (skipped, and counted); anything else stops the benchmark (a label read wrong
    would be a wrong figure)."""
    value = row["refused"] if "refused" in row else row.get("label")
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _DECLINED | _NOT_DECLINED:
        return value.strip().lower() in _DECLINED
    raise ValueError(f"row {row.get('id')!r}: label {value!r} is neither declined nor not declined")


def independent_rows(path: Path) -> list[dict]:
    """An independent round's rows, ambiguous ones skipped. Round 3: ``response``, ``label`` (declined /
    not_declined), ``language``, ``script``, ``cls``; round 4: ``response``, ``refused`` (bool), ``lang``
    (code-switched rows: "en-zh"), ``class``; round 5 as round 4, with ``image`` (bool: an image delivered)."""
    out, unlabelled = [], 0
    for r in C.load_rows([path]):
        if r.get("ambiguous"):
            continue
        label = _label(r)
        if label is None:
            unlabelled += 1
            continue
        lang = (r.get("language") or r.get("lang") or "") + ("/" + r["script"] if r.get("script") else "")
        text = r["response"] if "response" in r else r["text"]
        row = {"id": r["id"], "text": text, "label": label, "lang": lang, "style": r.get("cls", r.get("class"))}
        if isinstance(r.get("image"), bool):
            row["image"] = r["image"]
        out.append(row)
    if unlabelled:
        print(f"{path.name}: {unlabelled} rows without a label skipped (not ambiguous, no label)", file=sys.stderr)
    return out


def covered_tag(lang: str) -> bool:
    """A language tag of a labelled set in the covered languages; a code-switched tag ("en-zh") when all its
    languages are; a script suffix ("hi/Latn": transliterated) never."""
    from lmms_plugins.tasks.dod.refusal import COVERED

    return "/" not in lang and all(part in COVERED for part in lang.split("-"))


def routing(reading: str, which: str = "r3") -> None:
    """Judge-free and hybrid figures, and the hybrid routing, on an independent round and the third frozen split.

    Judge-free: a response whose verdict is ``uncertain`` (not covered, or covered and uncertain) is pending;
    the figure is the accuracy on the decided responses of the covered languages, with the pending share."""
    from lmms_plugins.tasks.dod.refusal import UNCERTAIN

    if which == "r3":
        sets = [("round 3", independent_rows(R3)), ("frozen3", C.load_rows([FROZEN3]))]
    elif which == "frozen5":
        sets = [("frozen5", C.load_rows([FROZEN5]))]
    else:
        sets = [(f"round {which[1:]}", independent_rows(ROUNDS[which]))]
    for name, rows in sets:
        images = row_images(rows)
        ds = [detect_in(r["text"], reading, image=im) for r, im in zip(rows, images)]
        own = [covered_tag(r.get("lang", "en")) for r in rows]
        covered = [(r, d) for r, d, o in zip(rows, ds, own) if o]
        decided = [(r["label"], bool(d.refused)) for r, d in covered if d.verdict != UNCERTAIN]
        marked = ("says whether each response delivered an image" if all(isinstance(r.get("image"), bool) for r in rows)
                  else "marks its images" if any(im is not None for im in images) else "does not mark images (image not known)")
        print(f"{name} (text: {reading}; the set {marked}): {len(rows)} responses, {len(covered)} in covered languages")
        print(f"  judge-free, covered languages, decided: {fmt(scores(decided))}; "
              f"pending {len(covered) - len(decided)} of {len(covered)} ({1 - len(decided) / max(1, len(covered)):.1%})")
        print(f"  (best answers on every covered-language response: {fmt(scores([(r['label'], bool(d.refused)) for r, d in covered]))})")
        why = Counter("not covered" if not d.covered else "no image, no conclusion" if d.why.startswith("no conclusion and no image")
                      else "image after a conclusion" if d.why.startswith("a conclusion, yet")
                      else "image after a negation + substitute word" if d.why.startswith("an image, yet") else "rules and classifier"
                      for _r, d in covered if d.verdict == UNCERTAIN)
        print("  pending in covered languages, why: " + (", ".join(f"{k} {v}" for k, v in why.most_common()) or "none"))
        per_lang: dict[str, list] = defaultdict(list)
        for r, d in covered:
            per_lang[r.get("lang", "en")].append((r["label"], bool(d.refused), d.verdict == UNCERTAIN))
        print("  per covered language (right/decided, pending): " + ", ".join(
            f"{k} {sum(y == p for y, p, u in v if not u)}/{sum(not u for *_, u in v)} ({sum(u for *_, u in v)})"
            for k, v in sorted(per_lang.items(), key=lambda kv: -len(kv[1]))))
        others = [(r, d) for r, d, o in zip(rows, ds, own) if not o]
        if others:
            print(f"  other languages: {len(others)}, uncertain {sum(d.verdict == UNCERTAIN for _, d in others)}, "
                  f"read as covered {sum(d.covered for _, d in others)}")
        routed = [(r, d) for r, d in zip(rows, ds) if d.verdict == UNCERTAIN]
        exact = [(r["label"], r["label"] if d.verdict == UNCERTAIN else bool(d.refused)) for r, d in zip(rows, ds)]
        n_right = sum(y == p for y, p in exact)
        n_routed_right = sum(bool(d.refused) == r["label"] for r, d in routed if d.covered)  # what the judge would overturn
        expected = (n_right - len(routed) * (1 - JUDGE_AGREEMENT)) / len(rows)
        print(f"  hybrid, judge = label:        {fmt(scores(exact))}; at {JUDGE_AGREEMENT:.1%} judge agreement: {expected:.3f}")
        print(f"  to the judge: {len(routed)} ({len(routed) / len(rows):.1%}); not covered {sum(not d.covered for _, d in routed)}, "
              f"covered but uncertain {sum(d.covered for _, d in routed)} (of which the best answer was right: {n_routed_right})")
        for field in ("lang", "style"):
            c = Counter(r.get(field) for r, _ in routed)
            print(f"    by {field}: " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
        groups: dict[str, list] = defaultdict(list)
        for r, d in covered:
            if d.verdict != UNCERTAIN:
                groups[r.get("style", "?")].append((r["label"], bool(d.refused)))
        print("  judge-free per class (covered, decided): " + ", ".join(
            f"{k} {sum(y == p for y, p in v)}/{len(v)}" for k, v in sorted(groups.items())))
        wrong = [(r, d) for r, d in covered if d.verdict != UNCERTAIN and bool(d.refused) != r["label"]]
        for r, d in wrong:
            print(f"    wrong: {r['id']} [{r.get('lang')}/{r.get('style')}] label={r['label']} {r['text'][:160]!r}")


def _old_detector(folder: Path):
    """The refusal detector of an earlier commit, extracted with ``git archive <sha> tasks/dod | tar -x -C DIR``:
    its ``detect_refusal`` and ``rule_refusal`` (``DIR/tasks/dod/refusal`` since the sub-package, the flat
    ``DIR/tasks/dod/refusal_*.py`` before it), imported under a private name (nothing else of the package runs)."""
    import importlib
    import types

    folder = folder / "refusal" if (folder / "refusal" / "detect.py").exists() else folder
    name = "_replayed_" + re.sub(r"\W", "_", str(folder))
    pkg = types.ModuleType(name)
    pkg.__path__ = [str(folder)]
    sys.modules[name] = pkg
    rules = importlib.import_module(f"{name}.rules" if (folder / "rules.py").exists() else f"{name}.refusal_rules")
    det = importlib.import_module(f"{name}.detect") if (folder / "detect.py").exists() else rules
    return det.detect_refusal, rules.rule_refusal


def replay(folder: Path, which: str) -> None:
    """A first run replayed under today's abstention: the earlier detector's decisions (rules, classifier and
    language coverage as they were; its own abstention on the output, if any, left out) passed through
    today's ``detect._with_output`` with each row's image. Judge-free figures on the covered languages: decided
    share and accuracy on the decided, next to the first run as it was (no output abstention)."""
    from lmms_plugins.tasks.dod.refusal import UNCERTAIN
    from lmms_plugins.tasks.dod.refusal.detect import _with_output

    detect, rule_refusal = _old_detector(folder)
    rows = C.load_rows([FROZEN5 if which == "frozen5" else FROZEN3]) if which in ("frozen3", "frozen5") else independent_rows(ROUNDS[which])
    rows = [r for r in rows if covered_tag(r.get("lang", "en"))]
    images = row_images(rows)
    old, new = [], []
    for r, im in zip(rows, images):
        d = detect(r["text"])  # image not passed: the old detector's own output abstention stays out
        old.append(d)
        new.append(_with_output(r["text"], rule_refusal(r["text"]), d, im))
    known = sum(im is not None for im in images)
    print(f"{which}, covered languages: {len(rows)} responses, image known for {known} (detector from {folder})")
    for name, ds in (("first run as it was", old), ("replayed with today's abstention", new)):
        decided = [(r["label"], bool(d.refused)) for r, d in zip(rows, ds) if d.verdict != UNCERTAIN]
        print(f"  {name:34s} decided {len(decided)} ({len(decided) / max(1, len(rows)):.1%}): {fmt(scores(decided))}")
    for r, d in zip(rows, new):
        if d.verdict != UNCERTAIN and bool(d.refused) != r["label"]:
            print(f"    wrong: {r['id']} [{r.get('lang')}/{r.get('style')}] label={r['label']} {r['text'][:140]!r}")


def abstention(reading: str) -> None:
    """Judge-free coverage (share decided) and accuracy on the decided responses, per labelled set."""
    from lmms_plugins.tasks.dod.refusal import UNCERTAIN

    sets = [("frozen", apply_reading(load("frozen"), reading)), ("frozen2", apply_reading(load("frozen2"), reading)),
            ("independent", apply_reading(load("independent"), reading)), ("frozen3", C.load_rows([FROZEN3])),
            ("round 3 (covered languages)", [r for r in independent_rows(R3) if covered_tag(r["lang"])]),
            ("frozen5", C.load_rows([FROZEN5]))]
    print("set | responses | decided (coverage) | accuracy on decided | P | R | best answers on all | pending: rules/classifier, image after a conclusion or a substitute word, no image + no conclusion, not covered")
    for name, rows in sets:
        images = row_images(rows)
        ds = [detect_in(r["text"], reading, image=im) for r, im in zip(rows, images)]
        decided = [(bool(r["label"]), bool(d.refused)) for r, d in zip(rows, ds) if d.verdict != UNCERTAIN]
        s, a = scores(decided), scores([(bool(r["label"]), bool(d.refused)) for r, d in zip(rows, ds)])
        kinds = Counter("not covered" if not d.covered else "no image" if d.why.startswith("no conclusion and no image")
                        else "image" if d.why.startswith(("a conclusion, yet", "an image, yet")) else "rules" for d in ds if d.verdict == UNCERTAIN)
        print(f"{name} | {len(rows)} | {len(decided)} ({len(decided) / len(rows):.1%}) | {s['accuracy']:.3f} | {s['precision']:.3f} | "
              f"{s['recall']:.3f} | {a['accuracy']:.3f} | {kinds['rules']}, {kinds['image']}, {kinds['no image']}, {kinds['not covered']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("frozen", "frozen2", "independent", "tuning", "all"), default="frozen")
    ap.add_argument("--errors", action="store_true", help="print misclassified responses (not for the frozen split)")
    ap.add_argument("--fit", action="store_true", help="cross-validate on the tuning material and search the weights")
    ap.add_argument("--scaling", action="store_true", help="time and peak memory against input size")
    ap.add_argument("--text", choices=("all", "reasoning"), default=None,
                    help="what the detector reads (and which labels count): the whole output or the reasoning part "
                         "(default: all; reasoning for --split independent)")
    ap.add_argument("--readings", action="store_true", help="labels and decisions that change between the two readings")
    ap.add_argument("--routing", action="store_true", help="round 3 and frozen3: judge-free, hybrid and the hybrid routing")
    ap.add_argument("--round", choices=("r3", "r4", "r5", "r6", "r7", "frozen3", "frozen5"), default="r3",
                    help="with --routing: the independent round to read (r5: rows carry ``image``), or the fifth frozen split")
    ap.add_argument("--replay", type=Path, default=None, metavar="DIR",
                    help="with --round: replay an earlier detector's first run (git archive <sha> tasks/dod | tar -x -C DIR; "
                         "pass DIR/tasks/dod) under today's abstention")
    ap.add_argument("--abstention", action="store_true", help="per labelled set: share decided judge-free, accuracy on it")
    args = ap.parse_args(argv)
    if args.replay:
        replay(args.replay, args.round)
        return 0
    if args.routing:
        path = FROZEN5 if args.round == "frozen5" else ROUNDS[args.round]
        if not path.exists():
            print(f"{path.relative_to(ROOT)} is not there: nothing to measure", file=sys.stderr)
            return 2
        routing(args.text or "all", args.round)
        return 0
    if args.abstention:
        abstention(args.text or "all")
        return 0
    if args.readings:
        readings()
        return 0
    if args.scaling:
        scaling()
        return 0
    if args.fit:
        fit(C.load_rows())
        return 0
    args.text = args.text or ("reasoning" if args.split == "independent" else "all")
    rows = apply_reading(load(args.split), args.text)
    items = score_items(rows)
    print(f"split {args.split} (text: {args.text}): {len(rows)} responses, {sum(r['label'] for r in rows)} conclusions; "
          f"classifier trained on {C.default_model().n_train} sentences of the tuning material")
    print(f"rules alone:      {fmt(scores([(it['y'], it['rules']) for it in items]))}")
    print(f"classifier alone: {fmt(scores([(it['y'], it['clf']) for it in items]))}")
    combined = [(it["y"], decide(it)[0]) for it in items]
    print(f"combined:         {fmt(scores(combined))}")
    for field in ("lang", "category", "style"):
        groups: dict[str, list] = defaultdict(list)
        for it, pair in zip(items, combined):
            groups[str(it["row"].get(field))].append(pair)
        print(f"per {field}:")
        for key, pairs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            s = scores(pairs)
            print(f"  {key:24s} n={s['n']:4d} accuracy={s['accuracy']:.3f}")
    for line in hybrid_table(items):
        print(line)
    bad_evidence = 0
    from lmms_plugins.tasks.dod.refusal import detect_refusal

    for r in rows[:400]:
        d = detect_refusal(r["text"])
        bad_evidence += bool(d.refused and d.evidence not in r["text"])
    print(f"evidence not an exact substring (first 400): {bad_evidence}")
    if args.errors and args.split not in ("frozen", "frozen2", "independent", "all"):
        for it, (y, p) in zip(items, combined):
            if y != p:
                r = it["row"]
                print(f"  {r['id']} [{r.get('lang')}/{r.get('style')}] label={y} got={p} {r['text'][:260]!r}")
    return 1 if bad_evidence else 0


if __name__ == "__main__":
    sys.exit(main())
