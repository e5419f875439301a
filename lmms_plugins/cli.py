"""``lmms-plugins`` (also ``python -m lmms_plugins``): the package's command line.

Sub-commands are cheap to start: each imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys


def generators() -> dict[str, str]:
    """``make-data <name>`` -> "module:function", from each benchmark's descriptor (``make_data``);
    the function takes argv and returns an exit code."""
    from lmms_plugins.utils.benchmarks import all_benchmarks

    return {name: target for bench in all_benchmarks() for name, target in bench.make_data.items()}


#: Further sub-commands implemented elsewhere: name -> ("module:function", help).
EXTRA_COMMANDS: dict[str, tuple[str, str]] = {
    "compare": ("lmms_plugins.compare:main", "compare lmms-eval results with each other and with the published numbers"),
    "report": ("lmms_plugins.report:main", "write a self-contained HTML report of one run"),
    "check": ("lmms_plugins.check:main", "per task, samples not generated or not scored; exit 0 only when there are none"),
    "settings": ("lmms_plugins.settings_yaml:main", "a task's score-changing settings; a YAML that runs it with other values"),
    "demo": ("lmms_plugins.demo:main", "offline demo: generate data, run lmms-eval with the program baselines, compare, report"),
}


def _load(target: str):
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


#: ``tasks-dir --harness`` -> "module:function" returning the folder that harness's --include_path takes.
HARNESS_TASK_DIRS = {
    "lmms-eval": "lmms_plugins:tasks_dir",
    "lm-eval": "lmms_plugins.lm_eval_tasks:tasks_dir",  # EleutherAI lm-eval 0.4.x: the CwI answer-only tasks
}


def cmd_tasks_dir(args) -> int:
    print(_load(HARNESS_TASK_DIRS[args.harness])())
    return 0


def cmd_list(args) -> int:
    from lmms_plugins.task_index import index_tasks, local_sample_count

    rows = index_tasks()
    if args.names:
        for row in rows:
            print(row.name)
        return 0
    width = max((len(r.name) for r in rows), default=4)
    print(f"{'name':<{width}}  kind   benchmark  samples")
    for row in rows:
        count = local_sample_count(row) if row.kind == "task" else None
        shown = "-" if count is None else str(count)
        print(f"{row.name:<{width}}  {row.kind:<5}  {row.benchmark or '-':<9}  {shown}")
    print(f"\n{sum(r.kind == 'task' for r in rows)} tasks, {sum(r.kind == 'group' for r in rows)} groups. "
          "Sample counts are shown for benchmarks with a local data root (see README: data roots).")
    return 0


def cmd_make_data(args) -> int:
    target = generators().get(args.benchmark)
    try:
        main = _load(target)
    except (ImportError, AttributeError) as exc:
        print(f"lmms-plugins: the {args.benchmark} generator is not available in this install ({exc})", file=sys.stderr)
        return 2
    return int(main(args.rest) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lmms-plugins", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("tasks-dir", help="print the folder to pass to lmms-eval (or lm-eval) --include_path")
    p.add_argument("--harness", choices=sorted(HARNESS_TASK_DIRS), default="lmms-eval",
                   help="lmms-eval (default): every task; lm-eval: EleutherAI lm-eval 0.4.x, the CwI answer-only tasks")
    p.set_defaults(func=cmd_tasks_dir)
    p = sub.add_parser("list", help="this package's tasks and groups, with sample counts where the data is local")
    p.add_argument("--names", action="store_true", help="print only the names, one per line")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("make-data", help="write a local dataset in a benchmark's official layout",
                       description="Run `lmms-plugins make-data <benchmark> --help` for the generator's options.")
    p.add_argument("benchmark", choices=sorted(generators()))
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="...", help="the generator's own options")
    p.set_defaults(func=cmd_make_data)
    for name, (_target, help_text) in EXTRA_COMMANDS.items():  # listed in --help; run by main()
        sub.add_parser(name, help=help_text)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in EXTRA_COMMANDS:  # these parse their own options (argparse's REMAINDER cannot)
        return int(_load(EXTRA_COMMANDS[argv[0]][0])(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
