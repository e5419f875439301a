"""Checks every Perception, Localization and Color generator and reference solver passes (see
tests/cwi/cwi_gen_harness.py for what each check means); family-specific facts are in
test_gen_color.py, test_gen_localization.py and test_gen_perception.py."""

from __future__ import annotations

import pytest

try:
    from . import cwi_gen_harness as H
except ImportError:  # tests/cwi is not a package
    import cwi_gen_harness as H

from lmms_plugins.tasks.cwi.catalog import FAMILIES

TASKS = [t for family in ("perception", "localization", "color") for t in FAMILIES[family]]


@pytest.fixture(scope="module", params=TASKS)
def task_rows(request):
    return request.param, H.run_items(request.param)


def test_solver_accuracy(task_rows):
    H.check_accuracy(*task_rows)


def test_generator_rejects_shortcuts(task_rows):
    H.check_shortcuts(*task_rows)


def test_items_well_formed(task_rows):
    H.check_item_shape(*task_rows)


@pytest.mark.parametrize("task", TASKS)
def test_same_seed_same_bytes(task):
    H.check_determinism(task)


@pytest.mark.parametrize("task", TASKS)
def test_unknown_tier_is_an_error(task):
    H.check_bad_tier(task)
