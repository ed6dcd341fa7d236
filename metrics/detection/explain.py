"""One image's match, explained: every detection's outcome, the ground truth it took and its IoU.

:func:`match_image` runs the library's own matching (:func:`metrics.detection.coco_match`, the
code behind :func:`metrics.detection.coco_evaluate`; :func:`metrics.detection.matched_flags` for
PASCAL VOC) on the detections of one image and reads each detection's outcome off it:

``"tp"``
    a true positive: it took a ground truth that counts;
``"duplicate"``
    a false positive that overlaps a ground truth of its category enough (IoU >= t; VOC: its
    best overlap is above t) that a higher-scoring detection already took;
``"fp"``
    any other false positive (background, poor localisation, wrong category);
``"crowd"``
    ignored: it fell into a crowd region (COCO) — neither TP nor FP;
``"area"``
    ignored: outside the area range (its ground truth's area, or its own area when unmatched);
``"difficult"``
    ignored: VOC's best overlap is a "difficult" object (crowd regions count as difficult);
``"capped"``
    beyond COCO's ``max_det`` highest-scoring detections of its image and category: never
    evaluated.

:func:`image_costs` ranks the images by what their errors cost: COCO mAP@[.5:.95] with the
image left out minus with it (positive: the image pulls the mAP down).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import (
    AREA_LABELS,
    AREA_RANGES,
    IOU_THRESHOLDS,
    MAX_DETS,
    box_iou_pairs,
    coco_match,
)
from metrics.detection.compare import (
    IMAGES_BUDGET_ROWS,
    leave_one_image_out,
    loo_candidates,
    match_all_area,
    per_image_counts,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "EXPLAIN_CONVENTIONS",
    "OUTCOMES",
    "ImageCosts",
    "ImageMatch",
    "image_costs",
    "match_image",
]

OUTCOMES = {
    "tp": "true positive",
    "duplicate": "duplicate",
    "fp": "false positive",
    "crowd": "ignored: crowd region",
    "area": "ignored: area range",
    "difficult": "ignored: difficult",
    "capped": "beyond the 100 cap",
}
GT_OUTCOMES = {
    "found": "found",
    "missed": "missed",
    "crowd": "crowd region",
    "area": "outside the area range",
    "difficult": "difficult",
}
EXPLAIN_CONVENTIONS = ("coco", "voc")


@dataclass(frozen=True)
class ImageMatch:
    """Every detection of one image with its outcome; every ground truth with whether it was
    found. Detections are in the image's score order (highest first, file order on ties).

    Attributes
    ----------
    image_id : the image's id; image : its index in the ground truth
    convention : "coco" or "voc"; iou_threshold : float; area : str; max_det : int
    det_rows : ndarray of shape (n,) int64
        Rows of the image's detections in the full :class:`Detections`.
    category : ndarray (n,) int64, index into the ground truth's categories
    score : ndarray (n,); boxes : ndarray (n, 4) ``x, y, w, h``
    rank : ndarray (n,) int64
        Rank inside the detection's (image, category) group: the order the greedy match
        visits them (0 first).
    matched_gt : ndarray (n,) int64
        The ground-truth row it took, -1 if none.
    iou : ndarray (n,)
        IoU with the ground truth it took (NaN if none; VOC: the devkit's +1-pixel overlap).
    best_gt, best_iou : ndarray (n,)
        Its best-overlapping ground truth of the same category, taken or not (-1 / 0.0 if the
        image has none of its category).
    outcome : ndarray (n,) of str
        A key of :data:`OUTCOMES`.
    gt_rows : ndarray (m,) int64, the image's ground truths in file order
    gt_outcome : ndarray (m,) of str, a key of :data:`GT_OUTCOMES`
    gt_matched_by : ndarray (m,) int64, the detection row that took it, -1 if none
    iou_matrix : ndarray (n, m)
        IoU of every detection with every ground truth of the same category (NaN across
        categories), as the matching computes it.
    """

    image_id: object
    image: int
    convention: str
    iou_threshold: float
    area: str
    max_det: int
    det_rows: np.ndarray
    category: np.ndarray
    score: np.ndarray
    boxes: np.ndarray
    rank: np.ndarray
    matched_gt: np.ndarray
    iou: np.ndarray
    best_gt: np.ndarray
    best_iou: np.ndarray
    outcome: np.ndarray
    gt_rows: np.ndarray
    gt_outcome: np.ndarray
    gt_matched_by: np.ndarray
    iou_matrix: np.ndarray

    def counts(self) -> dict[str, int]:
        """How many detections have each outcome (every key of :data:`OUTCOMES`)."""
        return {k: int(np.count_nonzero(self.outcome == k)) for k in OUTCOMES}

    def frame(self, ground_truth: GroundTruth) -> pd.DataFrame:
        """One row a detection, in score order: what it is, what it took, its outcome."""
        import pandas as pd

        gt = ground_truth
        took = self.matched_gt >= 0
        ann = np.where(took, gt.ann_id[np.maximum(self.matched_gt, 0)], -1)
        return pd.DataFrame(
            {
                "detection": self.det_rows,
                "category": [gt.category_names[c] for c in self.category],
                "score": self.score,
                "x": self.boxes[:, 0],
                "y": self.boxes[:, 1],
                "w": self.boxes[:, 2],
                "h": self.boxes[:, 3],
                "matched_annotation": pd.array(
                    [int(a) if t else pd.NA for a, t in zip(ann, took, strict=True)],
                    dtype="Int64",
                ),
                "iou": self.iou,
                "best_iou": self.best_iou,
                "outcome": [OUTCOMES[o] for o in self.outcome],
            }
        )


def _image_index(gt: GroundTruth, image) -> int:
    ids = gt.image_ids
    hit = np.flatnonzero(np.array([v == image or str(v) == str(image) for v in ids.tolist()]))
    if hit.size == 0:
        raise ValueError(
            f"image {image!r} is not in the ground truth; give one of its image ids "
            f"({', '.join(str(v) for v in ids[:3].tolist())}{', ...' if ids.size > 3 else ''})."
        )
    return int(hit[0])


def _voc_iou(db: np.ndarray, gb: np.ndarray) -> np.ndarray:
    from metrics.detection.conventions import _voc_iou as voc_iou

    return voc_iou(db, gb)


def match_image(
    ground_truth: GroundTruth,
    detections: Detections,
    image,
    *,
    iou_threshold: float = 0.5,
    convention: str = "coco",
    area: str = "all",
    max_det: int = MAX_DETS[-1],
) -> ImageMatch:
    """The match of one image's detections, as the evaluation makes it, explained.

    Parameters
    ----------
    ground_truth : GroundTruth
    detections : Detections
        Read against ``ground_truth`` (:func:`metrics.detection.load_detections`).
    image
        An image id of the ground truth.
    iou_threshold : float, default 0.5
        COCO: a match needs IoU >= t; VOC: overlap strictly above t.
    convention : {"coco", "voc"}
        ``"coco"``: pycocotools' greedy match (:func:`coco_match`, as :func:`coco_evaluate`
        runs it) at one IoU threshold; ``"voc"``: the PASCAL VOC devkit's
        (:func:`metrics.detection.matched_flags`).
    area : {"all", "small", "medium", "large"}
        COCO's area range (ground truths outside it, and unmatched detections outside it,
        are ignored).
    max_det : int, default 100
        COCO's cap per image and category.

    Returns
    -------
    ImageMatch

    Examples
    --------
    >>> from metrics.detection import load_detections, load_ground_truth
    >>> gt = load_ground_truth({"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 40, 40], "area": 1600, "iscrowd": 0}]})
    >>> dt = load_detections([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 40, 38],
    ...                        "score": 0.9},
    ...                       {"image_id": 1, "category_id": 1, "bbox": [2, 0, 40, 40],
    ...                        "score": 0.8}], gt)
    >>> m = match_image(gt, dt, 1, iou_threshold=0.5)
    >>> m.outcome.tolist(), m.iou.round(3).tolist()
    (['tp', 'duplicate'], [0.95, nan])
    """
    gt, dt = ground_truth, detections
    if convention not in EXPLAIN_CONVENTIONS:
        raise ValueError(f"convention={convention!r} must be 'coco' or 'voc'.")
    if area not in AREA_LABELS:
        raise ValueError(f"area={area!r} must be one of {', '.join(map(repr, AREA_LABELS))}.")
    thr = float(iou_threshold)
    if not 0.0 <= thr <= 1.0:
        raise ValueError(f"iou_threshold={iou_threshold!r} must be between 0 and 1.")
    near = np.flatnonzero(np.isclose(IOU_THRESHOLDS, thr, rtol=0, atol=1e-9))
    if near.size:  # 0.55 typed is COCO's np.linspace value, to the bit
        thr = float(IOU_THRESHOLDS[near[0]])
    if int(max_det) < 1:
        raise ValueError(f"max_det={max_det!r} must be at least 1.")
    i = _image_index(gt, image)
    rows = np.flatnonzero(dt.image == i)
    rows = rows[np.argsort(-dt.score[rows], kind="stable")]  # the image's score order
    sub = dt.subset(rows)
    n = rows.size
    gt_rows = np.flatnonzero(gt.image == i)
    m = gt_rows.size
    same = sub.category[:, None] == gt.category[gt_rows][None, :]
    dpair, gpair = np.nonzero(same)
    if convention == "coco":
        v = box_iou_pairs(sub.boxes[dpair], gt.boxes[gt_rows[gpair]], gt.iscrowd[gt_rows[gpair]])
    else:
        v = _voc_iou(sub.boxes[dpair], gt.boxes[gt_rows[gpair]])
    iou_matrix = np.full((n, m), np.nan)
    iou_matrix[dpair, gpair] = v
    filled = np.where(same, iou_matrix, -np.inf)
    has = same.any(axis=1)
    # first maximum in file order, as the devkit's argmax
    best_col = np.argmax(filled, axis=1) if m else np.zeros(n, dtype=np.int64)
    best_gt = np.where(has, gt_rows[best_col] if m else -1, -1)
    best_iou = np.where(has, filled[np.arange(n), best_col] if m else 0.0, 0.0)

    matched = np.full(n, -1, dtype=np.int64)
    outcome = np.full(n, "fp", dtype=object)
    rank = np.zeros(n, dtype=np.int64)
    g_of = {int(g): k for k, g in enumerate(gt_rows)}
    if convention == "coco":
        a = AREA_LABELS.index(area)
        lo, hi = AREA_RANGES[a]
        match = coco_match(
            gt, sub, iou_thresholds=np.array([thr]), area_ranges=(AREA_RANGES[a],), max_det=max_det
        )
        kept = match.kept
        rank_all = _group_rank(sub)
        rank = rank_all
        outcome[:] = "capped"
        g = match.gt[:, 0, 0].astype(np.int64)
        tp, ign = match.tp[:, 0, 0], match.ignored[:, 0, 0]
        matched[kept] = g
        gt_ig = match.gt_ignored[:, 0]
        out = np.full(kept.size, "fp", dtype=object)
        out[tp] = "tp"
        took = g >= 0
        crowd = np.zeros(kept.size, dtype=bool)
        crowd[took] = ign[took] & gt.iscrowd[g[took]]
        out[ign] = "area"
        out[crowd] = "crowd"
        # An unmatched false positive that overlaps a counted ground truth of its category
        # enough: that ground truth was taken before it (else the greedy match takes it).
        counted = ~gt_ig[gt_rows]
        ok = np.where(same & counted[None, :], iou_matrix, -np.inf)
        over = (ok >= min(thr, 1 - 1e-10)).any(axis=1) if m else np.zeros(n, dtype=bool)
        out[(out == "fp") & ~took & over[kept]] = "duplicate"
        outcome[kept] = out
        gt_outcome = np.where(gt.iscrowd[gt_rows], "crowd", "missed").astype(object)
        area_out = (gt.area[gt_rows] < lo) | (gt.area[gt_rows] > hi)
        gt_outcome[area_out & ~gt.iscrowd[gt_rows]] = "area"
    else:
        from metrics.detection.conventions import matched_flags

        rank = _group_rank(sub)
        tp, counted_d, _ = matched_flags(gt, sub, convention="voc12", iou_threshold=thr)
        difficult = gt.difficult | gt.iscrowd
        # The devkit's rule: a detection looks only at its best overlap.
        matched[tp] = best_gt[tp]
        outcome[tp] = "tp"
        outcome[~counted_d] = "difficult"
        dup = ~tp & counted_d & has & (best_iou > thr)
        dup[dup] = ~difficult[best_gt[dup]]
        outcome[dup] = "duplicate"
        gt_outcome = np.where(difficult[gt_rows], "difficult", "missed").astype(object)
    iou = np.full(n, np.nan)
    took = matched >= 0
    cols = np.array([g_of[int(g)] for g in matched[took]], dtype=np.int64)
    iou[took] = iou_matrix[np.flatnonzero(took), cols]
    gt_matched_by = np.full(m, -1, dtype=np.int64)
    real = took & (outcome == "tp")
    gt_matched_by[cols[real[took]]] = rows[real]
    found = gt_matched_by >= 0
    gt_outcome[found] = "found"
    return ImageMatch(
        image_id=gt.image_ids[i].item() if hasattr(gt.image_ids[i], "item") else gt.image_ids[i],
        image=i,
        convention=convention,
        iou_threshold=thr,
        area=area,
        max_det=int(max_det),
        det_rows=rows,
        category=sub.category,
        score=sub.score,
        boxes=sub.boxes,
        rank=rank,
        matched_gt=matched,
        iou=iou,
        best_gt=best_gt.astype(np.int64),
        best_iou=best_iou.astype(np.float64),
        outcome=outcome.astype(str),
        gt_rows=gt_rows,
        gt_outcome=gt_outcome.astype(str),
        gt_matched_by=gt_matched_by,
        iou_matrix=iou_matrix,
    )


def _group_rank(dt: Detections) -> np.ndarray:
    """Each detection's rank inside its category (the rows are already in score order)."""
    rank = np.zeros(len(dt), dtype=np.int64)
    for c in np.unique(dt.category):
        where = np.flatnonzero(dt.category == c)
        rank[where] = np.arange(where.size)
    return rank


@dataclass(frozen=True)
class ImageCosts:
    """What each image's errors cost, at COCO's area "all" and 100 detections an image.

    Attributes
    ----------
    image_ids : ndarray (n_images,)
    n_gt : ndarray (n_images,) int64, ground truths that count (crowd regions left out)
    n_det : ndarray (n_images,) int64, detections evaluated (the 100 cap applied)
    tp, fp, missed : ndarray (n_images,) int64, at IoU 0.5
    errors : ndarray (n_images,) float
        False positives plus missed ground truths, averaged over the 10 IoU thresholds: the
        order in which images are tried for ``cost``.
    cost : ndarray (n_images,) float
        COCO mAP@[.5:.95] without the image minus with it (positive: the image pulls the mAP
        down); NaN for images not tried (beyond the budget).
    map : float, the mAP with every image
    """

    image_ids: np.ndarray
    n_gt: np.ndarray
    n_det: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    missed: np.ndarray
    errors: np.ndarray
    cost: np.ndarray
    map: float

    @property
    def worst(self) -> int:
        """Index of the image whose errors cost most (the most errors if none was tried)."""
        if np.isfinite(self.cost).any():
            return int(np.nanargmax(self.cost))
        return int(np.argmax(self.errors)) if self.errors.size else 0

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            {
                "image_id": self.image_ids,
                "ground truths": self.n_gt,
                "detections": self.n_det,
                "TP@0.5": self.tp,
                "FP@0.5": self.fp,
                "missed@0.5": self.missed,
                "mAP cost": self.cost,
            }
        )


def image_costs(
    ground_truth: GroundTruth, detections: Detections, *, budget: int = IMAGES_BUDGET_ROWS
) -> ImageCosts:
    """Every image's TP / FP / missed at IoU 0.5 and, for the images with the most errors,
    what leaving it out does to COCO mAP@[.5:.95] (area "all", 100 detections an image).

    One accumulation per image tried: images are tried most errors first until ``budget``
    detection rows have been accumulated (all images of a small set, a few of COCO val).
    """
    gt, dt = ground_truth, detections
    match = match_all_area(gt, dt, IOU_THRESHOLDS)
    c = per_image_counts(gt, dt, match)
    errors = (c["fp"] + c["missed"]).mean(axis=1)
    tried = loo_candidates(errors, match.kept.size, budget)
    full, without = leave_one_image_out(gt, dt, match, tried)
    cost = np.full(gt.n_images, np.nan)
    cost[tried] = without - full
    n_det = np.bincount(dt.image[match.kept], minlength=gt.n_images)
    return ImageCosts(
        image_ids=gt.image_ids,
        n_gt=c["n_gt"],
        n_det=n_det,
        tp=c["tp"][:, 0],
        fp=c["fp"][:, 0],
        missed=c["missed"][:, 0],
        errors=errors,
        cost=cost,
        map=full,
    )
