"""The cwi_solver model's pieces that do not need the CLI (the CLI run is in test_e2e_cli.py)."""

from __future__ import annotations

import numpy as np

from lmms_plugins.models import cwi_solver
from lmms_plugins.tasks.cwi.generators import alignment


def test_task_from_metadata_or_name():
    assert cwi_solver.cwi_task_of("my_copy", {"cwi_task": "jigsaw"}) == "jigsaw"
    assert cwi_solver.cwi_task_of("cwi_alignment", {}) == "alignment"
    assert cwi_solver.cwi_task_of("mmmu_val", None) is None


def test_answers_in_answer_tags():
    item = alignment.generate(np.random.default_rng(0), "easy")
    out, problem = cwi_solver.answer_doc("alignment", {}, [item.image, item.image_2], item.prompt)
    assert problem == "" and out.startswith("<answer>") and out.endswith("</answer>")
    assert out == f"<answer>{item.answer}</answer>"


def test_missing_solver_missing_image_and_crash_are_reported_not_raised(monkeypatch):
    item = alignment.generate(np.random.default_rng(0), "easy")
    assert cwi_solver.answer_doc("no_such_task", {}, [item.image], "")[1].startswith("no reference solver")
    assert cwi_solver.answer_doc("alignment", {}, [], item.prompt)[1] == "the doc has no image"

    def boom(*a):
        raise RuntimeError("kaput")

    monkeypatch.setattr(cwi_solver, "load_solver", lambda task: boom)
    out, problem = cwi_solver.answer_doc("alignment", {}, [item.image, item.image_2], item.prompt)
    assert out == "" and "RuntimeError: kaput" in problem
