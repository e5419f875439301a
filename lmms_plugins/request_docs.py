"""``Instance.doc`` for this package's tasks, so that wrappers reading it (qwen_image_edit) can edit.

lmms-eval 0.7.3 builds every request with ``doc`` left at None (``# doc=doc,`` in
``ConfigurableTask.construct_requests``). Its ``qwen_image_edit`` wrapper in editing mode reads
nothing else: ``request.doc.get("task")``, ``request.doc.get("doc_id")`` and the input image from
``request.doc["image"]`` (or ``["images"][0]``); with ``doc=None`` it stops the run with an
``AttributeError``. This package's task classes (utils/task_class.py) extend ``construct_requests``
so that a generation request of one of their tasks carries a :class:`RequestDoc`: a read-only mapping with

* ``image`` / ``images``: the task's own ``doc_to_visual`` output (first image / all, in order),
  computed when read, so no image is held in memory by the requests;
* ``task``: the lmms-eval task name and ``doc_id``: the document's index (qwen_image_edit names
  its output ``<task>_<doc_id>.png``: unique per task and document, so ranks never collide);
* ``prompt``: the request's context (the rendered prompt).

Nothing else in lmms-eval 0.7.3 reads ``Instance.doc`` except the sample log's ``doc_hash``
(sha256 of its text): the text holds a fingerprint of the doc's content (doc_fingerprint.py), so
``lmms-plugins compare`` pairs two runs' samples only when they had the same inputs.
"""

from __future__ import annotations

from collections.abc import Mapping

KEYS = ("image", "images", "task", "doc_id", "prompt")


class RequestDoc(Mapping):
    def __init__(self, task, split: str, doc_id: int, prompt: str) -> None:
        self._task, self._split, self._doc_id, self._prompt = task, split, doc_id, prompt

    def _visuals(self) -> list:
        # the document exactly as lmms-eval hands it to models (lm.task_dict[task][split][doc_id])
        doc = self._task.dataset[self._split][self._doc_id]
        visuals = self._task.doc_to_visual(doc) or []
        return list(visuals) if isinstance(visuals, (list, tuple)) else [visuals]

    def __getitem__(self, key):
        if key == "images":
            return self._visuals()
        if key == "image":
            visuals = self._visuals()
            if not visuals:
                raise KeyError("image")  # a sample without an input image: qwen_image_edit skips it
            return visuals[0]
        if key == "task":
            return self._task.config.task
        if key == "doc_id":
            return self._doc_id
        if key == "prompt":
            return self._prompt
        raise KeyError(key)

    def __contains__(self, key) -> bool:
        if key == "image":  # no input image: absent, so qwen_image_edit skips the sample instead of raising
            return bool(self._visuals())
        return key in KEYS

    def __iter__(self):
        return iter(KEYS)

    def __len__(self) -> int:
        return len(KEYS)

    def __repr__(self) -> str:
        # the sample log's doc_hash is sha256 of str(doc): short and image-free, but with what the
        # model is given (doc_fingerprint.py), so the same id in another dataset hashes differently
        return (f"RequestDoc(task={self._task.config.task!r}, split={self._split!r}, doc_id={self._doc_id}, "
                f"content={self.fingerprint()})")

    def fingerprint(self) -> str:
        from lmms_plugins.baselines.mapping import benchmark_of
        from lmms_plugins.doc_fingerprint import doc_fingerprint
        from lmms_plugins.utils.data_roots import local_root

        try:
            bench = benchmark_of(str(self._task.config.task))
            root = local_root(bench) if bench else None
            dataset = self._task.dataset[self._split]
            return doc_fingerprint(_decoded(dataset, dataset[self._doc_id]), [root] if root else [])
        except Exception as exc:  # noqa: BLE001 - a log line must not stop the run
            return f"unavailable ({type(exc).__name__})"

    def __reduce__(self):  # lmms-eval's request cache pickles requests: keep the names only
        return dict, ({"task": self._task.config.task, "doc_id": self._doc_id, "prompt": self._prompt},)


def _decoded(dataset, doc):
    """``doc`` as a decoding dataset gives it: a task that reads its images undecoded (ABACUS, to send
    their stored bytes as they are) keeps the fingerprint of the decoded pixels it always had."""
    from datasets import Image

    features = getattr(dataset, "features", None) or {}
    stored = [k for k, f in features.items() if isinstance(f, Image) and not f.decode and isinstance(doc.get(k), Mapping)]
    return {**doc, **{k: Image().decode_example(dict(doc[k])) for k in stored}} if stored else doc


def attach(task, instances, doc_id, ctx, split) -> None:
    for instance in instances if isinstance(instances, list) else [instances]:
        if getattr(instance, "doc", None) is None and str(getattr(instance, "request_type", "")).startswith("generate_until"):
            instance.doc = RequestDoc(task, split, doc_id, ctx)
