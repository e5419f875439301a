"""Scoring a judge-bound task's samples ahead of lmms-eval's ``process_results`` threads.

lmms-eval 0.7.3 scores a task with ``--process_docs_parallel`` threads (default 4), each
calling ``process_results`` for one document at a time: with a judge that takes 0.5 s a call,
a user who passes no flag gets about 4-12 requests in flight. A judge-bound task's class
(GRADE, DoD) starts every sample's scoring at once when lmms-eval applies its filters (all
generations are known then), in ``concurrency`` threads; the judge client bounds the requests
in flight (``LMMS_PLUGINS_JUDGE_CONCURRENCY``). Each ``process_results`` call then takes its
prefetched result, or scores the sample itself when there is none (another filter, reasoning
tags that changed the text): a result is served only for the very document and outputs it was
computed from, so a score never depends on whether it was prefetched.
"""

from __future__ import annotations

import json
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable

log = logging.getLogger("lmms_plugins.prefetch")


def sample_key(doc: Any, results: Any) -> str:
    """The identity of one ``process_results`` call: the document and the outputs, as JSON."""
    return json.dumps([doc, results], sort_keys=True, default=repr, ensure_ascii=False)


class Prefetcher:
    """``score(doc, results)`` for many samples in ``concurrency`` threads, each result served once."""

    def __init__(self, score: Callable[[Any, Any], Any], concurrency: int) -> None:
        self.score = score
        self.concurrency = max(1, int(concurrency))
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.served = 0

    def start(self, samples: Iterable[tuple[Any, Any]]) -> int:
        """Submit ``(doc, results)`` pairs (a pair seen twice is scored once). Returns how many."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="judge-prefetch")
            n = 0
            for doc, results in samples:
                key = sample_key(doc, results)
                if key not in self._futures:
                    self._futures[key] = self._pool.submit(self.score, doc, results)
                    n += 1
        log.info("scoring %d samples ahead, %d at a time", n, self.concurrency)
        return n

    def take(self, doc: Any, results: Any) -> tuple[bool, Any]:
        """(True, the result) when this exact sample was prefetched (waits for it), else (False, None)."""
        with self._lock:
            future = self._futures.pop(sample_key(doc, results), None)
        if future is None:
            return False, None
        self.served += 1
        return True, future.result()  # process_results never raises; an error here is a bug, not swallowed

    def close(self) -> None:
        """Drop what was never asked for and end the threads (after the task is scored)."""
        with self._lock:
            futures, self._futures = self._futures, {}
            pool, self._pool = self._pool, None
        for future in futures.values():
            future.cancel()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Prefetcher", "sample_key"]
