"""convention_effects: the walk from one convention's mAP to another's, one rule at a time.

At each convention's own settings the hybrid evaluator must be that convention's arithmetic
(detection_ap, itself checked against the devkit's and Ultralytics' literal loops and against
pycocotools), so the walk starts and ends on the numbers users compare. Single-rule states
that pycocotools can express (crowd regions dropped, no 100-detection cap) are checked against
pycocotools itself; the counts in words are checked on hand-built boxes.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.detection import (
    CONVENTIONS,
    RULES,
    convention_effects,
    convention_settings,
    detection_ap,
    load_detections,
    load_ground_truth,
)
from metrics.detection import (
    IOU_THRESHOLDS as IOU_T,
)
from metrics.detection.rules import _evaluate
from tests.strategies import detection_datasets, examples


@st.composite
def with_difficult(draw, **kw):
    """detection_datasets with some objects flagged "difficult" (VOC's flag)."""
    gt, dt = draw(detection_datasets(**kw))
    rate = draw(st.sampled_from((0.0, 0.3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    gt = copy.deepcopy(gt)
    for a in gt["annotations"]:
        a["difficult"] = int(rng.random() < rate)
    return gt, dt


def _loaded(data):
    gt, dt = data
    g = load_ground_truth(gt)
    return g, load_detections(dt, g)


@settings(max_examples=examples(15), deadline=None)
@given(with_difficult(), st.sampled_from((0.5, 0.75, 0.3)))
def test_each_convention_is_its_own_arithmetic(data, thr):
    g, d = _loaded(data)
    for c in CONVENTIONS:
        ours = _evaluate(g, d, convention_settings(c), thr).ap
        want = detection_ap(g, d, convention=c, iou_threshold=thr).to_numpy()
        np.testing.assert_array_equal(ours, want, err_msg=c)


@settings(max_examples=examples(12), deadline=None)
@given(with_difficult(), st.sampled_from(CONVENTIONS), st.sampled_from(CONVENTIONS))
def test_the_walk_telescopes_from_one_convention_to_the_other(data, src, dst):
    g, d = _loaded(data)
    walk = convention_effects(g, d, from_=src, to=dst)
    assert walk.rule.tolist() == list(RULES)
    assert walk.ap_before.iloc[0] == detection_ap(g, d, convention=src).mean() or (
        np.isnan(walk.ap_before.iloc[0])
    )
    end = detection_ap(g, d, convention=dst).mean()
    assert walk.ap_after.iloc[-1] == end or np.isnan(end)
    np.testing.assert_array_equal(walk.ap_before.to_numpy()[1:], walk.ap_after.to_numpy()[:-1])
    if np.isfinite(end) and np.isfinite(walk.ap_before.iloc[0]):
        assert walk.difference.sum() == pytest.approx(end - walk.ap_before.iloc[0], abs=1e-12)
    s_from, s_to = convention_settings(src), convention_settings(dst)
    same = np.array([s_from[r] == s_to[r] for r in RULES])
    assert (walk.difference[same].fillna(0) == 0).all()
    assert (walk.n_changed[same] == 0).all()
    assert (walk.change[same] == "the same in both conventions").all()


def _pycocotools_ap50(gt, dt, max_det=100):
    pytest.importorskip("pycocotools")
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = copy.deepcopy(gt)
        coco_gt.createIndex()
        ev = COCOeval(coco_gt, coco_gt.loadRes(copy.deepcopy(dt)), "bbox")
        ev.params.maxDets = [1, 10, max_det]
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev.stats[1]


@settings(max_examples=examples(8), deadline=None)
@given(detection_datasets(max_images=4))
def test_single_rule_states_equal_pycocotools(data):
    gt, dt = data
    walk = convention_effects(gt, dt, from_="coco", to="ultralytics").set_index("rule")
    start = _pycocotools_ap50(gt, dt)
    if start == -1:  # no ground truth counted: pycocotools' -1, our NaN
        assert np.isnan(walk.ap_before["crowd"])
        return
    assert walk.ap_before["crowd"] == pytest.approx(start, abs=1e-12)
    # crowd regions dropped, then no cap: pycocotools without crowd annotations, maxDets 10^6
    no_crowd = {**gt, "annotations": [a for a in gt["annotations"] if not a["iscrowd"]]}
    dropped = _pycocotools_ap50(no_crowd, dt)
    after_crowd = walk.ap_after["crowd"]
    assert after_crowd == pytest.approx(dropped, abs=1e-12) or (dropped == -1)
    uncapped = _pycocotools_ap50(no_crowd, dt, max_det=10**6)
    assert walk.ap_after["cap"] == pytest.approx(uncapped, abs=1e-12) or (uncapped == -1)


def _pycocotools_stats(gt, dt):
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = copy.deepcopy(gt)
        coco_gt.createIndex()
        ev = COCOeval(coco_gt, coco_gt.loadRes(copy.deepcopy(dt)), "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev.stats


@settings(max_examples=examples(6), deadline=None)
@given(detection_datasets(max_images=3, burst=False))
def test_the_coco_range_walk_ends_on_pycocotools_ap_and_mean_ultralytics(data):
    pytest.importorskip("pycocotools")
    gt, dt = data
    walk = convention_effects(gt, dt, from_="coco", to="ultralytics", iou_threshold="0.5:0.95")
    start = _pycocotools_stats(gt, dt)[0]
    if start == -1:
        assert np.isnan(walk.ap_before.iloc[0])
        return
    assert walk.ap_before.iloc[0] == pytest.approx(start, abs=1e-12)
    per_t = [detection_ap(gt, dt, convention="ultralytics", iou_threshold=t) for t in IOU_T]
    end = np.nanmean(np.mean([s.to_numpy() for s in per_t], axis=0))
    assert walk.ap_after.iloc[-1] == pytest.approx(end, abs=1e-12) or np.isnan(end)
    np.testing.assert_array_equal(walk.ap_before.to_numpy()[1:], walk.ap_after.to_numpy()[:-1])


def _one_image(boxes, dets, crowd=(), cats=None, images=1):
    anns = [
        {
            "id": i + 1,
            "image_id": 1,
            "category_id": 1,
            "bbox": list(b),
            "area": b[2] * b[3],
            "iscrowd": int(i in crowd),
        }
        for i, b in enumerate(boxes)
    ]
    gt = {
        "images": [{"id": i} for i in range(1, images + 1)],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": anns,
    }
    dt = [
        {"image_id": img, "category_id": 1, "bbox": list(b), "score": s}
        for b, s, img in ((*x, 1) if len(x) == 2 else x for x in dets)
    ]
    return gt, dt


def test_iou_exactly_half_is_a_match_for_coco_and_not_for_voc_until_the_plus_one():
    gt, dt = _one_image([[0, 0, 10, 20]], [([0, 0, 10, 10], 0.9)])
    walk = convention_effects(gt, dt, from_="coco", to="voc07").set_index("rule")
    assert walk.loc["iou_compare", "change"] == "1 detection true positive → false positive"
    assert walk.loc["iou_compare", "setting_to"] == "IoU > t"
    assert walk.loc["iou_compare", "largest_category"] == "cat"
    assert walk.loc["iou_compare", "largest_category_change"] == pytest.approx(-1.0)
    assert walk.loc["iou_compare", "difference"] == pytest.approx(-1.0)
    assert "1 detection false positive → true positive" in walk.loc["box_size", "change"]
    assert walk.loc["box_size", "difference"] == pytest.approx(1.0)


def test_the_cap_drops_the_detections_past_100_of_an_image():
    # 104 background boxes scored above the one good box: COCO never sees the good box.
    dets = [([500 + i, 500, 5, 5], 0.9) for i in range(104)] + [([0, 0, 40, 40], 0.1)]
    gt, dt = _one_image([[0, 0, 40, 40]], dets)
    walk = convention_effects(gt, dt, from_="coco", to="voc12").set_index("rule")
    change = walk.loc["cap", "change"]
    assert (
        change == "the cap brings back 5 detections on 1 image (1 true positive, 4 false positives)"
    )
    assert walk.loc["cap", "ap_before"] == 0.0
    assert walk.loc["cap", "ap_after"] > 0.0
    back = convention_effects(gt, dt, from_="voc12", to="coco").set_index("rule")
    assert back.loc["cap", "change"].startswith("the cap drops 5 detections on 1 image (1 true")


def test_a_crowd_region_absorbs_what_ultralytics_counts_as_false_positives():
    crowd_box = [0, 0, 100, 100]
    dets = [([10, 10, 20, 20], 0.9), ([50, 50, 20, 20], 0.8), ([200, 200, 30, 30], 0.7)]
    gt, dt = _one_image([crowd_box, [200, 200, 30, 30]], dets, crowd=(0,))
    walk = convention_effects(gt, dt, from_="coco", to="ultralytics").set_index("rule")
    change = walk.loc["crowd", "change"]
    assert change == "1 crowd region on 1 image; 2 detections not counted → false positive"
    assert walk.loc["crowd", "ap_before"] == pytest.approx(1.0)
    assert walk.loc["crowd", "ap_after"] < 1.0


def test_tied_scores_across_images_are_what_the_tie_rule_moves():
    gt = {
        "images": [{"id": 1}, {"id": 2}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "iscrowd": 0}
        ],
    }
    # file order: the FP on image 2 first; image order puts the TP on image 1 first
    dt = [
        {"image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5},
        {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5},
    ]
    walk = convention_effects(gt, dt, from_="voc12", to="ultralytics").set_index("rule")
    assert walk.loc["ties", "change"].startswith("2 detections change place")
    voc = convention_effects(gt, dt, from_="ultralytics", to="voc12").set_index("rule")
    assert voc.loc["ties", "difference"] == pytest.approx(-0.5)  # P=0.5 at R=1, not 1


def test_bad_input_is_one_sentence():
    gt, dt = _one_image([[0, 0, 10, 10]], [([0, 0, 10, 10], 0.9)])
    with pytest.raises(ValueError, match=r"convention='yolo' is not one of 'coco'"):
        convention_effects(gt, dt, from_="yolo")
    with pytest.raises(ValueError, match="iou_threshold=2 must be between 0 and 1"):
        convention_effects(gt, dt, iou_threshold=2)
    with pytest.raises(ValueError, match=r"or '0\.5:0\.95' for COCO's ten thresholds"):
        convention_effects(gt, dt, iou_threshold="half")


def test_equal_iou_ties_go_where_each_library_sends_them():
    # det 1 overlaps both objects at IoU 0.6; det 2 is object A. pycocotools and Ultralytics
    # give det 1 the later object (B), so det 2 takes A; the devkit gives det 1 the first (A).
    gt, dt = _one_image(
        [[0, 0, 20, 20], [10, 0, 20, 20]], [([5, 0, 20, 20], 0.9), ([0, 0, 20, 20], 0.8)]
    )
    g, d = _loaded((gt, dt))
    want = {"coco": 1.0, "ultralytics": 0.995, "voc12": 0.5}
    for c, ap in want.items():
        ours = _evaluate(g, d, convention_settings(c), 0.5).ap
        np.testing.assert_array_equal(ours, detection_ap(g, d, convention=c).to_numpy())
        assert ours[0] == pytest.approx(ap, abs=1e-9), c
    assert _pycocotools_ap50(gt, dt) == pytest.approx(1.0)


def test_plus_one_on_normalised_boxes_is_named():
    import dataclasses

    from metrics.detection import Detections

    gt, dt = _one_image([[0, 0, 10, 20]], [([0, 0, 10, 10], 0.9)])
    g, d = _loaded((gt, dt))
    g = dataclasses.replace(g, boxes=g.boxes / 640, has_areas=False)
    d = Detections(d.image, d.category, d.boxes / 640, d.score)
    walk = convention_effects(g, d, from_="coco", to="voc12").set_index("rule")
    assert walk.loc["box_size", "change"].startswith("the boxes are normalised (no image sizes)")
