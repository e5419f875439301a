"""``maze_solver``: a program baseline for the DoD maze requests.

It reads the maze from the input image, solves it by breadth-first search and returns the image
with the path drawn, or declines with an explanation (``<think>… [ABSTAIN]</think>`` + a plain
sentence, no image) when no path exists.  The answer is the unified image-model output,
``json.dumps({"text": ..., "images": [path]})``::

    lmms-eval --model maze_solver --model_args output_dir=out/maze_images --tasks dod_no_hint

``output_dir`` (default: a new temporary folder) receives ``<task>/<doc_id>.png``.
``path_color`` is ``r,g,b`` (default ``220,38,38``).  Non-maze requests get a plain answer with no
image (it is a baseline for mazes only).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from loguru import logger

from lmms_eval.api.model import lmms

from lmms_plugins.models import OnCPU


def _color(value) -> tuple[int, int, int]:
    if isinstance(value, (tuple, list)):
        parts = list(value)
    else:
        parts = [p for p in str(value).replace(";", ",").split(",") if p.strip()]
    if len(parts) != 3:
        raise ValueError(f"maze_solver: path_color must be r,g,b, got {value!r}")
    return tuple(int(p) for p in parts)


class MazeSolver(OnCPU, lmms):
    def __init__(self, output_dir: str = "", path_color: str = "220,38,38", **kwargs) -> None:
        super().__init__()
        self.output_dir = Path(output_dir).expanduser().resolve() if output_dir else Path(tempfile.mkdtemp(prefix="maze_solver_"))
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.path_color = _color(path_color)

    def answer(self, visuals, task: str, doc_id: int) -> str:
        from lmms_plugins.tasks.dod.maze.solve import solve_maze_image

        if not isinstance(visuals, (list, tuple)):
            visuals = [visuals]
        visuals = [v for v in visuals if v is not None]
        if not visuals:
            return json.dumps({"text": "There is no input image, so there is no maze to solve.", "images": []})
        try:
            solution = solve_maze_image(visuals[0], self.path_color)
        except Exception as exc:  # one bad sample must not stop the run
            logger.warning(f"maze_solver: {task} doc {doc_id}: {type(exc).__name__}: {exc}")
            return json.dumps({"text": f"I could not process the image ({type(exc).__name__}).", "images": []})
        if solution.image is None:
            return json.dumps({"text": solution.text, "images": []})
        folder = self.output_dir / task
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / f"{doc_id}.png"
        solution.image.save(out, format="PNG")
        return json.dumps({"text": solution.text, "images": [str(out)]})

    def generate_until(self, requests) -> list[str]:
        answers = []
        for request in requests:
            _context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            try:
                visuals = doc_to_visual(self.task_dict[task][split][doc_id])
            except Exception as exc:  # e.g. a missing input image: answer, do not stop the run
                logger.warning(f"maze_solver: {task} doc {doc_id}: no input image ({type(exc).__name__}: {exc})")
                visuals = []
            answers.append(self.answer(visuals, task, int(doc_id)))
        return answers

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("maze_solver answers generation tasks only")
