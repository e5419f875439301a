"""Benchmark descriptors (``tasks/<bench>/benchmark.py``, registry in ``utils/benchmarks.py``): the
shared code reads them and knows no benchmark by name, so a fifth benchmark registered here shows up
in make-data, the data-root messages, the baselines' mapping, compare and the report through its
descriptor alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lmms_plugins.report import ReportBlocks
from lmms_plugins.utils import benchmarks
from lmms_plugins.utils import status as st
from lmms_plugins.utils.benchmarks import Benchmark, MetricMap

from .runs import sample_line, write_run

REPO = Path(__file__).resolve().parents[2]
HERE = __name__  # this module is the toy benchmark's descriptor module
MADE: list[list[str]] = []


def make_toy_data(argv: list[str]) -> int:
    MADE.append(list(argv))
    out = Path(argv[argv.index("--out") + 1])
    out.mkdir(parents=True, exist_ok=True)
    (out / "toy.jsonl").write_text('{"id": "t1"}\n')
    return 0


def toy_metric(task: str, metric: str) -> MetricMap | None:
    if metric == "toy_acc":
        return MetricMap("toy", "acc", "toy accuracy", "fraction", binary=True)
    return None


class ToyReport(ReportBlocks):
    output_title = "toy output"

    def input_images(self, task, key, tr, roots):
        return [], f"toy input of {key} lives in toy.jsonl"

    def sample_block(self, line):
        return f'<div class="toy-block">toy verdict for {line["doc_id"]}</div>'

    def breakdown(self, task, tr):
        return f"<h4>{task}: toy breakdown over {len(tr.samples or [])} samples</h4>"


BENCHMARK = Benchmark(
    name="toy",
    title="Toy-Bench",
    hub_id="example/toy-bench",
    layout="toy.jsonl (one JSON object per item)",
    make_data={"toy-data": f"{HERE}:make_toy_data"},
    primary_metrics=("toy_acc",),
    display_unit="percent",
    protocol_note="toy protocol: scored by hand",
    metric_map=toy_metric,
    settings=lambda task: ("all",),
    report=f"{HERE}:ToyReport",
    reports_pending=True,
    counts_row="toy_breakdown",
)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(benchmarks, "REGISTRY", [*benchmarks.REGISTRY, HERE])
    return BENCHMARK


def _toy_run(out: Path, correct: list[bool], model: str = "replay") -> Path:
    lines = [sample_line(i, {"toy_acc": st.sample(1.0 if ok else 0.0, st.OK, "", f"t{i}")}, output=f"answer {i}",
                         target="x", doc_hash=f"{i:064d}") for i, ok in enumerate(correct)]
    counts = {"toy_acc": [sum(correct), 1, len(correct)]}  # one sample still pending, as the task reports it
    return write_run(out, {"toy_easy": {"toy_acc": sum(correct) / len(correct), "toy_breakdown": counts}},
                     {"toy_easy": lines}, model=model).parent


def test_the_registry_holds_the_four_benchmarks_in_table_order():
    assert benchmarks.names() == ("dod", "abacus", "grade", "cwi")
    for bench in benchmarks.all_benchmarks():
        assert benchmarks.find(bench.name) is bench
        assert bench.hub_id and bench.layout and bench.primary_metrics and bench.protocol_note
        for target in [*bench.make_data.values(), bench.report]:
            assert callable(benchmarks.load(target)), target
    assert benchmarks.of_task("abacus_add_easy").name == "abacus" and benchmarks.of_task("cwi_code_jigsaw").name == "cwi"
    assert benchmarks.of_task("mmmu_val") is None and benchmarks.of_task("dodo") is None


def test_a_fifth_benchmark_reaches_make_data_and_the_data_root_message(toy, tmp_path, capsys, monkeypatch):
    from lmms_plugins.cli import main
    from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide, local_root

    assert main(["make-data", "toy-data", "--out", str(tmp_path / "toy")]) == 0
    assert MADE[-1] == ["--out", str(tmp_path / "toy")] and (tmp_path / "toy" / "toy.jsonl").exists()
    text = how_to_provide("toy")
    assert "LMMS_PLUGINS_TOY_ROOT" in text and "toy.jsonl (one JSON object per item)" in text and "example/toy-bench" in text
    monkeypatch.setenv("LMMS_PLUGINS_TOY_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(MissingDataError, match="toy.jsonl"):
        local_root("toy")
    with pytest.raises(SystemExit):  # without the registry line, make-data does not know it
        monkeypatch.setattr(benchmarks, "REGISTRY", [p for p in benchmarks.REGISTRY if p != HERE])
        main(["make-data", "toy-data", "--out", str(tmp_path / "x")])
    assert "invalid choice: 'toy-data'" in capsys.readouterr().err


def test_a_fifth_benchmark_reaches_the_mapping_compare_and_report(toy, tmp_path):
    from lmms_plugins.baselines.mapping import benchmark_of, map_metric, settings_of
    from lmms_plugins.compare import compare
    from lmms_plugins.report import write_report

    assert benchmark_of("toy_easy") == "toy" and settings_of("toy_easy") == ("all",)
    assert map_metric("toy_easy", "toy_acc").display_unit == "percent"
    a = _toy_run(tmp_path / "a", [True, True, False, True])
    b = _toy_run(tmp_path / "b", [True, False, False, False], model="other")
    cmp = compare([str(a), str(b)], labels=["A", "B"], chart=False)
    assert [(blk.benchmark, blk.task, blk.metric) for blk in cmp.blocks] == [("toy", "toy_easy", "toy_acc")]
    assert cmp.blocks[0].entries[0].value == pytest.approx(75.0)  # percent, as the descriptor says
    assert cmp.blocks[0].entries[0].pending == (1, 4)  # reports_pending, from the counts_row
    assert "=== Toy-Bench ===" in cmp.text and "Protocol differences: toy protocol: scored by hand" in cmp.text
    assert "Toy-Bench:\n  toy_easy · toy accuracy: A 75.0 %" in cmp.summary
    assert "pending 1/4 (25.0 %), ceiling 75.0" in cmp.text
    assert [p.task for p in cmp.paired] == ["toy_easy"]

    page = write_report(a, tmp_path / "a.html").read_text(encoding="utf-8")
    assert "<h3>Toy-Bench</h3>" in page  # the headline, by the primary metric
    assert re.search(r"<td>toy_easy</td><td>toy accuracy</td><td class=\"num\"><b>75.0 %</b>", page)
    assert "<h3>Toy-Bench: every metric</h3>" in page
    assert "toy_easy: toy breakdown over 4 samples" in page
    assert page.count('class="toy-block"') == 4 and "toy verdict for 3" in page
    assert "toy input of t0 lives in toy.jsonl" in page


def test_the_shared_code_names_no_benchmark():
    """Benchmark names, titles, hub ids and headline metrics live in tasks/<bench>/ only (prose in
    docstrings and comments aside)."""
    from lmms_plugins.report import blocks_of

    shared = [REPO / "lmms_plugins" / p for p in ("report.py", "headline.py", "cli.py", "runs.py", "check.py", "baselines/mapping.py")]
    shared += sorted((REPO / "lmms_plugins" / "compare").glob("*.py")) + [REPO / "utils" / "data_roots.py"]
    names, words = [], set()
    for b in benchmarks.all_benchmarks():
        names.append(b.name)
        blocks = blocks_of(b.name)
        words |= {b.title, b.hub_id, b.counts_row, *b.primary_metrics, *b.make_data, *blocks.verdict_metrics, *blocks.lower_is_better}
    words.discard("")
    assert {"E", "D_strict", "abacus_score", "grade_strict", "accuracy", "dod_breakdown", "CwI-Bench"} <= words
    quoted = re.compile(r"""["']((?:%s)(?:[_-][\w-]*)?|%s)["']""" % ("|".join(names), "|".join(map(re.escape, sorted(words)))))
    found = {}
    for path in shared:
        code = "\n".join(line.split("#")[0] for line in path.read_text(encoding="utf-8").splitlines())
        code = re.sub(r'"""[\s\S]*?"""', "", code)  # docstrings
        hits = quoted.findall(code)
        if hits:
            found[path.name] = hits
    assert not found, f"benchmark names in shared code: {json.dumps(found)}"
