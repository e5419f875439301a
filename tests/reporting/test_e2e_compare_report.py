"""End to end: compare and report read what the real lmms-eval CLI wrote (two models on one
locally generated CwI task), not only the synthetic folders of the other tests."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

N = 8


class _Articles(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cards = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.cards.append(dict(attrs))


@pytest.mark.e2e
def test_compare_and_report_on_real_lmms_eval_runs(tmp_path, run_lmms_eval):
    import pyarrow.parquet as pq

    from lmms_plugins.compare import compare
    from lmms_plugins.report import write_report
    from lmms_plugins.tasks.cwi.generate import main as make_data

    root = tmp_path / "cwi"
    assert make_data(["--tasks", "alignment", "--n", str(N), "--seed", "5", "--out", str(root)]) == 0
    # the parquet file itself: datasets' default cache may hand back another folder's rows for the
    # same folder and config name (seen with two "cwi" folders in one session)
    docs = pq.read_table(next((root / "alignment").glob("test-*.parquet")), columns=["id", "answer"]).to_pylist()
    # run B: a replayed model that is right on the first half, wrong on the rest, and junk on the last
    outputs = tmp_path / "b.jsonl"
    lines = []
    for i, doc in enumerate(docs):
        text = f"<answer>{doc['answer']}</answer>" if i < N // 2 else "<answer>999,999</answer>"
        if i == N - 1:
            text = "I cannot tell."
        lines.append(json.dumps({"key": doc["id"], "text": text}))
    outputs.write_text("\n".join(lines) + "\n")
    env = {"LMMS_PLUGINS_CWI_ROOT": str(root)}
    run_lmms_eval("cwi_alignment", "cwi_solver", out_dir=tmp_path / "a", env=env)
    run_lmms_eval("cwi_alignment", "replay", f"outputs={outputs}", out_dir=tmp_path / "b", env=env)

    cmp = compare([tmp_path / "a", tmp_path / "b"], labels=["solver", "replayed"], out_dir=tmp_path / "cmp")
    acc = next(b for b in cmp.blocks if b.task == "cwi_alignment" and b.metric == "accuracy")
    values = {e.run: e.value for e in acc.entries}
    assert values["replayed"] == pytest.approx(100.0 * (N // 2) / N)
    p = next(p for p in cmp.paired if p.metric == "accuracy")
    solver_hits = round(values["solver"] * N / 100)
    assert p.test == "McNemar exact" and p.n_shared == N
    assert p.discordant[1] == 0 and p.discordant[0] == solver_hits - N // 2
    assert "McNemar exact p = " in cmp.text and (tmp_path / "cmp" / "compare.csv").exists()

    page = write_report(tmp_path / "b", media_root=[root])
    parser = _Articles()
    text = page.read_text()
    parser.feed(text)
    assert len(parser.cards) == N
    assert sum(c["data-status"] == "unparsable" for c in parser.cards) == 1
    assert sum(c["data-outcome"] == "pass" for c in parser.cards) == N // 2
    # the items' images, from the local parquet (lmms-eval logs none for CwI): two per alignment item
    assert text.count('alt="input image"') == 2 * N

    # run C: the solver on another CwI set (another seed): the same item ids, other items. lmms-eval's
    # doc_hash tells them apart, so nothing is paired (before #16.7 all N were "shared")
    other = tmp_path / "cwi_other"
    assert make_data(["--tasks", "alignment", "--n", str(N), "--seed", "6", "--out", str(other)]) == 0
    run_lmms_eval("cwi_alignment", "cwi_solver", out_dir=tmp_path / "c", env={"LMMS_PLUGINS_CWI_ROOT": str(other)})
    cmp2 = compare([tmp_path / "a", tmp_path / "c"], labels=["solver", "solver on other data"])
    p2 = next(p for p in cmp2.paired if p.metric == "accuracy")
    assert p2.test == "none" and p2.n_shared == 0 and p2.dropped == N
    assert f"{N} of {N} samples with the same id dropped" in p2.note
