"""The 30 CwI-Bench tasks, in the card's order, with their family.

One source of truth for names: the YAML generator, the data writer, the solver model and the
benchmarks all iterate over :data:`TASKS`.
"""

from __future__ import annotations

from lmms_plugins.tasks.cwi.benchmark import BENCHMARK

FAMILIES: dict[str, tuple[str, ...]] = {
    "transformation": (
        "circular_shift",
        "restore_then_count",
        "shift_rot_align",
        "alignment",
        "rot_scale",
        "transform_chain",
        "unshuffle2d",
        "jigsaw",
        "rotated_jigsaw",
        "restore_then_measure",
        "ring_rotor",
        "double_exposure",
    ),
    "perception": (
        "grating_period",
        "anomaly_v2",
        "peak_count",
        "congruent_pair",
        "trace_length",
        "scan_moire",
    ),
    "localization": (
        "crop_provenance",
        "brightest_blob",
        "sub_rect_swap",
        "retouch_region",
        "circle_fit",
        "print_misreg",
        "gain_center",
    ),
    "color": (
        "film_color",
        "swatch_rgb",
        "patch_mean_dots",
        "color_count",
        "channel_mix",
    ),
}

TASKS: tuple[str, ...] = tuple(t for tasks in FAMILIES.values() for t in tasks)
FAMILY_OF: dict[str, str] = {t: fam for fam, tasks in FAMILIES.items() for t in tasks}
TIERS: tuple[str, ...] = ("easy", "medium", "hard", "expert")
DATASET_PATH = BENCHMARK.hub_id


def task_name(task: str) -> str:
    """lmms-eval task name of a CwI task (``alignment`` -> ``cwi_alignment``)."""
    return f"cwi_{task}"


def from_task_name(name: str) -> str | None:
    """Inverse of :func:`task_name`; None when ``name`` is not a CwI task of the card."""
    if name.startswith("cwi_") and name[4:] in FAMILY_OF:
        return name[4:]
    return None


def family(task: str) -> str:
    try:
        return FAMILY_OF[task]
    except KeyError:
        raise KeyError(f"{task!r} is not a CwI-Bench task; known: {', '.join(TASKS)}") from None
