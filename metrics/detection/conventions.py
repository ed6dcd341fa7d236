"""AP per category under each library's convention: COCO, PASCAL VOC 2007 / 2012, Ultralytics.

The same boxes give different APs because the libraries differ in five rules; each function
here follows one library's arithmetic (facts carried over from its source, not its code):

``"coco"`` (pycocotools ``cocoeval.py``)
    IoU >= t; each detection takes the best still-free ground truth (crowd regions absorb
    detections); at most 100 detections an image; precision read at 101 recall points.
``"voc07"`` / ``"voc12"`` (the PASCAL VOC devkit's ``VOCevaldet``, as ported in py-faster-rcnn's
``voc_eval.py``)
    Boxes are inclusive pixel ranges, so sizes are ``x2 - x1 + 1`` (here ``x2 = x + w``); a
    detection looks only at its best-overlapping ground truth (taken or not) and is a TP when
    that overlap is *strictly above* the threshold (``ovmax > ovthresh``) and the ground truth
    is neither "difficult" nor already taken; a difficult best match is neither TP nor FP.
    Precision is ``tp / max(tp + fp, eps)``. voc07 averages the best precision at recall
    >= t for the 11 values of ``np.arange(0, 1.1, 0.1)``; voc12 integrates the interpolated
    envelope over every recall step. Detections are ranked by score with a stable sort (the
    MATLAB devkit's ``sort``; the Python port's default ``argsort`` leaves ties unordered).
    Crowd regions are treated as difficult (neither counted nor penalised), the nearest the
    devkit has; ``difficult`` is read from the ground truth where it exists.
``"ultralytics"`` (``ultralytics/engine/validator.py`` ``match_predictions`` and
``ultralytics/utils/metrics.py`` ``ap_per_class`` / ``compute_ap``)
    Crowd and difficult ground truths are dropped (its dataset converters skip them). In each
    image, every prediction takes its highest-IoU ground truth with IoU >= t (ties: the later
    ground truth); a ground truth chosen by several keeps the first prediction in the image's
    score order; the others are FP even if another ground truth was free. Recall is
    ``tp / (n + 1e-16)``; the envelope starts at precision 1 (sentinel) and AP is the
    trapezoid of ``np.interp`` at 101 recall points. IoU has ``+ 1e-7`` in the union.
"""

from __future__ import annotations

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import AREA_RANGES, _accumulate, coco_match

__all__ = ["CONVENTIONS", "detection_ap", "matched_flags"]

CONVENTIONS = ("coco", "voc07", "voc12", "ultralytics")


def _xyxy(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x1, y1 = boxes[:, 0], boxes[:, 1]
    return x1, y1, x1 + boxes[:, 2], y1 + boxes[:, 3]


def _pairs(gt: GroundTruth, dt: Detections, gt_rows: np.ndarray):
    """Every (detection, ground truth) pair of the same image and category; gts in file order."""
    n_cat = gt.n_categories
    ggroup = (gt.image * n_cat + gt.category)[gt_rows]
    gorder = gt_rows[np.argsort(ggroup, kind="stable")]
    gsorted = np.sort(ggroup, kind="stable")
    dgroup = dt.image * n_cat + dt.category
    start = np.searchsorted(gsorted, dgroup, side="left")
    count = np.searchsorted(gsorted, dgroup, side="right") - start
    n = int(count.sum())
    pd_ = np.repeat(np.arange(len(dt)), count)
    off = np.arange(n) - np.repeat(np.cumsum(count) - count, count)
    pg = gorder[np.repeat(start, count) + off]
    return pd_, pg


def _voc_iou(db: np.ndarray, gb: np.ndarray) -> np.ndarray:
    """The devkit's overlap of aligned pairs, +1 pixel sizes, in its operation order."""
    bx1, by1, bx2, by2 = _xyxy(db)
    gx1, gy1, gx2, gy2 = _xyxy(gb)
    iw = np.maximum(np.minimum(gx2, bx2) - np.maximum(gx1, bx1) + 1.0, 0.0)
    ih = np.maximum(np.minimum(gy2, by2) - np.maximum(gy1, by1) + 1.0, 0.0)
    inters = iw * ih
    uni = (bx2 - bx1 + 1.0) * (by2 - by1 + 1.0) + (gx2 - gx1 + 1.0) * (gy2 - gy1 + 1.0) - inters
    return inters / uni


def _ultra_iou(db: np.ndarray, gb: np.ndarray) -> np.ndarray:
    bx1, by1, bx2, by2 = _xyxy(db)
    gx1, gy1, gx2, gy2 = _xyxy(gb)
    iw = np.clip(np.minimum(gx2, bx2) - np.maximum(gx1, bx1), 0, None)
    ih = np.clip(np.minimum(gy2, by2) - np.maximum(gy1, by1), 0, None)
    inter = iw * ih
    return inter / ((gx2 - gx1) * (gy2 - gy1) + (bx2 - bx1) * (by2 - by1) - inter + 1e-7)


def _first_per_key(keys: np.ndarray, order_value: np.ndarray) -> np.ndarray:
    """Mask of the rows that have the smallest ``order_value`` among rows with the same key."""
    if keys.size == 0:
        return np.zeros(0, dtype=bool)
    o = np.lexsort((order_value, keys))
    first = np.ones(o.size, dtype=bool)
    first[1:] = keys[o][1:] != keys[o][:-1]
    out = np.zeros(keys.size, dtype=bool)
    out[o[first]] = True
    return out


def matched_flags(
    ground_truth: GroundTruth, detections: Detections, *, convention: str, iou_threshold=0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each detection's outcome under a VOC or Ultralytics convention.

    Returns
    -------
    tp, counted : ndarray of shape (n_detections,) bool
        TP; and whether the detection counts at all (VOC: False when its best match is
        difficult).
    n_positives : ndarray of shape (n_categories,) int64
        Ground truths each category's recall divides by.
    """
    gt, dt = ground_truth, detections
    n = len(dt)
    tp = np.zeros(n, dtype=bool)
    counted = np.ones(n, dtype=bool)
    if convention in ("voc07", "voc12"):
        difficult = gt.difficult | gt.iscrowd
        pd_, pg = _pairs(gt, dt, np.arange(len(gt)))
        ov = _voc_iou(dt.boxes[pd_], gt.boxes[pg])
        # Best overlap of each detection, first maximum in file order (np.argmax).
        o = np.lexsort((np.arange(pd_.size), -ov, pd_))
        first = np.ones(o.size, dtype=bool)
        first[1:] = pd_[o][1:] != pd_[o][:-1]
        best = o[first]
        det, g, ovmax = pd_[best], pg[best], ov[best]
        hit = ovmax > iou_threshold
        counted[det[hit & difficult[g]]] = False
        cand = hit & ~difficult[g]
        # Among detections whose best is the same gt, the first in score order takes it.
        d_c, g_c = det[cand], g[cand]
        rank = _score_rank(dt)
        tp[d_c[_first_per_key(g_c, rank[d_c])]] = True
        npos = np.bincount(gt.category[~difficult], minlength=gt.n_categories)
        return tp, counted, npos
    if convention == "ultralytics":
        keep = ~(gt.difficult | gt.iscrowd)
        pd_, pg = _pairs(gt, dt, np.flatnonzero(keep))
        iou = _ultra_iou(dt.boxes[pd_], gt.boxes[pg])
        ok = iou >= iou_threshold
        pd_, pg, iou = pd_[ok], pg[ok], iou[ok]
        # Each prediction's best gt: highest IoU, ties to the later gt (the reversed sort).
        o = np.lexsort((-pg, -iou, pd_))
        first = np.ones(o.size, dtype=bool)
        first[1:] = pd_[o][1:] != pd_[o][:-1]
        det, g = pd_[o[first]], pg[o[first]]
        # A gt chosen by several keeps the first prediction of its image (score order).
        within = _image_rank(dt)
        tp[det[_first_per_key(g, within[det])]] = True
        npos = np.bincount(gt.category[keep], minlength=gt.n_categories)
        return tp, counted, npos
    raise ValueError(
        f"convention={convention!r} is not one of {', '.join(repr(c) for c in CONVENTIONS)}."
    )


def _score_rank(dt: Detections) -> np.ndarray:
    """Position of each detection in the order by -score, file order breaking ties."""
    order = np.argsort(-dt.score, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank


def _image_rank(dt: Detections) -> np.ndarray:
    """Position of each detection inside its image by -score (an NMS output's order)."""
    order = np.lexsort((-dt.score, dt.image))
    img = dt.image[order]
    start = np.ones(img.size, dtype=bool)
    start[1:] = img[1:] != img[:-1]
    first = np.flatnonzero(start)
    counts = np.diff(np.append(first, img.size))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size) - np.repeat(first, counts)
    return rank


def _voc_ap(tp: np.ndarray, fp: np.ndarray, npos: int, use_07: bool) -> float:
    tpc = np.cumsum(tp, dtype=np.float64)
    fpc = np.cumsum(fp, dtype=np.float64)
    rec = tpc / float(npos)
    prec = tpc / np.maximum(tpc + fpc, np.finfo(np.float64).eps)
    if use_07:
        env = np.maximum.accumulate(prec[::-1])[::-1] if prec.size else prec
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            i = np.searchsorted(rec, t, side="left")
            ap = ap + (env[i] if i < rec.size else 0.0) / 11.0
        return float(ap)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    i = np.flatnonzero(mrec[1:] != mrec[:-1])
    return float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))


def _ultra_ap(tp: np.ndarray, n_labels: int) -> float:
    tpc = np.cumsum(tp, dtype=np.float64)
    fpc = np.cumsum(1 - tp.astype(np.int64), dtype=np.float64)
    recall = tpc / (n_labels + 1e-16)
    precision = tpc / (tpc + fpc)
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


def detection_ap(ground_truth, detections, *, convention: str, iou_threshold: float = 0.5):
    """AP per category under ``convention`` ("coco", "voc07", "voc12", "ultralytics").

    Parameters
    ----------
    ground_truth, detections
        As :func:`metrics.detection.coco_evaluate` takes them.
    convention : str
        Whose arithmetic (see the module docstring for what each one does).
    iou_threshold : float, default 0.5
        The IoU a match needs (``>=`` for COCO and Ultralytics, ``>`` for VOC).

    Returns
    -------
    pandas.Series
        AP indexed by category id; NaN for a category with no ground truth it counts.

    Examples
    --------
    >>> from metrics.detection import detection_ap
    >>> gt = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 20], "area": 200, "iscrowd": 0}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]
    >>> detection_ap(gt, dt, convention="coco").round(4).tolist()  # IoU 0.5 >= 0.5
    [1.0]
    >>> detection_ap(gt, dt, convention="voc07").round(4).tolist()  # 121/231 > 0.5 with +1
    [1.0]
    """
    import pandas as pd

    from metrics.detection.io import load_detections, load_ground_truth

    if convention not in CONVENTIONS:
        raise ValueError(
            f"convention={convention!r} is not one of {', '.join(repr(c) for c in CONVENTIONS)}."
        )
    thr = float(iou_threshold)
    if not 0.0 <= thr <= 1.0:
        raise ValueError(f"iou_threshold={iou_threshold!r} must be between 0 and 1.")
    gt = load_ground_truth(ground_truth)
    dt = load_detections(detections, gt)
    n_cat = gt.n_categories
    ap = np.full(n_cat, np.nan)
    if convention == "coco":
        match = coco_match(gt, dt, iou_thresholds=np.array([thr]), area_ranges=AREA_RANGES[:1])
        precision, _, _ = _accumulate(gt, dt, match, max_dets=(100,))
        p = precision[0, :, :, 0, 0]  # (R, K)
        has = (p > -1).any(axis=0)
        ap[has] = p[:, has].mean(axis=0)
    else:
        tp, counted, npos = matched_flags(gt, dt, convention=convention, iou_threshold=thr)
        if convention == "ultralytics":
            order = np.lexsort((_image_rank(dt), dt.image, -dt.score))
        else:
            order = np.argsort(-dt.score, kind="stable")
        cat_sorted = dt.category[order]
        for k in range(n_cat):
            if npos[k] == 0:
                continue
            rows = order[cat_sorted == k]
            if convention == "ultralytics":
                ap[k] = _ultra_ap(tp[rows], int(npos[k])) if rows.size else 0.0
            else:
                rows = rows[counted[rows]]
                ap[k] = _voc_ap(tp[rows], ~tp[rows], int(npos[k]), convention == "voc07")
    return pd.Series(ap, index=pd.Index(gt.category_ids, name="category_id"), name="ap")
