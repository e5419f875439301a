"""Write a local copy of CwI-Bench in the hub layout, from the offline generators.

    lmms-plugins make-data cwi --tasks alignment,jigsaw --split test --n 100 --seed 0 --out DIR

Layout (what ``datasets.load_dataset(DIR, "<task>")`` and the cwi tasks read, exactly like
``ytz009/image_pot_bench``)::

    DIR/README.md                                  YAML header with one `configs:` entry per task
    DIR/<task>/<split>-00000-of-00001.parquet      columns id, image, image_2, prompt, answer,
                                                   difficulty, meta (JSON string)

Tiers are balanced in blocks (100 -> 25 each, 50 -> 13/13/12/12). Item ``i`` of a task and
split is drawn from its own random stream (seed, task, split, i), so the same arguments give
the same bytes, and adding tasks does not change the others.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import sys
import time
import zlib
from pathlib import Path

from .catalog import FAMILIES, TASKS, TIERS

SPLITS = ("train", "validation", "test")
COLUMNS = ("id", "image", "image_2", "prompt", "answer", "difficulty", "meta")
GENERATOR_PACKAGE = "lmms_plugins.tasks.cwi.generators"


class MissingGenerator(LookupError):
    pass


def tier_counts(n: int) -> list[int]:
    """Items per tier, in TIERS order (balanced, the first tiers take the remainder)."""
    return [n // len(TIERS) + (1 if i < n % len(TIERS) else 0) for i in range(len(TIERS))]


def tier_of(index: int, n: int) -> str:
    counts = tier_counts(n)
    for tier, c in zip(TIERS, counts):
        if index < c:
            return tier
        index -= c
    raise IndexError(index)


def item_rng(seed: int, task: str, split: str, index: int):
    import numpy as np

    return np.random.default_rng([int(seed), zlib.crc32(task.encode()), SPLITS.index(split), int(index)])


def has_generator(task: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(f"{GENERATOR_PACKAGE}.{task}") is not None


def available_tasks() -> list[str]:
    return [t for t in TASKS if has_generator(t)]


def load_generator(task: str):
    if task not in TASKS:
        raise MissingGenerator(f"{task!r} is not a CwI-Bench task; tasks: {', '.join(TASKS)}")
    if not has_generator(task):
        raise MissingGenerator(
            f"no generator for CwI task {task!r}: expected module {GENERATOR_PACKAGE}.{task} "
            f"with generate(rng, tier); tasks with a generator: {', '.join(available_tasks()) or 'none'}"
        )
    module = importlib.import_module(f"{GENERATOR_PACKAGE}.{task}")
    if not callable(getattr(module, "generate", None)):
        raise MissingGenerator(f"{module.__name__} has no generate(rng, tier) function")
    return module


def png_bytes(image) -> bytes:
    buf = io.BytesIO()
    # fixed settings, no timestamps: same pixels -> same bytes
    image.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


def generate_item(task: str, split: str, index: int, n: int, seed: int, module=None) -> dict:
    """One row of the dataset (images as PNG bytes), validated."""
    from .task_rules import rule_for_task
    from .rules import read_value

    module = module or load_generator(task)
    tier = tier_of(index, n)
    item = module.generate(item_rng(seed, task, split, index), tier)
    _check_item(task, item)
    _, why, _ = read_value(rule_for_task(task), item.answer, require_span=False)
    if why is not None:
        raise ValueError(f"{task} generator gave gold {item.answer!r} that its own rule cannot read: {why}")
    return {
        "id": f"{task}_{split}_{index:04d}",
        "image": {"bytes": png_bytes(item.image), "path": None},
        "image_2": None if item.image_2 is None else {"bytes": png_bytes(item.image_2), "path": None},
        "prompt": item.prompt,
        "answer": item.answer,
        "difficulty": tier,
        "meta": json.dumps(item.meta, sort_keys=True, separators=(",", ":")),
    }


def _check_item(task: str, item) -> None:
    from PIL import Image

    if not isinstance(getattr(item, "image", None), Image.Image):
        raise TypeError(f"{task} generator returned no PIL image")
    if item.image_2 is not None and not isinstance(item.image_2, Image.Image):
        raise TypeError(f"{task} generator returned image_2 that is not a PIL image")
    if not isinstance(item.prompt, str) or "<answer>" not in item.prompt:
        raise ValueError(f"{task} generator prompt must be text that asks for <answer>…</answer>")
    if not isinstance(item.answer, str) or not item.answer.strip():
        raise ValueError(f"{task} generator returned an empty gold answer")


def features():
    from datasets import Features, Image, Value

    return Features(
        {
            "id": Value("string"),
            "image": Image(),
            "image_2": Image(),
            "prompt": Value("string"),
            "answer": Value("string"),
            "difficulty": Value("string"),
            "meta": Value("string"),
        }
    )


def parquet_path(out: Path, task: str, split: str) -> Path:
    return out / task / f"{split}-00000-of-00001.parquet"


def write_split(out: Path, task: str, split: str, n: int, seed: int, *, log=print) -> Path:
    from datasets import Dataset

    module = load_generator(task)
    rows = {c: [] for c in COLUMNS}
    t0 = time.perf_counter()
    step = max(1, n // 4)
    for i in range(n):
        row = generate_item(task, split, i, n, seed, module)
        for c in COLUMNS:
            rows[c].append(row[c])
        if (i + 1) % step == 0 or i + 1 == n:
            log(f"  {task}/{split}: {i + 1}/{n} items ({time.perf_counter() - t0:.1f} s)")
    path = parquet_path(out, task, split)
    path.parent.mkdir(parents=True, exist_ok=True)
    ds = Dataset.from_dict(rows, features=features())
    tmp = path.with_suffix(".parquet.tmp")
    ds.to_parquet(str(tmp))
    tmp.replace(path)
    return path


def write_readme(out: Path) -> Path:
    """README.md whose `configs:` header lists every <task>/<split> parquet present under ``out``."""
    entries = []
    for task in sorted(p.name for p in out.iterdir() if p.is_dir()):
        splits = [s for s in SPLITS if parquet_path(out, task, s).is_file()]
        if not splits:
            continue
        files = "\n".join(f"  - split: {s}\n    path: {task}/{s}-00000-of-00001.parquet" for s in splits)
        entries.append(f"- config_name: {task}\n  data_files:\n{files}")
    text = (
        "---\nconfigs:\n" + "\n".join(entries) + "\n---\n\n"
        "# CwI-Bench (local copy)\n\n"
        "Generated offline by `lmms-plugins make-data cwi` (lmms_plugins.tasks.cwi.generate) in the\n"
        "layout of `ytz009/image_pot_bench`. Source photos: scikit-image's bundled CC0 /\n"
        "public-domain photos (see lmms_plugins.tasks.cwi.generators.photos.PHOTO_LICENCES) and procedural images.\n"
    )
    path = out / "README.md"
    path.write_text(text, encoding="utf-8")
    return path


def resolve_tasks(spec: str | None) -> list[str]:
    """``all`` (every task; each must have a generator), family names, or task names, comma/space separated."""
    if not spec or spec.strip() == "all":
        missing = [t for t in TASKS if not has_generator(t)]
        if missing:  # "all" means all 30: a silent subset would score a different benchmark
            raise MissingGenerator(f"'all' asked, but these tasks have no generator: {', '.join(missing)}")
        return list(TASKS)
    out: list[str] = []
    for word in spec.replace(",", " ").split():
        word = word.removeprefix("cwi_")
        names = list(FAMILIES[word]) if word in FAMILIES else [word]
        for t in names:
            if t not in out:
                out.append(t)
    for t in out:
        load_generator(t)  # fail before writing anything
    return out


def parse_args(argv: list[str]):
    p = argparse.ArgumentParser(prog="lmms-plugins make-data cwi", description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="all", help="'all', family names or task names (comma separated)")
    p.add_argument("--split", default="test", choices=SPLITS)
    p.add_argument("--n", type=int, default=100, help="items per task (balanced over the 4 tiers)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, type=Path, help="output folder (hub layout)")
    p.add_argument("--overwrite", action="store_true", help="replace parquet files that already exist")
    return p.parse_args(argv)


STALE_CACHE_NOTE = (
    "lmms-eval runs of this package key the `datasets` cache of a local copy by its content, so they "
    "see the new items; a plain `datasets.load_dataset(folder)` caches by folder name and config and "
    "may keep serving the old ones (write to a new folder, or set HF_DATASETS_CACHE to a fresh one)."
)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.n < 1:
        print("error: --n must be at least 1", file=sys.stderr)
        return 2
    try:
        tasks = resolve_tasks(args.tasks)
    except MissingGenerator as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    existing = [str(parquet_path(args.out, t, args.split)) for t in tasks if parquet_path(args.out, t, args.split).exists()]
    if existing and not args.overwrite:
        print(f"error: {len(existing)} file(s) already exist (e.g. {existing[0]}); pass --overwrite to replace "
              f"them. Note: {STALE_CACHE_NOTE}", file=sys.stderr)
        return 2
    if existing:
        print(f"warning: replacing {len(existing)} existing file(s). {STALE_CACHE_NOTE}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"cwi make-data: {len(tasks)} task(s), split {args.split}, n={args.n}, seed={args.seed} -> {args.out}")
    t0 = time.perf_counter()
    for task in tasks:
        write_split(args.out, task, args.split, args.n, args.seed)
    write_readme(args.out)
    print(f"done in {time.perf_counter() - t0:.1f} s; load with LMMS_PLUGINS_CWI_ROOT={args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
