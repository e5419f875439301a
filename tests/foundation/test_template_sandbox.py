"""#15.9: every Jinja render site renders in a sandbox; a template cannot run Python code.

The attack templates below would create a file (``os.system('touch ...')``) if they ran: each
test asserts the clear error *and* that the file was not made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lmms_plugins.utils.templates import TemplateRejected, compile_template, render


def _attack(marker: Path) -> str:
    return "{{ cycler.__init__.__globals__.os.system('touch %s') }}" % marker


def _attr_attack(marker: Path) -> str:
    # no literal "_" attribute: only the sandbox (at render time) can stop this one
    return "{{ (cycler|attr('__in' ~ 'it__')) }}{{ lipsum|attr('__glo' ~ 'bals__') }}"


def test_template_sandbox_rejects_python_internals_at_load(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(TemplateRejected, match="internal attribute"):
        compile_template(_attack(marker))
    with pytest.raises(TemplateRejected, match="__class__"):
        compile_template("{{ prompt['__class__'] }}")
    assert not marker.exists()


def test_template_sandbox_refuses_unsafe_access_at_render(tmp_path):
    with pytest.raises(TemplateRejected, match="sandbox refused"):
        render(_attr_attack(tmp_path / "x"))
    with pytest.raises(TemplateRejected, match="sandbox refused"):
        render("{% set a = [] %}{{ a.append(1) }}")  # immutable sandbox: no mutation either


def test_template_sandbox_renders_ordinary_prompts():
    assert render("Q: {{ prompt }}{% if hint %} (hint){% endif %}", prompt="2+2?", hint=True) == "Q: 2+2? (hint)"
    assert render("{{ missing.deeper }}!", undefined="chainable") == "!"


def test_template_sandbox_cwi_yaml_prompt_template(tmp_path):
    from lmms_plugins.tasks.cwi.hooks import doc_to_text

    marker = tmp_path / "pwned"
    with pytest.raises(TemplateRejected, match="cwi prompt template"):
        doc_to_text({"prompt": "p"}, {"prompt_template": _attack(marker)})
    assert doc_to_text({"prompt": "p"}, {"prompt_template": "<<{{ prompt }}>>"}) == "<<p>>"
    assert not marker.exists()


def test_template_sandbox_dod_prompt_file(tmp_path):
    from lmms_plugins.tasks.dod.hooks import doc_to_text

    marker = tmp_path / "pwned"
    bad = tmp_path / "bad.jinja"
    bad.write_text(_attack(marker), encoding="utf-8")
    with pytest.raises(TemplateRejected, match="bad.jinja"):
        doc_to_text({"prompt_en": "draw"}, {"setting": "no_hint", "prompt_template_file": str(bad)})
    assert not marker.exists()


def test_template_sandbox_dod_judge_prompt(tmp_path, monkeypatch):
    from lmms_plugins.tasks.dod import judges

    marker = tmp_path / "pwned"
    prompt = tmp_path / "refusal.jinja"
    prompt.write_text("Judge this: {{ reasoning }}" + _attack(marker), encoding="utf-8")
    label = type("L", (), {"feasible": False, "reason": "r", "witness": None, "certificate": None})()
    # the judge is never reached: the prompt fails first, as an unavailable judge (status judge_error)
    with pytest.raises(judges.JudgeUnavailable, match="internal attribute"):
        judges.judge_refusal(doc_prompt="draw", label=label, reasoning="I cannot.", judge=object(), prompt_file=str(prompt))
    assert not marker.exists()


def test_template_sandbox_grade_judge_prompt(tmp_path):
    from lmms_plugins.tasks.grade.judging import load_prompt

    marker = tmp_path / "pwned"
    (tmp_path / "readability.jinja").write_text(_attack(marker), encoding="utf-8")
    prompt = load_prompt("readability", override_dir=str(tmp_path))
    with pytest.raises(TemplateRejected, match="readability.jinja"):
        prompt.render(instruction="x", questions=[], questions_json="[]")
    assert not marker.exists()


def test_template_sandbox_shipped_templates_still_render():
    from lmms_plugins.tasks.abacus.hooks import doc_to_text as abacus_text
    from lmms_plugins.tasks.grade.hooks import doc_to_text as grade_text
    from lmms_plugins.tasks.grade.judging import PROMPT_NAMES, load_prompt

    assert "Keep everything else" in abacus_text({"abacus_operation": "add", "prompt": "Add 2 cats."})
    assert "move the knight" in grade_text({"text": "move the knight"})
    for name in PROMPT_NAMES:
        assert load_prompt(name).render(instruction="i", questions=[], questions_json="[]")
