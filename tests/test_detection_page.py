"""The Detection page (AppTest): the example's 12 numbers are coco_evaluate's, uploads are read,
a bad file is one sentence with the page kept."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.detection import coco_evaluate, load_detections, load_ground_truth, synthetic_coco
from tests.apptest_utils import open_page

PAGE = "pages/detection.py"


@pytest.fixture(scope="module")
def page():
    return open_page(PAGE)


def _stats(at):
    frame = at.dataframe[0].value
    return frame["value"].to_numpy()


def test_the_example_shows_coco_evaluate_numbers_and_both_curves(page):
    at = page
    assert at.title[0].value == "Detection"
    gt, dt = synthetic_coco(n_images=80, n_cats=8, dets_per_image=40, seed=7)
    g = load_ground_truth(gt)
    np.testing.assert_allclose(_stats(at), coco_evaluate(g, load_detections(dt, g)).stats)
    charts = [c for c in at.get("plotly_chart") if c.key.startswith("detection_pr_")]
    assert len(charts) == 2
    spec = json.loads(charts[0].proto.spec)
    assert [t["name"] for t in spec["data"]][-1] == "101 sampled points"
    at.selectbox(key="detection_convention").set_value("voc07").run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in spec["data"]][-1] == "11 sampled points"


def test_uploads_and_a_bad_file(page):
    at = page
    gt, dt = synthetic_coco(n_images=10, n_cats=3, dets_per_image=20, seed=2)
    at.file_uploader(key="detection_gt").set_value(
        ("gt.json", json.dumps(gt).encode(), "application/json")
    )
    at.file_uploader(key="detection_det").set_value(
        ("dt.json", json.dumps(dt).encode(), "application/json")
    ).run()
    assert not at.exception, at.exception
    np.testing.assert_allclose(_stats(at), coco_evaluate(gt, dt).stats)
    bad = [{**dt[0], "image_id": 424242}, *dt[1:]]
    at.file_uploader(key="detection_det").set_value(
        ("bad.json", json.dumps(bad).encode(), "application/json")
    ).run()
    assert not at.exception, at.exception
    assert "unknown image id (424242) not in the ground truth" in at.error[0].value
