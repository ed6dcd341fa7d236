"""The PR curve behind each convention's AP: its sampled points give detection_ap's number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.detection import CONVENTIONS, detection_ap, detection_pr_curve
from tests.strategies import detection_datasets, examples
from ui.figures.detection_charts import pr_curve_figure


@settings(max_examples=examples(20), deadline=None)
@given(
    detection_datasets(max_images=4, burst=False),
    st.sampled_from(CONVENTIONS),
    st.sampled_from((0.5, 0.75)),
)
def test_curve_points_give_the_conventions_ap(data, convention, thr):
    gt, dt = data
    ap = detection_ap(gt, dt, convention=convention, iou_threshold=thr)
    for cat, value in ap.items():
        curve = detection_pr_curve(gt, dt, category=cat, convention=convention, iou_threshold=thr)
        np.testing.assert_allclose(curve.ap, value, atol=1e-12, equal_nan=True)
        if curve.recall.size:
            assert np.all(np.diff(curve.envelope) <= 0)
            assert np.all(curve.envelope >= curve.precision - 1e-15)


def test_sample_counts_and_figure():
    gt = {
        "images": [{"id": 1}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {
                "id": i + 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [i * 50, 0, 40, 40],
                "iscrowd": 0,
            }
            for i in range(4)
        ],
    }
    dt = [
        {"image_id": 1, "category_id": 1, "bbox": [i * 50 + 2, 0, 40, 40], "score": 1 - i / 10}
        for i in range(6)
    ]
    counts = {"coco": 101, "voc07": 11, "ultralytics": 101}
    for convention, n in counts.items():
        curve = detection_pr_curve(gt, dt, category=1, convention=convention)
        assert curve.sample_recall.size == n
        fig = pr_curve_figure(curve)
        names = [t.name for t in fig.data]
        assert names == ["precision", "interpolated envelope", f"{n} sampled points"]
        assert len(fig.data[2].x) == n
    with pytest.raises(ValueError, match="category 7 is not in the ground truth"):
        detection_pr_curve(gt, dt, category=7)
