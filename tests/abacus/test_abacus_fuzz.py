"""Fuzz (issue #15): random and malformed model outputs through ABACUS's ``process_results`` never
raise, always end in a known status, give valid UTF-8 records, and never open a file outside the
allowed folders; a bad image is ``bad_image`` with the decoder's reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz_outputs import FUZZ, OPENED, assert_nothing_forbidden_opened, check_records, make_image_pool, outputs  # noqa: E402

from lmms_plugins.tasks.abacus import hooks, scoring  # noqa: E402
from lmms_plugins.utils import status  # noqa: E402

KNOWN = {scoring.OK, scoring.MISSING_IMAGE, scoring.BAD_IMAGE, scoring.ASPECT_MISMATCH, scoring.BLANK_IMAGE,
         scoring.UNKNOWN_CATEGORY, scoring.DETECTOR_ERROR, scoring.MISSING_DATA, status.GENERATION_FAILED}


@pytest.fixture(scope="module")
def abacus(tmp_path_factory, scene):
    from PIL import Image

    pool = make_image_pool(tmp_path_factory.mktemp("abacus_fuzz"))
    doc = {"image": Image.fromarray(scene.image), "abacus_operation": "add", "count": 1,
           "category": "sports ball", "image_id": 7}
    return doc, pool


SYN = {"detector": "synthetic_test", "flow": "dis"}  # the settings a task class hands the scorer


@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_abacus_fuzz_process_results_known_status_valid_records(abacus, data):
    doc, pool = abacus
    raw = data.draw(outputs(pool))
    since = len(OPENED)
    res = hooks.process_results(doc, [raw], SYN)
    check_records(res, KNOWN, hooks.METRICS)
    assert_nothing_forbidden_opened(since)


@pytest.mark.parametrize("name", ["truncated", "junk", "empty", "huge"])
def test_abacus_bad_image_has_the_decoders_reason(abacus, name):
    doc, pool = abacus
    res = hooks.process_results(doc, [json.dumps({"text": "", "images": [pool[name]]})], SYN)
    rec = res["abacus_score"]
    assert rec["status"] == "bad_image" and rec["value"] == 0.0
    assert Path(pool[name]).name in rec["reason"]


def test_abacus_regression_deeply_nested_output_is_missing_image_not_error(abacus):
    doc, _ = abacus
    res = hooks.process_results(doc, ['{"text": ' + "[" * 5000 + "]" * 5000 + "}"], SYN)
    assert res["abacus_score"]["status"] == "missing_image"
