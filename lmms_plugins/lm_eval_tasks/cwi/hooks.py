"""EleutherAI lm-eval 0.4.x adapters of the CwI hooks (``lmms_plugins.tasks.cwi.hooks``).

The lm-eval YAMLs next to this file name the lmms-eval hooks themselves wherever lm-eval calls
them the same way: ``doc_to_image`` is ``hooks.doc_to_visual``, ``doc_to_target`` and
``process_results`` are the same functions (the task class, task.py, binds the task's rule).
What lm-eval calls differently is adapted here, and nothing else:

* :func:`doc_to_text`: the same prompt (``prompt.jinja``), preceded by one ``<image>`` marker per
  image: lm-eval's local multimodal backends (``hf-multimodal``, ``vllm-vlm``) put an image where
  the text has a marker, as lm-eval's own multimodal tasks (chartqa, mmmu) write them;
* :func:`load_dataset` (``custom_dataset``): the hub dataset, or the local copy named by
  ``LMMS_PLUGINS_CWI_ROOT`` / ``LMMS_PLUGINS_DATA_ROOT`` (lmms-eval reaches the same through its
  task class, utils/task_class.py);
* :func:`process_docs`: renders the prompt of the first item before any request, so a broken
  template stops the run at load time;
* the ``aggregate_*`` functions: the lmms-eval aggregations, plus their standard errors in
  lm-eval's results (lm-eval, like lmms-eval, gives "N/A" for an aggregation it does not know).
"""

from __future__ import annotations

from typing import Any, Mapping

from lmms_plugins.tasks.cwi import hooks as _cwi
from lmms_plugins.tasks.cwi.catalog import DATASET_PATH

BENCH = "cwi"
#: lm-eval's image marker (``DEFAULT_IMAGE_PLACEHOLDER`` of its hf-multimodal and vllm-vlm models).
IMAGE_PLACEHOLDER = "<image>"
#: What the lmms-eval template passes as ``lmms_eval_specific_kwargs.default``: lm-eval has no such
#: key, so the adapter renders with the hooks' default, and the generator checks the two agree.
LMMS_PROMPT_KWARGS = {"prompt_template_file": "prompt.jinja"}


def doc_to_text(doc: Mapping) -> str:
    """The lmms-eval prompt of ``doc``, after one ``<image>`` marker per image of the item."""
    return IMAGE_PLACEHOLDER * len(_cwi.doc_to_visual(doc)) + _cwi.doc_to_text(doc, LMMS_PROMPT_KWARGS)


def process_docs(dataset):
    """Render the first item's prompt once, while lm-eval builds the task (before any request)."""
    if len(dataset):
        import jinja2

        try:
            doc_to_text(dataset[0])
        except (jinja2.TemplateError, OSError, ValueError) as exc:  # TemplateRejected is a ValueError
            raise ValueError(f"the prompt template of this CwI task cannot be rendered: {type(exc).__name__}: {exc}") from None
    return dataset


def load_dataset(cwi_task: str | None = None, **_metadata: Any):
    """lm-eval's ``custom_dataset``: the task's config of the hub dataset, or of the local copy.

    lm-eval calls it with the task's ``metadata`` (and the run's ``--metadata`` and model
    arguments) as keywords; only ``cwi_task`` matters here.
    """
    import datasets

    from lmms_plugins.utils.data_roots import MissingDataError, how_to_provide, local_dataset_path
    from lmms_plugins.utils.local_data import content_cache_kwargs, unwrap_retry

    if not cwi_task:
        raise ValueError("this CwI task has no metadata.cwi_task in its YAML (the dataset config to load)")
    local = local_dataset_path(BENCH)  # a configured folder that does not exist raises MissingDataError
    # datasets caches a local folder by path: key the cache on its content, as the lmms-eval task class does
    kwargs = content_cache_kwargs({}, local, BENCH) if local else {}
    try:
        return datasets.load_dataset(local or DATASET_PATH, cwi_task, **kwargs)
    except Exception as exc:  # say which variable to set, not only what `datasets` says
        exc = unwrap_retry(exc)
        where = f"the local copy {local}" if local else f"the hub dataset {DATASET_PATH}"
        raise MissingDataError(
            f"{BENCH}: could not load {where} (config {cwi_task}): {type(exc).__name__}: {exc}\n{how_to_provide(BENCH)}"
        ) from exc


# ---------------------------------------------------------------------------- aggregations

# The lmms-eval aggregations themselves: their standard errors reach lm-eval's table because the
# harness package (lmms_plugins/harness/stderr.py, armed by the .pth start-up hook when lm_eval is
# imported) makes lm-eval's stderr_for_metric answer for them as it does lmms-eval's.
aggregate_accuracy = _cwi.aggregate_accuracy
aggregate_accuracy_easy = _cwi.aggregate_accuracy_easy
aggregate_accuracy_medium = _cwi.aggregate_accuracy_medium
aggregate_accuracy_hard = _cwi.aggregate_accuracy_hard
aggregate_accuracy_expert = _cwi.aggregate_accuracy_expert
aggregate_extraction_failure_rate = _cwi.aggregate_extraction_failure_rate
aggregate_generation_failure_rate = _cwi.aggregate_generation_failure_rate
