"""lmms-eval hooks of the ABACUS tasks: thin adapters around scoring.evaluate and aggregate.

The detector and the optical flow are task settings (settings.py: ``metadata.detector``,
``metadata.flow``), given to the scorer by the task class as ``settings=``.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any, Mapping

from lmms_plugins.utils import aggregation, status
from lmms_plugins.utils.settings import given_or_default

from .settings import SETTINGS

SUFFIX_MARK = "Keep everything else exactly as-is"
METRICS = (
    "abacus_count_fidelity",
    "abacus_scene_consistency",
    "abacus_conservation",
    "abacus_score",
    "abacus_edit_score",
    "abacus_exact_count",
    "abacus_coverage",
    "generation_failure_rate",
    "abacus_leaderboard",
)
_HERE = os.path.dirname(os.path.abspath(__file__))
log = logging.getLogger("lmms_plugins.abacus")


# ------------------------------------------------------------------------------- docs and prompt


def _with_operation(dataset, operation: str):
    # add_column touches no image: the parquet's image bytes are not decoded here
    return _stored_images(dataset.add_column("abacus_operation", [operation] * len(dataset)))


def _stored_images(dataset):
    """The image columns read undecoded ({"bytes", "path"}): :func:`source_image` decodes them once,
    with the checks of utils/images, and the decoded image keeps its bytes for an image-edit API."""
    from datasets import Image

    for name in IMAGE_FIELDS:
        feature = dataset.features.get(name)
        if isinstance(feature, Image) and feature.decode:
            dataset = dataset.cast_column(name, Image(decode=False))  # the features change, not the data
    return dataset


def preflight(settings: Mapping | None = None) -> None:
    """Load the detector and flow backends before any request (the task class, task.py, calls it):
    one that cannot load stops the run now (PreflightError saying what to install), not after it."""
    from lmms_plugins.tasks.abacus.detectors import load_for_run
    from lmms_plugins.utils import preflight as pf

    settings = given_or_default(SETTINGS, settings)  # a misspelt setting stops the run here
    if pf.skipped():
        return
    load_for_run(settings["detector"])
    try:
        _flow_fn(settings)
    except ValueError as exc:
        raise pf.PreflightError(f"abacus: metadata.flow: {exc}") from None


def process_docs_add(dataset):
    return _with_operation(dataset, "add")


def process_docs_remove(dataset):
    return _with_operation(dataset, "remove")


def process_docs_change(dataset):
    return _with_operation(dataset, "change")


@functools.lru_cache(maxsize=8)
def _template(name: str):
    from lmms_plugins.utils.templates import compile_template

    with open(os.path.join(_HERE, name), encoding="utf-8") as fh:
        return compile_template(fh.read(), origin=name)


def doc_to_text(doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None) -> str:
    from lmms_plugins.tasks.abacus.synthetic import instruction

    op = doc.get("abacus_operation", "add")
    text = doc.get("prompt") or instruction(op, doc.get("count"), doc.get("category"), doc.get("source_category"), doc.get("target_category"))
    text = str(text).strip()
    # the hub prompt may already carry the suffix; never send it twice
    return _template(f"prompt_{op}.jinja").render(instruction=text, has_suffix=SUFFIX_MARK in text).strip()


# The card names "the source image" but not its column; "image" is the usual hub name.
IMAGE_FIELDS = ("image", "source_image", "input_image", "before")


def _stored(doc: Mapping):
    for name in IMAGE_FIELDS:
        if doc.get(name) is not None:
            return doc[name]
    return None


def source_image(doc: Mapping):
    """The doc's source image as a PIL image: the pixels `datasets` would decode, read once.

    A stored RGB PNG or JPEG (the usual case) is decoded by ``load_rgb_bytes`` (size bound,
    truncation check) and remembers its bytes (``images.source_bytes``); any other (another mode,
    an EXIF rotation, a path without bytes) is decoded by `datasets` as it always was.
    """
    value = _stored(doc)
    if not isinstance(value, Mapping):
        return value  # already an image (a decoding dataset, a test's doc)
    from datasets import Image

    from lmms_plugins.utils import images

    data = value.get("bytes")
    if data:
        image = images.load_rgb_bytes(data, name=f"source image of doc {doc.get('image_id', '?')}", keep_source=True)
        if images.has_source(image):
            return image
    return Image().decode_example(dict(value))


def doc_to_visual(doc: Mapping) -> list:
    from lmms_plugins.utils import images

    image = source_image(doc)
    if image is None:
        return []
    # decoded from the stored bytes just now: the model gets that very image (and its bytes)
    return [image if images.has_source(image) and isinstance(_stored(doc), Mapping) else image.convert("RGB")]


# ------------------------------------------------------------------------------------- scoring


def _array(image):
    import numpy as np

    from lmms_plugins.utils.images import to_rgb

    return np.asarray(to_rgb(image))


def _load_edit(raw) -> tuple[Any, str | None, str]:
    """(edit array or None, status when None, why) from one raw model output."""
    from lmms_plugins.utils.images import ImageError, load_rgb
    from lmms_plugins.utils.model_output import parse_model_output

    from lmms_plugins.utils.generation_failure import detect

    failure = detect(raw)
    if failure is not None:  # the request failed: scored like a missing edit, under its own status
        return None, status.GENERATION_FAILED, failure.reason
    out = parse_model_output(raw)
    if not out.image:
        why = "; ".join(out.problems) or "the model returned no image"
        return None, status.MISSING_IMAGE, why
    try:
        import numpy as np

        return np.asarray(load_rgb(out.image)), None, ""
    except ImageError as exc:
        return None, status.BAD_IMAGE, f"{type(exc).__name__}: {exc}"


def _flow_fn(settings: Mapping):
    from lmms_plugins.tasks.abacus.flow import get_backend

    return get_backend(settings["flow"])


def score_doc(doc: Mapping, raw, settings: Mapping | None = None) -> "Any":
    """The EditResult of one doc and one raw model output (never raises for expected failures)."""
    from lmms_plugins.tasks.abacus import scoring
    from lmms_plugins.tasks.abacus.detectors import DetectorError, get_detector

    edit, edit_status, edit_why = _load_edit(raw)
    image = source_image(doc)
    source = _array(image) if image is not None else None
    kwargs = dict(operation=doc.get("abacus_operation"), count=doc.get("count"), category=doc.get("category"),
                  source_category=doc.get("source_category"), target_category=doc.get("target_category"))
    if edit is None or source is None:
        return scoring.evaluate(source, edit, detector=None, edit_status=edit_status, edit_why=edit_why, **kwargs)
    settings = given_or_default(SETTINGS, settings)
    try:
        detector = get_detector(settings["detector"])
        flow_fn = _flow_fn(settings)
    except (DetectorError, ValueError) as exc:
        _log_once(f"ABACUS cannot score: {exc}")
        return scoring.failed(scoring.DETECTOR_ERROR, str(exc), value=None, requested=doc.get("count"))
    return scoring.evaluate(source, edit, detector=detector, flow_fn=flow_fn, **kwargs)


@functools.lru_cache(maxsize=16)
def _log_once(message: str) -> None:
    log.error(message)


@status.never_raises(metrics=METRICS)
def process_results(doc: Mapping, results: list, settings: Mapping | None = None) -> dict:
    r = score_doc(doc, results[0] if results else None, settings)
    sid = doc.get("image_id")
    exact = None if r.exact is None else float(r.exact)
    if r.score is None:  # not scorable: the whole edit is pending
        exact = None
    elif r.status in (status.MISSING_IMAGE, status.BAD_IMAGE, status.GENERATION_FAILED):
        exact = 0.0

    def one(value, **extra):
        return status.sample(value, r.status, r.why, sid, **extra)

    factors = dict(cf=r.cf, sc=r.sc, oc=r.oc)
    detail = dict(factors, edit_score=r.score, exact=exact, delivered=r.delivered, requested=r.requested,
                  n_destroyed=r.n_destroyed, n_pre_existing=r.n_pre_existing, flow_term=r.flow_term,
                  msssim=r.msssim, verdicts=r.verdicts, operation=doc.get("abacus_operation"))
    if r.overlay:  # on one metric only: the report reads it from any, the samples file keeps one copy
        detail["overlay"] = r.overlay
    return {
        "abacus_count_fidelity": one(r.cf),
        "abacus_scene_consistency": one(r.sc),
        "abacus_conservation": one(r.oc),
        "abacus_score": one(r.score, **factors),
        "abacus_edit_score": one(r.score),
        "abacus_exact_count": one(exact),
        # the samples every mean above stands on: those whose generation did not fail
        "abacus_coverage": one(0.0 if r.status == status.GENERATION_FAILED else 1.0),
        "generation_failure_rate": one(1.0 if r.status == status.GENERATION_FAILED else 0.0),
        "abacus_leaderboard": one(r.score, **detail),
    }


# ---------------------------------------------------------------------------------- aggregation


def _score_se(items) -> float | None:
    """Score = mean(cf) * mean(sc) * mean(oc): the standard error of its first-order (delta-method)
    linearisation z_i = sc.oc cf_i + cf.oc sc_i + cf.sc oc_i, a mean whose value is 3 x Score."""
    from lmms_plugins.utils.stderr import mean_se

    rows = [[float(i.get(k) or 0.0) for k in ("cf", "sc", "oc")] for i in status.generated(items) if isinstance(i, dict)]
    if len(rows) < 2:
        return None
    cf, sc, oc = (sum(r[j] for r in rows) / len(rows) for j in range(3))
    return mean_se([sc * oc * r[0] + cf * oc * r[1] + cf * sc * r[2] for r in rows])


# one aggregation per metric of the YAML, named aggregate_<metric> (utils/aggregation.py). Every mean is
# over the edits that came back: a failed generation is left out (README.md, "Failed generations"),
# and abacus_coverage / generation_failure_rate say how many that is.
aggregate_count_fidelity = aggregation.mean("aggregate_count_fidelity", "abacus_count_fidelity", failed="exclude")
aggregate_scene_consistency = aggregation.mean("aggregate_scene_consistency", "abacus_scene_consistency", failed="exclude")
aggregate_conservation = aggregation.mean("aggregate_conservation", "abacus_conservation", failed="exclude")
aggregate_edit_score = aggregation.mean("aggregate_edit_score", "abacus_edit_score", failed="exclude")
aggregate_exact_count = aggregation.mean("aggregate_exact_count", "abacus_exact_count", failed="exclude")
aggregate_coverage = aggregation.failure_rate("aggregate_coverage", generated=True,
                                              doc="Share of the samples whose edit came back (generation did not fail).")
aggregate_generation_failure_rate = aggregation.failure_rate("aggregate_generation_failure_rate")


def _score(items):
    """Leaderboard Score: product of the factor means (not the mean of per-edit products), over the
    edits that came back (NaN when none did)."""
    from lmms_plugins.tasks.abacus.aggregate import leaderboard

    status.report("abacus_score", items)
    return leaderboard(items, n_resamples=0).score


aggregate_score = aggregation.named("aggregate_score", _score, se=_score_se)


def aggregate_leaderboard(items):
    """Factor means, Score, edit-score mean, exact-count rate, status counts: what a group pools.

    lmms-eval prints this value in its table, so it stays short: the 95 % bootstrap intervals come
    from ``python -m lmms_plugins.tasks.abacus.leaderboard`` (over the samples file), and each
    factor's row has its standard error."""
    from lmms_plugins.tasks.abacus.aggregate import leaderboard
    from lmms_plugins.utils.generation_failure import warn_once

    warn_once(items, "abacus")  # once per task: this metric is aggregated once
    status.report("abacus_leaderboard", items)
    row = leaderboard(items, n_resamples=0).as_dict()
    row.pop("ci95", None)
    return row


def aggregate_group_leaderboard(values, sizes, weight_by_size=True):
    """Group (abacus_add, ..., abacus): pooled means and Score from the subtasks' leaderboards."""
    from lmms_plugins.tasks.abacus.aggregate import pool

    return pool(list(values))
