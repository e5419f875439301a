"""The refusal classifier is shipped fitted (tasks/dod/refusal/model.json.gz): nothing is trained at run
time, the shipped file is exactly what a fresh fit on the tuning files gives, and its version reaches
the results."""

from __future__ import annotations

import gzip
import json

import pytest

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.tasks.dod.refusal import classifier as C


def test_loading_the_model_fits_nothing(monkeypatch):
    def no_fit(*a, **k):
        raise AssertionError("the classifier was fitted at run time")

    monkeypatch.setattr(C.SentenceModel, "__init__", no_fit)
    C.default_model.cache_clear()
    try:
        model = C.default_model()
        assert model.n_train > 3000 and model.sentence_probs(["There is no valid path."], [""])[0] > 0.5
    finally:
        C.default_model.cache_clear()


def test_the_shipped_model_is_a_fresh_fit(tmp_path):
    # deterministic fit: the same bytes (hence the same version) as the shipped file
    version = C.write_model(tmp_path / "model.json.gz")
    assert version == C.model_version(), "refit with `python -m lmms_plugins.tasks.dod.refusal.classifier --write`"
    fresh = json.loads(gzip.decompress((tmp_path / "model.json.gz").read_bytes()))
    assert fresh == json.loads(gzip.decompress(C.MODEL_FILE.read_bytes()))


def test_a_missing_model_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(C, "MODEL_FILE", tmp_path / "absent.json.gz")
    C.default_model.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="refusal model .* missing or unreadable"):
            C.default_model()
    finally:
        C.default_model.cache_clear()


def test_the_model_version_is_in_the_results():
    run = hooks.aggregate_run([])
    assert run["refusal_model"] == C.model_version() and len(run["refusal_model"]) == 12


def test_the_refusal_package_has_no_import_circle():
    # each module imports only modules listed before it in the package docstring (at any depth of the code)
    import ast
    from pathlib import Path

    order = ["rules", "language", "classifier", "detect", "text"]
    pkg = Path(C.__file__).parent
    for i, name in enumerate(order):
        tree = ast.parse((pkg / f"{name}.py").read_text(encoding="utf-8"))
        used = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}
        assert used <= set(order[:i]), (name, used - set(order[:i]))
