"""The one way this package renders Jinja: a sandbox, so a prompt template cannot run code.

Prompt templates come from task YAMLs and from files a user names (``prompt_template``,
``prompt_template_file``, the settings ``refusal_prompt``, ``edit_prompt`` and ``prompts``). A plain
``jinja2.Environment`` lets ``{{ cycler.__init__.__globals__.os.getpid() }}`` call into Python;
:class:`jinja2.sandbox.ImmutableSandboxedEnvironment` refuses attribute access to private and
internal attributes and any method that mutates a value. On top of the sandbox (which only
notices at render time) :func:`compile_template` rejects, when the template is loaded, any
reference to an attribute or item whose name starts with ``_``: no prompt needs one, and the
error then names the template before a single request is built.

This is defence in depth: lmms-eval itself evaluates YAML (``!function``) and is not sandboxed.
"""

from __future__ import annotations

import functools
from typing import Any

UNDEFINED_KINDS = ("strict", "chainable")


class TemplateRejected(ValueError):
    """A template is not valid Jinja, or reaches for Python internals; the message says which."""


@functools.lru_cache(maxsize=None)
def _environment(undefined: str):
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    kinds = {"strict": jinja2.StrictUndefined, "chainable": jinja2.ChainableUndefined}
    if undefined not in kinds:
        raise ValueError(f"undefined must be one of {UNDEFINED_KINDS}, got {undefined!r}")
    return ImmutableSandboxedEnvironment(undefined=kinds[undefined], autoescape=False, keep_trailing_newline=False)


def _private_references(tree) -> list[str]:
    """Names of ``x._y`` / ``x['_y']`` references in a parsed template."""
    from jinja2 import nodes

    found = []
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        name = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(name, str) and name.startswith("_"):
            found.append(name)
    return found


@functools.lru_cache(maxsize=128)
def compile_template(source: str, *, undefined: str = "strict", origin: str = "<template>"):
    """A sandboxed :class:`jinja2.Template`; :class:`TemplateRejected` for bad or unsafe source."""
    import jinja2

    env = _environment(undefined)
    try:
        tree = env.parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateRejected(f"{origin}: not a valid Jinja template (line {exc.lineno}): {exc.message}") from None
    private = _private_references(tree)
    if private:
        raise TemplateRejected(
            f"{origin}: the template refers to internal attribute(s) {sorted(set(private))}; prompt templates "
            "are rendered in a sandbox and may only use the variables they are given"
        )
    return env.from_string(source)


def render(source: str, *, undefined: str = "strict", origin: str = "<template>", **values: Any) -> str:
    """Render ``source`` with ``values`` in the sandbox.

    :class:`TemplateRejected` when the source is refused, or when rendering touches something the
    sandbox forbids (:class:`jinja2.exceptions.SecurityError`); other template errors
    (e.g. an undefined variable under ``strict``) propagate as :class:`jinja2.TemplateError`.
    """
    from jinja2.exceptions import SecurityError

    template = compile_template(source, undefined=undefined, origin=origin)
    try:
        return template.render(**values)
    except SecurityError as exc:
        raise TemplateRejected(f"{origin}: the sandbox refused an operation of the template: {exc}") from None
