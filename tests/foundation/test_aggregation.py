"""utils/aggregation.py: the one way aggregations are built, and every aggregation a task YAML
names is defined under that name in its module (grep finds it from the YAML)."""

from __future__ import annotations

import importlib
import math
import re
from pathlib import Path

import pytest

from lmms_plugins.utils import aggregation
from lmms_plugins.utils import stderr as se_mod
from lmms_plugins.utils.status import sample
from lmms_plugins.utils.stderr import mean_se

TASKS = Path(__file__).resolve().parents[2] / "tasks"
NAMED = re.compile(r"aggregation:\s*!function\s+([\w.]+)")


def _named_in_yamls() -> dict[str, list[str]]:
    """function path -> the YAML files that name it (task YAMLs, templates, groups)."""
    out: dict[str, list[str]] = {}
    for path in sorted(TASKS.rglob("*")):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            for ref in NAMED.findall(path.read_text(encoding="utf-8")):
                out.setdefault(ref, []).append(str(path.relative_to(TASKS)))
    return out


def test_every_aggregation_a_task_yaml_names_is_a_module_level_name_of_its_own():
    refs = _named_in_yamls()
    benches = {f.split("/")[0] for files in refs.values() for f in files}
    assert {"abacus", "cwi", "dod", "grade"} <= benches, benches
    problems = []
    for ref, files in sorted(refs.items()):
        module_name, _, attr = ref.rpartition(".")
        module = importlib.import_module(module_name)
        fn = getattr(module, attr, None)
        source = Path(module.__file__).read_text(encoding="utf-8")
        # assigned or defined at module level under that name: not made in a loop, not an alias
        defined = re.search(rf"^(?:{attr}\s*=|def {attr}\()", source, re.M)
        if not callable(fn) or fn.__name__ != attr or not defined:
            problems.append((ref, files[0], getattr(fn, "__name__", None), bool(defined)))
    assert not problems, problems


def test_named_gives_the_name_the_doc_and_the_standard_error():
    agg = aggregation.named("aggregate_total", lambda items: sum(items), se=lambda items: 0.5, doc="a sum")
    assert agg.__name__ == agg.__qualname__ == "aggregate_total" and agg.__doc__ == "a sum"
    assert agg([1, 2, 3]) == 6
    assert getattr(agg, se_mod.ATTR)([1]) == 0.5  # what lmms-eval's Stderr column will ask
    plain = aggregation.named("aggregate_rows", lambda items: {"n": len(items)})
    assert plain(["a", "b"]) == {"n": 2} and not hasattr(plain, se_mod.ATTR)  # a dict row has no stderr
    with pytest.raises(ValueError, match="identifier"):
        aggregation.named("aggregate-rows", len)


def test_mean_keeps_pending_in_the_denominator_and_selects_its_items(capsys):
    items = [sample(1.0, sample_id=1, tier="easy"), sample(None, "judge_error", "timeout", 2, tier="easy"),
             sample(0.0, sample_id=3, tier="hard"), sample(1.0, sample_id=4, tier="hard")]
    overall = aggregation.mean("aggregate_accuracy", "demo accuracy")
    assert overall(items) == pytest.approx(0.5)  # 2 of 4: the pending one counts 0
    assert getattr(overall, se_mod.ATTR)(items) == pytest.approx(mean_se([1, 0, 0, 1]))
    assert "demo accuracy: 4 samples: ok 3, judge_error 1" in capsys.readouterr().err

    easy = aggregation.mean("aggregate_accuracy_easy", keep=lambda i: i.get("tier") == "easy")
    assert easy(items) == pytest.approx(0.5)
    assert getattr(easy, se_mod.ATTR)(items) == pytest.approx(mean_se([1, 0]))
    assert "aggregate_accuracy_easy: 2 samples" in capsys.readouterr().err  # the label defaults to the name
    expert = aggregation.mean("aggregate_accuracy_expert", keep=lambda i: i.get("tier") == "expert")
    assert math.isnan(expert(items)) and getattr(expert, se_mod.ATTR)(items) is None  # no item of that tier
