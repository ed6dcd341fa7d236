"""detection_ap under each convention against a slow, literal reference of that library's loop.

The references below follow, step by step, the PASCAL VOC devkit's ``voc_eval`` (as ported
in py-faster-rcnn) and Ultralytics' ``match_predictions`` + ``ap_per_class`` / ``compute_ap``
(facts carried over, our own code): one detection at a time, Python lists, no vectorising.
Where the libraries leave tie order to an unstable sort, the references use a stable one (the
convention metrics.detection documents). "coco" is checked against pycocotools itself.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.detection import detection_ap, load_detections, load_ground_truth
from tests.strategies import detection_datasets, examples

# --- the PASCAL VOC devkit, literally --------------------------------------------------------


def voc_eval_reference(gt: dict, dt: list, cls: int, ovthresh: float, use_07: bool) -> float:
    class_recs = {}
    npos = 0
    for img in gt["images"]:
        objs = [a for a in gt["annotations"] if a["image_id"] == img["id"]]
        objs = [a for a in objs if a["category_id"] == cls]
        bbox = np.array(
            [
                [
                    a["bbox"][0],
                    a["bbox"][1],
                    a["bbox"][0] + a["bbox"][2],
                    a["bbox"][1] + a["bbox"][3],
                ]
                for a in objs
            ]
        ).reshape(-1, 4)
        difficult = np.array(
            [bool(a.get("difficult", 0)) or bool(a.get("iscrowd", 0)) for a in objs], dtype=bool
        )
        npos = npos + sum(~difficult)
        class_recs[img["id"]] = {"bbox": bbox, "difficult": difficult, "det": [False] * len(objs)}
    if npos == 0:
        return float("nan")
    mine = [d for d in dt if d["category_id"] == cls]
    confidence = np.array([d["score"] for d in mine])
    BB = np.array(
        [
            [d["bbox"][0], d["bbox"][1], d["bbox"][0] + d["bbox"][2], d["bbox"][1] + d["bbox"][3]]
            for d in mine
        ]
    ).reshape(-1, 4)
    sorted_ind = np.argsort(-confidence, kind="stable")
    BB = BB[sorted_ind, :]
    image_ids = [mine[x]["image_id"] for x in sorted_ind]
    nd = len(image_ids)
    tp = np.zeros(nd)
    fp = np.zeros(nd)
    for d in range(nd):
        R = class_recs[image_ids[d]]
        bb = BB[d, :].astype(float)
        ovmax = -np.inf
        BBGT = R["bbox"].astype(float)
        if BBGT.size > 0:
            ixmin = np.maximum(BBGT[:, 0], bb[0])
            iymin = np.maximum(BBGT[:, 1], bb[1])
            ixmax = np.minimum(BBGT[:, 2], bb[2])
            iymax = np.minimum(BBGT[:, 3], bb[3])
            iw = np.maximum(ixmax - ixmin + 1.0, 0.0)
            ih = np.maximum(iymax - iymin + 1.0, 0.0)
            inters = iw * ih
            uni = (
                (bb[2] - bb[0] + 1.0) * (bb[3] - bb[1] + 1.0)
                + (BBGT[:, 2] - BBGT[:, 0] + 1.0) * (BBGT[:, 3] - BBGT[:, 1] + 1.0)
                - inters
            )
            overlaps = inters / uni
            ovmax = np.max(overlaps)
            jmax = np.argmax(overlaps)
        if ovmax > ovthresh:
            if not R["difficult"][jmax]:
                if not R["det"][jmax]:
                    tp[d] = 1.0
                    R["det"][jmax] = 1
                else:
                    fp[d] = 1.0
        else:
            fp[d] = 1.0
    fp = np.cumsum(fp)
    tp = np.cumsum(tp)
    rec = tp / float(npos)
    prec = tp / np.maximum(tp + fp, np.finfo(np.float64).eps)
    if use_07:
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            p = 0 if np.sum(rec >= t) == 0 else np.max(prec[rec >= t])
            ap = ap + p / 11.0
        return float(ap)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    for i in range(mpre.size - 1, 0, -1):
        mpre[i - 1] = np.maximum(mpre[i - 1], mpre[i])
    i = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))


# --- Ultralytics, literally ----------------------------------------------------------------------


def _xyxy(b):
    return [b[0], b[1], b[0] + b[2], b[1] + b[3]]


def ultralytics_reference(gt: dict, dt: list, thr: float) -> dict:
    tps, confs, pred_cls, target_cls = [], [], [], []
    # the dataloader's order: images sorted (by id here)
    for img in sorted(gt["images"], key=lambda im: im["id"]):
        labels = [
            a
            for a in gt["annotations"]
            if a["image_id"] == img["id"] and not a.get("iscrowd", 0) and not a.get("difficult", 0)
        ]
        preds = [d for d in dt if d["image_id"] == img["id"]]
        order = np.argsort([-d["score"] for d in preds], kind="stable")  # NMS output order
        preds = [preds[i] for i in order]
        cls = np.array([a["category_id"] for a in labels])
        pcls = np.array([d["category_id"] for d in preds])
        target_cls.extend(cls.tolist())
        correct = np.zeros(len(preds), dtype=bool)
        if len(labels) and len(preds):
            g = np.array([_xyxy(a["bbox"]) for a in labels])
            p = np.array([_xyxy(d["bbox"]) for d in preds])
            iou = np.zeros((len(labels), len(preds)))
            for i in range(len(labels)):
                for j in range(len(preds)):
                    iw = max(min(g[i, 2], p[j, 2]) - max(g[i, 0], p[j, 0]), 0)
                    ih = max(min(g[i, 3], p[j, 3]) - max(g[i, 1], p[j, 1]), 0)
                    inter = iw * ih
                    a1 = (g[i, 2] - g[i, 0]) * (g[i, 3] - g[i, 1])
                    a2 = (p[j, 2] - p[j, 0]) * (p[j, 3] - p[j, 1])
                    iou[i, j] = inter / (a1 + a2 - inter + 1e-7)
            iou = iou * (cls[:, None] == pcls)
            matches = np.array(np.nonzero(iou >= thr)).T
            if matches.shape[0]:
                if matches.shape[0] > 1:
                    matches = matches[
                        iou[matches[:, 0], matches[:, 1]].argsort(kind="stable")[::-1]
                    ]
                    matches = matches[np.unique(matches[:, 1], return_index=True)[1]]
                    matches = matches[np.unique(matches[:, 0], return_index=True)[1]]
                correct[matches[:, 1].astype(int)] = True
        tps.extend(correct.tolist())
        confs.extend(d["score"] for d in preds)
        pred_cls.extend(pcls.tolist())
    tp, conf, pcl = np.array(tps, dtype=bool), np.array(confs), np.array(pred_cls)
    i = np.argsort(-conf, kind="stable")
    tp, conf, pcl = tp[i], conf[i], pcl[i]
    unique_classes, nt = np.unique(np.array(target_cls), return_counts=True)
    out = {}
    for ci, c in enumerate(unique_classes):
        sel = pcl == c
        n_l, n_p = nt[ci], sel.sum()
        if n_p == 0 or n_l == 0:
            out[int(c)] = 0.0
            continue
        fpc = (1 - tp[sel]).cumsum(0)
        tpc = tp[sel].cumsum(0)
        recall = tpc / (n_l + 1e-16)
        precision = tpc / (tpc + fpc)
        mrec = np.concatenate(([0.0], recall, [1.0]))
        mpre = np.concatenate(([1.0], precision, [0.0]))
        mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
        x = np.linspace(0, 1, 101)
        out[int(c)] = float(np.trapezoid(np.interp(x, mrec, mpre), x))
    return out


@st.composite
def voc_datasets(draw):
    gt, dt = draw(detection_datasets(max_images=4, max_categories=3, burst=False))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rate = draw(st.sampled_from((0.0, 0.2)))
    for a in gt["annotations"]:
        a["difficult"] = int(rng.random() < rate)
    return gt, dt


@settings(max_examples=examples(40), deadline=None)
@given(voc_datasets(), st.sampled_from(("voc07", "voc12")), st.sampled_from((0.5, 0.7)))
def test_voc_equal_to_the_devkit_loop(data, convention, thr):
    gt, dt = data
    ours = detection_ap(gt, dt, convention=convention, iou_threshold=thr)
    for c in ours.index:
        ref = voc_eval_reference(gt, dt, int(c), thr, convention == "voc07")
        np.testing.assert_allclose(ours[c], ref, rtol=0, atol=1e-12, equal_nan=True)


@settings(max_examples=examples(40), deadline=None)
@given(voc_datasets(), st.sampled_from((0.5, 0.75)))
def test_ultralytics_equal_to_its_loop(data, thr):
    gt, dt = data
    ours = detection_ap(gt, dt, convention="ultralytics", iou_threshold=thr)
    ref = ultralytics_reference(gt, dt, thr)
    for c in ours.index:
        np.testing.assert_allclose(
            ours[c], ref.get(int(c), np.nan), rtol=0, atol=1e-12, equal_nan=True
        )


@settings(max_examples=examples(25), deadline=None)
@given(detection_datasets(max_images=4), st.sampled_from((0.5, 0.75)))
def test_coco_convention_equal_to_pycocotools_per_category(data, thr):
    pytest.importorskip("pycocotools")
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    gt, dt = data
    with contextlib.redirect_stdout(io.StringIO()):
        cg = COCO()
        cg.dataset = copy.deepcopy(gt)
        cg.createIndex()
        ev = COCOeval(cg, cg.loadRes(copy.deepcopy(dt)), "bbox")
        ev.evaluate()
        ev.accumulate()
    t = int(np.flatnonzero(np.isclose(ev.params.iouThrs, thr))[0])
    p = ev.eval["precision"][t, :, :, 0, 2]
    ref = [np.mean(p[:, k]) if (p[:, k] > -1).any() else np.nan for k in range(p.shape[1])]
    ours = detection_ap(gt, dt, convention="coco", iou_threshold=thr)
    np.testing.assert_allclose(ours.to_numpy(), ref, rtol=0, atol=1e-12)


def _pair(gt_box, det_box, **ann):
    gt = {
        "images": [{"id": 1}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": gt_box, "iscrowd": 0, **ann}
        ],
    }
    return gt, [{"image_id": 1, "category_id": 1, "bbox": det_box, "score": 0.9}]


def test_iou_exactly_half_counts_for_coco_not_for_voc_without_the_pixel():
    # IoU 200/400 = 0.5: COCO's ">=" matches; VOC's "+1" makes it 11*21/(11*21 + 10*21) > 0.5.
    gt, dt = _pair([0, 0, 10, 20], [0, 0, 10, 10])
    assert detection_ap(gt, dt, convention="coco")[1] == pytest.approx(1.0)
    assert detection_ap(gt, dt, convention="voc07")[1] == pytest.approx(1.0)
    # 0 <-> 20 vs 10 <-> 30 wide, 20 high: with +1, 11*21 / (2*21*21 - 11*21) = 11/31 < 0.5
    gt, dt = _pair([0, 0, 20, 20], [10, 0, 20, 20])
    assert detection_ap(gt, dt, convention="voc12")[1] == 0.0


def test_difficult_ground_truth_is_neither_counted_nor_penalised_by_voc():
    gt, dt = _pair([0, 0, 40, 40], [0, 0, 40, 40], difficult=1)
    assert np.isnan(detection_ap(gt, dt, convention="voc12")[1])


def test_unknown_convention_is_a_sentence():
    gt, dt = _pair([0, 0, 40, 40], [0, 0, 40, 40])
    with pytest.raises(ValueError, match="convention='yolo' is not one of 'coco'"):
        detection_ap(gt, dt, convention="yolo")


def test_a_perfect_detector_scores_0995_under_ultralytics():
    # Its recall sentinel repeats 1.0, so np.interp reads precision 0 at recall 1 and the last
    # trapezoid is half: 0.995, where COCO and VOC give 1.
    gt, dt = _pair([0, 0, 40, 40], [0, 0, 40, 40])
    g = load_ground_truth(gt)
    d = load_detections(dt, g)
    assert detection_ap(g, d, convention="ultralytics")[1] == pytest.approx(0.995, abs=1e-12)
    assert detection_ap(g, d, convention="voc12")[1] == 1.0


def test_voc_needs_overlap_strictly_above_the_threshold():
    # With +1 sizes: det 10 x 10 pixels inside gt 20 x 10 pixels -> overlap exactly 100/200.
    gt, dt = _pair([0, 0, 19, 9], [0, 0, 9, 9])
    assert detection_ap(gt, dt, convention="voc12")[1] == 0.0
    assert detection_ap(gt, dt, convention="voc07", iou_threshold=0.49)[1] == pytest.approx(1.0)


def test_voc07_thresholds_are_numpy_arange_values():
    # 10 objects, the 3 best detections hit 3 of them: recall reaches exactly 3/10, but the
    # devkit's third threshold is np.arange's 0.30000000000000004, so it reads precision 0
    # there: AP = 3/11, not 4/11.
    boxes = [[i * 50, 0, 40, 40] for i in range(10)]
    gt = {
        "images": [{"id": 1}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {"id": i + 1, "image_id": 1, "category_id": 1, "bbox": b, "iscrowd": 0}
            for i, b in enumerate(boxes)
        ],
    }
    dt = [{"image_id": 1, "category_id": 1, "bbox": boxes[i], "score": 0.9} for i in range(3)]
    assert detection_ap(gt, dt, convention="voc07")[1] == pytest.approx(3 / 11, abs=1e-15)


def test_ultralytics_prediction_equidistant_from_two_objects_takes_the_later_one():
    # The first prediction overlaps A and B equally (IoU 0.2) and takes B, the later object;
    # the second sits exactly on B, finds it taken by an earlier prediction and is a FP.
    gt = {
        "images": [{"id": 1}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "iscrowd": 0},
            {"id": 2, "image_id": 1, "category_id": 1, "bbox": [20, 0, 10, 10], "iscrowd": 0},
        ],
    }
    dt = [
        {"image_id": 1, "category_id": 1, "bbox": [5, 0, 20, 10], "score": 0.9},
        {"image_id": 1, "category_id": 1, "bbox": [20, 0, 10, 10], "score": 0.8},
    ]
    ap = detection_ap(gt, dt, convention="ultralytics", iou_threshold=0.15)[1]
    assert ap == pytest.approx(ultralytics_reference(gt, dt, 0.15)[1], abs=1e-12)
    assert ap < 0.9  # one object found of two (both found: 0.995)
