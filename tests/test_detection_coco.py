"""metrics.detection.coco_evaluate against pycocotools' COCOeval, the field's oracle.

Generated COCO datasets (tests/strategies.detection_datasets) put in front what separates a
faithful port from a near one: crowd regions (IoU over the detection's area, matched many
times), gt areas that differ from the box (the area ranges read the annotation's area, the
detections' their box), sides around 32 and 96 pixels, every score tied, more than 100
detections on one image, a category with no ground truth (-1, left out of the means), image
ids out of order.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest
from hypothesis import given, settings

from metrics.detection import STAT_NAMES, coco_evaluate, load_ground_truth
from tests.strategies import detection_datasets, examples

pycocotools = pytest.importorskip("pycocotools")
from pycocotools.coco import COCO  # noqa: E402
from pycocotools.cocoeval import COCOeval  # noqa: E402


def oracle(gt: dict, dt: list) -> COCOeval:
    """pycocotools, as its README runs it (deep copies: loadRes writes into the dicts)."""
    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = copy.deepcopy(gt)
        coco_gt.createIndex()
        coco_dt = coco_gt.loadRes(copy.deepcopy(dt))
        ev = COCOeval(coco_gt, coco_dt, "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev


def assert_equal_to_pycocotools(gt, dt):
    ev = oracle(gt, dt)
    ours = coco_evaluate(gt, dt)
    np.testing.assert_allclose(ours.stats, ev.stats, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.precision, ev.eval["precision"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.recall, ev.eval["recall"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.scores, ev.eval["scores"], rtol=0, atol=1e-12)
    return ours, ev


@settings(max_examples=examples(40), deadline=None)
@given(detection_datasets())
def test_equal_to_pycocotools_on_generated_datasets(data):
    assert_equal_to_pycocotools(*data)


def _one_image(boxes, dets, crowd=None, area=None):
    anns = [
        {
            "id": i + 1,
            "image_id": 1,
            "category_id": 1,
            "bbox": list(b),
            "area": (b[2] * b[3]) if area is None else area[i],
            "iscrowd": 0 if crowd is None else crowd[i],
        }
        for i, b in enumerate(boxes)
    ]
    gt = {
        "images": [{"id": 1}],
        "annotations": anns,
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
    }
    dt = [{"image_id": 1, "category_id": 1, "bbox": list(b), "score": s} for b, s in dets]
    return gt, dt


def test_crowd_region_absorbs_many_detections_and_uses_detection_area():
    # One crowd region and one person inside it: the three detections inside the crowd are
    # ignored (neither TP nor FP), the one on the person is a TP -> AP 1.
    gt, dt = _one_image(
        [[0, 0, 100, 100], [10, 10, 20, 20]],
        [
            ([10, 10, 20, 20], 0.9),
            ([50, 50, 10, 10], 0.8),
            ([60, 60, 10, 10], 0.7),
            ([70, 70, 10, 10], 0.6),
        ],
        crowd=[1, 0],
    )
    ours, _ = assert_equal_to_pycocotools(gt, dt)
    assert ours.stats[0] == pytest.approx(1.0)


def test_category_without_ground_truth_is_left_out_of_the_mean():
    gt, dt = _one_image([[0, 0, 40, 40]], [([0, 0, 40, 40], 0.9)])
    dt.append({"image_id": 1, "category_id": 2, "bbox": [0, 0, 40, 40], "score": 0.95})
    ours, _ = assert_equal_to_pycocotools(gt, dt)
    assert ours.stats[0] == pytest.approx(1.0)
    table = ours.per_class.set_index("category_id")
    assert np.isnan(table.loc[2, "ap"])
    assert table.loc[1, "ap"] == pytest.approx(1.0)
    assert table.loc[2, "n_det"] == 1
    assert table.loc[2, "n_gt"] == 0


def test_more_than_100_detections_an_image_are_cut_by_score():
    # 120 false detections above the true one: the true one is ranked 121st, past the cap.
    fp = [([300 + i, 300, 5, 5], 0.9) for i in range(120)]
    gt, dt = _one_image([[0, 0, 40, 40]], [*fp, ([0, 0, 40, 40], 0.1)])
    ours, _ = assert_equal_to_pycocotools(gt, dt)
    assert ours.stats[8] == 0.0  # AR@100 misses the box
    assert ours.per_class.loc[0, "n_det_kept"] == 100


def test_annotation_id_zero_counts_as_unmatched_as_in_pycocotools():
    gt, dt = _one_image(
        [[0, 0, 40, 40], [100, 100, 40, 40]], [([0, 0, 40, 40], 0.9), ([100, 100, 40, 40], 0.8)]
    )
    gt["annotations"][0]["id"] = 0
    assert_equal_to_pycocotools(gt, dt)


def test_summary_text_is_pycocotools_format():
    gt, dt = _one_image([[0, 0, 40, 40]], [([0, 0, 40, 40], 0.9)])
    text = coco_evaluate(gt, dt).summary_text().splitlines()
    assert text[0] == (
        " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000"
    )
    assert text[9].startswith(" Average Recall     (AR) @[ IoU=0.50:0.95 | area= small |")
    assert len(text) == len(STAT_NAMES) == 12


def test_reader_errors_are_sentences():
    gt, dt = _one_image([[0, 0, 40, 40]], [([0, 0, 40, 40], 0.9)])
    bad = copy.deepcopy(gt)
    bad["annotations"][0]["bbox"] = [0, 0, -4, 40]
    with pytest.raises(ValueError, match="negative width"):
        coco_evaluate(bad, dt)
    with pytest.raises(ValueError, match=r"unknown category \(7\)"):
        coco_evaluate(gt, [{**dt[0], "category_id": 7}])
    with pytest.raises(ValueError, match=r"unknown image id \(99\) not in the ground truth"):
        coco_evaluate(gt, [{**dt[0], "image_id": 99}])
    with pytest.raises(ValueError, match="not COCO ground truth"):
        load_ground_truth({"images": []})
    with pytest.raises(ValueError, match="only 'bbox'"):
        coco_evaluate(gt, dt, iou_type="segm")


def test_no_detections_gives_zero_not_a_crash():
    gt, _ = _one_image([[0, 0, 40, 40]], [])
    ours = coco_evaluate(gt, [])
    assert ours.stats[0] == 0.0
    assert ours.stats[8] == 0.0


def test_iou_exactly_on_a_threshold_matches():
    # IoU 200/400 = 0.5 and 300/400 = 0.75 exactly: ">=" matches at both (VOC's ">" would not).
    gt, dt = _one_image(
        [[0, 0, 20, 20], [100, 0, 20, 20]], [([0, 0, 10, 20], 0.9), ([100, 0, 15, 20], 0.8)]
    )
    ours, _ev = assert_equal_to_pycocotools(gt, dt)
    assert ours.stats[1] == pytest.approx(1.0)


def test_equal_iou_goes_to_the_later_ground_truth():
    # Two identical annotations: the first detection takes the later one, the second the other.
    box = [0, 0, 40, 40]
    gt, dt = _one_image([box, box], [(box, 0.9), (box, 0.8)])
    assert_equal_to_pycocotools(gt, dt)
    from metrics.detection import coco_match, load_detections

    g = load_ground_truth(gt)
    m = coco_match(g, load_detections(dt, g))
    assert m.gt[0, 0, 0] == 1
    assert m.gt[1, 0, 0] == 0


def test_recall_threshold_read_where_float_rounding_crosses_an_integer():
    # 25 objects: 0.28 * 25 is 7.000000000000001 in floating point, yet recall 7/25 == 0.28,
    # so pycocotools reads precision at the 7th hit (1.0), not after the 3 misses (0.8).
    boxes = [[(i % 5) * 60, (i // 5) * 60, 40, 40] for i in range(25)]
    dets = [(boxes[i], 0.9) for i in range(7)]
    dets += [([400 + i * 50, 400, 30, 30], 0.8) for i in range(3)]
    dets += [(boxes[i], 0.5) for i in range(7, 17)]
    gt, dt = _one_image(boxes, dets)
    ours, _ = assert_equal_to_pycocotools(gt, dt)
    r = int(np.flatnonzero(np.isclose(np.linspace(0, 1, 101), 0.28))[0])
    assert ours.precision[0, r, 0, 0, 2] == pytest.approx(1.0)


@settings(max_examples=examples(15), deadline=None)
@given(detection_datasets(max_images=4))
def test_equal_to_faster_coco_eval(data):
    fce = pytest.importorskip("faster_coco_eval")
    gt, dt = data
    coco_gt = fce.COCO(copy.deepcopy(gt))
    coco_dt = coco_gt.loadRes(copy.deepcopy(dt))
    ev = fce.COCOeval_faster(coco_gt, coco_dt, "bbox", print_function=lambda *a, **k: None)
    with contextlib.redirect_stdout(io.StringIO()):
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    np.testing.assert_allclose(coco_evaluate(gt, dt).stats, ev.stats[:12], rtol=0, atol=1e-9)
