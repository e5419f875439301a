"""``lmms-plugins settings``: a task's (or group's) settings, and a YAML that runs it with other values.

    lmms-plugins settings dod_no_hint                                   # keys, values now, what they do
    lmms-plugins settings abacus detector=synthetic_test --out my_settings/
    lmms-eval --include_path my_settings/ --tasks abacus ...

The YAML (``<out>/<name>.yaml``) has the task's (or group's) name and ``include``s this package's
YAML of it, restating each task's whole ``metadata`` with the values given (``include`` merges
top-level keys only, and a group's own ``metadata`` does not reach its tasks). lmms-eval's index
takes a name from the ``--include_path`` folders before this package's tasks, so the run keeps the
task and group names (``compare`` pairs it with other runs and names the setting that differs) and
a group its pooled rows. (lmms-eval 0.7.3 also reads ``--tasks <file.yaml>`` but then reports the
file as a task not found.) A value is read as YAML (``0.5``, ``{"reasoning_effort": "low"}``) and
checked as the task would check it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path


def declared_settings(bench: str | None) -> tuple:
    """The benchmark's ``SETTINGS`` (tasks/<bench>/settings.py), or () when it has none."""
    if not bench:
        return ()
    try:
        module = importlib.import_module(f"lmms_plugins.tasks.{bench}.settings")
    except ModuleNotFoundError:
        return ()
    return tuple(getattr(module, "SETTINGS", ()))


def _parse_values(pairs: list[str]) -> dict:
    import yaml

    out = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected KEY=VALUE, got {pair!r}")
        out[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
    return out


def _flow(mapping: dict) -> str:
    """A mapping on one line (JSON is YAML), keys in their order."""
    return json.dumps(mapping, ensure_ascii=False)


def write_yaml(name: str, values: dict) -> str:
    """The YAML text that runs task or group ``name`` with ``values`` set (ValueError, SettingError)."""
    from lmms_plugins.task_index import index_tasks
    from lmms_plugins.utils.settings import resolve

    entries = {e.name: e for e in index_tasks()}
    entry = entries.get(name)
    if entry is None:
        raise ValueError(f"no task or group {name!r} in this package (`lmms-plugins list`)")
    if entry.kind == "task":
        leaves = [entry]
    else:
        listed = entry.config.get("task") or []
        nested = [t for t in listed if not isinstance(t, str) or entries.get(t) is None or entries[t].kind != "task"]
        if nested:
            raise ValueError(f"{name}: lists {nested[0]!r}, not one of this package's tasks; write the YAML by hand "
                             "(docs/DEVELOPING.md, 'Settings and environment variables')")
        leaves = [entries[t] for t in listed]
    declared = {s.key: s for leaf in leaves for s in declared_settings(leaf.benchmark)}
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise ValueError(f"{name} has no setting {', '.join(unknown)}; its settings: {', '.join(declared) or 'none'}")
    resolve(tuple(declared[k] for k in values), values, task=name)  # checked as the task will check it
    lines = [f"# lmms-plugins settings {name} " + " ".join(f"{k}={_flow(v) if isinstance(v, dict) else v}" for k, v in values.items()),
             f"# run it: lmms-eval --include_path <this folder> --tasks {name} ...", f"include: {entry.path.resolve()}"]
    if entry.kind == "task":
        lines += [f"task: {name}", f"metadata: {_flow({**(entry.config.get('metadata') or {}), **values})}"]
    else:
        lines += [f"group: {name}", "task:"]
        for leaf in leaves:
            lines.append(f"  - {{task: {leaf.name}, metadata: {_flow({**(leaf.config.get('metadata') or {}), **values})}}}")
    return "\n".join(lines) + "\n"


def describe(name: str) -> str:
    """The settings of task or group ``name``: key, the value a run would use now, what it does."""
    from lmms_plugins.task_index import index_tasks
    from lmms_plugins.utils.settings import recorded, resolve

    entry = next((e for e in index_tasks() if e.name == name), None)
    if entry is None:
        raise ValueError(f"no task or group {name!r} in this package (`lmms-plugins list`)")
    declared = declared_settings(entry.benchmark)
    if not declared:
        return f"{name}: no settings (nothing but the data and the model changes its scores)\n"
    now = resolve(declared, entry.config.get("metadata") if entry.kind == "task" else None, task=name)
    rows = [f"{s.key} = {json.dumps(recorded(now[s.key]))}" + (f"   (was {s.retired}, no longer read)" if s.retired else "")
            + f"\n    {s.help}" for s in declared]
    return f"{name}: settings (keys of the task's metadata; values a run would use now)\n" + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    from lmms_plugins.utils.settings import SettingError

    p = argparse.ArgumentParser(prog="lmms-plugins settings", description=__doc__.splitlines()[0])
    p.add_argument("name", help="a task or group of this package")
    p.add_argument("values", nargs="*", metavar="KEY=VALUE", help="settings to change; none: list the settings")
    p.add_argument("--out", help="write the YAML into this folder as <name>.yaml (default: print it); keep other "
                                 "YAML files out of it (lmms-eval reads every one)")
    args = p.parse_args(argv)
    try:
        text = write_yaml(args.name, _parse_values(args.values)) if args.values else describe(args.name)
    except (ValueError, SettingError) as exc:
        print(f"lmms-plugins settings: {exc}", file=sys.stderr)
        return 2
    if args.out and args.values:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{args.name}.yaml").write_text(text, encoding="utf-8")
        print(f"wrote {folder / (args.name + '.yaml')}: lmms-eval --include_path {folder} --tasks {args.name} ...")
    else:
        sys.stdout.write(text)
    return 0
