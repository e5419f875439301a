"""The CwI task classes, named by ``class:`` in ``_default_template_yaml`` (and so in the code template).

The class gives the scorer its rule: ``metadata.cwi_rule`` when the YAML carries one (a task written
in YAML alone), else the card task's rule in ``task_rules.RULES`` (``metadata.cwi_task``). A rule
that does not parse, a missing rule, or a prompt template that cannot render the first item stops
the run while lmms-eval builds the task, before any request.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

from lmms_plugins.utils.task_class import PluginTask

from .rules import Rule, RuleError, rule_from_config
from .task_rules import rule_for_task


def rule_of(metadata: Mapping, name: str) -> Rule:
    """The rule a CwI task's metadata names; PreflightError (the run's last line) when there is none."""
    from lmms_plugins.utils.preflight import PreflightError

    if "cwi_rule" in metadata:
        try:
            return rule_from_config(metadata["cwi_rule"])
        except RuleError as exc:
            raise PreflightError(f"{name}: invalid metadata.cwi_rule {metadata['cwi_rule']!r}: {exc}") from None
    task = metadata.get("cwi_task")
    if not task:
        raise PreflightError(f"{name}: neither metadata.cwi_rule nor metadata.cwi_task in its YAML (see tasks/cwi/README.md)")
    try:
        return rule_for_task(task)
    except (KeyError, RuleError) as exc:
        raise PreflightError(f"{name}: metadata.cwi_task: {exc}") from None


class _Cwi(PluginTask):
    def __init__(self, *args, config: dict | None = None, **kwargs) -> None:
        config = dict(config or {})
        name = config.get("task") or "this CwI task"
        meta = config.get("metadata") if isinstance(config.get("metadata"), Mapping) else {}
        self.rule = rule_of(meta, name)
        scorer = config.get("process_results")
        if callable(scorer):  # hooks.process_results / code_hooks.process_results, bound to the rule
            config["process_results"] = functools.partial(scorer, rule=self.rule)
        super().__init__(*args, config=config, **kwargs)

    def download(self, dataset_kwargs=None) -> None:
        super().download(dataset_kwargs)
        self._check_prompt()

    def _check_prompt(self) -> None:
        """Render the first item's prompt once (a broken template stops the run here, not per sample)."""
        import jinja2

        from lmms_plugins.utils.preflight import PreflightError

        from .hooks import doc_to_text

        split = self.config.test_split
        docs = self.dataset[split] if split and split in self.dataset else None
        if docs is None or not len(docs):
            return
        kwargs = self.lmms_eval_specific_kwargs if isinstance(self.lmms_eval_specific_kwargs, Mapping) else None
        try:
            doc_to_text(docs[0], kwargs)
        except (jinja2.TemplateError, OSError, ValueError) as exc:  # TemplateRejected is a ValueError
            raise PreflightError(f"{self.config.task}: the prompt template cannot be rendered: "
                                 f"{type(exc).__name__}: {exc}") from None


class CwiChatTask(_Cwi, ConfigurableMessagesTask):
    """A CwI task for a chat model."""


class CwiTask(_Cwi, ConfigurableTask):
    """A CwI task (the class the YAML names; a chat model gets :class:`CwiChatTask`)."""

    chat_variant = CwiChatTask
