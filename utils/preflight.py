"""Checks that run before the model gets its first request (issue #12.5).

A task that needs the LLM judge (GRADE; DoD in judge mode; DoD's editing judge when it is wanted)
calls :func:`require_judge` or :func:`check_configured_judge` from its ``process_docs`` hook, which
lmms-eval 0.7.3 runs while it builds the tasks, after the model object is made but before any
request is sent. A problem stops the run with one :class:`PreflightError` whose message says which
variable, which URL and what came back; lmms-eval prints it as ``Error during evaluation: ...``.

Reaching the endpoint is one ``GET {base_url}/models`` (the OpenAI-compatible model list, which
vLLM, SGLang, OpenAI, Gemini and OpenRouter serve): a refused connection, a timeout, HTTP 401/403
(the key) and HTTP 404 (usually a base URL without ``/v1``) stop the run; another status means a
server is there that does not list models, which is accepted. A model name absent from a list
only prints a warning (providers name models differently in their lists).

Skipped with ``LMMS_PLUGINS_PREFLIGHT=off``, and when lmms-eval runs with ``--predict_only``
(nothing is scored, so no judge is needed).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

ENV_PREFLIGHT = "LMMS_PLUGINS_PREFLIGHT"
_OFF = {"off", "0", "false", "no"}
REACH_TIMEOUT_S = 10.0

_reached: set = set()  # (base_url, api_key) already reached by this process
_lock = threading.Lock()


class PreflightError(RuntimeError):
    """The task cannot be scored as configured; raised before the model gets any request."""


def _predict_only(max_depth: int = 40) -> bool:
    """True inside ``simple_evaluate(..., predict_only=True)`` (lmms-eval passes tasks no flag)."""
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return False
        if frame.f_code.co_name == "simple_evaluate" and "predict_only" in frame.f_locals:
            return bool(frame.f_locals["predict_only"])
        frame = frame.f_back
    return False


def skipped() -> str | None:
    """Why the checks are skipped in this run, or None."""
    if os.environ.get(ENV_PREFLIGHT, "").strip().lower() in _OFF:
        return f"{ENV_PREFLIGHT}=off"
    if _predict_only():
        return "--predict_only"
    return None


def _hint() -> str:
    return f" (to run anyway, set {ENV_PREFLIGHT}=off)"


def require_judge(purpose: str, alternative: str = "") -> None:
    """``purpose`` (e.g. "grade") needs the judge: it must be configured and reachable.
    ``alternative`` names another way to satisfy the need, for the message."""
    from lmms_plugins.utils.judge_client import JudgeConfig, JudgeError

    if skipped():
        return
    try:
        config = JudgeConfig.from_env()
    except JudgeError as exc:
        other = f" ({alternative})" if alternative else ""
        raise PreflightError(f"{purpose} needs an LLM judge{other}, and {exc}{_hint()}") from None
    reach(config, purpose)


def check_configured_judge(purpose: str) -> bool:
    """The judge is optional for ``purpose`` and used when configured: if it is, it must be
    reachable. Returns whether it is configured."""
    from lmms_plugins.utils.judge_client import ENV_BASE_URL, ENV_MODEL, JudgeConfig, JudgeError

    if not (os.environ.get(ENV_BASE_URL, "").strip() and os.environ.get(ENV_MODEL, "").strip()):
        return False
    if skipped():
        return True
    try:
        config = JudgeConfig.from_env()
    except JudgeError as exc:  # e.g. a malformed timeout or extra body
        raise PreflightError(f"{purpose}: the LLM judge is configured wrongly: {exc}{_hint()}") from None
    reach(config, purpose)
    return True


def reach(config: Any, purpose: str) -> None:
    """``GET {base_url}/models`` once per process and endpoint; PreflightError when it fails."""
    import openai

    from lmms_plugins.utils.judge_client import ENV_API_KEY, ENV_BASE_URL

    key = (config.base_url, config.api_key)
    with _lock:
        if key in _reached:
            return
    url = config.base_url.rstrip("/") + "/models"
    client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key or "EMPTY",
                           timeout=min(REACH_TIMEOUT_S, config.timeout_s), max_retries=1)
    where = f"{ENV_BASE_URL}={config.base_url}"
    try:
        listed = [getattr(m, "id", "") for m in client.models.list()]
    except openai.APIStatusError as exc:
        status = exc.status_code
        body = _body(exc)
        if status in (401, 403):
            raise PreflightError(f"{purpose}: the judge endpoint {where} refused the key: GET {url} answered "
                                 f"HTTP {status}: {body} (check {ENV_API_KEY}){_hint()}") from None
        if status == 404:
            raise PreflightError(f"{purpose}: the judge endpoint {where} has no OpenAI API there: GET {url} "
                                 f"answered HTTP 404: {body} (does the URL end with /v1?){_hint()}") from None
        listed = []  # a server that does not list models: reachable, which is what is checked
    except openai.APIConnectionError as exc:  # includes timeouts
        cause = exc.__cause__ or exc
        what = "timed out" if isinstance(exc, openai.APITimeoutError) else f"{type(cause).__name__}: {cause}"
        raise PreflightError(f"{purpose}: the judge endpoint {where} cannot be reached: GET {url} {what}"
                             f" (is the server running?){_hint()}") from None
    finally:
        client.close()
    names = {n for n in listed if n} | {n.rsplit("/", 1)[-1] for n in listed if n}
    if listed and config.model not in names:
        shown = ", ".join(listed[:5]) + (" ..." if len(listed) > 5 else "")
        print(f"[lmms_plugins] WARNING: {purpose}: the judge model {config.model!r} is not among the models "
              f"listed by {url} ({shown}); the judge calls may fail", file=sys.stderr)
    with _lock:
        _reached.add(key)


def _body(exc: Any) -> str:
    try:
        return " ".join(exc.response.text.split())[:300]
    except Exception:  # noqa: BLE001 - a closed or streamed body: the message is enough
        return str(exc)[:300]


def check_jinja(source: str, origin: str) -> None:
    """A template that does not parse, or that the sandbox refuses, stops the run now, not once
    per sample (compiled as the render sites compile it: lmms_plugins.utils.templates)."""
    from lmms_plugins.utils.templates import TemplateRejected, compile_template

    try:
        compile_template(source, origin=f"the template {origin}")
    except TemplateRejected as exc:
        raise PreflightError(str(exc)) from None


__all__ = ["ENV_PREFLIGHT", "PreflightError", "check_configured_judge", "check_jinja", "reach", "require_judge", "skipped"]
