"""The precision-recall curve behind each convention's AP, with the points it samples.

One category at one IoU threshold: the raw curve (one point a detection, in the convention's
rank order), the interpolated envelope the convention integrates, and the recall points it reads
(COCO's 101, VOC 2007's 11, VOC 2012's every recall step, Ultralytics' 101 ``np.interp`` points).
The AP recomputed from these points equals :func:`metrics.detection.detection_ap`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.detection.coco import AREA_RANGES, RECALL_THRESHOLDS, coco_match
from metrics.detection.conventions import CONVENTIONS, _image_rank, matched_flags

__all__ = ["DetectionPRCurve", "detection_pr_curve"]


@dataclass(frozen=True)
class DetectionPRCurve:
    """A category's PR curve under one convention.

    Attributes
    ----------
    recall, precision : ndarray of shape (n_points,)
        One point a counted detection, in rank order.
    envelope : ndarray of shape (n_points,)
        The precision the convention integrates (non-increasing from the right).
    sample_recall, sample_precision : ndarray of shape (n_samples,)
        Where the convention reads the curve and what it reads (101, 11 or every step).
    ap : float
        The convention's AP from these points (NaN without ground truth it counts).
    """

    convention: str
    category_id: int
    iou_threshold: float
    recall: np.ndarray
    precision: np.ndarray
    envelope: np.ndarray
    sample_recall: np.ndarray
    sample_precision: np.ndarray
    ap: float
    n_positives: int


def _envelope(p: np.ndarray) -> np.ndarray:
    return np.maximum.accumulate(p[::-1])[::-1] if p.size else p


def detection_pr_curve(
    ground_truth, detections, *, category, convention: str = "coco", iou_threshold: float = 0.5
) -> DetectionPRCurve:
    """The PR curve of ``category`` (an id of the ground truth) under ``convention``."""
    from metrics.detection.io import load_detections, load_ground_truth

    if convention not in CONVENTIONS:
        raise ValueError(
            f"convention={convention!r} is not one of {', '.join(repr(c) for c in CONVENTIONS)}."
        )
    gt = load_ground_truth(ground_truth)
    dt = load_detections(detections, gt)
    where = np.flatnonzero(gt.category_ids == category)
    if where.size == 0:
        raise ValueError(f"category {category!r} is not in the ground truth.")
    k = int(where[0])
    thr = float(iou_threshold)
    empty = np.zeros(0)
    if convention == "coco":
        m = coco_match(gt, dt, iou_thresholds=np.array([thr]), area_ranges=AREA_RANGES[:1])
        rows = np.flatnonzero(dt.category[m.kept] == k)
        order = rows[np.lexsort((m.rank[rows], dt.image[m.kept][rows], -dt.score[m.kept][rows]))]
        tp = m.tp[order, 0, 0]
        counted = ~m.ignored[order, 0, 0]
        n_pos = int(((~m.gt_ignored[:, 0]) & (gt.category == k)).sum())
        tpc = np.cumsum(tp, dtype=np.int64)
        fpc = np.cumsum(~tp & counted, dtype=np.int64)
        keep = counted  # ignored detections add no point
        if n_pos == 0:
            return DetectionPRCurve(
                convention, category, thr, empty, empty, empty, empty, empty, float("nan"), 0
            )
        rc = tpc / n_pos
        pr = tpc / ((fpc + tpc) + np.spacing(1))
        env = _envelope(pr)
        idx = np.searchsorted(rc, RECALL_THRESHOLDS, side="left")
        q = np.zeros(RECALL_THRESHOLDS.size)
        if rc.size:
            q = np.where(idx < rc.size, env[np.minimum(idx, rc.size - 1)], 0.0)
        return DetectionPRCurve(
            convention,
            category,
            thr,
            rc[keep],
            pr[keep],
            env[keep],
            RECALL_THRESHOLDS.copy(),
            q,
            float(np.mean(q)),
            n_pos,
        )
    tp_all, counted_all, npos = matched_flags(gt, dt, convention=convention, iou_threshold=thr)
    n_pos = int(npos[k])
    if convention == "ultralytics":
        order = np.lexsort((_image_rank(dt), dt.image, -dt.score))
    else:
        order = np.argsort(-dt.score, kind="stable")
    order = order[dt.category[order] == k]
    if convention != "ultralytics":
        order = order[counted_all[order]]
    tp = tp_all[order]
    if n_pos == 0:
        return DetectionPRCurve(
            convention, category, thr, empty, empty, empty, empty, empty, float("nan"), 0
        )
    tpc = np.cumsum(tp, dtype=np.float64)
    fpc = np.cumsum(~tp, dtype=np.float64)
    if convention == "ultralytics":
        rc = tpc / (n_pos + 1e-16)
        with np.errstate(invalid="ignore"):
            pr = tpc / (tpc + fpc)
        mrec = np.concatenate(([0.0], rc, [1.0]))
        mpre = np.flip(np.maximum.accumulate(np.flip(np.concatenate(([1.0], pr, [0.0])))))
        x = np.linspace(0, 1, 101)
        y = np.interp(x, mrec, mpre)
        ap = float(np.trapezoid(y, x)) if rc.size else 0.0
        return DetectionPRCurve(convention, category, thr, rc, pr, mpre[1:-1], x, y, ap, n_pos)
    rc = tpc / float(n_pos)
    pr = tpc / np.maximum(tpc + fpc, np.finfo(np.float64).eps)
    env = _envelope(pr)
    if convention == "voc07":
        ts = np.arange(0.0, 1.1, 0.1)
        idx = np.searchsorted(rc, ts, side="left")
        ps = np.array([env[i] if i < rc.size else 0.0 for i in idx])
        ap = 0.0
        for p in ps:
            ap = ap + p / 11.0
        return DetectionPRCurve(convention, category, thr, rc, pr, env, ts, ps, float(ap), n_pos)
    mrec = np.concatenate(([0.0], rc, [1.0]))
    mpre = _envelope(np.concatenate(([0.0], pr, [0.0])))
    i = np.flatnonzero(mrec[1:] != mrec[:-1])
    ap = float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))
    return DetectionPRCurve(
        convention, category, thr, rc, pr, env, mrec[i + 1], mpre[i + 1], ap, n_pos
    )
