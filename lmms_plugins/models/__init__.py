"""The lmms-eval models this package adds, by id.

Class paths are strings: lmms-eval imports a model's module only when it is used, so
registering them costs nothing at start-up.
"""

from __future__ import annotations

import importlib.util

MODELS = {
    # answers from precomputed outputs (JSONL and/or a folder of images)
    "replay": "lmms_plugins.models.replay.Replay",
    # program baselines
    "cwi_solver": "lmms_plugins.models.cwi_solver.CwiSolver",
    "cwi_coder": "lmms_plugins.models.cwi_coder.CwiCoder",  # writes CwI analysis code for the cwi_code tasks
    "maze_solver": "lmms_plugins.models.maze_solver.MazeSolver",
    "abacus_synthetic_editor": "lmms_plugins.models.abacus_editor.SyntheticEditor",
    # image editors behind an OpenAI-compatible Images API (POST /images/edits)
    "openai_image_edit": "lmms_plugins.models.openai_image_edit.OpenAIImageEdit",
    # lmms-eval 0.7.3's bagel wrapper under an id that loads: its own ids `bagel` and `bagel_umm`
    # name a class / module that do not exist (README, "Image editors")
    "lmms_eval_bagel": "lmms_eval.models.simple.bagel.BagelUMM",
    # any diffusers image-editing pipeline (extra [diffusers])
    "diffusers_edit": "lmms_plugins.models.diffusers_edit.DiffusersEdit",
}


def available() -> dict[str, str]:
    """Models whose module is installed (a wrapper still in development is skipped)."""
    out = {}
    for model_id, class_path in MODELS.items():
        module = class_path.rsplit(".", 1)[0]
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package that is missing (or stubbed)
            found = False
        if found:
            out[model_id] = class_path
    return out


def manifests() -> list:
    from lmms_eval.models.registry_v2 import ModelManifest

    return [ModelManifest(model_id=m, simple_class_path=p) for m, p in available().items()]


class OnCPU:
    """Mixin for this package's program models: lmms-eval's multi-process path (torchrun) gathers
    per-rank counts as tensors on ``lm.device``, and these models run on the CPU."""

    @property
    def device(self):
        import torch

        return torch.device("cpu")
