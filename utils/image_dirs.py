"""Where a model's output images may be read from.

A model output names image paths; a broken or hostile one can name ``/etc/passwd`` or a private
photo (which a judge would then receive). So an output image is read only when its real path
(symlinks resolved) lies under one of these folders:

* ``LMMS_PLUGINS_IMAGE_DIRS``: extra folders, separated by ``os.pathsep`` (``:`` on Linux);
* the default output folders of the image wrappers, under the current folder: ``./logs``
  (lmms-eval 0.7.3's wrappers: ``./logs/bagel_images``, ``./logs/<model>_persistent_folder``, ...),
  ``./qwen_edit_generated_images`` (lmms-eval's ``qwen_image_edit``) and
  ``./diffusers_edit_outputs`` (this package's ``diffusers_edit``);
* the system temporary folder (``tempfile.gettempdir()``): this package's wrappers write to a
  new temporary folder when they get no ``output_dir``;
* the folders on lmms-eval's command line: ``--output_path`` and every ``--model_args`` value
  whose key names a folder or file (``output_dir``, ``output_image_dir``,
  ``response_persistent_folder``, replay's ``images`` and ``outputs``; a file stands for its folder);
* this package's local data roots (``LMMS_PLUGINS_DATA_ROOT``, ``LMMS_PLUGINS_<BENCH>_ROOT``):
  a model may hand back its input image.

The filesystem root is never implied (only ``LMMS_PLUGINS_IMAGE_DIRS`` may name it). A refused
path is never opened (only its real path is computed); the sample gets ``missing_image`` with a
reason that names the variable to set.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ENV_IMAGE_DIRS = "LMMS_PLUGINS_IMAGE_DIRS"
#: Default output folders of image wrappers, relative to the current folder (see the module doc).
WRAPPER_DEFAULT_DIRS = ("logs", "qwen_edit_generated_images", "diffusers_edit_outputs")
_PATH_WORDS = ("dir", "folder", "path", "output", "image", "save")


def _model_args_paths(spec: str) -> list[str]:
    out = []
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        if sep and value.strip() and any(w in key.strip().lower() for w in _PATH_WORDS):
            out.append(value.strip())
    return out


def command_line_paths(argv: list[str] | None = None) -> list[str]:
    """``--output_path`` and the path-like ``--model_args`` values of an lmms-eval command line."""
    argv = list(sys.argv if argv is None else argv)
    found = []
    for i, arg in enumerate(argv):
        for flag in ("--output_path", "--model_args"):
            value = None
            if arg == flag and i + 1 < len(argv):
                value = argv[i + 1]
            elif arg.startswith(flag + "="):
                value = arg[len(flag) + 1:]
            if value is None:
                continue
            found += [value] if flag == "--output_path" else _model_args_paths(value)
    return found


def _data_roots() -> list[str]:
    return [v for k, v in os.environ.items() if k.startswith("LMMS_PLUGINS_") and k.endswith("_ROOT") and v.strip()]


def _folder(path: str) -> Path | None:
    try:
        p = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return p.parent if p.is_file() else p


def allowed_image_dirs() -> tuple[Path, ...]:
    """The folders output images may come from, resolved, without duplicates (see the module doc)."""
    explicit = [d for d in os.environ.get(ENV_IMAGE_DIRS, "").split(os.pathsep) if d.strip()]
    cwd = os.getcwd()
    implied = [*(os.path.join(cwd, d) for d in WRAPPER_DEFAULT_DIRS), tempfile.gettempdir(),
               *command_line_paths(), *_data_roots()]
    dirs: list[Path] = []
    for raw in explicit + implied:
        folder = _folder(raw)
        if folder is None or folder in dirs:
            continue
        if folder == Path(folder.anchor) and raw not in explicit:
            continue  # "/" would allow everything: only an explicit setting may say so
        dirs.append(folder)
    return tuple(dirs)


def is_allowed(path: str, dirs: tuple[Path, ...] | None = None) -> bool:
    """Whether ``path`` (symlinks resolved) lies under one of ``dirs`` (default: :func:`allowed_image_dirs`)."""
    try:
        real = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    for folder in allowed_image_dirs() if dirs is None else dirs:
        if real == folder or folder in real.parents:
            return True
    return False


def refusal_reason(path: str, dirs: tuple[Path, ...] | None = None) -> str:
    dirs = allowed_image_dirs() if dirs is None else dirs
    shown = ", ".join(str(d) for d in dirs[:4]) + (" ..." if len(dirs) > 4 else "")
    return (f"image path is outside the allowed image folders (not read): {path}; allowed: {shown}; "
            f"add its folder to {ENV_IMAGE_DIRS}")
