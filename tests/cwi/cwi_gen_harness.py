"""Checks shared by the generator/solver tests of the Perception, Localization and Color
families (tests/cwi/test_gen_<family>.py).

Every item is round-tripped through PNG bytes first, as the dataset stores it, so the solver
and the shortcuts see exactly what a model would see. Scoring uses the task's own rule from
its YAML (the framework's generic scorer).
"""

from __future__ import annotations

import importlib
import io
import json

import numpy as np
from PIL import Image

from lmms_plugins.tasks.cwi.rules import score
from lmms_plugins.tasks.cwi.task_rules import rule_for_task

TIERS = ("easy", "medium", "hard", "expert")
PER_TIER = 12  # items per tier in the accuracy test (benchmarks/cwi_solver_vs_shortcuts.py runs 100 per task)


def modules(task: str):
    gen = importlib.import_module(f"lmms_plugins.tasks.cwi.generators.{task}")
    sol = importlib.import_module(f"lmms_plugins.tasks.cwi.solvers.{task}")
    return gen, sol


def png_bytes(img) -> bytes | None:
    if img is None:
        return None
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def reload(img):
    b = png_bytes(img)
    return None if b is None else Image.open(io.BytesIO(b)).convert("RGB")


def run_items(task: str, per_tier: int = PER_TIER, seed: int = 20261129):
    """Generate ``per_tier`` items per tier; return rows (tier, item, solver score, shortcut hits)."""
    gen, sol = modules(task)
    rule = rule_for_task(task)
    rows = []
    for t, tier in enumerate(TIERS):
        rng = np.random.default_rng([seed, t])
        for _ in range(per_tier):
            item = gen.generate(rng, tier)
            im, im2 = reload(item.image), reload(item.image_2)
            pred = sol.solve(im, im2, item.prompt)
            solved = score(rule, f"<answer>{pred}</answer>", item.answer)
            hits = {
                name: score(rule, f"<answer>{ans}</answer>", item.answer).correct
                for name, ans in gen.shortcut_answers(im, im2, item.prompt).items()
            }
            rows.append((tier, item, pred, solved, hits))
    return rows


def check_accuracy(task: str, rows, min_acc: float = 0.95):
    ok = [r[3].correct for r in rows]
    misses = [(r[0], r[1].answer, r[2], r[3].reason) for r in rows if not r[3].correct]
    assert np.mean(ok) >= min_acc, f"{task}: solver {sum(ok)}/{len(ok)}; misses {misses[:5]}"
    for tier in TIERS:
        tier_ok = [r[3].correct for r in rows if r[0] == tier]
        assert np.mean(tier_ok) >= 0.85, f"{task}/{tier}: solver {sum(tier_ok)}/{len(tier_ok)}"


def check_shortcuts(task: str, rows):
    """The generator rejects every sample a shortcut would get right: no item may be hit."""
    names = set()
    for tier, item, _pred, _solved, hits in rows:
        names |= set(hits)
        bad = [n for n, h in hits.items() if h]
        assert not bad, f"{task}/{tier}: shortcut(s) {bad} score item with gold {item.answer!r}"
    assert names, f"{task}: shortcut_answers returned nothing"


def check_item_shape(task: str, rows):
    rule = rule_for_task(task)
    for tier, item, *_ in rows:
        assert item.image.mode == "RGB"
        assert item.image_2 is None or item.image_2.mode == "RGB"
        assert "<answer>" in item.prompt and "</answer>" in item.prompt
        assert item.prompt.rstrip().endswith(".") or item.prompt.rstrip().endswith(">")
        json.dumps(item.meta)  # JSON-serialisable
        assert item.meta.get("tier") == tier
        # the gold answer is readable under the task's rule and scores itself correct
        assert score(rule, f"<answer>{item.answer}</answer>", item.answer).correct, item.answer


def check_determinism(task: str):
    gen, _ = modules(task)
    for tier in TIERS:
        a = gen.generate(np.random.default_rng(7), tier)
        b = gen.generate(np.random.default_rng(7), tier)
        c = gen.generate(np.random.default_rng(8), tier)
        assert png_bytes(a.image) == png_bytes(b.image)
        assert png_bytes(a.image_2) == png_bytes(b.image_2)
        assert (a.prompt, a.answer, json.dumps(a.meta, sort_keys=True)) == (
            b.prompt,
            b.answer,
            json.dumps(b.meta, sort_keys=True),
        )
        assert png_bytes(a.image) != png_bytes(c.image)


def check_bad_tier(task: str):
    import pytest

    gen, _ = modules(task)
    with pytest.raises(ValueError, match="tier"):
        gen.generate(np.random.default_rng(0), "impossible")
