"""``abacus_synthetic_editor``: a program editor for the synthetic ABACUS scenes (demo, tests).

    lmms-plugins settings abacus detector=synthetic_test --out synthetic_detector/
    LMMS_PLUGINS_ABACUS_ROOT=data/abacus lmms-eval --model abacus_synthetic_editor --model_args fault=touch \\
        --include_path synthetic_detector/ --tasks abacus

It is not an image-editing model. It finds the flat-coloured objects of a synthetic scene
(tasks/abacus/synthetic.py) with the synthetic test detector, fills them in with OpenCV's
inpainting to recover a background, and performs the requested add / remove / change of K objects
with the synthetic editor, injecting the fault named in ``model_args`` (none, touch, delete,
shift, recolor, plus1, minus1). It reads the operation, count and categories from the task's doc
(as a real editor reads them from the prompt) and answers in the unified output format
``{"text": ..., "images": [path]}``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from lmms_eval.api.model import lmms

from lmms_plugins.models import OnCPU


def scene_from_image(image):
    """A synthetic.Scene recovered from a rendered image (objects from the test detector)."""
    import cv2
    import numpy as np

    from lmms_plugins.tasks.abacus import synthetic as syn
    from lmms_plugins.tasks.abacus.detectors import SyntheticTestBackend

    img = np.ascontiguousarray(image)
    found = SyntheticTestBackend().detect_all(img)
    hole = np.zeros(img.shape[:2], np.uint8)
    objs = []
    for inst in found:
        x0, y0, x1, y1 = inst.box
        objs.append(syn.Obj(inst.category, int(round((x0 + x1 - 1) / 2)), int(round((y0 + y1 - 1) / 2)), int(round((x1 - x0 - 1) / 2))))
        hole |= inst.mask.astype(np.uint8)
    hole = cv2.dilate(hole, np.ones((5, 5), np.uint8))
    background = cv2.inpaint(img, hole, 5, cv2.INPAINT_TELEA) if hole.any() else img.copy()
    return syn.Scene(background, tuple(objs), name="recovered")


class SyntheticEditor(OnCPU, lmms):
    def __init__(self, fault: str = "none", output_dir: str = "", seed: int = 0, **kwargs) -> None:
        super().__init__()
        from lmms_plugins.tasks.abacus.synthetic import FAULTS

        if fault not in FAULTS:
            raise ValueError(f"abacus_synthetic_editor: unknown fault {fault!r}; choose one of {', '.join(sorted(FAULTS))}")
        self.faults = FAULTS[fault]
        self.fault = fault
        self.seed = int(seed)
        self.output_dir = Path(output_dir) if output_dir else Path(tempfile.mkdtemp(prefix="abacus_editor_"))
        self.output_dir.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def operation(doc, task: str, context: str) -> str | None:
        """add/remove/change: from the processed doc, else the task name, else the prompt's verb.

        lmms-eval hands models the raw dataset (before process_docs), so the task name is the
        usual source here.
        """
        if doc.get("abacus_operation"):
            return doc["abacus_operation"]
        for op in ("add", "remove", "change"):
            if task.startswith(f"abacus_{op}"):
                return op
        verb = (context or "").strip().split(" ", 1)[0].lower()
        return {"add": "add", "remove": "remove", "change": "change", "replace": "change"}.get(verb)

    def edit(self, doc, task: str, doc_id: int, context: str = "") -> str:
        import cv2
        import numpy as np

        from lmms_plugins.tasks.abacus import synthetic as syn

        from lmms_plugins.tasks.abacus.hooks import source_image

        image = source_image(doc)
        if image is None:
            return json.dumps({"text": "cannot edit: the sample has no source image", "images": []})
        source = np.asarray(image.convert("RGB"))
        scene = scene_from_image(source)
        op = self.operation(doc, task, context)
        try:
            result = syn.synthetic_edit(
                scene, op, int(doc["count"]), category=doc.get("category"), source_category=doc.get("source_category"),
                target_category=doc.get("target_category"), faults=self.faults, rng=np.random.default_rng([self.seed, doc_id]),
            )
        except (ValueError, KeyError, TypeError) as exc:  # e.g. no room, or a fault with nothing to fault
            return json.dumps({"text": f"cannot edit: {exc}", "images": []})
        path = self.output_dir / task / f"{doc_id:06d}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), result.image[:, :, ::-1])
        return json.dumps({"text": f"{op} x{result.delivered} (fault: {self.fault})", "images": [str(path)]})

    def generate_until(self, requests) -> list[str]:
        answers = []
        for request in requests:
            context, _gen_kwargs, _doc_to_visual, doc_id, task, split = request.args
            answers.append(self.edit(self.task_dict[task][split][doc_id], task, int(doc_id), context))
        return answers

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError("abacus_synthetic_editor only edits images")
