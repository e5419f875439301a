"""``diffusers_edit``: any diffusers image-editing pipeline as an lmms-eval model.

    pip install "lmms-plugins[diffusers]"
    lmms-eval --model diffusers_edit \\
        --model_args pretrained=timbrooks/instruct-pix2pix,num_inference_steps=20,image_guidance_scale=1.5 \\
        --tasks dod_no_hint,abacus,grade --output_path results/ --log_samples

``pretrained`` is a hub id or a local folder holding a saved pipeline (``model_index.json``); it is
loaded with ``DiffusionPipeline.from_pretrained``, so the pipeline class comes from the folder
(InstructPix2Pix, Qwen-Image-Edit(-Plus), FLUX.1 Kontext, FLUX.2, LongCat-Image-Edit, ...).

The pipeline is loaded at the first request, not when lmms-eval makes the model: lmms-eval makes
the model before it builds the tasks, and a task's checks (a judge that is not there, a missing
dataset) should stop the run in a second, not after minutes of loading. What can be checked
without loading (the folder, ``offload``, ``multi_image``, ``batch_size``, diffusers installed) is
checked at once.

Each request: the input image(s) from the task's ``doc_to_visual``, the prompt from the task's
context, a generator seeded from (``seed``, task, doc id) by a stable hash, and the pipeline
called with only the arguments its ``__call__`` declares. The answer is the package's unified form
``{"text": "", "images": [path]}`` (a diffusion pipeline writes no text). An exception for one
sample is answered ``[GENERATION_FAILED] <error>`` (status ``generation_failed``), never a crash.

model_args (README.md, "diffusers_edit", has the table):
``pretrained``; ``dtype`` (auto|float32|float16|bfloat16); ``device`` (auto|cpu|cuda|cuda:N|mps);
``num_inference_steps``, ``guidance_scale`` (unset: the pipeline's default); ``batch_size``;
``output_dir``; ``seed`` (base seed, default 0); ``max_side`` (downscale inputs whose longer side
is larger, 0 = off); ``multi_image`` (auto|first|list); ``offload`` (none|model|sequential);
and any other name that the pipeline's ``__call__`` declares (``image_guidance_scale``,
``true_cfg_scale``, ``negative_prompt``, ``height``, ``width``, ...), passed through as given.

Multi-process: under ``torchrun --nproc_per_node N $(which lmms-eval) ...`` lmms-eval gives each
rank its share of the documents; each rank loads the pipeline on its own device
(``cuda:$LOCAL_RANK`` with ``device=auto``). A sample's seed depends only on (seed, task, doc id),
so its image does not depend on the number of processes (with ``batch_size=1``: batching
changes float rounding, which can move pixel values slightly).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from lmms_eval.api.model import lmms
from loguru import logger

FAILED = "[GENERATION_FAILED]"
INSTALL_HINT = 'pip install "lmms-plugins[diffusers]"'

# Pipelines whose ``image`` argument takes several reference images for ONE edit (in the
# others, a list of images is a batch of separate edits). Names as in diffusers 0.42.
MULTI_REFERENCE_PIPELINES = frozenset({
    "QwenImageEditPlusPipeline", "Flux2Pipeline", "Flux2KleinPipeline", "JoyImageEditPlusPipeline",
})
# Pipelines checked to edit a batch (a list of prompts with one image per prompt) as separate
# samples; others get one sample per call (batch_size is then ignored, with a warning), since a
# pipeline may size a whole batch by its first image or pair images and prompts its own way.
BATCHED_PIPELINES = frozenset({"StableDiffusionInstructPix2PixPipeline", "StableDiffusionXLInstructPix2PixPipeline"})
# Arguments this wrapper sets itself; a model_arg of the same name would be ambiguous.
_RESERVED_CALL_ARGS = frozenset({"prompt", "image", "images", "generator", "output_type", "return_dict", "num_images_per_prompt"})
_DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16", "half": "float16",
           "bfloat16": "bfloat16", "bf16": "bfloat16"}


def sample_seed(base_seed: int, task: str, doc_id: int) -> int:
    """A seed for one sample: the same in every process and every run (sha256, not ``hash()``,
    which Python salts per process)."""
    digest = hashlib.sha256(f"{int(base_seed)}/{task}/{int(doc_id)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


def resolve_device(device: str | None, local_rank: int) -> str:
    """``auto``: this rank's GPU when there is one (``cuda:LOCAL_RANK``), else Apple's mps, else the CPU.
    A bare ``cuda`` becomes ``cuda:LOCAL_RANK`` so that N processes do not share GPU 0."""
    import torch

    name = (device or "auto").strip().lower()
    if name == "auto":
        if torch.cuda.is_available():
            return f"cuda:{local_rank % max(torch.cuda.device_count(), 1)}"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if name == "cuda":
        return f"cuda:{local_rank}"
    return name


def resolve_dtype(dtype: str | None, device: str):
    """``auto``: bfloat16 on a GPU, float32 elsewhere (half precision is slow or unsupported on CPUs)."""
    import torch

    name = (dtype or "auto").strip().lower()
    if name == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    if name not in _DTYPES:
        raise ValueError(f"diffusers_edit: dtype must be auto or one of {', '.join(sorted(set(_DTYPES)))}; got {dtype!r}")
    return getattr(torch, _DTYPES[name])


def local_folder(pretrained: str) -> Path | None:
    """The local folder ``pretrained`` names, None for a hub id (``owner/name``); a path that does
    not exist is an error here rather than a confusing hub lookup later."""
    path = Path(pretrained).expanduser()
    if path.exists():
        return path
    if re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", pretrained):
        return None
    raise FileNotFoundError(f"diffusers_edit: pretrained folder not found: {path} (nor is it a hub id like owner/name)")


def check_source(pretrained: str, offload: str = "none") -> Path | None:
    """What can be checked without loading: ``pretrained`` given, a local folder that holds a
    pipeline, ``offload`` known, diffusers installed. Returns the local folder (None: a hub id)."""
    import importlib.util

    if not pretrained:
        raise ValueError("diffusers_edit needs model_args pretrained=<hub id or local pipeline folder>")
    if offload not in ("none", "model", "sequential"):
        raise ValueError(f"diffusers_edit: offload must be none, model or sequential; got {offload!r}")
    try:
        found = importlib.util.find_spec("diffusers") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ImportError(f"diffusers_edit needs the diffusers package, which is not installed; install it with: {INSTALL_HINT}")
    folder = local_folder(pretrained)
    if folder is not None and (not folder.is_dir() or not (folder / "model_index.json").is_file()):
        raise ValueError(f"diffusers_edit: {folder} is not a diffusers pipeline folder (no model_index.json); "
                         "save one with pipeline.save_pretrained(folder), or give a hub id")
    return folder


def load_pipeline(pretrained: str, dtype, device: str, offload: str = "none"):
    """``DiffusionPipeline.from_pretrained`` with errors that say what is wrong."""
    folder = check_source(pretrained, offload)
    try:
        from diffusers import DiffusionPipeline
    except ImportError as exc:
        raise ImportError(f"diffusers_edit needs the diffusers package ({exc}); install it with: {INSTALL_HINT}") from exc
    source = str(folder.resolve()) if folder is not None else pretrained
    try:
        pipe = DiffusionPipeline.from_pretrained(source, dtype=dtype)
    except Exception as exc:  # hub id not cached offline, broken folder, a component's missing package...
        raise RuntimeError(f"diffusers_edit: cannot load the pipeline {pretrained!r}: {type(exc).__name__}: {exc}") from exc
    if offload == "model":
        pipe.enable_model_cpu_offload(device=device)
    elif offload == "sequential":
        pipe.enable_sequential_cpu_offload(device=device)
    else:
        pipe.to(device)
    pipe.set_progress_bar_config(disable=True)  # one progress bar for the run, not one per image
    return pipe


def call_parameters(pipe) -> dict[str, inspect.Parameter]:
    """The named parameters of the pipeline's ``__call__`` (``**kwargs`` excluded: what lands there
    is ignored or deprecated, so it is never a place to send settings)."""
    params = inspect.signature(pipe.__call__).parameters
    return {n: p for n, p in params.items() if p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)}


def as_pil_images(visuals) -> list:
    """PIL RGB images from what a task's ``doc_to_visual`` returned (PIL images or paths, possibly nested)."""
    from PIL import Image

    out, stack = [], [visuals]
    while stack:
        item = stack.pop(0)
        if item is None:
            continue
        if isinstance(item, (list, tuple)):
            stack[:0] = list(item)
        elif isinstance(item, Image.Image):
            out.append(item.convert("RGB"))
        elif isinstance(item, (str, Path)):
            with Image.open(item) as im:
                out.append(im.convert("RGB"))
        else:
            raise TypeError(f"doc_to_visual gave a {type(item).__name__}, not an image")
    return out


def limit_side(image, max_side: int):
    """``image`` downscaled (aspect kept) so that its longer side is at most ``max_side``; 0 = unchanged."""
    if not max_side or max(image.size) <= max_side:
        return image
    from PIL import Image

    scale = max_side / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.strip("/").rsplit("/", 1)[-1])[:60] or "pipeline"


class DiffusersEdit(lmms):
    """lmms-eval model: edits each sample's input image with a diffusers pipeline (module docstring)."""

    def __init__(
        self,
        pretrained: str = "",
        dtype: str = "auto",
        device: str | None = "auto",
        num_inference_steps: int | None = None,
        guidance_scale: float | None = None,
        batch_size: int | str = 1,
        output_dir: str = "",
        seed: int = 0,
        max_side: int = 0,
        multi_image: str = "auto",
        offload: str = "none",
        max_batch_size: Any = None,  # lmms-eval's CLI passes it to every model; unused here
        **call_kwargs: Any,
    ) -> None:
        super().__init__()
        # lmms-eval's launchers (torchrun, accelerate) set these; the evaluator also injects them
        self._rank = int(os.environ.get("RANK", 0))
        self._world_size = int(os.environ.get("WORLD_SIZE", 1))
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        if multi_image not in ("auto", "first", "list"):
            raise ValueError(f"diffusers_edit: multi_image must be auto, first or list; got {multi_image!r}")
        try:
            self.batch_size_per_process = max(1, int(batch_size))
        except (TypeError, ValueError):
            raise ValueError(f"diffusers_edit: batch_size must be a positive integer; got {batch_size!r}") from None
        self.device_name = resolve_device(None if device in (None, "") else str(device), local_rank)
        self.dtype = resolve_dtype(dtype, self.device_name)
        self.seed = int(seed)
        self.max_side = int(max_side or 0)
        self.pretrained = str(pretrained)

        # cheap checks now; the pipeline itself (minutes for a large one) loads at the first request,
        # after lmms-eval has built the tasks and run their checks (a judge that is not there stops
        # the run in a second, not after the load)
        check_source(self.pretrained, offload)
        self.offload, self.output_dir_arg, self.requested_multi_image = offload, output_dir, multi_image
        self._given = (num_inference_steps, guidance_scale, call_kwargs)
        self.pipe = None
        self._load_lock = threading.Lock()
        logger.info(f"diffusers_edit: {self.pretrained} will be loaded on {self.device_name} ({self.dtype}) at the first request")

    def load(self) -> None:
        """Load the pipeline and check the settings against its ``__call__`` (once; thread-safe)."""
        with self._load_lock:
            if self.pipe is not None:
                return
            pipe = load_pipeline(self.pretrained, self.dtype, self.device_name, self.offload)
            self.pipeline_class = type(pipe).__name__
            self.params = call_parameters(pipe)
            self.image_arg = "image" if "image" in self.params else ("images" if "images" in self.params else None)
            if self.image_arg is None:
                raise ValueError(f"diffusers_edit: {self.pipeline_class} takes no input image (its __call__ has no 'image' "
                                 "argument): it is not an image-editing pipeline")
            multi_image = self.requested_multi_image
            if multi_image == "auto":
                multi_image = "list" if (self.pipeline_class in MULTI_REFERENCE_PIPELINES or self.image_arg == "images") else "first"
            self.multi_image = multi_image
            if self.batch_size_per_process > 1 and (multi_image == "list" or self.pipeline_class not in BATCHED_PIPELINES):
                logger.warning(f"diffusers_edit: batch_size={self.batch_size_per_process} ignored: batched edits are only "
                               f"checked for {', '.join(sorted(BATCHED_PIPELINES))}; {self.pipeline_class} edits one sample per call")
                self.batch_size_per_process = 1
            self.call_kwargs = self._call_kwargs(*self._given)

            settings = json.dumps({"pretrained": self.pretrained, "dtype": str(self.dtype), "seed": self.seed, "max_side": self.max_side,
                                   "multi_image": self.multi_image, "call": self.call_kwargs}, sort_keys=True, default=str)
            # default folder: one per (model, settings), the same in every rank; a rerun overwrites its own images
            default_dir = Path("diffusers_edit_outputs") / f"{_slug(self.pretrained)}-{hashlib.sha256(settings.encode()).hexdigest()[:10]}"
            self.output_dir = Path(self.output_dir_arg).expanduser() if self.output_dir_arg else default_dir
            self.output_dir = self.output_dir.resolve()
            self.output_dir.mkdir(parents=True, exist_ok=True)
            self._warned_multi = set()
            self.pipe = pipe
            logger.info(f"diffusers_edit: {self.pipeline_class} from {self.pretrained} on {self.device_name} ({self.dtype}); "
                        f"call args {self.call_kwargs}; multi_image={self.multi_image}; images -> {self.output_dir}")

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None):
        """As lmms-eval's, except that a model_arg wins over the CLI's value of the same name: the CLI
        always passes ``batch_size`` (default 1) and ``device``, and lmms-eval's own merge raises
        "multiple values for keyword argument" when model_args names them too."""
        from lmms_eval import utils

        args = dict(arg_string) if isinstance(arg_string, dict) else utils.simple_parse_args_string(arg_string or "")
        extra = {k: v for k, v in (additional_config or {}).items() if v is not None and k not in args}
        return cls(**args, **extra)

    def _call_kwargs(self, num_inference_steps, guidance_scale, extra: dict) -> dict:
        """The settings passed to every pipeline call; names the pipeline does not declare are errors
        (a typo in model_args must not be silently ignored), except the two generic ones, which are
        dropped with a warning when a pipeline has no such knob."""
        out = {}
        for name, value in (("num_inference_steps", num_inference_steps), ("guidance_scale", guidance_scale)):
            if value is None or value == "":
                continue
            if name in self.params:
                out[name] = value
            else:
                logger.warning(f"diffusers_edit: {self.pipeline_class} has no {name!r} argument; ignored")
        bad = sorted(k for k in extra if k in _RESERVED_CALL_ARGS or k not in self.params)
        if bad:
            accepted = sorted(set(self.params) - _RESERVED_CALL_ARGS - {"self"})
            raise ValueError(f"diffusers_edit: unknown model_args {bad} for {self.pipeline_class}; it accepts "
                             f"{', '.join(accepted)} (plus this wrapper's own: pretrained, dtype, device, batch_size, "
                             "output_dir, seed, max_side, multi_image, offload)")
        out.update(extra)
        return out

    # --- lmms-eval interface ------------------------------------------------------------------

    @property
    def device(self):
        # the evaluator gathers per-rank request counts as tensors on this device
        import torch

        return torch.device(self.device_name)

    @property
    def batch_size(self) -> int:
        return self.batch_size_per_process

    def loglikelihood(self, requests):
        raise NotImplementedError("diffusers_edit only edits images")

    def generate_until_multi_round(self, requests) -> list[str]:
        return self.generate_until(requests)

    def generate_until(self, requests) -> list[str]:
        from tqdm import tqdm

        self.load()
        answers: list[str | None] = [None] * len(requests)
        prepared = []  # (index, prompt, images, task, doc_id)
        for index, request in enumerate(requests):
            context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            try:
                images = as_pil_images(doc_to_visual(self.task_dict[task][split][doc_id]))
                if not images:
                    raise ValueError("the sample has no input image (doc_to_visual returned none)")
                images = [limit_side(im, self.max_side) for im in images]
                prepared.append((index, str(context or ""), images, task, int(doc_id)))
            except Exception as exc:  # one bad sample must not stop the run
                answers[index] = self._failure(task, doc_id, exc)
        progress = tqdm(total=len(requests), desc="diffusers_edit", disable=self.rank != 0)
        progress.update(len(requests) - len(prepared))
        for batch in self._batches(prepared):
            for index, answer in self._run_batch(batch):
                answers[index] = answer
            progress.update(len(batch))
        progress.close()
        failed = sum(1 for a in answers if a.startswith(FAILED))
        if failed:
            logger.warning(f"diffusers_edit: {failed} of {len(requests)} samples failed on rank {self.rank} (answered {FAILED})")
        return answers

    # --- internals ---------------------------------------------------------------------------

    def _batches(self, prepared: list) -> list[list]:
        """Batches of samples that one pipeline call can take: same input size (a pipeline resizes a
        batch to its first image's size), one image each (batching is off in multi_image=list)."""
        if self.batch_size_per_process == 1:
            return [[p] for p in prepared]
        batches, open_by_size = [], {}
        for item in prepared:
            key = item[2][0].size
            current = open_by_size.setdefault(key, [])
            current.append(item)
            if len(current) == self.batch_size_per_process:
                batches.append(current)
                open_by_size[key] = []
        batches += [b for b in open_by_size.values() if b]
        return batches

    def _run_batch(self, batch: list) -> list[tuple[int, str]]:
        try:
            outputs = self._generate(batch)
            if len(outputs) != len(batch):
                raise RuntimeError(f"the pipeline returned {len(outputs)} images for {len(batch)} prompts")
        except Exception as exc:
            if len(batch) > 1:  # find which sample failed: retry one by one
                return [pair for item in batch for pair in self._run_batch([item])]
            index, _prompt, _images, task, doc_id = batch[0]
            return [(index, self._failure(task, doc_id, exc))]
        done = []
        for (index, _prompt, _images, task, doc_id), image in zip(batch, outputs):
            try:
                done.append((index, json.dumps({"text": "", "images": [self._save(image, task, doc_id)]})))
            except Exception as exc:
                done.append((index, self._failure(task, doc_id, exc)))
        return done

    def _image_argument(self, images: list, task: str):
        if self.multi_image == "list":
            return images
        if len(images) > 1 and task not in self._warned_multi:
            self._warned_multi.add(task)
            logger.warning(f"diffusers_edit: {task} gives {len(images)} input images; {self.pipeline_class} edits one, "
                           "so the first is used (multi_image=list passes them all)")
        return images[0]

    def _generate(self, batch: list) -> list:
        import torch

        # CPU generators: the same starting noise on every device; one per sample, so a sample's
        # noise does not depend on the batch it is in
        generators = [torch.Generator(device="cpu").manual_seed(sample_seed(self.seed, task, doc_id)) for _, _, _, task, doc_id in batch]
        kwargs = dict(self.call_kwargs)
        if len(batch) == 1:
            _, prompt, images, task, _ = batch[0]
            kwargs.update(prompt=prompt, generator=generators[0])
            kwargs[self.image_arg] = self._image_argument(images, task)
        else:
            kwargs.update(prompt=[b[1] for b in batch], generator=generators)
            kwargs[self.image_arg] = [self._image_argument(b[2], b[3]) for b in batch]
        for name, value in (("num_images_per_prompt", 1), ("output_type", "pil")):
            if name in self.params:
                kwargs[name] = value
        with torch.inference_mode():
            result = self.pipe(**kwargs)
        images = getattr(result, "images", None)
        if images is None and isinstance(result, (tuple, list)):
            images = result[0]
        if images is None:
            raise RuntimeError(f"{self.pipeline_class} returned no images ({type(result).__name__})")
        return list(images)

    def _save(self, image, task: str, doc_id: int) -> str:
        """``<output_dir>/<task>/<doc_id>.png``, written atomically (a reader never sees half a file)."""
        from PIL import Image

        if not isinstance(image, Image.Image):
            import numpy as np

            array = np.asarray(image)
            image = Image.fromarray((array.clip(0, 1) * 255).round().astype("uint8") if array.dtype.kind == "f" else array)
        folder = self.output_dir / _slug(task)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{int(doc_id):06d}.png"
        tmp = folder / f".{path.name}.{os.getpid()}.tmp"
        image.convert("RGB").save(tmp, format="PNG")
        os.replace(tmp, path)
        return str(path)

    def _failure(self, task: str, doc_id, exc: BaseException) -> str:
        message = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
        logger.warning(f"diffusers_edit: {task} doc {doc_id} failed: {message}")
        return f"{FAILED} {message}"
