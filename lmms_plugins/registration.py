"""How lmms-eval finds this package with no flags.

lmms-eval 0.7.3 has no entry-point group for tasks, and ``LMMS_EVAL_PLUGINS`` adds a plugin's
task folder only after the task index is built. It does load the ``lmms_eval.models`` entry
points (while importing ``lmms_eval.models``) before any ``TaskManager`` exists. :func:`register`
is that entry point: it returns this package's model manifests and, as a side effect, arranges
for ``TaskManager`` to index this package's task folder too.

Everything here is guarded: if lmms-eval's internals differ, a warning says so and
``--include_path "$(lmms-plugins tasks-dir)"`` still works. Nothing heavy is imported (no torch,
cv2, datasets, nor any benchmark code): see benchmarks/registration_overhead.py.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import warnings

_PATCHED = "_lmms_plugins_patched"
_TASKS_MODULE = "lmms_eval.tasks"
_API_TASK_MODULE = "lmms_eval.api.task"


class RegistrationWarning(UserWarning):
    """lmms-eval's internals are not what this package expects; --include_path still works."""


def _warn(what: str) -> None:
    warnings.warn(
        f"lmms-plugins could not {what} in this lmms-eval version; pass "
        f'--include_path "$(lmms-plugins tasks-dir)" to use its tasks.',
        RegistrationWarning,
        stacklevel=3,
    )


#: Set to 1 to keep this package's tasks out of lmms-eval's index (then use --include_path).
NO_TASK_HOOK_ENV = "LMMS_PLUGINS_NO_TASK_HOOK"


def register():
    """Entry point payload for group ``lmms_eval.models``."""
    install_hooks()
    from lmms_plugins.models import manifests

    found = manifests()
    _list_in_models_command(found)
    return found


def install_hooks() -> None:
    """Arrange for lmms-eval's task index (and its Task class) to be patched when imported.

    Called by :func:`register` and, at interpreter start, by ``lmms_plugins_hook.pth`` (see
    startup_hook.py): ``lmms-eval tasks list`` builds a ``TaskManager`` without ever importing
    ``lmms_eval.models``, so the entry point alone never runs there. Idempotent.
    """
    try:
        if os.environ.get(NO_TASK_HOOK_ENV, "") not in ("1", "true", "yes"):
            _when_imported(_TASKS_MODULE, _patch_task_manager)
        _when_imported(_API_TASK_MODULE, _patch_api_task)
        # the end of a run: task names during aggregation, the last lines after the table (harness.py)
        from lmms_plugins import harness

        _when_imported("lmms_eval.evaluator_utils", harness.patch_evaluator_utils)
        _when_imported("lmms_eval.utils", harness.patch_utils)
    except Exception as exc:  # never break lmms-eval's start-up
        _warn(f"install its task hook ({exc!r})")


def _list_in_models_command(found) -> None:
    """``lmms-eval models`` prints lmms-eval's static name tables, not the registry: add ours there
    too (as lmms-eval's own legacy plugin path does), so the listing shows them."""
    module = sys.modules.get("lmms_eval.models")
    if module is None:  # called outside lmms-eval's start-up: nothing to list in
        return
    table = getattr(module, "AVAILABLE_SIMPLE_MODELS", None)
    if not isinstance(table, dict):
        _warn("list its models in `lmms-eval models`")
        return
    for manifest in found:
        table.setdefault(manifest.model_id, manifest.simple_class_path)


# --- run a patch when a module is (or has been) imported -------------------------------------


def _when_imported(name: str, patch) -> None:
    module = sys.modules.get(name)
    if module is None:  # the usual case in lmms-eval 0.7.3: patch right after it is imported
        if not any(isinstance(f, _PatchOnImport) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _PatchOnImport(name, patch))
    elif _initialising(module):  # half-imported: it cannot be patched now, nor later by the hook
        _warn(f"patch {name}, which was still being imported")
    else:
        patch(module)


def _initialising(module) -> bool:
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


class _PatchOnImport:  # duck-typed finder: importlib.abc costs ~10 ms at interpreter start
    """Finds nothing itself; wraps the real loader of one module so a patch runs after it."""

    def __init__(self, name: str, patch) -> None:
        self.name, self.patch = name, patch

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        real_exec = spec.loader.exec_module
        patch = self.patch

        def exec_module(module):
            real_exec(module)
            try:
                patch(module)
            except Exception as exc:  # guarded: lmms-eval must still start
                _warn(f"patch {fullname} ({exc!r})")

        spec.loader.exec_module = exec_module
        return spec


# --- the patches ------------------------------------------------------------------------------


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _fast_index(folder: str) -> dict | None:
    """This package's part of the task index, in lmms-eval's entry format, read with PyYAML's C
    loader and without resolving ``include`` (every leaf names its task itself). lmms-eval's own
    pure-Python loader re-reads the shared template for every leaf: ~2 ms per file. Returns None
    (fall back to lmms-eval's indexer) for anything this reader does not cover, such as tags."""
    from lmms_plugins.utils import task_yaml  # C loader; `!function` tags are only names at indexing time

    index = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(root, name)
            config = task_yaml.load(path) or {}
            if "tag" in config or "class" in config:
                return None
            if isinstance(config.get("task"), list) and "group" in config:
                index[config["group"]] = {"type": "group", "task": -1, "yaml_path": path}
            elif isinstance(config.get("task"), str):
                index[config["task"]] = {"type": "task", "yaml_path": path}
            else:
                return None
    return index


def _unpatched(module, class_name: str, method: str):
    """(class, method) to wrap, or None when it is missing (warned) or already wrapped."""
    cls = getattr(module, class_name, None)
    original = getattr(cls, method, None)
    if cls is None or original is None:
        _warn(f"find {class_name}.{method}")
        return None
    return None if getattr(original, _PATCHED, False) else (cls, original)


def _install(cls, method: str, original, wrapper) -> None:
    setattr(wrapper, _PATCHED, True)
    wrapper.__wrapped__ = original
    setattr(cls, method, wrapper)


def _patch_task_manager(module) -> None:
    """Add this package's task folder to every TaskManager's index (after lmms-eval's own)."""
    found = _unpatched(module, "TaskManager", "initialize_tasks")
    if found is None:
        return
    manager, original = found
    from lmms_plugins import tasks_dir

    ours = tasks_dir()
    cached: list = []

    def initialize_tasks(self, include_path=None, include_defaults=True):
        paths = [include_path] if isinstance(include_path, str) else list(include_path or [])
        paths = [p for p in paths if not (os.path.isdir(p) and _same_dir(p, ours))]
        if not cached:
            cached.append(_fast_index(ours))
        if cached[0] is None:  # not covered by the fast reader: let lmms-eval index the folder
            return original(self, include_path=paths + [ours], include_defaults=include_defaults)
        index = original(self, include_path=paths, include_defaults=include_defaults)
        return {**cached[0], **index}  # lmms-eval's and the user's entries win, as for include_path

    _install(manager, "initialize_tasks", original, initialize_tasks)


def _content_fingerprint(root: str) -> str:
    """Names, sizes and modification times of the files under ``root``: changes when data is regenerated."""
    import hashlib

    digest = hashlib.sha1()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            stat = os.stat(os.path.join(folder, name))
            digest.update(f"{os.path.relpath(os.path.join(folder, name), root)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _with_content_cache(dataset_kwargs, root: str, bench: str) -> dict:
    """A copy of ``dataset_kwargs`` whose ``datasets`` cache folder is keyed by the local copy's content.

    ``datasets`` caches a local folder by its path and config, not by what is in it, so a copy
    regenerated in place would be served stale from the cache.
    """
    from lmms_plugins.utils.cache_root import cache_dir

    kwargs = dict(dataset_kwargs or {})
    if "cache_dir" not in kwargs:
        kwargs["cache_dir"] = str(cache_dir("datasets") / bench / _content_fingerprint(root))
    return kwargs


def _unwrap_retry(exc: BaseException) -> BaseException:
    """The error inside tenacity's ``RetryError`` (lmms-eval's retried download), else ``exc``."""
    attempt = getattr(exc, "last_attempt", None)
    inner = attempt.exception() if attempt is not None and hasattr(attempt, "exception") else None
    return inner if isinstance(inner, BaseException) else exc


def _patch_dataset_download(module) -> None:
    """Load a task's data from a local root when its YAML asks for it and one is configured.

    A task opts in with ``metadata: {lmms_plugins_benchmark: <bench>}``; when
    ``LMMS_PLUGINS_<BENCH>_ROOT`` or ``LMMS_PLUGINS_DATA_ROOT/<bench>`` is set, the dataset path
    becomes that folder (the hub layout: parquet files plus a README.md with ``configs:``) and
    ``datasets`` loads it exactly as it loads the hub copy.
    """
    found = _unpatched(module, "ConfigurableTask", "download")
    if found is None:
        return
    task_cls, original = found

    def download(self, dataset_kwargs=None):
        metadata = getattr(getattr(self, "config", None), "metadata", None)
        bench = metadata.get("lmms_plugins_benchmark") if isinstance(metadata, dict) else None
        if not bench:
            return original(self, dataset_kwargs)
        from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide, local_dataset_path

        local = local_dataset_path(bench)
        load = original
        if local is not None:
            self.DATASET_PATH = local
            dataset_kwargs = _with_content_cache(dataset_kwargs, local, bench)
            # lmms-eval retries a download 5 times, 2 s apart: pointless for a local folder
            load = getattr(original, "__wrapped__", original)
        try:
            return load(self, dataset_kwargs)
        except Exception as exc:  # say which variable to set, not only what `datasets` says
            exc = _unwrap_retry(exc)
            if isinstance(exc, MissingDataError):  # already names what is missing and the fix
                raise exc from None
            where = f"the local copy {local}" if local else f"the hub dataset {self.DATASET_PATH}"
            raise MissingDataError(
                f"{bench}: could not load {where} (config {getattr(self, 'DATASET_NAME', None)}): "
                f"{type(exc).__name__}: {exc}\n{how_to_provide(bench)}"
            ) from exc

    _install(task_cls, "download", original, download)


def _patch_api_task(module) -> None:
    """Both patches of lmms_eval.api.task (one import hook per module)."""
    _patch_dataset_download(module)
    _patch_request_docs(module)


def _patch_request_docs(module) -> None:
    """Generation requests of this package's tasks carry ``Instance.doc`` (lmms_plugins/request_docs.py),
    which lmms-eval 0.7.3 leaves None and its qwen_image_edit wrapper reads."""
    found = _unpatched(module, "ConfigurableTask", "construct_requests")
    if found is None:
        return
    task_cls, original = found

    def construct_requests(self, doc_id, ctx, **kwargs):
        instances = original(self, doc_id, ctx, **kwargs)
        from lmms_plugins import request_docs

        if request_docs.ours(self):
            request_docs.attach(self, instances, doc_id, ctx, (kwargs.get("metadata") or {}).get("split"))
        return instances

    _install(task_cls, "construct_requests", original, construct_requests)
