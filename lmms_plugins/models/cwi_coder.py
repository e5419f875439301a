"""``cwi_coder``: a program that plays the model's side of ``cwi_code_<task>`` through the real loop.

    lmms-eval --model cwi_coder --tasks cwi_code ...

Round 1 (the context has no execution result yet): it replies with a Python program in a fenced
block. The program is self-contained: it carries the source of the task's reference solver
(tasks/cwi/solvers/<task>.py) and of the package modules that solver imports, registers them
with a small in-memory importer, opens ``image_1.png`` (and ``image_2.png``) from its working
folder, and prints ``answer: <value>``. Round 2: it reads that line from the stdout the loop sent
back (the last ``=== Result of running the code`` section of its context) and replies
``<answer><value></answer>``. If the program failed or printed no such line, it says so without
code or answer, which ends the loop (scored unparsable, as ``cwi_solver`` scores a solver failure).

How honest this is: the program is code a model could have written (it is in the reply, in the
sample log); it needs only the libraries the prompt names, not this package, so it also runs in a
sandbox that cannot import ``lmms_plugins``. It knows its task from the lmms-eval task name
(``cwi_code_<task>``) and reads the question's parameters (grid size, box, colour) from the prompt
text, as a model would; it never sees the answer. It is the reference solvers' accuracy, reached
through the loop: the check that the loop passes images, code and output faithfully.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re

from lmms_eval.api.model import lmms
from loguru import logger

from lmms_plugins.models import OnCPU

SOLVER_PACKAGE = "lmms_plugins.tasks.cwi.solvers"
TASK_PREFIX = "cwi_code_"
RESULT_HEADER = "=== Result of running the code of reply"
ANSWER_LINE = re.compile(r"^answer: (.*)$", re.MULTILINE)


def cwi_task_of(task_name: str) -> str | None:
    from lmms_plugins.tasks.cwi.catalog import FAMILY_OF

    task = task_name[len(TASK_PREFIX):] if task_name.startswith(TASK_PREFIX) else None
    return task if task in FAMILY_OF else None


def _imports(name: str, source: str) -> set[str]:
    """Package modules ``source`` imports (absolute or relative), anywhere in the file."""
    package = name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import module`
    return {m for m in found if m.startswith("lmms_plugins.")}


@functools.cache
def bundle(task: str) -> dict[str, str]:
    """Module name -> source of the solver of ``task`` and every package module it reaches."""
    todo, out = [f"{SOLVER_PACKAGE}.{task}"], {}
    while todo:
        name = todo.pop()
        if name in out:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, AttributeError, ValueError):  # `from module import name`: not a module
            spec = None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        if spec.submodule_search_locations is not None:  # a package: an empty one will do
            continue
        with open(spec.origin, encoding="utf-8") as fh:
            out[name] = fh.read()
        todo.extend(_imports(name, out[name]) - set(out))
    if f"{SOLVER_PACKAGE}.{task}" not in out:
        raise LookupError(f"no reference solver for CwI task {task!r}")
    return out


PROGRAM = '''\
# Analysis program for the CwI task "{task}". The analysis code is embedded below (module name
# -> source) and imported from memory; it uses numpy, Pillow, OpenCV, SciPy and scikit-image.
import importlib.abc, importlib.util, os, sys

SOURCES = {sources}
PACKAGES = {packages}


class _Embedded(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in SOURCES or name in PACKAGES:
            return importlib.util.spec_from_loader(name, self, is_package=name in PACKAGES)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ in PACKAGES:
            module.__path__ = []
        source = SOURCES.get(module.__name__)
        if source:
            exec(compile(source, "<" + module.__name__ + ">", "exec"), module.__dict__)


sys.meta_path.insert(0, _Embedded())

from PIL import Image

from {solver_package}.{task} import solve

QUESTION = {question}
images = [Image.open(name).convert("RGB") for name in ("image_1.png", "image_2.png") if os.path.exists(name)]
print("images:", [im.size for im in images])
print("answer:", solve(images[0], images[1] if len(images) > 1 else None, QUESTION))
'''


def program(task: str, question: str) -> str:
    sources = bundle(task)
    packages = sorted({".".join(n.split(".")[:i]) for n in sources for i in range(1, n.count(".") + 1)} - set(sources))
    body = "{\n" + "".join(f"    {n!r}: {s!r},\n" for n, s in sorted(sources.items())) + "}"
    return PROGRAM.format(task=task, sources=body, packages=repr(packages), solver_package=SOLVER_PACKAGE,
                          question=repr(question))


def reply(task: str, context: str) -> str:
    """The model's reply to one round's context."""
    at = context.rfind("\n" + RESULT_HEADER)  # a section header starts a line (a file name may hold its words)
    if at < 0:
        return f"I will measure it with a program.\n\n```python\n{program(task, context)}```\n"
    result = context[at:]
    found = ANSWER_LINE.findall(result)
    if not found:
        return "The program did not print an answer, so I cannot give one."
    return f"The program printed the value.\n\n<answer>{found[-1].strip()}</answer>"


class CwiCoder(OnCPU, lmms):
    """Writes and reads back a CwI analysis program (no neural network)."""

    def __init__(self, **kwargs) -> None:
        super().__init__()

    def generate_until(self, requests) -> list[str]:
        outputs = []
        for req in requests:
            ctx, task_name = req.args[0], req.args[4]
            task = cwi_task_of(task_name or "")
            if task is None:
                logger.warning(f"cwi_coder: {task_name} is not a cwi_code_<task> task; no reply")
                outputs.append("")
                continue
            try:
                outputs.append(reply(task, ctx))
            except Exception as exc:  # noqa: BLE001 - one item must not stop the run
                logger.warning(f"cwi_coder: {task_name} doc {req.args[3]}: {type(exc).__name__}: {exc}")
                outputs.append("")
        return outputs

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("cwi_coder answers generation tasks only")
