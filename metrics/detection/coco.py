"""COCO's box AP with pycocotools' arithmetic, without its loops.

pycocotools' ``COCOeval`` matches each (image, category) on its own, in Python, once per area
range and IoU threshold. The greedy match is sequential only inside one (image, category)
group: the d-th detection of a group sees the ground truths the first d - 1 took. So every
group is matched at once, one step per detection rank (at most ``maxDets[-1]`` = 100 steps),
for all 4 area ranges x 10 IoU thresholds together; the matched flags then go to one
cumulative-count pass per category.

The facts carried over from pycocotools 2.0 (``cocoeval.py``, ``maskApi.c``):

- Detections of a group are sorted by ``-score`` with a stable sort (file order breaks ties)
  and cut to the first 100; a result's area is ``w * h``; a ground truth's is its ``area``.
- IoU is ``intersection / union`` with ``w = min(x+w) - max(x)`` (0 unless > 0); for a crowd
  region the union is the detection's area.
- A ground truth is ignored when it is a crowd region or its area is outside the range; ignored
  ground truths come last. Each detection takes, among the ground truths it may still take
  (unmatched, or a crowd region), the non-ignored one with the highest IoU >= t (ties: the
  later one), else the ignored one with the highest IoU; ``t`` is capped at ``1 - 1e-10``.
- A matched detection is ignored when its ground truth is; an unmatched detection is ignored
  when its own area is outside the range. A match to annotation id 0 counts as unmatched
  (pycocotools stores the matched id and tests it against 0).
- Per category, the detections of all images (each cut to maxDet) are concatenated in image-id
  order and sorted by ``-score`` with a stable sort; precision is ``tp / (tp + fp + eps)``
  made non-increasing from the right and read at the first index where recall >= each of the
  101 recall thresholds (0 past the end); recall is the last recall. A category with no
  non-ignored ground truth is -1 and left out of the means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "AREA_LABELS",
    "AREA_RANGES",
    "IOU_THRESHOLDS",
    "MAX_DETS",
    "RECALL_THRESHOLDS",
    "STAT_NAMES",
    "COCOEvaluation",
    "MatchResult",
    "coco_evaluate",
    "coco_match",
]

# The same floating-point values as pycocotools' Params (np.linspace, not np.arange).
IOU_THRESHOLDS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
RECALL_THRESHOLDS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
MAX_DETS = (1, 10, 100)
AREA_RANGES = ((0.0**2, 1e5**2), (0.0**2, 32.0**2), (32.0**2, 96.0**2), (96.0**2, 1e5**2))
AREA_LABELS = ("all", "small", "medium", "large")

# (ap?, iou threshold or None, area label, maxDets) in pycocotools' summarize() order.
_STAT_SPECS = (
    (True, None, "all", 100),
    (True, 0.5, "all", 100),
    (True, 0.75, "all", 100),
    (True, None, "small", 100),
    (True, None, "medium", 100),
    (True, None, "large", 100),
    (False, None, "all", 1),
    (False, None, "all", 10),
    (False, None, "all", 100),
    (False, None, "small", 100),
    (False, None, "medium", 100),
    (False, None, "large", 100),
)
STAT_NAMES = (
    "AP",
    "AP50",
    "AP75",
    "AP_small",
    "AP_medium",
    "AP_large",
    "AR1",
    "AR10",
    "AR100",
    "AR_small",
    "AR_medium",
    "AR_large",
)


def box_iou_pairs(det_boxes: np.ndarray, gt_boxes: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """pycocotools' ``bbIou`` for aligned pairs (row i of each), in its operation order."""
    dx, dy, dw, dh = det_boxes.T
    gx, gy, gw, gh = gt_boxes.T
    w = np.minimum(dw + dx, gw + gx) - np.maximum(dx, gx)
    h = np.minimum(dh + dy, gh + gy) - np.maximum(dy, gy)
    da = dw * dh
    ga = gw * gh
    inter = w * h
    union = np.where(crowd, da, da + ga - inter)
    out = np.zeros(w.shape, dtype=np.float64)
    ok = (w > 0) & (h > 0)
    np.divide(inter, union, out=out, where=ok)
    return out


@dataclass(frozen=True)
class MatchResult:
    """The greedy match of every kept detection at every area range and IoU threshold.

    Attributes
    ----------
    kept : ndarray of shape (n_kept,) int64
        Rows of the detections kept (the first ``max_det`` of each image and category by score).
    rank : ndarray of shape (n_kept,) int64
        Each kept detection's rank inside its (image, category) group, 0 = highest score.
    gt : ndarray of shape (n_kept, n_areas, n_thresholds) int64
        The ground-truth row each detection matched, -1 if none.
    tp, ignored : ndarray of shape (n_kept, n_areas, n_thresholds) bool
        pycocotools' ``dtm != 0 and not dtIgnore`` and ``dtIgnore``.
    gt_ignored : ndarray of shape (n_gt, n_areas) bool
    """

    kept: np.ndarray
    rank: np.ndarray
    gt: np.ndarray
    tp: np.ndarray
    ignored: np.ndarray
    gt_ignored: np.ndarray


def _group_ranks(group: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by (group, -score, file order) and each row's rank inside its group."""
    order = np.lexsort((-score, group))
    g = group[order]
    start = np.ones(g.size, dtype=bool)
    start[1:] = g[1:] != g[:-1]
    first = np.flatnonzero(start)
    counts = np.diff(np.append(first, g.size))
    rank = np.arange(g.size) - np.repeat(first, counts)
    return order, rank


def coco_match(
    ground_truth: GroundTruth,
    detections: Detections,
    *,
    iou_thresholds: np.ndarray = IOU_THRESHOLDS,
    area_ranges=AREA_RANGES,
    max_det: int = MAX_DETS[-1],
) -> MatchResult:
    """pycocotools' ``evaluateImg`` for every image and category at once (see module doc)."""
    gt, dt = ground_truth, detections
    n_cat = gt.n_categories
    thr = np.minimum(np.asarray(iou_thresholds, dtype=np.float64), 1 - 1e-10)
    n_t, n_a = thr.size, len(area_ranges)
    lo = np.array([a[0] for a in area_ranges], dtype=np.float64)
    hi = np.array([a[1] for a in area_ranges], dtype=np.float64)

    # Detections: sorted within (image, category) and cut to max_det.
    dgroup = dt.image * n_cat + dt.category
    order, rank = _group_ranks(dgroup, dt.score)
    keep = rank < max_det
    kept, rank = order[keep], rank[keep]
    n_kept = kept.size
    kgroup = dgroup[kept]

    # Ground truths grouped by (image, category), file order inside a group.
    ggroup = gt.image * n_cat + gt.category
    gorder = np.argsort(ggroup, kind="stable")
    gsorted = ggroup[gorder]
    gstart = np.searchsorted(gsorted, kgroup, side="left")
    gcount = np.searchsorted(gsorted, kgroup, side="right") - gstart
    gt_ignored = gt.iscrowd[:, None] | (gt.area[:, None] < lo) | (gt.area[:, None] > hi)

    # Every (detection, ground truth) pair of a group that could ever match.
    n_pairs = int(gcount.sum())
    pair_det = np.repeat(np.arange(n_kept), gcount)
    offsets = np.arange(n_pairs) - np.repeat(np.cumsum(gcount) - gcount, gcount)
    pair_gt = gorder[np.repeat(gstart, gcount) + offsets]
    iou = box_iou_pairs(dt.boxes[kept[pair_det]], gt.boxes[pair_gt], gt.iscrowd[pair_gt])
    useful = iou >= thr.min() if thr.size else np.zeros(n_pairs, dtype=bool)
    pair_det, pair_gt, iou = pair_det[useful], pair_gt[useful], iou[useful]

    # Inside a detection, the pair it prefers comes last: non-ignored first, then higher IoU,
    # then the later ground truth (pycocotools replaces its best on an equal IoU).
    pos = np.argsort(gorder, kind="stable")[pair_gt]  # position of the gt in file order
    p_order = np.lexsort((pos, iou, pair_det, rank[pair_det]))
    pair_det, pair_gt, iou = pair_det[p_order], pair_gt[p_order], iou[p_order]
    n_p = pair_det.size
    key = (~gt_ignored[pair_gt]).astype(np.int64) * n_p + np.arange(n_p)[:, None]  # (P, A)
    iou_ok = iou[:, None] >= thr[None, :]  # (P, T)
    crowd = gt.iscrowd[pair_gt]

    match_gt = np.full((n_kept, n_a, n_t), -1, dtype=np.int32 if len(gt) < 2**31 else np.int64)
    taken = np.zeros((len(gt), n_a, n_t), dtype=bool)
    bounds = np.searchsorted(rank[pair_det], np.arange(max_det + 1))
    found: list[tuple[np.ndarray, ...]] = []
    for r in range(max_det):
        s, e = bounds[r], bounds[r + 1]
        if s == e:
            continue
        pg = pair_gt[s:e]
        free = ~taken[pg] | crowd[s:e, None, None]
        elig = free & iou_ok[s:e, None, :]
        val = np.where(elig, key[s:e, :, None], -1)
        pd_ = pair_det[s:e]
        seg = np.flatnonzero(np.r_[True, pd_[1:] != pd_[:-1]])
        best = np.maximum.reduceat(val, seg, axis=0)
        d_i, a_i, t_i = np.nonzero(best >= 0)
        chosen = best[d_i, a_i, t_i] % n_p
        g = pair_gt[chosen]
        taken[g, a_i, t_i] = True
        found.append((pd_[seg[d_i]], a_i, t_i, g))

    # Only the matches are touched: a (n_kept, areas, thresholds) gather would cost more.
    d_i, a_i, t_i, g = (
        (np.concatenate(x) for x in zip(*found, strict=True))
        if found
        else (np.zeros(0, dtype=np.int64),) * 4
    )
    match_gt[d_i, a_i, t_i] = g
    # pycocotools keeps the matched annotation id and reads 0 as "no match".
    dtm = np.zeros(match_gt.shape, dtype=bool)
    dtm[d_i, a_i, t_i] = gt.ann_id[g] != 0
    ignored = np.zeros(match_gt.shape, dtype=bool)
    ignored[d_i, a_i, t_i] = gt_ignored[g, a_i]
    dt_area = dt.area[kept]
    out_of_range = (dt_area[:, None] < lo) | (dt_area[:, None] > hi)
    ignored |= ~dtm & out_of_range[:, :, None]
    return MatchResult(
        kept=kept, rank=rank, gt=match_gt, tp=dtm & ~ignored, ignored=ignored, gt_ignored=gt_ignored
    )


def _accumulate(
    gt: GroundTruth,
    dt: Detections,
    match: MatchResult,
    *,
    max_dets=MAX_DETS,
    recall_thresholds: np.ndarray = RECALL_THRESHOLDS,
    image_counts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pycocotools' ``accumulate``: precision (T, R, K, A, M), recall (T, K, A, M), scores.

    ``image_counts`` (one count an image, a bootstrap resample) repeats each image's
    detections and ground truths that many times, copies side by side in the score order.
    """
    n_cat = gt.n_categories
    _, n_a, n_t = match.tp.shape
    n_r, n_m = recall_thresholds.size, len(max_dets)
    precision = -np.ones((n_t, n_r, n_cat, n_a, n_m))
    recall = -np.ones((n_t, n_cat, n_a, n_m))
    scores = -np.ones((n_t, n_r, n_cat, n_a, n_m))
    # Non-ignored ground truths per category and area range.
    npig = np.zeros((n_cat, n_a), dtype=np.int64)
    gt_w = 1 if image_counts is None else image_counts[gt.image][:, None]
    np.add.at(npig, gt.category, (~match.gt_ignored).astype(np.int64) * gt_w)

    kept = match.kept
    cat = dt.category[kept]
    score = dt.score[kept]
    # Per category: images in id order, each image's detections in their within-group rank
    # order, then a stable sort by -score (pycocotools' concatenate + mergesort).
    order = np.lexsort((match.rank, dt.image[kept], -score, cat))
    cat_sorted = cat[order]
    bounds = np.searchsorted(cat_sorted, np.arange(n_cat + 1))
    eps = np.spacing(1)
    n_col = n_a * n_t
    r_thr = np.asarray(recall_thresholds, dtype=np.float64)
    for k in range(n_cat):
        has = npig[k] > 0  # areas with ground truth: the others stay -1
        if not has.any():
            continue
        npos = np.maximum(npig[k], 1)
        # tmin[a, r]: the fewest TPs whose recall tp / npos reaches r (float division, as
        # pycocotools compares), so searchsorted can run on integer counts, one call for all.
        j = np.ceil(r_thr[None, :] * npos[:, None]).astype(np.int64)
        j = np.where((j - 1) / npos[:, None] >= r_thr, j - 1, j)
        tmin = np.where(j / npos[:, None] < r_thr, j + 1, j)
        rows = order[bounds[k] : bounds[k + 1]]
        for m, max_det in enumerate(max_dets):
            sel = rows[match.rank[rows] < max_det]
            if image_counts is not None:
                sel = np.repeat(sel, image_counts[dt.image[kept[sel]]])
            nd = sel.size
            if nd == 0:
                recall[:, k, has, m] = 0.0
                precision[:, :, k, has, m] = 0.0
                scores[:, :, k, has, m] = 0.0
                continue
            tpb = match.tp[sel]
            fpb = ~tpb & ~match.ignored[sel]
            tp = np.cumsum(tpb, axis=0, dtype=np.int32)  # (nd, A, T)
            fp = np.cumsum(fpb, axis=0, dtype=np.int32)
            # (fp + tp) is an exact int, then + eps in float64: pycocotools' bits
            pr = tp / ((fp + tp) + eps)
            pr = np.maximum.accumulate(pr[::-1], axis=0)[::-1].reshape(nd, n_col)
            rc_last = tp[-1] / npos[:, None]  # (A, T)
            # Integer counts of each column, offset so all columns form one sorted array.
            offs = np.arange(n_col, dtype=np.int64) * (nd + 1)
            flat = (tp.reshape(nd, n_col) + offs).T.ravel()
            want = np.minimum(np.repeat(tmin, n_t, axis=0), nd + 1) + offs[:, None]  # (C, R)
            idx = np.searchsorted(flat, want, side="left") - (offs // (nd + 1) * nd)[:, None]
            inside = idx < nd
            safe = np.where(inside, idx, 0)
            q = np.where(inside, pr[safe, np.arange(n_col)[:, None]], 0.0)
            ss = np.where(inside, score[sel][safe], 0.0)
            q = q.reshape(n_a, n_t, n_r).transpose(1, 2, 0)  # (T, R, A)
            ss = ss.reshape(n_a, n_t, n_r).transpose(1, 2, 0)
            precision[:, :, k, has, m] = q[:, :, has]
            scores[:, :, k, has, m] = ss[:, :, has]
            recall[:, k, has, m] = rc_last.T[:, has]
    return precision, recall, scores


def _summarize(precision, recall, iou_thresholds) -> np.ndarray:
    stats = np.zeros(len(_STAT_SPECS))
    for i, (is_ap, iou, area, max_det) in enumerate(_STAT_SPECS):
        a = AREA_LABELS.index(area)
        m = MAX_DETS.index(max_det)
        if is_ap:
            s = precision
            if iou is not None:
                s = s[np.where(iou == iou_thresholds)[0]]
            s = s[:, :, :, a, m]
        else:
            s = recall
            if iou is not None:
                s = s[np.where(iou == iou_thresholds)[0]]
            s = s[:, :, a, m]
        valid = s[s > -1]
        stats[i] = -1.0 if valid.size == 0 else float(np.mean(valid))
    return stats


@dataclass(frozen=True)
class COCOEvaluation:
    """The result of :func:`coco_evaluate`.

    Attributes
    ----------
    stats : ndarray of shape (12,)
        pycocotools' ``COCOeval.stats`` in its order (:data:`STAT_NAMES`); -1 where undefined
        (no ground truth in that area range), NaN for the area-range entries when the boxes
        have no pixel sizes.
    precision : ndarray of shape (10, 101, n_categories, 4, 3)
        ``eval['precision']``: IoU threshold x recall threshold x category x area x maxDets.
    recall : ndarray of shape (10, n_categories, 4, 3)
    scores : ndarray of shape (10, 101, n_categories, 4, 3)
        The score at which each precision is read.
    category_ids : ndarray of shape (n_categories,)
    notes : tuple of str
        What could not be computed and why.
    """

    stats: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    scores: np.ndarray
    category_ids: np.ndarray
    category_names: tuple[str, ...]
    counts: dict[str, np.ndarray] = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def stats_dict(self) -> dict[str, float]:
        return {name: float(v) for name, v in zip(STAT_NAMES, self.stats, strict=False)}

    def category_ap(self, *, iou: float | None = None, area: str = "all", max_det: int = 100):
        """AP per category, NaN where the category has no ground truth (pycocotools' -1)."""
        s = self.precision
        if iou is not None:
            s = s[np.flatnonzero(np.isclose(IOU_THRESHOLDS, iou))]
        s = s[:, :, :, AREA_LABELS.index(area), MAX_DETS.index(max_det)]
        valid = s > -1
        total = np.where(valid, s, 0.0).sum(axis=(0, 1))
        n = valid.sum(axis=(0, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / np.maximum(n, 1), np.nan)

    @property
    def per_class(self) -> pd.DataFrame:
        """One row a category: ``category_id, name, ap, ap50, ap75, n_gt, n_crowd, n_det``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "category_id": self.category_ids,
                "name": list(self.category_names),
                "ap": self.category_ap(),
                "ap50": self.category_ap(iou=0.5),
                "ap75": self.category_ap(iou=0.75),
                "n_gt": self.counts["gt"],
                "n_crowd": self.counts["crowd"],
                "n_det": self.counts["det"],
                "n_det_kept": self.counts["kept"],
            }
        )

    def summary_text(self) -> str:
        """The 12 lines pycocotools' ``summarize()`` prints, in its format."""
        lines = []
        for (is_ap, iou, area, max_det), v in zip(_STAT_SPECS, self.stats, strict=False):
            title = "Average Precision" if is_ap else "Average Recall"
            kind = "(AP)" if is_ap else "(AR)"
            iou_s = "0.50:0.95" if iou is None else f"{iou:0.2f}"
            lines.append(
                f" {title:<18} {kind} @[ IoU={iou_s:<9} | area={area:>6s} | maxDets={max_det:>3d} ]"
                f" = {v:0.3f}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stats": [float(v) for v in self.stats],
            "stat_names": list(STAT_NAMES),
            "per_class": [
                {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                for row in self.per_class.to_dict(orient="records")
            ],
            "notes": list(self.notes),
        }


def coco_evaluate(ground_truth, detections, *, iou_type: str = "bbox") -> COCOEvaluation:
    """COCO box AP/AR, equal to pycocotools' ``COCOeval`` (evaluate, accumulate, summarize).

    Parameters
    ----------
    ground_truth : GroundTruth, COCO dict, or path (COCO JSON, CSV/Parquet table, YOLO zip)
    detections : Detections, list of COCO result dicts, or path
    iou_type : "bbox"
        Only boxes; segmentation masks and keypoints are not evaluated here.

    Returns
    -------
    COCOEvaluation
        ``.stats`` (the 12 numbers), ``.per_class``, ``.precision``, ``.recall``.

    Examples
    --------
    >>> from metrics.detection import coco_evaluate
    >>> gt = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 40, 40], "area": 1600, "iscrowd": 0}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 40, 38], "score": 0.9}]
    >>> [round(float(v), 3) for v in coco_evaluate(gt, dt).stats[:3]]
    [1.0, 1.0, 1.0]
    """
    from metrics.detection.io import load_detections, load_ground_truth

    if iou_type != "bbox":
        raise ValueError(
            f"iou_type={iou_type!r} is not supported; only 'bbox' (boxes) is evaluated here."
        )
    gt = load_ground_truth(ground_truth)
    dt = load_detections(detections, gt)
    match = coco_match(gt, dt)
    precision, recall, scores = _accumulate(gt, dt, match)
    stats = _summarize(precision, recall, IOU_THRESHOLDS)
    notes = []
    if not gt.has_areas:
        stats[[3, 4, 5, 9, 10, 11]] = np.nan
        notes.append(
            "The boxes have no pixel sizes (YOLO labels without image sizes), so the area "
            "ranges (small, medium, large) are unavailable; give the image sizes to get them."
        )
    n_cat = gt.n_categories
    counts = {
        "gt": np.bincount(gt.category[~gt.iscrowd], minlength=n_cat),
        "crowd": np.bincount(gt.category[gt.iscrowd], minlength=n_cat),
        "det": np.bincount(dt.category, minlength=n_cat),
        "kept": np.bincount(dt.category[match.kept], minlength=n_cat),
    }
    return COCOEvaluation(
        stats=stats,
        precision=precision,
        recall=recall,
        scores=scores,
        category_ids=gt.category_ids,
        category_names=gt.category_names,
        counts=counts,
        notes=tuple(notes),
    )
