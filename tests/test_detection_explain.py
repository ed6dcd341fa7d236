"""match_image (one image's match, explained) against pycocotools' own per-image match
(``COCOeval.evalImgs``: dtMatches, dtIgnore, gtIgnore), the VOC outcomes against
matched_flags on the whole set, and image_costs against coco_evaluate with the image removed."""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.detection import (
    IOU_THRESHOLDS,
    coco_evaluate,
    image_costs,
    load_detections,
    load_ground_truth,
    match_image,
    matched_flags,
)
from tests.strategies import detection_datasets, examples

pycocotools = pytest.importorskip("pycocotools")
from pycocotools.coco import COCO  # noqa: E402
from pycocotools.cocoeval import COCOeval  # noqa: E402

AREAS = ("all", "small", "medium", "large")


def _evaluated(gt: dict, dt: list) -> COCOeval:
    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = copy.deepcopy(gt)
        coco_gt.createIndex()
        ev = COCOeval(coco_gt, coco_gt.loadRes(copy.deepcopy(dt)), "bbox")
        ev.evaluate()
    return ev


@settings(max_examples=examples(15), deadline=None)
@given(detection_datasets(), st.integers(0, 9), st.sampled_from(AREAS))
def test_each_detection_outcome_is_pycocotools_own_match(data, t, area):
    gt_dict, dt_list = data
    ev = _evaluated(gt_dict, dt_list)
    gt = load_ground_truth(gt_dict)
    dt = load_detections(dt_list, gt)
    ann_row = {int(a): k for k, a in enumerate(gt.ann_id)}
    n_img, n_area = len(ev.params.imgIds), len(ev.params.areaRng)
    a = AREAS.index(area)
    for image in gt.image_ids.tolist():
        m = match_image(gt, dt, image, iou_threshold=float(IOU_THRESHOLDS[t]), area=area)
        seen = np.zeros(m.det_rows.size, dtype=bool)
        where = {int(r): k for k, r in enumerate(m.det_rows)}
        for k in range(len(ev.params.catIds)):
            e = ev.evalImgs[k * n_area * n_img + a * n_img + ev.params.imgIds.index(image)]
            if e is None:
                continue
            for d, dt_id in enumerate(e["dtIds"]):
                j = where[dt_id - 1]  # loadRes numbers results 1, 2, ... in file order
                seen[j] = True
                matched, ignored = int(e["dtMatches"][t, d]), bool(e["dtIgnore"][t, d])
                got = m.outcome[j]
                if ignored:
                    assert got in ("crowd", "area"), (got, matched)
                    if matched:
                        assert m.matched_gt[j] == ann_row[matched]
                        assert (got == "crowd") == bool(gt.iscrowd[ann_row[matched]])
                elif matched:
                    assert got == "tp"
                    assert m.matched_gt[j] == ann_row[matched]
                    assert m.iou[j] >= IOU_THRESHOLDS[t]
                else:
                    assert got in ("fp", "duplicate")
                    # a duplicate overlaps a counted ground truth enough, that one already taken
                    counted = np.flatnonzero(~np.asarray(e["gtIgnore"], dtype=bool))
                    gts = [ann_row[int(g)] for g in np.asarray(e["gtIds"])[counted]]
                    cols = [np.flatnonzero(m.gt_rows == g)[0] for g in gts]
                    over = bool(cols) and np.nanmax(m.iou_matrix[j, cols]) >= IOU_THRESHOLDS[t]
                    assert (got == "duplicate") == over
            for g, by in zip(e["gtIds"], e["gtMatches"][t], strict=True):
                col = np.flatnonzero(m.gt_rows == ann_row[int(g)])[0]
                if int(by) and m.gt_outcome[col] == "found":
                    assert m.gt_matched_by[col] == int(by) - 1
        # what pycocotools never lists is the detections past the 100 cap of their category
        assert (m.outcome[~seen] == "capped").all()
        assert (m.rank[~seen] >= 100).all()


@settings(max_examples=examples(15), deadline=None)
@given(detection_datasets(burst=False), st.sampled_from((0.3, 0.5, 0.7)))
def test_voc_outcomes_are_matched_flags_on_the_whole_set(data, thr):
    gt = load_ground_truth(data[0])
    dt = load_detections(data[1], gt)
    tp, counted, _ = matched_flags(gt, dt, convention="voc12", iou_threshold=thr)
    for image in gt.image_ids.tolist():
        m = match_image(gt, dt, image, iou_threshold=thr, convention="voc")
        np.testing.assert_array_equal(m.outcome == "tp", tp[m.det_rows])
        np.testing.assert_array_equal(m.outcome == "difficult", ~counted[m.det_rows])
        took = m.matched_gt[m.outcome == "tp"]
        assert np.unique(took).size == took.size  # one detection an object
        assert (m.iou[m.outcome == "tp"] > thr).all()
        dup = m.outcome == "duplicate"
        assert (m.best_iou[dup] > thr).all()
        assert np.isin(m.best_gt[dup], took).all()
        assert _taken_elsewhere(m, dup)


def _taken_elsewhere(m, dup) -> bool:
    # a VOC duplicate's best object was taken by a detection above it in score order
    taken = {int(g): k for k, g in enumerate(m.matched_gt) if g >= 0}
    pairs = zip(np.flatnonzero(dup), m.best_gt[dup], strict=True)
    return all(taken.get(int(g), 10**9) < k for k, g in pairs)


def _without(gt: dict, dt: list, image) -> tuple[dict, list]:
    return (
        {
            **gt,
            "images": [i for i in gt["images"] if i["id"] != image],
            "annotations": [a for a in gt["annotations"] if a["image_id"] != image],
        },
        [d for d in dt if d["image_id"] != image],
    )


@settings(max_examples=examples(15), deadline=None)
@given(detection_datasets(max_images=4, burst=False))
def test_image_cost_is_the_map_without_the_image_minus_with_it(data):
    gt_dict, dt_list = data
    gt = load_ground_truth(gt_dict)
    dt = load_detections(dt_list, gt)
    costs = image_costs(gt, dt)
    full = coco_evaluate(gt_dict, dt_list).stats[0]
    assert costs.map == pytest.approx(full if full > -1 else np.nan, abs=1e-12, nan_ok=True)
    for k, image in enumerate(gt.image_ids.tolist()):
        g2, d2 = _without(gt_dict, dt_list, image)
        if not g2["images"] or not d2:
            continue
        rest = coco_evaluate(g2, d2).stats[0]
        want = (rest if rest > -1 else np.nan) - costs.map
        assert costs.cost[k] == pytest.approx(want, abs=1e-12, nan_ok=True)
    m50 = [match_image(gt, dt, i) for i in gt.image_ids.tolist()]
    np.testing.assert_array_equal(costs.tp, [m.counts()["tp"] for m in m50])
    np.testing.assert_array_equal(
        costs.fp, [m.counts()["fp"] + m.counts()["duplicate"] for m in m50]
    )


def test_the_docstring_case_and_bad_arguments():
    gt = load_ground_truth(
        {
            "images": [{"id": 1}, {"id": 2}],
            "categories": [{"id": 1, "name": "cat"}],
            "annotations": [
                {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 40, 40], "area": 1600,
                 "iscrowd": 0},
                {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 200, 200],
                 "area": 40000, "iscrowd": 1},
            ],
        }
    )  # fmt: skip
    dt = load_detections(
        [
            {"image_id": 1, "category_id": 1, "bbox": [0, 0, 40, 38], "score": 0.9},
            {"image_id": 1, "category_id": 1, "bbox": [2, 0, 40, 40], "score": 0.8},
            {"image_id": 1, "category_id": 1, "bbox": [100, 100, 50, 50], "score": 0.7},
        ],
        gt,
    )
    m = match_image(gt, dt, 1)
    assert m.outcome.tolist() == ["tp", "crowd", "crowd"]  # inside the crowd: absorbed
    assert m.gt_outcome.tolist() == ["found", "crowd"]
    assert m.iou[0] == pytest.approx(1520 / 1600)
    assert m.iou[2] == pytest.approx(1.0)  # a crowd region's IoU divides by the detection
    assert match_image(gt, dt, 2).det_rows.size == 0
    with pytest.raises(ValueError, match="image 3 is not in the ground truth"):
        match_image(gt, dt, 3)
    with pytest.raises(ValueError, match="convention='yolo' must be 'coco' or 'voc'"):
        match_image(gt, dt, 1, convention="yolo")
    with pytest.raises(ValueError, match="between 0 and 1"):
        match_image(gt, dt, 1, iou_threshold=1.5)


def _one_image(gt_boxes, dets, difficult=None):
    gt = load_ground_truth(
        {
            "images": [{"id": 1}],
            "categories": [{"id": 1, "name": "cat"}],
            "annotations": [
                {"id": k + 1, "image_id": 1, "category_id": 1, "bbox": list(b),
                 "area": b[2] * b[3], "iscrowd": 0}
                for k, b in enumerate(gt_boxes)
            ],
        }
    )  # fmt: skip
    rows = [{"image_id": 1, "category_id": 1, "bbox": list(b), "score": s} for b, s in dets]
    return gt, load_detections(rows, gt)


def test_a_duplicate_at_exactly_the_threshold_and_voc_strictly_above():
    # COCO: the second box's IoU is exactly 0.5 >= 0.5 with the taken box: a duplicate
    gt, dt = _one_image([[0, 0, 10, 10]], [([0, 0, 10, 10], 0.9), ([0, 0, 10, 5], 0.8)])
    assert match_image(gt, dt, 1, iou_threshold=0.5).outcome.tolist() == ["tp", "duplicate"]
    # VOC: +1 pixel sizes, 10 x 5 of 10 x 10 is exactly 0.5, not above it: a plain FP
    gt, dt = _one_image([[0, 0, 9, 9]], [([0, 0, 9, 9], 0.9), ([0, 0, 9, 4], 0.8)])
    m = match_image(gt, dt, 1, iou_threshold=0.5, convention="voc")
    assert m.best_iou[1] == 0.5
    assert m.outcome.tolist() == ["tp", "fp"]


def test_two_equal_objects_coco_takes_the_free_one_voc_only_the_first():
    # VOC looks only at the best overlap (the first of equals): the second detection finds it
    # taken and is a duplicate; COCO takes the best still-free object, the later one on a tie.
    box = [0, 0, 20, 20]
    gt, dt = _one_image([box, box], [(box, 0.9), (box, 0.8)])
    voc = match_image(gt, dt, 1, convention="voc")
    assert voc.outcome.tolist() == ["tp", "duplicate"]
    assert voc.matched_gt[0] == 0
    assert voc.best_gt.tolist() == [0, 0]
    coco = match_image(gt, dt, 1)
    assert coco.outcome.tolist() == ["tp", "tp"]
    assert coco.matched_gt.tolist() == [1, 0]  # pycocotools replaces its best on an equal IoU
    assert coco.gt_outcome.tolist() == ["found", "found"]


def test_the_typed_threshold_is_pycocotools_own_value():
    # COCO's 0.9 is np.linspace's 0.8999999999999999: an IoU of that value is a match at "0.9"
    gt, dt = _one_image([[0, 0, 1, 1]], [([0, 0, 0.8999999999999999, 1], 0.9)])
    assert match_image(gt, dt, 1, iou_threshold=0.9).outcome.tolist() == ["tp"]
    assert coco_evaluate(gt, dt).category_ap(iou=0.9)[0] == pytest.approx(1.0)


@settings(max_examples=examples(10), deadline=None)
@given(detection_datasets(burst=False), st.sampled_from((0.5, 0.75)))
def test_the_lesson_walk_agrees_with_the_match_it_explains(data, thr):
    # ui.teaching's step table: the running counts end at the library's outcomes, a true
    # positive took the best free object (a crowd region may overlap more), and an error
    # had no free object at the threshold
    from ui.teaching.detection_lesson import greedy_walk

    gt = load_ground_truth(data[0])
    dt = load_detections(data[1], gt)
    for image in gt.image_ids.tolist():
        m = match_image(gt, dt, image, iou_threshold=thr)
        for c in np.unique(m.category):
            walk = greedy_walk(m, gt, int(c)).iloc[1:]
            mine = m.outcome[m.category == c]
            assert walk["TP"].iloc[-1] == (mine == "tp").sum()
            assert walk["FP"].iloc[-1] == np.isin(mine, ("fp", "duplicate")).sum()
            best = walk["best IoU (free)"].to_numpy()
            tp = (walk["outcome"] == "true positive").to_numpy()
            assert (best[tp] >= walk["IoU"].to_numpy()[tp]).all()
            assert (walk["IoU"].to_numpy()[tp] >= thr).all()
            errors = walk["outcome"].isin(["false positive", "duplicate"]).to_numpy()
            assert (np.nan_to_num(best[errors], nan=0.0) < thr).all()
