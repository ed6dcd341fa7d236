"""Why two conventions' mAPs differ: switch one rule at a time, on the user's own boxes.

Each convention of :mod:`metrics.detection.conventions` is a setting of nine rules. A hybrid
evaluator here takes any mix of settings; at a convention's own settings it is that
convention's arithmetic (equal to :func:`~metrics.detection.detection_ap`, and for ``"coco"``
to pycocotools). :func:`convention_effects` walks from one convention to another, switching
the rules in the fixed order of :data:`RULES`, and reports what each switch changes on these
boxes (counts) and how much it moves the mAP. The steps telescope: each row's ``ap_before`` is
the previous row's ``ap_after``, the first is the source convention's mAP and the last the
target's.

The order (data first, then geometry, then matching, then the curve):

1. ``crowd``: crowd regions absorb detections with IoU over the detection's area (COCO),
   count as VOC "difficult" with the ordinary IoU (VOC), or are dropped (Ultralytics).
2. ``difficult``: "difficult" objects are ordinary objects (COCO, which has no such flag),
   ignored (VOC) or dropped (Ultralytics).
3. ``area``: COCO's "all" area range ``[0, 1e5²]`` ignores the ground truths outside it and
   the unmatched detections outside it; the others have no range.
4. ``cap``: COCO keeps the 100 best-scored detections of each image and category (maxDets).
5. ``iou_compare``: a match needs IoU ``>= t`` (COCO caps t at 1 - 1e-10; Ultralytics) or
   ``> t`` (VOC).
6. ``box_size``: IoU arithmetic: pycocotools' ``x2 - x1``, VOC's inclusive pixels
   ``x2 - x1 + 1``, or Ultralytics' ``x2 - x1`` with ``+ 1e-7`` in the union.
7. ``matching``: greedy, each detection takes the best still-free object (COCO); each
   detection looks only at its best-overlapping object, first of equal overlaps, and is a
   false positive if a higher-ranked detection took it (VOC); the same with the last of equal
   overlaps (Ultralytics).
8. ``interpolation``: precision read at 101 recall points (COCO), 11 points (VOC 2007), every
   recall step (VOC 2012), or the trapezoid of ``np.interp`` at 101 points with a precision-1
   sentinel (Ultralytics); each with its library's precision and recall arithmetic.
9. ``ties``: detections with equal scores ranked by image then file order (COCO,
   Ultralytics) or by file order alone (VOC).

In hybrid states the ignored ground truths behave alike under every matching: a detection
matched to one is not counted (crowd and difficult ones absorb any number; one ignored for
its area absorbs one), and a detection that is not a true positive and lies outside the area
range is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import AREA_RANGES, IOU_THRESHOLDS, RECALL_THRESHOLDS, box_iou_pairs
from metrics.detection.conventions import (
    CONVENTIONS,
    _first_per_key,
    _pairs,
    _ultra_ap,
    _ultra_iou,
    _voc_ap,
    _voc_iou,
    _xyxy,
)

__all__ = [
    "COCO_RANGE",
    "RULES",
    "RULE_LABELS",
    "SETTING_LABELS",
    "convention_effects",
    "convention_settings",
]

RULES = (
    "crowd",
    "difficult",
    "area",
    "cap",
    "iou_compare",
    "box_size",
    "matching",
    "interpolation",
    "ties",
)

RULE_LABELS = {
    "crowd": "crowd regions",
    "difficult": "difficult objects",
    "area": "area range",
    "cap": "100-detection cap (maxDets)",
    "iou_compare": "IoU ≥ t or > t",
    "box_size": "box size +1 pixel (IoU arithmetic)",
    "matching": "matching",
    "interpolation": "interpolation",
    "ties": "tie order",
}

_SETTINGS = {
    "coco": {
        "crowd": "absorb",
        "difficult": "count",
        "area": "all",
        "cap": "100",
        "iou_compare": "ge_capped",
        "box_size": "pycocotools",
        "matching": "greedy",
        "interpolation": "101",
        "ties": "image",
    },
    "voc07": {
        "crowd": "ignore",
        "difficult": "ignore",
        "area": "none",
        "cap": "none",
        "iou_compare": "gt",
        "box_size": "plus_one",
        "matching": "best_first",
        "interpolation": "11",
        "ties": "file",
    },
    "ultralytics": {
        "crowd": "drop",
        "difficult": "drop",
        "area": "none",
        "cap": "none",
        "iou_compare": "ge",
        "box_size": "eps",
        "matching": "best_last",
        "interpolation": "interp101",
        "ties": "image",
    },
}
_SETTINGS["voc12"] = {**_SETTINGS["voc07"], "interpolation": "all"}

SETTING_LABELS = {
    "crowd": {
        "absorb": "ignored, absorb detections (IoU over the detection's area)",
        "ignore": "ignored like difficult objects (ordinary IoU)",
        "drop": "dropped",
    },
    "difficult": {
        "count": "ordinary objects",
        "ignore": "ignored (neither counted nor penalised)",
        "drop": "dropped",
    },
    "area": {"all": "COCO's 'all' range [0, 1e5²]", "none": "no area range"},
    "cap": {"100": "100 per image and category", "none": "no cap"},
    "iou_compare": {
        "ge_capped": "IoU ≥ t (t capped at 1 − 1e-10)",
        "ge": "IoU ≥ t",
        "gt": "IoU > t",
    },
    "box_size": {
        "pycocotools": "x2 − x1 (pycocotools)",
        "plus_one": "x2 − x1 + 1 (VOC devkit)",
        "eps": "x2 − x1, + 1e-7 in the union (Ultralytics)",
    },
    "matching": {
        "greedy": "greedy: the best still-free object (pycocotools)",
        "best_first": "best-overlapping object only, first of ties (VOC devkit)",
        "best_last": "best-overlapping object only, last of ties (Ultralytics)",
    },
    "interpolation": {
        "101": "101 recall points (COCO)",
        "11": "11 recall points (VOC 2007)",
        "all": "every recall step (VOC 2010+)",
        "interp101": "np.interp at 101 points, trapezoid (Ultralytics)",
    },
    "ties": {"image": "image, then file order", "file": "file order"},
}

_CAP = 100
_TP, _FP, _UNCOUNTED, _DROPPED = 1, 2, 3, 0


def convention_settings(convention: str) -> dict[str, str]:
    """The setting of every rule in :data:`RULES` that ``convention`` uses."""
    if convention not in _SETTINGS:
        raise ValueError(
            f"convention={convention!r} is not one of {', '.join(repr(c) for c in CONVENTIONS)}."
        )
    return dict(_SETTINGS[convention])


@dataclass(frozen=True)
class _State:
    """One hybrid evaluation: AP per category and every detection's outcome."""

    ap: np.ndarray  # (n_categories,), NaN without ground truth counted
    outcome: np.ndarray  # (n_detections,) _TP / _FP / _UNCOUNTED / _DROPPED, first threshold
    n_positives: np.ndarray  # (n_categories,)
    rank: np.ndarray  # (n_detections,) position in its category's ranking, -1 if not counted
    outcomes: np.ndarray | None = None  # (n_thresholds, n_detections) when several

    @property
    def map(self) -> float:
        import pandas as pd

        return float(pd.Series(self.ap).mean())


def _group_rank(dt: Detections, n_cat: int) -> np.ndarray:
    """Rank of each detection inside its (image, category) by -score, file order for ties."""
    group = dt.image * n_cat + dt.category
    order = np.lexsort((-dt.score, group))
    g = group[order]
    start = np.ones(g.size, dtype=bool)
    start[1:] = g[1:] != g[:-1]
    first = np.flatnonzero(start)
    counts = np.diff(np.append(first, g.size))
    rank = np.empty(g.size, dtype=np.int64)
    rank[order] = np.arange(g.size) - np.repeat(first, counts)
    return rank


def _pair_iou(db, gb, crowd_iou, mode: str) -> np.ndarray:
    """IoU of aligned pairs under one arithmetic; crowd pairs divide by the detection's area."""
    if mode == "pycocotools":
        return box_iou_pairs(db, gb, crowd_iou)
    if mode == "plus_one":
        out = _voc_iou(db, gb)
        if crowd_iou.any():
            bx1, by1, bx2, by2 = _xyxy(db[crowd_iou])
            gx1, gy1, gx2, gy2 = _xyxy(gb[crowd_iou])
            iw = np.maximum(np.minimum(gx2, bx2) - np.maximum(gx1, bx1) + 1.0, 0.0)
            ih = np.maximum(np.minimum(gy2, by2) - np.maximum(gy1, by1) + 1.0, 0.0)
            out[crowd_iou] = iw * ih / ((bx2 - bx1 + 1.0) * (by2 - by1 + 1.0))
        return out
    out = _ultra_iou(db, gb)
    if crowd_iou.any():
        bx1, by1, bx2, by2 = _xyxy(db[crowd_iou])
        gx1, gy1, gx2, gy2 = _xyxy(gb[crowd_iou])
        iw = np.clip(np.minimum(gx2, bx2) - np.maximum(gx1, bx1), 0, None)
        ih = np.clip(np.minimum(gy2, by2) - np.maximum(gy1, by1), 0, None)
        out[crowd_iou] = iw * ih / ((bx2 - bx1) * (by2 - by1) + 1e-7)
    return out


def _passes(iou: np.ndarray, thr: float, mode: str) -> np.ndarray:
    if mode == "gt":
        return iou > thr
    if mode == "ge_capped":
        return iou >= min(thr, 1 - 1e-10)
    return iou >= thr


def _greedy(n_det, pd_, pg, iou, ok, rank, ignored, reusable, pos):
    """pycocotools' greedy match at one threshold, every group at once, one rank at a time.

    Returns the ground-truth row each detection matched (-1 if none)."""
    matched = np.full(n_det, -1, dtype=np.int64)
    keep = ok
    pd_, pg, iou = pd_[keep], pg[keep], iou[keep]
    if pd_.size == 0:
        return matched
    # Inside a detection, the pair it prefers comes last: not ignored, higher IoU, later gt.
    o = np.lexsort((pos[pg], iou, pd_, rank[pd_]))
    pd_, pg = pd_[o], pg[o]
    n_p = pd_.size
    key = (~ignored[pg]).astype(np.int64) * n_p + np.arange(n_p)
    taken = np.zeros(ignored.size, dtype=bool)
    r_of = rank[pd_]
    bounds = np.searchsorted(r_of, np.arange(int(r_of.max()) + 2))
    for r in range(bounds.size - 1):
        s, e = bounds[r], bounds[r + 1]
        if s == e:
            continue
        g = pg[s:e]
        val = np.where(~taken[g] | reusable[g], key[s:e], -1)
        d = pd_[s:e]
        seg = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
        best = np.maximum.reduceat(val, seg)
        hit = best >= 0
        chosen = pg[best[hit] % n_p]
        matched[d[seg[hit]]] = chosen
        taken[chosen] = True
    return matched


def _best_overlap(n_det, pd_, pg, iou, ok, pos, last: bool):
    """Each detection's best-overlapping ground truth (first or last of equal overlaps) and
    whether that overlap passes the threshold."""
    best = np.full(n_det, -1, dtype=np.int64)
    hit = np.zeros(n_det, dtype=bool)
    if pd_.size == 0:
        return best, hit
    tie = -pos[pg] if last else pos[pg]
    o = np.lexsort((tie, -iou, pd_))
    first = np.ones(o.size, dtype=bool)
    first[1:] = pd_[o][1:] != pd_[o][:-1]
    b = o[first]
    best[pd_[b]] = pg[b]
    hit[pd_[b]] = ok[b]
    return best, hit


def _coco_ap(tp: np.ndarray, npos: int) -> np.ndarray:
    """pycocotools' 101 precision samples of one category (its accumulate arithmetic)."""
    nd = tp.size
    if nd == 0:
        return np.zeros(RECALL_THRESHOLDS.size)
    tps = np.cumsum(tp).astype(np.float64)
    fps = np.cumsum(~tp).astype(np.float64)
    rc = tps / npos
    pr = tps / (fps + tps + np.spacing(1))
    pr = np.maximum.accumulate(pr[::-1])[::-1]
    inds = np.searchsorted(rc, RECALL_THRESHOLDS, side="left")
    return np.where(inds < nd, pr[np.minimum(inds, nd - 1)], 0.0)


def _evaluate(gt: GroundTruth, dt: Detections, s: dict[str, str], thr: float) -> _State:
    """AP per category and each detection's outcome under a mix of rule settings."""
    return _evaluate_many(gt, dt, s, [thr])[0]


def _evaluate_many(gt, dt, s: dict[str, str], thresholds, rank=None) -> list[_State]:
    """:func:`_evaluate` at several thresholds: the pairs and their IoU are computed once."""
    n_cat, n_det, n_gt = gt.n_categories, len(dt), len(gt)
    crowd, difficult = gt.iscrowd, gt.difficult & ~gt.iscrowd
    dropped = np.zeros(n_gt, dtype=bool)
    ignored = np.zeros(n_gt, dtype=bool)
    reusable = np.zeros(n_gt, dtype=bool)
    for flag, how in ((crowd, s["crowd"]), (difficult, s["difficult"])):
        if how == "drop":
            dropped |= flag
        elif how in ("absorb", "ignore"):
            ignored |= flag
            reusable |= flag
    crowd_iou = crowd & (s["crowd"] == "absorb")
    lo, hi = AREA_RANGES[0]
    det_outside = np.zeros(n_det, dtype=bool)
    if s["area"] == "all":
        ignored |= ((gt.area < lo) | (gt.area > hi)) & ~dropped
        det_outside = (dt.area < lo) | (dt.area > hi)

    if rank is None:
        rank = _group_rank(dt, n_cat)
    kept = rank < _CAP if s["cap"] == "100" else np.ones(n_det, dtype=bool)
    rows = np.flatnonzero(kept)
    sub = dt.subset(rows)
    srank = rank[rows]
    pd_, pg = _pairs(gt, sub, np.flatnonzero(~dropped))
    iou = _pair_iou(sub.boxes[pd_], gt.boxes[pg], crowd_iou[pg], s["box_size"])
    pos = np.arange(n_gt)  # file order of the ground truths
    npos = np.bincount(gt.category[~dropped & ~ignored], minlength=n_cat)
    return [
        _at_threshold(
            gt,
            dt,
            s,
            thr,
            rank,
            rows,
            srank,
            pd_,
            pg,
            iou,
            pos,
            ignored,
            reusable,
            det_outside,
            npos,
        )
        for thr in thresholds
    ]


def _at_threshold(
    gt, dt, s, thr, rank, rows, srank, pd_, pg, iou, pos, ignored, reusable, det_outside, npos
) -> _State:
    n_cat, n_det = gt.n_categories, len(dt)
    ok = _passes(iou, float(thr), s["iou_compare"])
    n_sub = rows.size
    out_sub = np.full(n_sub, _FP, dtype=np.int8)
    if s["matching"] == "greedy":
        m = _greedy(n_sub, pd_, pg, iou, ok, srank, ignored, reusable, pos)
        has = np.flatnonzero(m >= 0)
        absorbed = ignored[m[has]]
        out_sub[has[absorbed]] = _UNCOUNTED
        # pycocotools stores the matched annotation id and reads 0 as "no match"
        out_sub[has[~absorbed & (gt.ann_id[m[has]] != 0)]] = _TP
    else:
        best, hit = _best_overlap(n_sub, pd_, pg, iou, ok, pos, s["matching"] == "best_last")
        d = np.flatnonzero(hit)
        g = best[d]
        win = np.zeros(n_sub, dtype=bool)
        win[d[_first_per_key(g, srank[d])]] = True
        out_sub[d[win[d] & ~ignored[g]]] = _TP
        out_sub[d[ignored[g] & (win[d] | reusable[g])]] = _UNCOUNTED
    out_sub[(out_sub == _FP) & det_outside[rows]] = _UNCOUNTED

    outcome = np.full(n_det, _DROPPED, dtype=np.int8)
    outcome[rows] = out_sub

    counted = np.flatnonzero((outcome == _TP) | (outcome == _FP))
    if s["ties"] == "image":
        order = counted[np.lexsort((rank[counted], dt.image[counted], -dt.score[counted]))]
    else:
        order = counted[np.argsort(-dt.score[counted], kind="stable")]
    pos_in_rank = np.full(n_det, -1, dtype=np.int64)
    cat_sorted = dt.category[order]
    o2 = np.argsort(cat_sorted, kind="stable")
    order = order[o2]
    cat_sorted = cat_sorted[o2]
    bounds = np.searchsorted(cat_sorted, np.arange(n_cat + 1))
    pos_in_rank[order] = np.arange(order.size) - bounds[cat_sorted]

    ap = np.full(n_cat, np.nan)
    how = s["interpolation"]
    samples = np.zeros((RECALL_THRESHOLDS.size, n_cat))
    for k in range(n_cat):
        if npos[k] == 0:
            continue
        tp = outcome[order[bounds[k] : bounds[k + 1]]] == _TP
        if how == "101":
            samples[:, k] = _coco_ap(tp, int(npos[k]))
        elif how == "interp101":
            ap[k] = _ultra_ap(tp, int(npos[k])) if tp.size else 0.0
        else:
            ap[k] = _voc_ap(tp, ~tp, int(npos[k]), how == "11")
    if how == "101":
        has = npos > 0
        ap[has] = samples[:, has].mean(axis=0)
    return _State(ap=ap, outcome=outcome, n_positives=npos, rank=pos_in_rank)


def _evaluate_at(gt, dt, s: dict[str, str], thresholds: np.ndarray, rank=None) -> _State:
    """:func:`_evaluate` at each threshold, AP averaged over them per category (COCO's
    AP@[.5:.95] and Ultralytics' mAP50-95 both average each class over the thresholds)."""
    states = _evaluate_many(gt, dt, s, thresholds, rank)
    if len(states) == 1:
        return states[0]
    ap = np.stack([st.ap for st in states]).mean(axis=0)
    first = states[0]
    outcomes = np.stack([st.outcome for st in states])
    return _State(ap, first.outcome, first.n_positives, first.rank, outcomes)


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


_OUTCOME_WORDS = {_TP: "true positive", _FP: "false positive", _UNCOUNTED: "not counted"}
# _transitions leaves out the detections the cap adds or removes: _describe names those.


def _transitions(before: _State, after: _State) -> tuple[str, int]:
    """The detections whose outcome changes, in words, and how many."""
    parts = []
    several = before.outcomes is not None
    ob = before.outcomes if several else before.outcome[None, :]
    oa = after.outcomes if several else after.outcome[None, :]
    changed = ob != oa
    b, a = ob[changed], oa[changed]
    n_changed = int(changed.any(axis=0).sum())
    noun = "(detection, IoU threshold) pair" if several else "detection"
    for src, dst in ((_TP, _FP), (_FP, _TP), (_TP, _UNCOUNTED), (_FP, _UNCOUNTED)):
        c = int(((b == src) & (a == dst)).sum())
        if c:
            parts.append(f"{_n(c, noun)} {_OUTCOME_WORDS[src]} → {_OUTCOME_WORDS[dst]}")
    for src, dst in ((_UNCOUNTED, _TP), (_UNCOUNTED, _FP)):
        c = int(((b == src) & (a == dst)).sum())
        if c:
            parts.append(f"{_n(c, noun)} not counted → {_OUTCOME_WORDS[dst]}")
    nb, na = int(before.n_positives.sum()), int(after.n_positives.sum())
    if nb != na:
        parts.append(f"ground truths counted {nb:,} → {na:,}")
    return "; ".join(parts), n_changed


def _describe(rule, s_from, s_to, gt, dt, before, after, thr) -> tuple[str, int]:
    """What switching ``rule`` changes on these boxes, in counts."""
    if s_from == s_to:
        return "the same in both conventions", 0
    moves, n_changed = _transitions(before, after)
    lead = ""
    if rule == "crowd":
        n = int(gt.iscrowd.sum())
        n_img = np.unique(gt.image[gt.iscrowd]).size
        lead = f"{_n(n, 'crowd region')} on {_n(n_img, 'image')}" if n else "no crowd regions"
    elif rule == "difficult":
        n = int((gt.difficult & ~gt.iscrowd).sum())
        lead = _n(n, "difficult object") if n else "no difficult objects"
    elif rule == "area":
        lo, hi = AREA_RANGES[0]
        n_g = int(((gt.area < lo) | (gt.area > hi)).sum())
        n_d = int(((dt.area < lo) | (dt.area > hi)).sum())
        lead = (
            f"{_n(n_g, 'ground truth')} and {_n(n_d, 'detection')} outside [0, 1e5²] px²"
            if n_g or n_d
            else "every box inside COCO's 'all' range"
        )
    elif rule == "cap":
        dropped = (before.outcome == _DROPPED) != (after.outcome == _DROPPED)
        n_img = np.unique(dt.image[dropped]).size
        verb = "drops" if s_to == "100" else "brings back"
        lead = "no image has more than 100 detections of one category"
        if dropped.any():
            seen = np.where(before.outcome == _DROPPED, after.outcome, before.outcome)[dropped]
            kinds = [
                _n(int((seen == o).sum()), _OUTCOME_WORDS[o], _OUTCOME_WORDS[o] + "s")
                if o != _UNCOUNTED
                else f"{int((seen == o).sum()):,} not counted"
                for o in (_TP, _FP, _UNCOUNTED)
                if (seen == o).any()
            ]
            lead = (
                f"the cap {verb} {_n(int(dropped.sum()), 'detection')} on "
                f"{_n(n_img, 'image')} ({', '.join(kinds)})"
            )
    elif rule == "box_size" and not gt.has_areas and "plus_one" in (s_from, s_to):
        lead = "the boxes are normalised (no image sizes), so +1 is a whole image width"
    elif rule == "interpolation":
        lead = "the same matches and ranking, the curve read at other recall points"
    elif rule == "ties":
        both = (before.rank >= 0) & (after.rank >= 0)
        moved = int((before.rank[both] != after.rank[both]).sum())
        lead = (
            f"{_n(moved, 'detection')} change place in their category's ranking (tied scores)"
            if moved
            else "no tied score changes the ranking"
        )
    if rule == "cap" and moves:
        moves = "then " + moves
    text = "; ".join(p for p in (lead, moves) if p)
    return text or "no detection or ground truth changes on these boxes", n_changed


COCO_RANGE = "0.5:0.95"


def _thresholds(iou_threshold) -> np.ndarray:
    """One threshold, or COCO's ten (``"0.5:0.95"``, pycocotools' own values)."""
    if isinstance(iou_threshold, str) and iou_threshold.replace(" ", "") in (
        COCO_RANGE,
        "0.50:0.95",
    ):
        return IOU_THRESHOLDS.copy()
    try:
        thr = float(iou_threshold)
    except (TypeError, ValueError):
        raise ValueError(
            f"iou_threshold={iou_threshold!r} must be a number between 0 and 1, or "
            f"{COCO_RANGE!r} for COCO's ten thresholds."
        ) from None
    if not 0.0 <= thr <= 1.0:
        raise ValueError(f"iou_threshold={iou_threshold!r} must be between 0 and 1.")
    return np.array([thr])


def convention_effects(
    ground_truth, detections, *, from_: str = "coco", to: str = "voc07", iou_threshold=0.5
):
    """Walk from ``from_``'s mAP to ``to``'s, switching one rule at a time in :data:`RULES` order.

    Parameters
    ----------
    ground_truth, detections
        As :func:`metrics.detection.coco_evaluate` takes them.
    from_, to : str
        Conventions of :data:`~metrics.detection.CONVENTIONS`.
    iou_threshold : float or "0.5:0.95", default 0.5
        One IoU threshold, or COCO's ten (0.50, 0.55, ..., 0.95): each state's AP per
        category is then the mean over the ten, as COCO's AP@[.5:.95] and Ultralytics'
        mAP50-95 average them, and the counts are over (detection, threshold) pairs.

    Returns
    -------
    pandas.DataFrame
        One row a rule, in the fixed order: ``step, rule, label, setting_from, setting_to,
        change`` (what the switch changes on these boxes, in counts), ``n_changed``
        (detections whose outcome changes), ``ap_before, ap_after, difference`` (mAP over the
        categories with ground truth counted), ``n_categories`` (after), ``largest_category``
        and ``largest_category_change`` (the category whose AP the step moves most, and by
        how much; "" and 0 when none moves). The first ``ap_before`` is ``detection_ap(from_)``'s
        mean, the last ``ap_after`` ``detection_ap(to)``'s; ``difference`` sums to their gap.

    Examples
    --------
    >>> from metrics.detection import convention_effects
    >>> gt = {"images": [{"id": 1}], "categories": [{"id": 1, "name": "cat"}],
    ...       "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
    ...                        "bbox": [0, 0, 10, 20], "area": 200, "iscrowd": 0}]}
    >>> dt = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]
    >>> walk = convention_effects(gt, dt, from_="coco", to="voc07", iou_threshold=0.5)
    >>> moved = walk[walk.difference.abs() > 1e-9]
    >>> moved[["rule", "ap_before", "ap_after"]].round(4).values.tolist()  # IoU 0.5, 121/231
    [['iou_compare', 1.0, 0.0], ['box_size', 0.0, 1.0]]
    """
    import pandas as pd

    from metrics.detection.io import load_detections, load_ground_truth

    s_from, s_to = convention_settings(from_), convention_settings(to)
    thresholds = _thresholds(iou_threshold)
    thr = float(thresholds[0]) if thresholds.size == 1 else COCO_RANGE
    gt = load_ground_truth(ground_truth)
    dt = load_detections(detections, gt)
    state = dict(s_from)
    rank = _group_rank(dt, gt.n_categories)
    before = _evaluate_at(gt, dt, state, thresholds, rank)
    rows = []
    for step, rule in enumerate(RULES, start=1):
        state[rule] = s_to[rule]
        if s_from[rule] == s_to[rule]:
            after = before
        else:
            after = _evaluate_at(gt, dt, state, thresholds, rank)
        change, n_changed = _describe(rule, s_from[rule], s_to[rule], gt, dt, before, after, thr)
        delta = after.ap - before.ap
        moved = np.where(np.isnan(delta), 0.0, delta)
        largest, largest_by = "", 0.0
        if np.any(moved != 0):
            k = int(np.argmax(np.abs(moved)))
            largest, largest_by = gt.category_names[k], float(moved[k])
        a0, a1 = before.map, after.map
        rows.append(
            {
                "step": step,
                "rule": rule,
                "label": RULE_LABELS[rule],
                "setting_from": SETTING_LABELS[rule][s_from[rule]],
                "setting_to": SETTING_LABELS[rule][s_to[rule]],
                "change": change,
                "n_changed": n_changed,
                "ap_before": a0,
                "ap_after": a1,
                "difference": a1 - a0 if a0 == a0 and a1 == a1 else np.nan,
                "n_categories": int(np.isfinite(after.ap).sum()),
                "largest_category": largest,
                "largest_category_change": largest_by,
            }
        )
        before = after
    frame = pd.DataFrame(rows)
    frame.attrs.update(from_=from_, to=to, iou_threshold=thr, order=RULES)
    return frame
