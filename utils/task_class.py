"""What every benchmark's lmms-eval task class shares (each benchmark's ``task.py`` builds on it).

Each benchmark's YAML template names its task class with ``class:`` (lmms-eval's and lm-eval's
sanctioned way for a task to hold code: ``vstat``, ``squadv2``), so the hooks get their config
from the task object itself. :class:`PluginTask` is the mixin placed before lmms-eval's
``ConfigurableTask`` (simple models) or ``ConfigurableMessagesTask`` (chat models); it gives:

* the local data: with ``metadata.lmms_plugins_benchmark: <bench>`` and a local copy configured
  (``LMMS_PLUGINS_<BENCH>_ROOT`` / ``LMMS_PLUGINS_DATA_ROOT``), the dataset is that folder, loaded
  by ``datasets`` exactly as the hub copy, with a cache keyed by the folder's content
  (:mod:`lmms_plugins.utils.local_data`); a load that fails says which variable to set;
* ``Instance.doc`` on generation requests (:mod:`lmms_plugins.request_docs`), which lmms-eval
  leaves None and its ``qwen_image_edit`` wrapper reads;
* the version: one of this package's tasks must state the version this package scores it as
  (an override YAML restates ``metadata`` whole; :mod:`lmms_plugins.utils.task_version`);
* the benchmark's score-changing settings (``SETTINGS``, utils/settings.py): resolved from the
  YAML's ``metadata`` when the task is built (a bad value stops the run there), recorded in the
  metadata (so in the results), handed to ``process_results`` as ``settings=`` and kept in
  ``self.settings``;
* :meth:`PluginTask.preflight`, run once per task just before its requests are built, when the
  task is scored: lmms-eval's ``--predict_only`` replaces a task's ``process_results`` with None
  before it builds the requests, which is how the task knows nothing will be scored.

A benchmark's class pair is two two-line classes; the simple one names the chat one in
``chat_variant``, which lmms_plugins/harness/task_type.py builds for a chat model (lmms-eval 0.7.3
builds a ``class:`` task as that class for every model).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

#: the model's name, which the harness hands a task class in its config (lmms-eval 0.7.3 passes none)
MODEL_NAME_KEY = "lmms_plugins_model_name"


class PluginTask:
    """Mixin of this package's task classes (first base, before lmms-eval's task class)."""

    #: the chat-model form of this class (a ConfigurableMessagesTask); set on the simple class
    chat_variant: type | None = None
    #: the benchmark's score-changing settings (tasks/<bench>/settings.py)
    SETTINGS: tuple = ()

    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        self.settings: Mapping[str, Any] = {}
        named_model = config.get(MODEL_NAME_KEY) if isinstance(config, dict) else None  # harness/task_type.py
        if config is not None:  # `class` is the YAML key that named us, not a TaskConfig field
            config = {k: v for k, v in config.items() if k not in ("class", MODEL_NAME_KEY)}
            from lmms_plugins.utils.task_version import check_stated_version

            check_stated_version(str(config.get("task") or ""), config.get("metadata"))
            if self.SETTINGS:
                from lmms_plugins.utils.settings import bind, resolve

                config = bind(self.SETTINGS, config)
                self.settings = resolve(self.SETTINGS, config["metadata"], task=str(config.get("task") or ""))
        if named_model is not None and kwargs.get("model_name") is None:
            kwargs["model_name"] = named_model  # per-model lmms_eval_specific_kwargs, as a configurable task gets
        super().__init__(*args, config=config, **kwargs)

    # ---------------------------------------------------------------- what the YAML says

    @property
    def metadata(self) -> dict:
        meta = getattr(self.config, "metadata", None)
        return meta if isinstance(meta, dict) else {}

    @property
    def benchmark(self) -> str | None:
        """The benchmark whose local data root this task reads (``metadata.lmms_plugins_benchmark``)."""
        return self.metadata.get("lmms_plugins_benchmark") or None

    @property
    def scored(self) -> bool:
        """False under ``--predict_only`` (lmms-eval then sets ``process_results`` to None)."""
        return self.config.process_results is not None

    # ---------------------------------------------------------------- lmms-eval's task methods

    def download(self, dataset_kwargs: dict | None = None) -> None:
        bench = self.benchmark
        if not bench:
            return super().download(dataset_kwargs)
        from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide, local_dataset_path
        from lmms_plugins.utils.local_data import content_cache_kwargs, unwrap_retry

        local = local_dataset_path(bench)
        upstream = super().download  # lmms-eval's, retried 5 times 2 s apart (tenacity)
        if local is not None:
            self.DATASET_PATH = local
            dataset_kwargs = content_cache_kwargs(dataset_kwargs, local, bench)
            unretried = getattr(getattr(upstream, "__func__", None), "__wrapped__", None)
            if unretried is not None:  # retrying a local folder only delays the error
                upstream = functools.partial(unretried, self)
        try:
            return upstream(dataset_kwargs)
        except Exception as exc:  # say which variable to set, not only what `datasets` says
            exc = unwrap_retry(exc)
            if isinstance(exc, MissingDataError):  # already names what is missing and the fix
                raise exc from None
            where = f"the local copy {local}" if local else f"the hub dataset {self.DATASET_PATH}"
            raise MissingDataError(
                f"{bench}: could not load {where} (config {getattr(self, 'DATASET_NAME', None)}): "
                f"{type(exc).__name__}: {exc}\n{how_to_provide(bench)}"
            ) from exc

    def construct_requests(self, doc_id: int, ctx: str, **kwargs: Any):
        from lmms_plugins import request_docs

        instances = super().construct_requests(doc_id, ctx, **kwargs)
        request_docs.attach(self, instances, doc_id, ctx, (kwargs.get("metadata") or {}).get("split"))
        return instances

    def build_all_requests(self, *args: Any, **kwargs: Any):
        if self.scored:
            self.preflight()
        return super().build_all_requests(*args, **kwargs)

    def preflight(self) -> None:
        """Checks before the model gets its first request (a judge reachable, templates parse...);
        raises lmms_plugins.utils.preflight.PreflightError. Benchmarks override it."""


__all__ = ["PluginTask"]
