"""Synthetic ABACUS scenes with known truth, a synthetic editor with injectable faults, and a
writer of a local dataset in the official hub layout.

Scenes: a real photo that ships with scikit-image under a free licence (BACKGROUNDS) with flat-
coloured objects of a few COCO categories pasted at known places. The colours are saturated
values no pixel of these photos comes near (checked by a test), so the test detector backend
(detectors.SyntheticTestBackend) finds exactly the pasted objects.

Editor: performs add / remove / change of K objects perfectly (removal restores the photo's own
pixels), and injects on request the faults the factors must catch:
``touch`` (redraw n untouched instances 1.6x larger in place), ``delete`` (remove n instances it
should have left), ``shift`` (move the whole picture by (dx, dy) px: a camera drift),
``recolor`` (a warm colour cast on the background), ``count_delta`` (deliver K + delta).

``main(argv)`` (``lmms-plugins make-data abacus``) writes README.md with ``configs:`` add /
remove / change and splits easy / medium / hard as parquet with the card's columns; optionally
the synthetic editor's outputs and a ``replay`` JSONL for them.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path


@dataclass(frozen=True)
class CategorySpec:
    shape: str
    color: tuple[int, int, int]


CATEGORIES = {
    "sports ball": CategorySpec("disc", (255, 0, 255)),
    "kite": CategorySpec("diamond", (0, 255, 255)),
    "tv": CategorySpec("square", (0, 0, 255)),
    "umbrella": CategorySpec("triangle", (0, 255, 0)),
}

# name -> (scikit-image loader, licence as stated in skimage.data's docstrings)
BACKGROUNDS = {
    "coffee": ("coffee", "CC0, photographer Rachel Michetti (scikit-image data)"),
    "chelsea": ("chelsea", "CC0, photographer Stefan van der Walt (scikit-image data)"),
    "astronaut": ("astronaut", "public domain, NASA (scikit-image data)"),
    "rocket": ("rocket", "public domain, SpaceX (scikit-image data)"),
}

TOUCH_SCALE = 1.6
RECOLOR_GAIN = (1.25, 1.0, 0.8)


@dataclass(frozen=True)
class Obj:
    category: str
    cx: int
    cy: int
    r: int  # half-size in px


@dataclass(frozen=True)
class Scene:
    background: object = field(repr=False)  # (H, W, 3) uint8 photo
    objects: tuple[Obj, ...]
    name: str = ""

    @property
    def image(self):
        return render(self.background, self.objects)

    def count(self, category: str) -> int:
        return sum(o.category == category for o in self.objects)


@dataclass(frozen=True)
class Faults:
    touch: int = 0
    delete: int = 0
    shift: tuple[int, int] = (0, 0)
    recolor: bool = False
    count_delta: int = 0


@dataclass(frozen=True)
class EditTruth:
    image: object = field(repr=False)
    objects: tuple[Obj, ...]  # objects in the edit (before any camera shift)
    delivered: int
    touched: tuple[Obj, ...]
    deleted: tuple[Obj, ...]


def load_background(name: str, size_wh: tuple[int, int]):
    """A bundled photo, centre-cropped to the aspect of ``size_wh`` and resized to it."""
    import cv2
    from skimage import data

    img = getattr(data, BACKGROUNDS[name][0])()
    h, w = img.shape[:2]
    tw, th = size_wh
    if w * th > h * tw:  # too wide: crop the sides
        cw = round(h * tw / th)
        img = img[:, (w - cw) // 2 : (w - cw) // 2 + cw]
    else:
        ch = round(w * th / tw)
        img = img[(h - ch) // 2 : (h - ch) // 2 + ch]
    return cv2.resize(img, (tw, th), interpolation=cv2.INTER_AREA).copy()


def _polygon(shape: str, cx: int, cy: int, r: int):
    import numpy as np

    if shape == "diamond":
        pts = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    elif shape == "square":
        pts = [(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)]
    elif shape == "triangle":
        pts = [(cx, cy - r), (cx + r, cy + r), (cx - r, cy + r)]
    else:
        raise ValueError(shape)
    return np.array(pts, dtype=np.int32)


def draw(img, obj: Obj) -> None:
    import cv2

    spec = CATEGORIES[obj.category]
    if spec.shape == "disc":
        cv2.circle(img, (obj.cx, obj.cy), obj.r, spec.color, thickness=-1, lineType=cv2.LINE_8)
    else:
        cv2.fillPoly(img, [_polygon(spec.shape, obj.cx, obj.cy, obj.r)], spec.color, lineType=cv2.LINE_8)


def render(background, objects, *, recolor: bool = False):
    import numpy as np

    img = background.copy()
    if recolor:
        img = np.clip(img.astype(np.float32) * np.array(RECOLOR_GAIN, np.float32), 0, 255).astype(np.uint8)
    for obj in objects:
        draw(img, obj)
    return img


def _free_spot(rng, size_wh, r: int, taken: list[Obj], tries: int = 400) -> tuple[int, int] | None:
    w, h = size_wh
    margin = math.ceil(r * TOUCH_SCALE) + 2
    for _ in range(tries):
        cx, cy = int(rng.integers(margin, w - margin)), int(rng.integers(margin, h - margin))
        # spacing leaves room for a touched (1.6x) instance next to a neighbour, plus a dilation
        if all(math.hypot(cx - o.cx, cy - o.cy) > (r + o.r) * TOUCH_SCALE + 10 for o in taken):
            return cx, cy
    return None


def object_radius(size_wh) -> int:
    return max(6, round(0.06 * min(size_wh)))


def make_scene(rng, size_wh=(512, 384), background: str = "coffee", counts: dict | None = None) -> Scene:
    """A photo with ``counts`` ({category: n}) objects at random, well separated places."""
    bg = load_background(background, size_wh)
    objs: list[Obj] = []
    base = object_radius(size_wh)
    for cat, n in (counts or {"sports ball": 2, "kite": 1}).items():
        for _ in range(n):
            r = int(round(base * rng.uniform(0.85, 1.15)))
            spot = _free_spot(rng, size_wh, r, objs)
            if spot is None:
                raise ValueError(f"no room for {n} x {cat} on a {size_wh} image")
            objs.append(Obj(cat, spot[0], spot[1], r))
    return Scene(bg, tuple(objs), name=background)


def synthetic_edit(scene: Scene, operation: str, count: int, *, category=None, source_category=None, target_category=None, faults: Faults = Faults(), rng=None) -> EditTruth:
    """The edit a perfect editor would make, with ``faults`` injected; the truth alongside."""
    import cv2
    import numpy as np

    rng = rng if rng is not None else np.random.default_rng(0)
    objs = list(scene.objects)
    k = count + faults.count_delta
    h, w = scene.background.shape[:2]
    cat = category if operation != "change" else source_category
    protected: list[int] = []  # instances the instruction leaves alone (targets for faults)
    if operation == "add":
        r0 = object_radius((w, h))
        for _ in range(k):
            r = int(round(r0 * rng.uniform(0.85, 1.15)))
            spot = _free_spot(rng, (w, h), r, objs)
            if spot is None:
                raise ValueError(f"no room to add {k} x {category}")
            objs.append(Obj(category, spot[0], spot[1], r))
        protected = [i for i, o in enumerate(scene.objects) if o.category == category]
    elif operation in ("remove", "change"):
        idx = [i for i, o in enumerate(objs) if o.category == cat]
        if k > len(idx):
            raise ValueError(f"cannot {operation} {k} of {len(idx)} {cat}")
        chosen, protected = idx[:k], idx[k:]
        if operation == "remove":
            objs = [o for i, o in enumerate(objs) if i not in chosen]
            protected = [objs.index(scene.objects[i]) for i in protected]
        else:
            objs = [replace(o, category=target_category) if i in chosen else o for i, o in enumerate(objs)]
    else:
        raise ValueError(f"unknown operation {operation!r}")
    if faults.touch + faults.delete > len(protected):
        raise ValueError(f"only {len(protected)} instances to fault")
    touched = [objs[i] for i in protected[: faults.touch]]
    deleted = [objs[i] for i in protected[faults.touch : faults.touch + faults.delete]]
    for o in touched:
        objs[objs.index(o)] = replace(o, r=int(round(o.r * TOUCH_SCALE)))
    objs = [o for o in objs if o not in deleted]
    img = render(scene.background, objs, recolor=faults.recolor)
    dx, dy = faults.shift
    if dx or dy:
        img = cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT)
    return EditTruth(img, tuple(objs), k, tuple(touched), tuple(deleted))


# ---------------------------------------------------------------- local dataset (hub layout)

TIERS = {  # tier -> (pre-existing objects of the target category, K range, other objects)
    "easy": ((1, 2), (1, 2), 1),
    "medium": ((2, 3), (2, 3), 2),
    "hard": ((3, 4), (3, 4), 3),
}
SPLIT_SIZE = (448, 320)


def plural(category: str, n: int) -> str:
    if n == 1:
        return category
    return category + ("es" if category.endswith(("s", "sh", "ch", "x")) else "s")


def instruction(operation: str, count: int, category=None, source_category=None, target_category=None) -> str:
    if operation == "add":
        return f"Add {count} {plural(category, count)} to the scene."
    if operation == "remove":
        return f"Remove {count} {plural(category, count)} from the scene."
    return f"Change {count} {plural(source_category, count)} into {plural(target_category, count)}."


def make_sample(rng, operation: str, tier: str, index: int):
    """(row for the dataset, the scene) for one synthetic sample."""
    cats = sorted(CATEGORIES)
    pre_range, k_range, others = TIERS[tier]
    target = cats[int(rng.integers(len(cats)))]
    other = [c for c in cats if c != target]
    k = int(rng.integers(k_range[0], k_range[1] + 1))
    n_pre = int(rng.integers(pre_range[0], pre_range[1] + 1))
    if operation != "add":
        n_pre = max(n_pre, k + 1)  # leave at least one the instruction does not touch
    counts = {target: n_pre}
    for j in range(others):
        c = other[j % len(other)]
        counts[c] = counts.get(c, 0) + 1
    bg = sorted(BACKGROUNDS)[index % len(BACKGROUNDS)]
    scene = make_scene(rng, SPLIT_SIZE, bg, counts)
    row = {"image_id": 900000 + index, "coco_split": "synthetic", "count": k}
    if operation == "change":
        tgt = other[int(rng.integers(len(other)))]
        row.update(source_category=target, target_category=tgt, prompt=instruction("change", k, source_category=target, target_category=tgt))
    else:
        row.update(category=target, prompt=instruction(operation, k, category=target))
    return row, scene


def _png_bytes(img) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".png", img[:, :, ::-1])
    if not ok:
        raise RuntimeError("PNG encoding failed")
    return buf.tobytes()


def readme_text(n: int) -> str:
    lines = ["---", "configs:"]
    for op in ("add", "remove", "change"):
        lines += [f"- config_name: {op}", "  data_files:"]
        for tier in TIERS:
            lines += [f"  - split: {tier}", f"    path: {op}/{tier}-*.parquet"]
    lines += ["license: cc0-1.0", "---", "", "# ABACUS synthetic (lmms-plugins)", "",
              f"Synthetic stand-in for Aymen-Lassoued/ABACUS_Bench in the same layout, {n} samples per split,",
              "made by `lmms-plugins make-data abacus`. Backgrounds: " + "; ".join(f"{k}: {v[1]}" for k, v in BACKGROUNDS.items()) + ".",
              "Objects are flat-coloured shapes detectable only by the `synthetic_test` detector backend.", ""]
    return "\n".join(lines)


FAULTS = {
    "none": Faults(),
    "touch": Faults(touch=1),
    "delete": Faults(delete=1),
    "shift": Faults(shift=(3, 2)),
    "recolor": Faults(recolor=True),
    "plus1": Faults(count_delta=1),
    "minus1": Faults(count_delta=-1),
}


def expected_factors(operation: str, count: int, n_gt: int, fault: str) -> tuple[float, float]:
    """(CF, OC) a scorer must give the synthetic editor's edit with ``fault`` (the documented amounts).

    SC is 1 for every fault but shift and recolor, which move SC only.
    """
    k = count
    cf, oc = 1.0, 1.0
    if fault in ("touch", "delete"):
        oc = 1 - 1 / n_gt
        if fault == "delete" and operation == "remove":  # deleting one more IS removing K + 1
            cf = 2 * k / (2 * k + 1)
    elif fault == "plus1":
        cf = 2 * k / (2 * k + 1)
        if operation != "add":  # the extra removal/change destroys a pre-existing instance
            oc = 1 - 1 / n_gt
    elif fault == "minus1":
        cf = 2 * (k - 1) / (2 * k - 1)
    return cf, oc


def write_dataset(out: Path, n: int = 4, seed: int = 0, edits_fault: str | None = None) -> dict:
    """Write the dataset (and optionally edits + replay JSONL); returns {task: rows written}."""
    import datasets
    import numpy as np

    datasets.disable_progress_bars()  # one line per parquet file is noise in a CLI
    out = Path(out)
    rng = np.random.default_rng(seed)
    written = {}
    replay_rows, truth_rows = [], []
    for op in ("add", "remove", "change"):
        (out / op).mkdir(parents=True, exist_ok=True)
        for tier in TIERS:
            rows = []
            for i in range(n):
                row, scene = make_sample(rng, op, tier, len(written) * 1000 + i)
                row["image"] = {"bytes": _png_bytes(scene.image), "path": None}
                rows.append(row)
                if edits_fault is not None:
                    edit = synthetic_edit(scene, op, row["count"], category=row.get("category"),
                                          source_category=row.get("source_category"), target_category=row.get("target_category"),
                                          faults=FAULTS[edits_fault], rng=rng)
                    rel = Path("edits") / f"abacus_{op}_{tier}" / f"{i:05d}.png"
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    (out / rel).write_bytes(_png_bytes(edit.image))
                    replay_rows.append({"task": f"abacus_{op}_{tier}", "doc_id": i, "text": "", "image": str(rel)})
                cats = [row["source_category"], row["target_category"]] if op == "change" else [row["category"]]
                n_gt = sum(scene.count(c) for c in cats)
                truth = {"task": f"abacus_{op}_{tier}", "doc_id": i, "requested": row["count"], "n_pre_existing": n_gt}
                if edits_fault is not None:
                    truth["fault"] = edits_fault
                    truth["cf"], truth["oc"] = expected_factors(op, row["count"], n_gt, edits_fault)
                truth_rows.append(truth)
            cols = ["image", "image_id", "coco_split", "prompt", "count"] + (["source_category", "target_category"] if op == "change" else ["category"])
            feats = {"image": datasets.Image(), "image_id": datasets.Value("int64"), "coco_split": datasets.Value("string"),
                     "prompt": datasets.Value("string"), "count": datasets.Value("int64")}
            feats.update({c: datasets.Value("string") for c in cols[5:]})
            ds = datasets.Dataset.from_dict({c: [r[c] for r in rows] for c in cols}, features=datasets.Features({c: feats[c] for c in cols}))
            ds.to_parquet(str(out / op / f"{tier}-00000-of-00001.parquet"))
            written[f"abacus_{op}_{tier}"] = len(rows)
    (out / "README.md").write_text(readme_text(n), encoding="utf-8")
    # the known truth, beside the official layout (lmms-eval never reads it)
    with (out / "truth.jsonl").open("w", encoding="utf-8") as fh:
        for r in truth_rows:
            fh.write(json.dumps(r) + "\n")
    if edits_fault is not None:
        with (out / "replay.jsonl").open("w", encoding="utf-8") as fh:
            for r in replay_rows:
                fh.write(json.dumps(r) + "\n")
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="lmms-plugins make-data abacus", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder to write (hub layout: README.md + <op>/<tier>-*.parquet)")
    p.add_argument("--n", type=int, default=8, help="samples per operation x tier (default 8)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--edits", choices=sorted(FAULTS), default=None,
                   help="also write the synthetic editor's outputs with this fault under edits/ and replay.jsonl")
    args = p.parse_args(argv)
    if args.n < 1:
        p.error("--n must be >= 1")
    written = write_dataset(Path(args.out), n=args.n, seed=args.seed, edits_fault=args.edits)
    print(f"wrote {sum(written.values())} samples in {len(written)} splits to {args.out}"
          + (" (with edits/ and replay.jsonl)" if args.edits else "")
          + f"; use it with LMMS_PLUGINS_ABACUS_ROOT={args.out} and the detector synthetic_test "
            "(`lmms-plugins settings abacus detector=synthetic_test --out <folder>`, then --include_path <folder>)")
    return 0
