"""The lmms-eval task class of the judge-bound tasks (GRADE, DoD), named by ``class:`` in their YAML.

It is lmms-eval's own ``ConfigurableTask`` with one addition: when lmms-eval applies the task's
filters (every generation is known then, just before it scores), every sample's scoring starts in
the judge's concurrency (``LMMS_PLUGINS_JUDGE_CONCURRENCY``, default 20, the official GRADE
script's workers), instead of lmms-eval's ``--process_docs_parallel`` threads (default 4) each
waiting for one sample's judge. ``process_results`` then serves each sample its own result
(lmms_plugins.utils.prefetch). Without a configured judge nothing changes. The setting used is
written into the task's ``metadata`` in the results (``judge_concurrency``).
"""

from __future__ import annotations

from lmms_eval.api.task import ConfigurableTask


def judge_concurrency() -> int | None:
    """The configured judge's concurrency, or None when no judge is configured (or it is misconfigured:
    the preflight says so)."""
    from lmms_plugins.utils.judge_client import JudgeConfig, JudgeError

    try:
        return JudgeConfig.from_env().concurrency
    except JudgeError:
        return None


class JudgedTask(ConfigurableTask):
    def __init__(self, *args, config: dict | None = None, **kwargs) -> None:
        # lmms-eval hands the class its whole YAML, `class` key included, which TaskConfig does not take
        config = {k: v for k, v in (config or {}).items() if k != "class"}
        super().__init__(*args, config=config, **kwargs)
        self._prefetch = None

    def apply_filters(self):
        out = super().apply_filters()
        concurrency = judge_concurrency()
        if concurrency is not None and self._instances:
            from lmms_plugins.utils.prefetch import Prefetcher

            if isinstance(self.config.metadata, dict):
                self.config.metadata["judge_concurrency"] = concurrency
            docs = self.eval_docs_no_media  # what lmms-eval hands process_results (unless --process_with_media)
            by_doc: dict = {}
            for inst in self._instances:
                by_doc.setdefault(inst.doc_id, []).append(inst)
            self._prefetch = Prefetcher(self.config.process_results, concurrency)
            self._prefetch.start((docs[doc_id], [inst.filtered_resps[key] for inst in sorted(group, key=lambda i: i.idx)])
                                 for key in self._filter_keys() for doc_id, group in sorted(by_doc.items()))
        return out

    def _filter_keys(self) -> list:
        return list(self._instances[0].filtered_resps) if self._instances else []

    def process_results(self, doc, results):
        if self._prefetch is not None:
            found, result = self._prefetch.take(doc, results)
            if found:
                return result
        return super().process_results(doc, results)


__all__ = ["JudgedTask", "judge_concurrency"]
