"""Issue #12.5: what a task needs is checked before the model gets its first request.

Direct tests of utils/preflight.py against real HTTP servers on 127.0.0.1 (a judge server, a
server that refuses the key, a port with nothing listening), and of the benchmarks' load-time
hooks (GRADE, DoD, CwI). The real-CLI run is in test_generation_failure_e2e.py.
"""

from __future__ import annotations

import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import FakeJudgeServer  # noqa: E402

from lmms_plugins.utils import preflight as pf  # noqa: E402

JUDGE_VARS = ("LMMS_PLUGINS_JUDGE_BASE_URL", "LMMS_PLUGINS_JUDGE_MODEL", "LMMS_PLUGINS_JUDGE_API_KEY",
              "LMMS_PLUGINS_PREFLIGHT")


def settings(bench: str, **meta):
    """A benchmark's settings as its task class resolves them from the metadata (now: the judge's model)."""
    import importlib

    from lmms_plugins.utils.settings import resolve

    return resolve(importlib.import_module(f"lmms_plugins.tasks.{bench}.settings").SETTINGS, meta, task=bench)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for var in JUDGE_VARS:
        monkeypatch.delenv(var, raising=False)
    pf.forget_verdicts()
    yield
    pf.forget_verdicts()


def dead_url() -> str:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def use_judge(monkeypatch, url: str, model: str = "fake-judge") -> None:
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_BASE_URL", url)
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_MODEL", model)
    monkeypatch.setenv("LMMS_PLUGINS_JUDGE_API_KEY", "dummy")


class KeyRefusingServer:
    """Answers every GET with HTTP 401, as an API does for a wrong key."""

    def __enter__(self):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                body = b'{"error": {"message": "Incorrect API key provided"}}'
                self.send_response(401)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_no_judge_configured_names_the_variables():
    with pytest.raises(pf.PreflightError, match=r"grade needs an LLM judge.*LMMS_PLUGINS_JUDGE_BASE_URL and LMMS_PLUGINS_JUDGE_MODEL"):
        pf.require_judge("grade")


def test_unreachable_judge_names_the_variable_the_url_and_what_happened(monkeypatch):
    url = dead_url()
    use_judge(monkeypatch, url)
    with pytest.raises(pf.PreflightError) as err:
        pf.require_judge("grade")
    msg = str(err.value)
    assert f"LMMS_PLUGINS_JUDGE_BASE_URL={url}" in msg and f"GET {url}/models" in msg and "cannot be reached" in msg


def test_key_refused_and_missing_v1_are_stopped(monkeypatch):
    with KeyRefusingServer() as url:
        use_judge(monkeypatch, url)
        with pytest.raises(pf.PreflightError, match=r"refused the key.*HTTP 401.*Incorrect API key.*LMMS_PLUGINS_JUDGE_API_KEY"):
            pf.require_judge("grade")
    with FakeJudgeServer() as server:
        use_judge(monkeypatch, server.base_url[: -len("/v1")])  # the classic mistake
        with pytest.raises(pf.PreflightError, match=r"HTTP 404.*does the URL end with /v1"):
            pf.require_judge("grade")


def test_reachable_judge_passes_once_per_process_and_costs_no_chat_call(monkeypatch, capsys):
    with FakeJudgeServer() as server:
        use_judge(monkeypatch, server.base_url)
        pf.require_judge("grade")
        pf.require_judge("grade")
        assert server.get_paths == ["/v1/models"] and server.calls == 0
        assert "WARNING" not in capsys.readouterr().err
        pf.forget_verdicts()
        use_judge(monkeypatch, server.base_url, model="some-other-model")
        pf.require_judge("grade")  # a name not in the list: a warning, not a stop
        assert "'some-other-model' is not among the models" in capsys.readouterr().err


def test_optional_judge_is_checked_only_when_configured(monkeypatch):
    assert pf.check_configured_judge("dod editing judge") is False
    use_judge(monkeypatch, dead_url())
    with pytest.raises(pf.PreflightError, match="dod editing judge: the judge endpoint"):
        pf.check_configured_judge("dod editing judge")


def test_switched_off_skips_the_checks(monkeypatch):
    monkeypatch.setenv("LMMS_PLUGINS_PREFLIGHT", "off")
    pf.require_judge("grade")  # --predict_only: the task classes do not call it (tests/foundation/test_task_classes.py)
    monkeypatch.delenv("LMMS_PLUGINS_PREFLIGHT")
    with pytest.raises(pf.PreflightError):
        pf.require_judge("grade")


def test_invalid_jinja_is_reported_with_its_origin():
    pf.check_jinja("Hello {{ name }}", "ok.jinja")
    with pytest.raises(pf.PreflightError, match=r"mine\.jinja: not a valid Jinja template \(line 2\)"):
        pf.check_jinja("line one\n{% if x %}never closed", "mine.jinja")
    with pytest.raises(pf.PreflightError, match=r"mine\.jinja: the template refers to internal attribute"):
        pf.check_jinja("{{ cycler.__init__.__globals__ }}", "mine.jinja")


# ----------------------------------------------------------------------------- GRADE


def test_grade_preflight(monkeypatch, tmp_path):
    from lmms_plugins.tasks.grade import hooks

    with pytest.raises(pf.PreflightError, match="or verdict files in metadata.verdicts"):
        hooks.preflight()
    with pytest.raises(pf.PreflightError, match="verdict file not found"):
        hooks.preflight(settings("grade", verdicts=str(tmp_path / "nope.jsonl")))
    with FakeJudgeServer() as server:
        use_judge(monkeypatch, server.base_url)
        hooks.preflight()
        prompts = tmp_path / "prompts"
        prompts.mkdir()
        (prompts / "readability.jinja").write_text("Rate {{ instruction }\n")
        with pytest.raises(pf.PreflightError, match="readability.jinja: not a valid Jinja template"):
            hooks.preflight(settings("grade", prompts=str(prompts)))
        with pytest.raises(pf.PreflightError, match="is not a folder"):
            hooks.preflight(settings("grade", prompts=str(tmp_path / "no-such-folder")))
        assert server.calls == 0


# ----------------------------------------------------------------------------- DoD


def test_dod_preflight(monkeypatch):
    from lmms_plugins.tasks.dod import hooks

    hooks.preflight()  # rules mode, no judge: nothing needed
    with pytest.raises(pf.PreflightError, match="dod with refusal_mode=judge needs an LLM judge"):
        hooks.preflight(settings("dod", refusal_mode="judge"))
    with pytest.raises(pf.PreflightError, match="dod with edit_judge=on needs an LLM judge"):
        hooks.preflight(settings("dod", refusal_mode="rules", edit_judge="on"))
    with pytest.raises(pf.PreflightError, match="dod: metadata.edit_judge must be one of auto, on, off"):
        hooks.preflight(settings("dod", edit_judge="sometimes"))
    use_judge(monkeypatch, dead_url())  # configured, so wanted: it must be reachable
    with pytest.raises(pf.PreflightError, match="cannot be reached"):
        hooks.preflight(settings("dod", edit_judge="auto"))
    hooks.preflight(settings("dod", edit_judge="off"))


def test_dod_judge_prompt_is_checked(monkeypatch, tmp_path):
    from lmms_plugins.tasks.dod import hooks

    bad = tmp_path / "refusal.jinja"
    bad.write_text("{% for x in %}")
    with FakeJudgeServer() as server:
        use_judge(monkeypatch, server.base_url)
        with pytest.raises(pf.PreflightError, match="refusal.jinja: not a valid Jinja template"):
            hooks.preflight(settings("dod", refusal_mode="judge", refusal_prompt=str(bad)))
        with pytest.raises(pf.PreflightError, match="cannot read the judge prompt"):
            hooks.preflight(settings("dod", refusal_mode="judge", refusal_prompt=str(tmp_path / "missing.jinja")))
