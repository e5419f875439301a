"""compare's prose is written from the numbers it prints: every sentence about a bound or a sample
count is true of its own table, and the printed summary is short and agrees with the tables."""

from __future__ import annotations

import re

from lmms_plugins import compare as C
from lmms_plugins.compare.build import community_value, fmt_value
from lmms_plugins.compare.render import bound_lines, summary_blocks

from .runs import cwi_run, write_run


def _dod(out, d_success: int, e_success: int, model: str):
    return write_run(out, {"dod_no_hint": {
        "E": e_success / 10, "D_strict": d_success / 10, "D_lenient": d_success / 10, "D_f": 0.0,
        "dod_breakdown": {"E": [e_success, 0, 10], "D_strict": [d_success, 0, 10], "D_lenient": [d_success, 0, 10],
                          "D_f": [0, 0, 10]}}}, model=model)


def _comparison(tmp_path):
    _dod(tmp_path / "a", 0, 9, "a")   # refuses nothing: within the card's 1.7 % bound
    _dod(tmp_path / "b", 5, 7, "b")   # refuses half: above it, as VisTA-BAGEL's published 93.0 is
    cwi_run(tmp_path / "a", [True] * 8 + [False] * 2, model="a", timestamp="20260101_130000")
    cwi_run(tmp_path / "b", [True] * 5 + [False] * 5, model="b", timestamp="20260101_130000")
    return C.compare([tmp_path / "a", tmp_path / "b"], labels=["a", "b"], out_dir=tmp_path / "cmp", chart=False)


def test_every_bound_sentence_is_true_of_its_table(tmp_path):
    cmp = _comparison(tmp_path)
    checked = 0
    for blk in cmp.blocks:
        unit = blk.unit_suffix
        values = {e.run: e.value for e in blk.entries}
        bounds = {c.model: community_value(c, blk.mm) for c in blk.community if c.kind == "upper_bound"}
        scored = {c.model: community_value(c, blk.mm) for c in blk.community if c.kind == "score"}
        for line in bound_lines(blk):
            m = re.match(r"(\w+): (\S+) is (above|within) the bound (\S+) stated for (.+?) \(", line)
            if m:
                run, shown, side, bound, who = m.groups()
                assert shown == fmt_value(values[run], unit) and bound == fmt_value(bounds[who], unit)
                assert (side == "above") == (values[run] > bounds[who]), line
                checked += 1
                continue
            m = re.match(r"published rows above that bound: (.+); the sources do not say why", line)
            assert m, line
            listed = dict(re.findall(r"(.+?) (\d+\.\d+)(?:, |$)", m.group(1)))
            bound = min(bounds.values())
            assert set(listed) == {k for k, v in scored.items() if v > bound}, line
            checked += 1
        for note in blk.notes:  # "<run>: <n> samples against <m> in the paper"
            m = re.match(r"(\w+): (\d+) samples against (\d+) in the paper", note)
            if m:
                entry = next(e for e in blk.entries if e.run == m.group(1))
                assert int(m.group(2)) == entry.n and int(m.group(3)) == min(c.n for c in blk.community if c.kind == "score" and c.n)
                checked += 1
    assert checked >= 8
    text = cmp.text
    d_block = text.split("dod_no_hint · D strict")[1].split("dod_no_hint · ")[0]
    assert "a: 0.0 is within the bound 1.7 stated for all evaluated UMMs" in d_block
    assert "b: 50.0 is above the bound 1.7" in d_block and "published rows above that bound: VisTA-BAGEL 93.0" in d_block
    import csv

    rows = [r for r in csv.DictReader((tmp_path / "cmp" / "compare.csv").open()) if r["row"] == "yours" and r["metric"] == "D_strict"]
    assert [r["notes"].split(";")[0] for r in rows] == ["a: 0.0 is within the bound 1.7 stated for all evaluated UMMs (DoD dataset card section 6 and the paper)",
                                                        "b: 50.0 is above the bound 1.7 stated for all evaluated UMMs (DoD dataset card section 6 and the paper)"]
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "b: 50.0 is above the bound 1.7" in md and "published rows above that bound: VisTA-BAGEL 93.0" in md
    # the source's sentence that its own table contradicts is not printed as the package's prose
    assert "no evaluated UMM refuses more than" not in text and "no evaluated UMM refuses more than" not in cmp.summary


def test_the_summary_is_short_and_agrees_with_the_tables(tmp_path, capsys):
    cmp = _comparison(tmp_path)
    summary = cmp.summary
    assert len(summary.splitlines()) <= 20
    shown = summary_blocks(cmp)
    assert {(b.task, b.metric) for b in shown} == {("dod_no_hint", "E"), ("dod_no_hint", "D_strict"), ("cwi_alignment", "accuracy")}
    for blk in shown:
        line = next(x for x in summary.splitlines() if x.startswith(f"  {blk.task} · {blk.mm.label}:"))
        for e in blk.entries:
            assert f"{e.run} {fmt_value(e.value, blk.unit_suffix)} % [{fmt_value(e.ci[0], '%')}, {fmt_value(e.ci[1], '%')}] n={e.n}" in line
    p = next(p for p in cmp.paired if p.task == "cwi_alignment" and p.metric == "accuracy")
    assert f"cwi_alignment · accuracy: Δ {p.diff:+.1f}" in summary and f"n = {p.n_shared}" in summary
    assert f"{len(cmp.blocks) - len(shown)} more tables" in summary and "compare.md" in summary
    # the CLI prints the summary; --full the tables
    assert C.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c2"), "--no-chart"]) == 0
    short = capsys.readouterr().out
    assert "more tables" in short and "=== Draw-or-Decline ===" not in short
    assert C.main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c3"), "--no-chart", "--full"]) == 0
    assert "=== Draw-or-Decline ===" in capsys.readouterr().out


def test_a_group_is_tested_on_its_tasks_samples_pooled(tmp_path):
    import json

    for name, ok in (("a", [True] * 6), ("b", [True] * 2 + [False] * 4)):
        cwi_run(tmp_path / name, ok, task="cwi_alignment", model=name, timestamp="20260101_120000")
        path = cwi_run(tmp_path / name, ok[::-1], task="cwi_color", model=name, timestamp="20260101_130000")
        data = json.loads(path.read_text())  # the group row lmms-eval writes beside the last call's tasks
        acc = (sum(ok) * 2) / 12
        data["results"]["cwi"] = {"alias": "cwi", "accuracy,none": acc}
        data["group_subtasks"] = {"cwi": ["cwi_alignment", "cwi_color"], "cwi_color": []}
        path.write_text(json.dumps(data))
    cmp = C.compare([tmp_path / "a", tmp_path / "b"], labels=["a", "b"])
    p = next(p for p in cmp.paired if p.task == "cwi" and p.metric == "accuracy")
    assert p.test == "McNemar exact" and p.n_shared == 12 and p.discordant == (8, 0)  # ids of the two tasks kept apart
