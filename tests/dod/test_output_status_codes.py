"""DoD decides a sample's status from the codes of what was wrong with an output
(utils/model_output ``issues``), not from the words, which are for people and may change."""

from __future__ import annotations

import json

import pytest

from lmms_plugins.tasks.dod import hooks
from lmms_plugins.utils import model_output as mo
from lmms_plugins.utils import status as st


@pytest.mark.parametrize("raw,code,status", [
    (None, mo.NO_OUTPUT, st.UNPARSABLE),
    (12345, mo.NOT_TEXT, st.UNPARSABLE),
    ('{"text": "cut off', mo.BROKEN_JSON, st.UNPARSABLE),
    (json.dumps({"text": "", "images": [], "error": "quota"}), mo.MODEL_ERROR, st.UNPARSABLE),
    (json.dumps({"text": "done", "images": ["/nonexistent/dir/x.png"]}), None, st.MISSING_IMAGE),
])
def test_each_problem_has_its_code_and_status(raw, code, status):
    out, got, reason = hooks._read_output(raw)
    assert got == status and reason
    if code:
        assert code in {c for c, _ in out.issues}


def test_the_status_follows_the_code_not_the_words(monkeypatch):
    real = mo.parse_model_output

    def reworded(raw, **kw):
        out = real(raw, **kw)
        issues = tuple((code, f"problème {i}") for i, (code, _w) in enumerate(out.issues))
        return mo.ModelOutput(out.text, out.images, out.missing, tuple(w for _, w in issues), out.refused, issues)

    monkeypatch.setattr(mo, "parse_model_output", reworded)
    assert hooks._read_output(None)[1] == st.UNPARSABLE
    assert hooks._read_output('{"text": "cut off')[1] == st.UNPARSABLE
    missing = hooks._read_output(json.dumps({"text": "ok", "images": ["/nonexistent/dir/x.png"]}))
    assert missing[1] == st.MISSING_IMAGE and missing[2].startswith("problème")
    assert hooks._read_output("plain text, all fine")[1] == st.OK
