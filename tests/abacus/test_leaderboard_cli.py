import json

from lmms_plugins.tasks.abacus import leaderboard


def _write(folder, task, items):
    path = folder / f"20260101_000000_samples_{task}.jsonl"
    path.write_text("".join(json.dumps({"doc_id": i, "abacus_leaderboard": it}) + "\n" for i, it in enumerate(items)))


def test_cli_prints_every_level_with_intervals(tmp_path, capsys):
    good = dict(cf=1.0, sc=0.9, oc=1.0, edit_score=0.9, exact=1.0, status="ok")
    bad = dict(cf=0.0, sc=0.0, oc=0.0, edit_score=0.0, exact=0.0, status="missing_image")
    _write(tmp_path, "abacus_add_easy", [good, good, bad])
    _write(tmp_path, "abacus_remove_hard", [good, bad])
    (tmp_path / "20260101_000000_samples_cwi_alignment.jsonl").write_text("{}\n")  # ignored
    assert leaderboard.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| abacus")}
    assert set(lines) == {"abacus_add_easy", "abacus_add", "abacus_remove_hard", "abacus_remove", "abacus (overall)"}
    assert "| 5 |" in lines["abacus (overall)"] and "missing_image 2, ok 3" in lines["abacus (overall)"]
    assert "[" in lines["abacus (overall)"]  # intervals printed
    assert leaderboard.main([str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows["abacus (overall)"]["cf"] == 0.6


def test_cli_without_samples(tmp_path, capsys):
    assert leaderboard.main([str(tmp_path)]) == 1
    assert "--log_samples" in capsys.readouterr().out
