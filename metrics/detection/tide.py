"""Detection errors in the manner of TIDE (Bolya et al., ECCV 2020), with the AP each would
recover when fixed.

The definitions, carried over from the paper and its reference code ``tidecv`` (our own code),
at a foreground IoU ``t_f`` (0.5) and a background IoU ``t_b`` (0.1):

- Per image, predictions are sorted by score (a stable sort) and cut to ``max_dets`` (100)
  across categories. Each prediction in turn takes the still-free ground truth of its own
  category with the highest IoU (the first of equal IoUs) if that IoU is ``>= t_f``. Crowd
  regions are ignore regions: an unmatched prediction whose IoU over its own area with a crowd
  region of its category is ``> t_f`` is ignored in the AP (but still gets an error type).
- Every prediction that is not a true positive gets the first type that applies, in this
  order: **background** when the image has no ground truth; **localisation** when its best IoU
  with a ground truth of its category is in ``[t_b, t_f]``; **classification** when its best
  IoU with a ground truth of another category is ``>= t_f``; **duplicate** when its best IoU
  with an already matched ground truth of its category is ``>= t_f``; **background** when its
  best IoU with any ground truth is ``<= t_b``; else **both** (wrong class and poorly
  localised).
- A ground truth that no prediction matched and that no classification or localisation error
  points to (while it is free) is **missed**.
- Fixing: a classification or localisation error whose ground truth is free becomes a true
  positive (in the ground truth's category) if it has the highest score among the errors
  pointing to that ground truth, and is removed otherwise; duplicate, background and both
  errors are removed; a missed ground truth is taken out of the count of positives.
- ``dAP`` of a type is TIDE's mAP with only that type fixed minus the mAP, floored at 0 (as
  tidecv does). Its AP: per category, points sorted by score (ties in the order the points
  were added: the original points in image order; in a fixed run, the error points first),
  precision made non-increasing, read at the 101 recall points ``k / 100``; its mAP averages
  over the categories with ground truth or with predictions counted (one with predictions and
  no ground truth scores 0, which COCO would leave out).
- Two more rows as tidecv reports them: **false positives** (AP with every false positive
  scored below every true positive) and **false negatives** (AP with the unmatched ground
  truths taken out of the positives), both as plain differences.

"difficult" has no meaning in TIDE; such objects are ordinary ground truths here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import box_iou_pairs
from metrics.detection.conventions import _image_rank
from metrics.detection.rules import _greedy

__all__ = ["ERROR_TYPES", "TIDE_LABELS", "TideErrors", "tide_errors"]

ERROR_TYPES = ("classification", "localisation", "both", "duplicate", "background", "missed")
TIDE_LABELS = {
    "classification": "Cls: right place, wrong class",
    "localisation": "Loc: right class, poorly placed",
    "both": "Both: wrong class and poorly placed",
    "duplicate": "Dupe: a second detection of a matched object",
    "background": "Bkg: nothing there",
    "missed": "Miss: an object nobody detected",
    "false_positives": "all false positives ranked last",
    "false_negatives": "all missed objects forgiven",
}
_TP_LABEL, _CAPPED = "true positive", "beyond max_dets"
_RECALLS = np.arange(101) / 100  # tidecv's x / 100, not np.linspace


def _image_pairs(gt: GroundTruth, dt: Detections, det_rows: np.ndarray, gt_rows: np.ndarray):
    """Every (detection, ground truth) pair on the same image, ground truths in file order."""
    gimg = gt.image[gt_rows]
    gorder = gt_rows[np.argsort(gimg, kind="stable")]
    gsorted = np.sort(gimg, kind="stable")
    dimg = dt.image[det_rows]
    start = np.searchsorted(gsorted, dimg, side="left")
    count = np.searchsorted(gsorted, dimg, side="right") - start
    n = int(count.sum())
    pd_ = np.repeat(det_rows, count)
    off = np.arange(n) - np.repeat(np.cumsum(count) - count, count)
    pg = gorder[np.repeat(start, count) + off]
    return pd_, pg


def _first_argmax(pd_: np.ndarray, pg: np.ndarray, value: np.ndarray, n_det: int):
    """numpy's argmax over each detection's row: the largest value, the first gt of ties."""
    best_v = np.full(n_det, -np.inf)
    best_g = np.full(n_det, -1, dtype=np.int64)
    if pd_.size == 0:
        return best_v, best_g
    o = np.lexsort((pg, -value, pd_))
    first = np.ones(o.size, dtype=bool)
    first[1:] = pd_[o][1:] != pd_[o][:-1]
    b = o[first]
    best_v[pd_[b]] = value[b]
    best_g[pd_[b]] = pg[b]
    return best_v, best_g


def _gt_category(gt: GroundTruth, gt_of: np.ndarray) -> np.ndarray:
    out = np.full(gt_of.size, -1, dtype=np.int64)
    has = gt_of >= 0
    out[has] = gt.category[gt_of[has]]
    return out


def _tide_ap(tp: np.ndarray, n_gt: int) -> float:
    """tidecv's AP of one category (0-1): points already in their sorted order."""
    if n_gt == 0:
        return 0.0
    n = tp.size
    if n == 0:
        return 0.0
    num_true = np.cumsum(tp)
    precision = num_true / np.arange(1, n + 1)
    recall = num_true / n_gt
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    idx = np.searchsorted(recall, _RECALLS, side="left")
    y = np.where(idx < n, precision[np.minimum(idx, n - 1)], 0.0)
    return float(sum(y.tolist())) / 101


@dataclass(frozen=True)
class TideErrors:
    """The result of :func:`tide_errors`.

    Attributes
    ----------
    ap : float
        TIDE's mAP at ``pos_threshold`` (0-1), before any fix.
    table : pandas.DataFrame
        ``error, label, count, dap``: the six error types in TIDE's order, then
        ``false_positives`` and ``false_negatives`` (count: false positives and unmatched
        ground truths).
    detection_error : ndarray of shape (n_detections,) object
        Each detection's type: an error type, ``"true positive"`` or ``"beyond max_dets"``.
    detection_ignored : ndarray of shape (n_detections,) bool
        Inside a crowd region (left out of the AP; still typed).
    missed : ndarray of shape (n_ground_truths,) bool
    """

    ap: float
    table: object
    detection_error: np.ndarray
    detection_ignored: np.ndarray
    missed: np.ndarray
    pos_threshold: float
    background_threshold: float
    _parts: dict = field(repr=False, default_factory=dict)

    def fixed_ap(self, errors) -> float:
        """TIDE's mAP with the given error types fixed together (not floored)."""
        unknown = set(errors) - set(ERROR_TYPES)
        if unknown:
            raise ValueError(
                f"unknown error types {sorted(unknown)}; use some of {', '.join(ERROR_TYPES)}."
            )
        return _fixed_map(self._parts, set(errors))


def _map(cat, score, tp, key, npos, n_cat) -> float:
    """Mean of tidecv's AP over the categories with ground truth or points."""
    order = np.lexsort((key, -score, cat))
    cat_s = cat[order]
    bounds = np.searchsorted(cat_s, np.arange(n_cat + 1))
    aps = []
    for k in range(n_cat):
        s, e = bounds[k], bounds[k + 1]
        if npos[k] == 0 and s == e:
            continue
        aps.append(_tide_ap(tp[order[s:e]], int(npos[k])))
    return float(sum(aps) / len(aps)) if aps else float("nan")


def _fixed_map(p: dict, fix: set, *, fp_last: bool = False, forgive_fn: bool = False) -> float:
    """TIDE's fix_errors: errors' points (fixed or not) first, then the true positives."""
    err = p["err_rows"]
    etype = p["err_type"][err]
    cat = p["cat"][err].copy()
    tp = np.zeros(err.size, dtype=bool)
    keep = ~p["ignored"][err]  # an ignored prediction has no original point
    for name in ("classification", "localisation"):
        if name in fix:
            sel = etype == name
            is_best = p["is_best"][err] & sel
            keep[sel] = is_best[sel]
            tp[is_best] = True
            if name == "classification":
                cat[is_best] = p["gt_cat"][err][is_best]
    for name in ("both", "duplicate", "background"):
        if name in fix:
            keep[etype == name] = False
    npos = p["npos"].copy()
    if "missed" in fix:
        npos -= np.bincount(p["missed_cat"], minlength=npos.size)
    if forgive_fn:
        npos -= p["fn_by_cat"]
    tps = p["tp_rows"]
    cats = np.concatenate([cat[keep], p["cat"][tps]])
    scores = np.concatenate([p["score"][err][keep], p["score"][tps]])
    if fp_last:
        scores = np.concatenate([np.zeros(int(keep.sum())), np.ones(tps.size)])
    flags = np.concatenate([tp[keep], np.ones(tps.size, dtype=bool)])
    key = np.concatenate([p["key"][err][keep], p["key"][tps] + p["n_det"]])
    return _map(cats, scores, flags, key, npos, npos.size)


def tide_errors(
    ground_truth,
    detections,
    *,
    pos_threshold: float = 0.5,
    background_threshold: float = 0.1,
    max_dets: int = 100,
) -> TideErrors:
    """TIDE's error types and the AP each would recover (see the module docstring).

    Parameters
    ----------
    ground_truth, detections
        As :func:`metrics.detection.coco_evaluate` takes them.
    pos_threshold : float, default 0.5
        The foreground IoU ``t_f``.
    background_threshold : float, default 0.1
        The background IoU ``t_b`` (0 < t_b <= t_f).
    max_dets : int, default 100
        Predictions kept per image, across categories.

    Examples
    --------
    >>> from metrics.detection import tide_errors
    >>> gt = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 10], "area": 100, "iscrowd": 0}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9},
    ...       {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 4], "score": 0.95}]
    >>> r = tide_errors(gt, dt)
    >>> r.detection_error.tolist()  # the better box scored lower: the first is mislocated
    ['true positive', 'localisation']
    >>> round(r.ap, 4), round(float(r.table.set_index("error").dap["localisation"]), 4)
    (0.5, 0.5)
    """
    import pandas as pd

    from metrics.detection.io import load_detections, load_ground_truth

    try:
        t_f, t_b = float(pos_threshold), float(background_threshold)
    except (TypeError, ValueError):
        raise ValueError("pos_threshold and background_threshold must be numbers.") from None
    if not 0.0 < t_b <= t_f <= 1.0:
        raise ValueError(
            f"background_threshold={background_threshold!r} and pos_threshold="
            f"{pos_threshold!r} need 0 < background <= pos <= 1 (TIDE uses 0.1 and 0.5)."
        )
    if isinstance(max_dets, bool) or not isinstance(max_dets, (int, np.integer)) or max_dets < 1:
        raise ValueError(f"max_dets={max_dets!r} must be a whole number >= 1 (TIDE uses 100).")
    gt = load_ground_truth(ground_truth)
    dt = load_detections(detections, gt)
    n_det, n_gt, n_cat = len(dt), len(gt), gt.n_categories

    rank = _image_rank(dt)
    kept = np.flatnonzero(rank < max_dets)
    real = np.flatnonzero(~gt.iscrowd)
    crowd = np.flatnonzero(gt.iscrowd)

    # Matching: within (image, category) by score, the first of equal IoUs, IoU >= t_f.
    pd_, pg = _image_pairs(gt, dt, kept, real)
    iou = box_iou_pairs(dt.boxes[pd_], gt.boxes[pg], np.zeros(pd_.size, dtype=bool))
    same = dt.category[pd_] == gt.category[pg]
    ok = same & (iou >= t_f)
    matched = _greedy(
        n_det,
        pd_,
        pg,
        iou,
        ok,
        rank,
        np.zeros(n_gt, dtype=bool),
        np.zeros(n_gt, dtype=bool),
        -np.arange(n_gt),
    )
    is_tp = matched >= 0
    used_gt = np.zeros(n_gt, dtype=bool)
    used_gt[matched[is_tp]] = True

    # Crowd regions of the same category with IoU over the prediction's area > t_f.
    ignored = np.zeros(n_det, dtype=bool)
    cd, cg = _image_pairs(gt, dt, kept[~is_tp[kept]], crowd)
    if cd.size:
        ciou = box_iou_pairs(dt.boxes[cd], gt.boxes[cg], np.ones(cd.size, dtype=bool))
        hit = (dt.category[cd] == gt.category[cg]) & (ciou > t_f)
        ignored[cd[hit]] = True

    # Error types, first that applies.
    v_same, g_same = _first_argmax(pd_, pg, iou * same, n_det)
    v_other, g_other = _first_argmax(pd_, pg, iou * ~same, n_det)
    v_dupe, _ = _first_argmax(pd_, pg, iou * same * used_gt[pg], n_det)
    v_all, _ = _first_argmax(pd_, pg, iou, n_det)
    has_gt = np.bincount(gt.image[real], minlength=gt.n_images) > 0

    label = np.full(n_det, _CAPPED, dtype=object)
    label[kept] = _TP_LABEL
    gt_of = np.full(n_det, -1, dtype=np.int64)
    todo = np.zeros(n_det, dtype=bool)
    todo[kept] = ~is_tp[kept]
    for name, cond, g in (
        ("background", ~has_gt[dt.image], None),
        ("localisation", (v_same >= t_b) & (v_same <= t_f), g_same),
        ("classification", v_other >= t_f, g_other),
        ("duplicate", v_dupe >= t_f, None),
        ("background", v_all <= t_b, None),
        ("both", np.ones(n_det, dtype=bool), None),
    ):
        hit = todo & cond
        label[hit] = name
        if g is not None:
            gt_of[hit] = g[hit]
        todo &= ~hit

    # A free ground truth pointed to by cls/loc errors: the highest score fixes it.
    pointing = gt_of >= 0
    pointing[pointing] = ~used_gt[gt_of[pointing]]
    usable = np.zeros(n_gt, dtype=bool)
    usable[gt_of[pointing]] = True
    is_best = np.zeros(n_det, dtype=bool)
    d = np.flatnonzero(pointing)
    if d.size:
        o = np.lexsort((dt.image[d], rank[d], -dt.score[d], gt_of[d]))
        first = np.ones(o.size, dtype=bool)
        first[1:] = gt_of[d][o][1:] != gt_of[d][o][:-1]
        is_best[d[o[first]]] = True
    missed = np.zeros(n_gt, dtype=bool)
    missed[real] = ~used_gt[real] & ~usable[real]

    # Insertion order of the AP points: images in id order, predictions by score inside.
    key = dt.image.astype(np.int64) * (max_dets + 1) + np.minimum(rank, max_dets)
    counted = np.zeros(n_det, dtype=bool)
    counted[kept] = ~ignored[kept]
    npos = np.bincount(gt.category[real], minlength=n_cat)
    err_rows = np.flatnonzero((label != _TP_LABEL) & (label != _CAPPED))
    parts = {
        "err_rows": err_rows,
        "err_type": label,
        "ignored": ignored,
        "is_best": is_best,
        "cat": dt.category,
        "gt_cat": _gt_category(gt, gt_of),
        "score": dt.score,
        "key": key,
        "n_det": int(key.max()) + 1 if n_det else 0,
        "tp_rows": np.flatnonzero(is_tp),
        "npos": npos,
        "missed_cat": gt.category[missed],
        "fn_by_cat": np.bincount(gt.category[real[~used_gt[real]]], minlength=n_cat),
    }
    rows_c = np.flatnonzero(counted)
    base = _map(dt.category[rows_c], dt.score[rows_c], is_tp[rows_c], key[rows_c], npos, n_cat)
    counts = {name: int((label == name).sum()) for name in ERROR_TYPES if name != "missed"}
    counts["missed"] = int(missed.sum())
    table = [
        {
            "error": name,
            "label": TIDE_LABELS[name],
            "count": counts[name],
            "dap": max(_fixed_map(parts, {name}) - base, 0.0) if base == base else np.nan,
        }
        for name in ERROR_TYPES
    ]
    n_fp = int(((label != _TP_LABEL) & (label != _CAPPED) & counted).sum())
    table.append(
        {
            "error": "false_positives",
            "label": TIDE_LABELS["false_positives"],
            "count": n_fp,
            "dap": _fixed_map(parts, set(), fp_last=True) - base,
        }
    )
    table.append(
        {
            "error": "false_negatives",
            "label": TIDE_LABELS["false_negatives"],
            "count": int(parts["fn_by_cat"].sum()),
            "dap": _fixed_map(parts, set(), forgive_fn=True) - base,
        }
    )
    return TideErrors(
        ap=base,
        table=pd.DataFrame(table),
        detection_error=label,
        detection_ignored=ignored,
        missed=missed,
        pos_threshold=t_f,
        background_threshold=t_b,
        _parts=parts,
    )
