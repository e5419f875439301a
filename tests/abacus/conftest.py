import numpy as np
import pytest


@pytest.fixture(scope="session")
def detector():
    from lmms_plugins.tasks.abacus.detectors import get_detector

    return get_detector("synthetic_test")


@pytest.fixture(scope="session")
def scene():
    """coffee photo, 512x384, 3 sports balls + 2 kites + 1 tv at known places."""
    from lmms_plugins.tasks.abacus.synthetic import make_scene

    return make_scene(np.random.default_rng(1), (512, 384), "coffee", {"sports ball": 3, "kite": 2, "tv": 1})
