"""``cwi_solver``: the CwI reference solvers as an lmms-eval model (an offline program baseline).

    lmms-eval --model cwi_solver --tasks cwi_alignment,cwi_jigsaw ...

For each request it finds the CwI task (``metadata.cwi_task`` of the task YAML, else the task
name ``cwi_<task>``), takes the doc's images and prompt, runs
``lmms_plugins.tasks.cwi.solvers.<task>.solve`` and answers ``<answer>…</answer>``. A task without
a solver, or a solver that fails on an item, gives an empty answer (scored 0 and counted as an
extraction failure) and a warning naming the item; the run goes on.
"""

from __future__ import annotations

import importlib
import importlib.util

from loguru import logger

from lmms_eval.api.model import lmms

from lmms_plugins.models import OnCPU

SOLVER_PACKAGE = "lmms_plugins.tasks.cwi.solvers"


def cwi_task_of(task_name: str, metadata: dict | None) -> str | None:
    """The CwI card task a request belongs to."""
    from lmms_plugins.tasks.cwi.catalog import from_task_name

    if isinstance(metadata, dict) and isinstance(metadata.get("cwi_task"), str):
        return metadata["cwi_task"]
    return from_task_name(task_name or "")


def load_solver(task: str):
    if importlib.util.find_spec(f"{SOLVER_PACKAGE}.{task}") is None:
        return None
    return getattr(importlib.import_module(f"{SOLVER_PACKAGE}.{task}"), "solve", None)


def answer_doc(task: str, doc: dict, visuals: list, prompt: str) -> tuple[str, str]:
    """(model output, problem) for one doc; problem is '' when the solver answered."""
    solve = load_solver(task)
    if solve is None:
        return "", f"no reference solver for CwI task {task!r}"
    image = visuals[0] if visuals else None
    image_2 = visuals[1] if len(visuals) > 1 else None
    if image is None:
        return "", "the doc has no image"
    try:
        ans = solve(image, image_2, prompt)
    except Exception as exc:  # one bad item must not stop the run
        return "", f"solver failed: {type(exc).__name__}: {exc}"
    return f"<answer>{ans}</answer>", ""


class CwiSolver(OnCPU, lmms):
    """Answers CwI items with the reference solvers (no neural network)."""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        self.problems: list[str] = []

    def _doc(self, task: str, split: str, doc_id: int):
        return self.task_dict[task][split][doc_id]

    def generate_until(self, requests) -> list[str]:
        from tqdm import tqdm

        outputs = []
        for req in tqdm(requests, desc="cwi_solver", disable=self.rank != 0):
            ctx, _gen_kwargs, doc_to_visual, doc_id, task_name, split = req.args[:6]
            where = f"{task_name} doc {doc_id}"
            cwi_task = cwi_task_of(task_name, getattr(req, "metadata", None))
            if cwi_task is None:
                outputs.append(self._fail(where, "not a CwI task (no metadata.cwi_task, name not cwi_<task>)"))
                continue
            try:
                doc = self._doc(task_name, split, doc_id)
                visuals = [v for v in (doc_to_visual(doc) or []) if v is not None]
            except Exception as exc:
                outputs.append(self._fail(where, f"could not read the doc: {type(exc).__name__}: {exc}"))
                continue
            prompt = doc.get("prompt") if isinstance(doc.get("prompt"), str) else ctx
            out, problem = answer_doc(cwi_task, doc, visuals, prompt)
            if problem:
                self._fail(where, problem)
            outputs.append(out)
        if self.problems:
            logger.warning(f"cwi_solver: {len(self.problems)} item(s) without a solver answer so far")
        return outputs

    def _fail(self, where: str, why: str) -> str:
        self.problems.append(f"{where}: {why}")
        logger.warning(f"cwi_solver: {where}: {why}")
        return ""

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("cwi_solver answers generation tasks only")
