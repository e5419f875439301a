"""Checks that run before the model gets its first request.

A task that needs the LLM judge (GRADE; DoD in judge mode; DoD's editing judge when it is wanted)
calls :func:`require_judge` or :func:`check_configured_judge` from its task class's ``preflight``
(utils/task_class.py), which runs when lmms-eval builds the task's requests: after the model
object is made, before any request is sent. A problem stops the run with one :class:`PreflightError` whose message says which
variable, which URL and what came back, and that message is the run's last line.

Reaching the endpoint is one ``GET {base_url}/models`` (the OpenAI-compatible model list, which
vLLM, SGLang, OpenAI, Gemini and OpenRouter serve), through the package's one HTTP client
(:mod:`lmms_plugins.utils.http_client`: a deadline for the whole request), not retried:

* a refused connection, a timeout, HTTP 401/403 (the key) and HTTP 404 (usually a base URL
  without ``/v1``) stop the run;
* HTTP 200 must carry a model list (``{"data": [...]}``, or a bare list); any other body (an HTML
  page, ``null``, an empty body, text) means the URL is not an OpenAI API, and stops the run
  saying what came back;
* another status means a server is there that does not list models, which is accepted.

A model name absent from a list only prints a warning (providers name models differently in their
lists). The verdict is kept per endpoint for the whole process, failures included: a run with
several tasks asks once.

Skipped with ``LMMS_PLUGINS_PREFLIGHT=off``; the task classes do not call it when lmms-eval runs
with ``--predict_only`` (nothing is scored, so no judge is needed).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

ENV_PREFLIGHT = "LMMS_PLUGINS_PREFLIGHT"
_OFF = {"off", "0", "false", "no"}
REACH_TIMEOUT_S = 10.0
MAX_LIST_BYTES = 16 << 20  # a model list larger than this is not read to its end (OpenRouter's is ~1 MB)

# (base_url, api_key) -> None (reached) or the message of the failure, for the whole process
_verdicts: dict[tuple[str, str], str | None] = {}
_key_locks: dict[tuple[str, str], threading.Lock] = {}
_lock = threading.Lock()


class PreflightError(SystemExit):
    """The task cannot be scored as configured; raised before the model gets any request.

    A ``SystemExit``, not an ``Exception``: lmms-eval 0.7.3 builds a task's data inside a
    ``download`` that tenacity retries on every ``Exception`` (5 tries, then
    ``RetryError[<Future ...>]`` as the message), and its CLI prints any ``Exception`` as a
    traceback followed by ``Error during evaluation``. Both let a ``SystemExit`` through at once,
    and Python then prints its message as the run's last line, with exit status 1.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def skipped() -> str | None:
    """Why the checks are skipped in this run, or None."""
    if os.environ.get(ENV_PREFLIGHT, "").strip().lower() in _OFF:
        return f"{ENV_PREFLIGHT}=off"
    return None


def _hint() -> str:
    return f" (to run anyway, set {ENV_PREFLIGHT}=off)"


def require_judge(purpose: str, alternative: str = "", **overrides: Any) -> None:
    """``purpose`` (e.g. "grade") needs the judge: it must be configured and reachable.
    ``alternative`` names another way to satisfy the need, for the message; ``overrides``: the
    task's judge settings (utils/judge_settings.judge_overrides)."""
    from lmms_plugins.utils.judge_client import JudgeConfig, JudgeError

    if skipped():
        return
    try:
        config = JudgeConfig.from_env(**overrides)
    except JudgeError as exc:
        other = f" ({alternative})" if alternative else ""
        raise PreflightError(f"{purpose} needs an LLM judge{other}, and {exc}{_hint()}") from None
    reach(config, purpose)


def check_configured_judge(purpose: str, **overrides: Any) -> bool:
    """The judge is optional for ``purpose`` and used when configured: if it is, it must be
    reachable. Returns whether it is configured (``overrides``: as for :func:`require_judge`)."""
    from lmms_plugins.utils.judge_client import ENV_BASE_URL, ENV_MODEL, JudgeConfig, JudgeError

    model = overrides.get("model") or os.environ.get(ENV_MODEL, "").strip()
    if not (os.environ.get(ENV_BASE_URL, "").strip() and model):
        return False
    if skipped():
        return True
    try:
        config = JudgeConfig.from_env(**overrides)
    except JudgeError as exc:  # e.g. a malformed timeout or extra body
        raise PreflightError(f"{purpose}: the LLM judge is configured wrongly: {exc}{_hint()}") from None
    reach(config, purpose)
    return True


def reach(config: Any, purpose: str) -> None:
    """``GET {base_url}/models`` once per process and endpoint; PreflightError when it fails (then
    and on every later call for the same endpoint, with no new request)."""
    key = (config.base_url, config.api_key)
    with _lock:
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:  # tasks built at the same time wait for one check
        if key not in _verdicts:
            _verdicts[key] = _check(config)
    failure = _verdicts[key]
    if failure is not None:
        raise PreflightError(f"{purpose}: {failure}{_hint()}")


def _check(config: Any) -> str | None:
    """None when the endpoint answers like an OpenAI API, else what went wrong (one line)."""
    import openai

    from lmms_plugins.utils.http_client import httpx_module, openai_client
    from lmms_plugins.utils.judge_client import ENV_API_KEY, ENV_BASE_URL

    url = config.base_url.rstrip("/") + "/models"
    where = f"the judge endpoint {ENV_BASE_URL}={config.base_url}"
    client = openai_client(base_url=config.base_url, api_key=config.api_key, max_retries=0,
                           timeout_s=min(REACH_TIMEOUT_S, config.timeout_s))
    httpx = httpx_module()
    try:
        with client.models.with_streaming_response.list() as response:
            status = response.status_code
            body, complete = _read_capped(response.iter_bytes(), MAX_LIST_BYTES)
    except httpx.TimeoutException:  # the body is read after the openai client hands the response over
        return f"{where} cannot be reached: GET {url} did not answer in time (is the server running?)"
    except httpx.HTTPError as exc:  # a body cut short, a broken chunk...
        return f"{where} cannot be reached: GET {url} failed while reading the reply: {type(exc).__name__}: {exc}"
    except openai.APIStatusError as exc:
        status, body = exc.status_code, _body(exc)
        if status in (401, 403):
            return f"{where} refused the key: GET {url} answered HTTP {status}: {body} (check {ENV_API_KEY})"
        if status == 404:
            return f"{where} has no OpenAI API there: GET {url} answered HTTP 404: {body} (does the URL end with /v1?)"
        return None  # a server that does not list models: reachable, which is what is checked
    except openai.APIConnectionError as exc:  # includes timeouts
        cause = exc.__cause__ or exc
        what = "did not answer in time" if isinstance(exc, openai.APITimeoutError) else f"failed: {type(cause).__name__}: {cause}"
        return f"{where} cannot be reached: GET {url} {what} (is the server running?)"
    finally:
        client.close()
    if status != 200:
        return None  # 2xx/3xx without a list: a server is there
    # a list too long to read to its end is accepted when it starts like JSON (no name check then)
    listed = _model_names(body) if complete else ([] if body.lstrip()[:1] in (b"{", b"[") else None)
    if listed is None:
        return (f"{where} is not an OpenAI-compatible API: GET {url} answered HTTP 200 with {_describe(body)}, "
                "not a model list (does the URL end with /v1?)")
    names = {n for n in listed if n} | {n.rsplit("/", 1)[-1] for n in listed if n}
    if listed and config.model not in names:
        shown = ", ".join(listed[:5]) + (" ..." if len(listed) > 5 else "")
        print(f"[lmms_plugins] WARNING: the judge model {config.model!r} is not among the models "
              f"listed by {url} ({shown}); the judge calls may fail", file=sys.stderr)
    return None


def _read_capped(chunks: Any, cap: int) -> tuple[bytes, bool]:
    """(the first ``cap`` bytes of a body, whether that was all of it)."""
    out, size = [], 0
    for chunk in chunks:
        out.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(out)[:cap], False
    return b"".join(out), True


def _model_names(body: bytes) -> list[str] | None:
    """The model ids of an OpenAI model list (``{"data": [{"id": ...}]}``, or a bare list of such
    objects or of names); None when the body is no model list at all."""
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        value = value["data"]
    elif isinstance(value, dict) and isinstance(value.get("models"), list):  # some gateways
        value = value["models"]
    if not isinstance(value, list):
        return None
    names = []
    for item in value:
        name = item.get("id") if isinstance(item, dict) else item
        if isinstance(name, str):
            names.append(name)
    return names


def _describe(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return "an empty body"
    if text[:1] == "<":
        return "an HTML page"
    return "the body " + repr(" ".join(text.split())[:80])


def _body(exc: Any) -> str:
    try:
        return " ".join(exc.response.text.split())[:300]
    except Exception:  # noqa: BLE001 - a closed or streamed body: the message is enough
        return str(exc)[:300]


def forget_verdicts() -> None:
    """Forget every endpoint's verdict (a new run in the same process: tests)."""
    with _lock:
        _verdicts.clear()


def check_jinja(source: str, origin: str) -> None:
    """A template that does not parse, or that the sandbox refuses, stops the run now, not once
    per sample (compiled as the render sites compile it: lmms_plugins.utils.templates)."""
    from lmms_plugins.utils.templates import TemplateRejected, compile_template

    try:
        compile_template(source, origin=f"the template {origin}")
    except TemplateRejected as exc:
        raise PreflightError(str(exc)) from None


__all__ = ["ENV_PREFLIGHT", "PreflightError", "check_configured_judge", "check_jinja", "forget_verdicts", "reach",
           "require_judge", "skipped"]
