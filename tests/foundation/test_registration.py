"""Registration: cheap, guarded, and no task name of this package shadows or is shadowed by lmms-eval's."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lmms_plugins.task_index import index_tasks


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)


def test_registration_imports_nothing_heavy():
    # Stub lmms_eval.models.registry_v2 so that only this package's own imports are seen.
    proc = run_python("""
        import sys, types, dataclasses
        pkg = types.ModuleType("lmms_eval"); pkg.__path__ = []
        models = types.ModuleType("lmms_eval.models"); models.__path__ = []
        reg = types.ModuleType("lmms_eval.models.registry_v2")
        @dataclasses.dataclass(frozen=True)
        class ModelManifest:
            model_id: str
            simple_class_path: str = None
        reg.ModelManifest = ModelManifest
        sys.modules.update({"lmms_eval": pkg, "lmms_eval.models": models, "lmms_eval.models.registry_v2": reg})
        before = set(sys.modules)
        from lmms_plugins.registration import register
        ids = [m.model_id for m in register()]
        new = sorted(set(sys.modules) - before)
        heavy = [m for m in new if m.split(".")[0] in ("torch", "cv2", "datasets", "numpy", "PIL", "scipy")
                 or m.startswith("lmms_plugins.tasks.")]
        print("IDS", ids); print("HEAVY", heavy)
    """)
    assert proc.returncode == 0, proc.stderr
    assert "'replay'" in proc.stdout
    assert "HEAVY []" in proc.stdout, proc.stdout


def test_hook_adds_tasks_dir_once_and_include_path_still_works():
    proc = run_python("""
        import lmms_eval.models  # loads the entry point
        from lmms_eval.tasks import TaskManager
        from lmms_plugins import tasks_dir
        from lmms_plugins.harness import discovery, guard
        assert getattr(TaskManager.initialize_tasks, guard._PATCHED)  # the entry point patched it
        calls = []
        def spy(self, include_path=None, include_defaults=True):
            calls.append(list(include_path or []))
            return {}
        TaskManager.initialize_tasks = spy  # re-patch around a spy to see what lmms-eval receives
        discovery.patch(__import__("lmms_eval.tasks", fromlist=["x"]))
        a = TaskManager(include_defaults=False)
        b = TaskManager(include_path=tasks_dir(), include_defaults=False)
        c = TaskManager(include_path=["/tmp"], include_defaults=False)
        print("CALLS", calls == [[], [], ["/tmp"]])
        reference = TaskManager._get_task_and_group(a, tasks_dir())  # lmms-eval's own indexing
        print("SAME", {k: v for k, v in reference.items()} == discovery.fast_index(tasks_dir()))
        print("FOUND", "cwi_alignment" in a.all_tasks and "cwi" in b.all_tasks and "cwi" in c.all_tasks)
    """)
    assert "CALLS True" in proc.stdout and "SAME True" in proc.stdout and "FOUND True" in proc.stdout, (
        proc.stdout + proc.stderr[-3000:])


def test_changed_internals_give_a_warning_not_a_crash():
    proc = run_python("""
        import types, warnings
        import lmms_plugins.registration as r
        from lmms_plugins.harness import discovery, task_type
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            discovery.patch(types.SimpleNamespace())           # no TaskManager
            task_type.patch(types.SimpleNamespace(TaskManager=object))  # no _load_individual_task_or_group
        print("WARN", [str(w.message)[:60] for w in seen if issubclass(w.category, r.RegistrationWarning)])
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("could not") == 3 and "include_path" not in proc.stderr


@pytest.mark.e2e
def test_no_task_name_collides_with_lmms_eval_builtins():
    ours = {row.name for row in index_tasks()}
    assert {"cwi", "cwi_alignment"} <= ours
    proc = run_python("""
        import os
        import lmms_eval.tasks as t
        tm = t.TaskManager.__new__(t.TaskManager)
        tm.verbosity = "ERROR"; tm.logger = t.eval_logger
        builtin = tm._get_task_and_group(os.path.dirname(t.__file__) + "/")
        print("\\n".join(sorted(builtin)))
    """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    builtins = set(proc.stdout.split())
    assert len(builtins) > 100
    assert not ours & builtins, sorted(ours & builtins)


def test_every_task_yaml_is_a_task_or_group_with_a_unique_name():
    rows = index_tasks()
    names = [r.name for r in rows]
    assert len(names) == len(set(names))
    yamls = list(Path(rows[0].path).parents[1].rglob("*.yaml"))
    assert len(yamls) == len(rows), "a .yaml under tasks/ that is neither a task nor a group"


def test_patch_runs_after_a_later_import_and_half_imported_modules_warn(tmp_path, monkeypatch):
    import types
    import warnings

    from lmms_plugins.harness.on_import import when_imported

    (tmp_path / "late_pkg_for_hook.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    when_imported("late_pkg_for_hook", lambda m: seen.append(m.VALUE))
    assert seen == []
    __import__("late_pkg_for_hook")
    assert seen == [1]  # the patch ran once the module's own code had run

    half = types.ModuleType("half_imported_for_hook")
    half.__spec__ = types.SimpleNamespace(_initializing=True)
    monkeypatch.setitem(sys.modules, "half_imported_for_hook", half)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        when_imported("half_imported_for_hook", lambda m: seen.append("patched"))
    assert "patched" not in seen and any("still being imported" in str(w.message) for w in caught)


def test_another_lmms_eval_release_turns_every_contact_off_with_one_warning(monkeypatch):
    import types
    import warnings

    from lmms_plugins import harness
    from lmms_plugins.harness import discovery, end_of_run, guard, task_type

    monkeypatch.setattr(guard, "installed_version", lambda dist: "0.7.4")
    guard.supported.cache_clear()
    manager = type("TaskManager", (), {"initialize_tasks": lambda self: None, "_get_config": lambda self, name: {},
                                       "_load_individual_task_or_group": lambda self, *a, **k: {}})
    module = types.SimpleNamespace(TaskManager=manager)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            harness._lmms_eval_patch(task_type.patch, discovery.patch)(module)
            harness._lmms_eval_patch(end_of_run.patch_utils)(types.SimpleNamespace(make_table=print))
    finally:
        guard.supported.cache_clear()
    messages = [str(w.message) for w in caught if issubclass(w.category, guard.HarnessWarning)]
    assert len(messages) == 1, messages  # once per process, not once per contact
    assert "supports lmms_eval 0.7.3, found 0.7.4" in messages[0] and "chat variants" in messages[0]
    assert not any(getattr(v, guard._PATCHED, False) for v in vars(manager).values())  # nothing was wrapped
