"""The CwI task class for EleutherAI lm-eval 0.4.x (``class:`` in this folder's template).

As the lmms-eval class (tasks/cwi/task.py), it binds the scorer to the task's rule: the card task's
rule in ``task_rules.RULES`` (``metadata.cwi_task``) or the YAML's own ``metadata.cwi_rule``; a
missing or invalid rule stops the run while lm-eval builds the task.
"""

from __future__ import annotations

import functools

from lm_eval.api.task import ConfigurableTask

from lmms_plugins.tasks.cwi.task import rule_of


class CwiTask(ConfigurableTask):
    def __init__(self, *args, config: dict | None = None, **kwargs) -> None:
        config = {k: v for k, v in (config or {}).items() if k != "class"}
        meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
        self.rule = rule_of(meta, config.get("task") or "this CwI task")
        if callable(config.get("process_results")):
            config["process_results"] = functools.partial(config["process_results"], rule=self.rule)
        super().__init__(*args, config=config, **kwargs)
