"""Scoring a judge-bound task's samples ahead, at the judge's concurrency (GRADE, DoD).

lmms-eval 0.7.3 scores a task in ``--process_docs_parallel`` threads (default 4), each calling
``process_results`` for one sample and waiting for its judge: with a judge that answers in 0.5 s,
a user who passes no flag has 4-12 judge requests in flight. :class:`ScoredAhead`, a mixin of a
benchmark's task class, starts every sample's ``process_results`` as soon as lmms-eval applies the
task's filters (every generation is known then, just before it scores), in as many threads as the
judge takes requests (``LMMS_PLUGINS_JUDGE_CONCURRENCY``). lmms-eval's own ``process_results``
calls then take each sample's result, in its order.

The result is the hook's own, computed from the very document and outputs lmms-eval passes: a
sample whose arguments differ from what was scored ahead (outputs changed by ``--reasoning_tags``,
``--process_with_media``, repeats) is scored on the spot. So verdicts, statuses, judge errors
(pending, never cached) and cache hits are what the hook gives without it. Without a configured
judge nothing is scored ahead.
"""

from __future__ import annotations

import json
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping

log = logging.getLogger("lmms_plugins.scored_ahead")

#: The task's ``metadata`` key (copied into the results file's ``configs``) that records the setting.
METADATA_KEY = "judge_concurrency"


def judge_concurrency(settings: Mapping[str, Any] | None = None) -> int | None:
    """Judge requests in flight at once (``LMMS_PLUGINS_JUDGE_CONCURRENCY``, the judge client's bound),
    or None when no judge is configured for a task of these settings (a misconfigured one is the
    preflight's to report)."""
    from lmms_plugins.utils.judge_client import JudgeConfig, JudgeError
    from lmms_plugins.utils.judge_settings import judge_overrides

    try:
        return JudgeConfig.from_env(**judge_overrides(settings or {})).concurrency
    except JudgeError:
        return None


def sample_key(doc: Any, results: Any) -> str:
    """The identity of one ``process_results`` call: its document and outputs, as JSON."""
    return json.dumps([doc, results], sort_keys=True, default=repr, ensure_ascii=False)


class Ahead:
    """``score(doc, results)`` for many samples in ``concurrency`` threads, each result served once."""

    def __init__(self, score: Callable[[Any, Any], Any], concurrency: int) -> None:
        self.score = score
        self.concurrency = max(1, int(concurrency))
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.served = 0

    def start(self, samples: Iterable[tuple[Any, Any]]) -> int:
        """Submit ``(doc, results)`` pairs in order (a pair seen twice is scored once). Returns how many."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="scored-ahead")
            n = 0
            for doc, results in samples:
                key = sample_key(doc, results)
                if key not in self._futures:
                    self._futures[key] = self._pool.submit(self.score, doc, results)
                    n += 1
        log.info("scoring %d samples ahead, %d at a time", n, self.concurrency)
        return n

    def take(self, doc: Any, results: Any) -> tuple[bool, Any]:
        """(True, the result) when this exact sample was scored ahead (waits for it), else (False, None)."""
        with self._lock:
            future = self._futures.pop(sample_key(doc, results), None)
            if future is not None:
                self.served += 1
                if not self._futures:  # the last one: no thread is needed any more
                    self._shutdown()
        if future is None:
            return False, None
        return True, future.result()  # process_results never raises: an error here is a bug, not swallowed

    def close(self) -> None:
        """Drop what was never taken and end the threads."""
        with self._lock:
            for future in self._futures.values():
                future.cancel()
            self._futures.clear()
            self._shutdown()

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class ScoredAhead:
    """Mixin for an lmms-eval ``ConfigurableTask`` (or ``ConfigurableMessagesTask``) subclass, first in
    its bases: ``class GradeTask(ScoredAhead, ConfigurableTask)``.

    At construction it records the judge concurrency in the task's ``metadata`` (the results file's
    ``configs``); in ``apply_filters`` it starts every sample's scoring; ``process_results`` serves it.
    A class whose task calls no judge in some setting overrides :meth:`scores_ahead`.
    """

    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        # `config` by name: lmms-eval hands a class its YAML only when its __init__ names the parameter
        super().__init__(*args, config=config, **kwargs)
        self._ahead: Ahead | None = None
        self._judge_concurrency = judge_concurrency(getattr(self, "settings", None)) if self.scores_ahead() else None
        if self._judge_concurrency is not None:
            if not isinstance(self.config.metadata, dict):
                self.config.metadata = {}
            self.config.metadata[METADATA_KEY] = self._judge_concurrency

    def scores_ahead(self) -> bool:
        """Whether this task's samples go to a judge (default: yes; the judge must also be configured)."""
        return True

    def apply_filters(self):
        out = super().apply_filters()
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None
        if self._judge_concurrency is not None and self._instances and callable(self.config.process_results):
            by_doc: dict[int, list] = {}
            for inst in self._instances:
                if isinstance(inst.metadata, dict) and inst.metadata.get("__padding_only__"):
                    continue  # lmms-eval's padding of an empty rank: never scored
                by_doc.setdefault(inst.doc_id, []).append(inst)
            docs = self.eval_docs_no_media  # what lmms-eval hands process_results unless --process_with_media
            filter_keys = list(self._instances[0].filtered_resps)
            score = super().process_results  # what lmms-eval's call reaches without the mixin
            self._ahead = Ahead(score, self._judge_concurrency)
            self._ahead.start((docs[doc_id], [inst.filtered_resps[key] for inst in sorted(group, key=lambda i: i.idx)])
                              for key in filter_keys for doc_id, group in sorted(by_doc.items()))
        return out

    def process_results(self, doc, results, *args, **kwargs):
        if self._ahead is not None and not args and not kwargs:  # scored ahead with (doc, results) only
            found, result = self._ahead.take(doc, results)
            if found:
                return result
        return super().process_results(doc, results, *args, **kwargs)


__all__ = ["Ahead", "METADATA_KEY", "ScoredAhead", "judge_concurrency", "sample_key"]
