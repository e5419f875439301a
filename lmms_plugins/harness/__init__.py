"""Every contact of this package with lmms-eval's and lm-eval's internals, behind one version check.

The tasks never import this package: they use only what lmms-eval and lm-eval document (YAML
keys, ``class:`` task classes, hook signatures). What a task cannot reach that way is here, one
module per contact, each a guarded wrapper (a missing name warns and leaves the harness as it is):

=================  ===========================================  =============================================
module             what it touches                              why
=================  ===========================================  =============================================
discovery.py       ``TaskManager.initialize_tasks``             tasks found with no ``--include_path``
task_type.py       ``TaskManager._load_individual_task_or_group``  a ``class:`` task built for a chat model as
                   and ``TaskManager._get_config``              its chat variant (lmms-eval 0.7.3 bug)
end_of_run.py      ``TaskOutput.calculate_aggregate_metric``,   the task named during aggregation; the table
                   ``utils.make_table``                         without non-number rows; end-of-run lines
batched_rounds.py  ``evaluator._run_generate_until_agentic``    the rounds of many requests together (a fork,
                                                                guarded by the SHA-256 of upstream's source)
stderr.py          ``evaluator_utils.stderr_for_metric``        the Stderr column of this package's metrics
                   (lmms-eval's and lm-eval's)
startup.py         the ``.pth`` start-up hook                   installs these when lmms_eval or lm_eval is
                                                                imported (``lmms-eval tasks list`` loads no
                                                                entry point); build_hooks.py writes the .pth
=================  ===========================================  =============================================

:func:`install` arranges for each patch to run right after its module is imported, and only when
:func:`guard.supported` finds the release named in :data:`guard.SUPPORTED` (lmms-eval 0.7.3,
lm-eval 0.4.13); otherwise one warning says which contacts are off (:data:`guard.OFF`). Called by the ``lmms_eval.models`` entry point
(lmms_plugins/registration.py) and by the ``.pth`` start-up hook (startup.py) when ``lmms_eval`` or
``lm_eval`` is first imported.
"""

from __future__ import annotations

# nothing imported here: the .pth start-up hook imports this package in every interpreter


def _checked(dist: str, *patches):
    """One patch of a module that runs ``patches`` when ``dist`` is the supported release."""

    def run(module) -> None:
        from .guard import supported

        if supported(dist):
            for patch in patches:
                patch(module)

    return run


def _lmms_eval_patch(*patches):
    return _checked("lmms_eval", *patches)


def _batched_rounds(evaluator) -> None:
    from .batched_rounds import install  # imported when the evaluator is: no cost at lmms-eval's start

    install(evaluator)


def install() -> None:
    """Idempotent; never raises (lmms-eval's start-up must not break)."""
    try:
        from . import discovery, end_of_run, stderr, task_type
        from .on_import import when_imported

        tasks = [task_type.patch] + ([discovery.patch] if discovery.enabled() else [])
        when_imported("lmms_eval.tasks", _lmms_eval_patch(*tasks))
        when_imported("lmms_eval.evaluator_utils", _lmms_eval_patch(end_of_run.patch_evaluator_utils, stderr.patch))
        when_imported("lm_eval.evaluator_utils", _checked("lm_eval", stderr.patch))
        when_imported("lmms_eval.utils", _lmms_eval_patch(end_of_run.patch_utils))
        when_imported("lmms_eval.evaluator", _lmms_eval_patch(_batched_rounds))
    except Exception as exc:  # noqa: BLE001
        from .guard import warn

        warn(f"install its hooks ({exc!r})")


__all__ = ["install"]
