"""Two detectors on the same images: mAP differences with an image-resampling bootstrap.

Boxes of one image are not independent of each other (one hard image costs every class), so
the unit resampled is the image: each resample draws a Poisson(1) count for every image (the
same counts for both detectors, which pairs them) and repeats that image's ground truths and
detections that many times. Matching happens inside an image, so it is done once per
detector; a resample only re-accumulates the precision/recall counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from metrics.detection._boxes import Detections, GroundTruth
from metrics.detection.coco import (
    AREA_RANGES,
    IOU_THRESHOLDS,
    RECALL_THRESHOLDS,
    MatchResult,
    _accumulate,
    coco_match,
)

__all__ = [
    "DETECTION_METRICS",
    "MAP_NAME",
    "DetectionComparison",
    "DetectorSetComparison",
    "compare_detector_set",
    "compare_detectors",
    "leave_one_image_out",
    "match_all_area",
]

# metric name -> IoU thresholds it averages over (COCO's area "all", 100 detections an image)
DETECTION_METRICS = {"coco_map": IOU_THRESHOLDS, "coco_map50": IOU_THRESHOLDS[:1]}


@dataclass(frozen=True)
class DetectionComparison:
    """Baseline and candidate on the same images.

    Attributes
    ----------
    metric : str
    baseline, candidate, difference : float
        On the data as given (equal to pycocotools' ``stats[0]`` / ``stats[1]``).
    differences : ndarray of shape (n_resamples,)
        candidate - baseline on each resample (NaN where a resample has no ground truth).
    n_images : int
    """

    metric: str
    baseline: float
    candidate: float
    difference: float
    differences: np.ndarray
    n_images: int
    seed: int

    def bounds(self, alpha: float) -> tuple[float, float]:
        """One-sided (1 - alpha) bounds: the alpha and 1 - alpha quantiles of the differences."""
        d = self.differences[np.isfinite(self.differences)]
        if d.size == 0:
            return float("nan"), float("nan")
        lo, hi = np.quantile(d, [alpha, 1 - alpha])
        return float(lo), float(hi)


def _match_all_area(gt, dt, thresholds) -> MatchResult:
    return coco_match(gt, dt, iou_thresholds=thresholds, area_ranges=AREA_RANGES[:1])


match_all_area = _match_all_area

# Leaving images out one at a time: images are tried, most errors first, until about this many
# detection rows have been accumulated, and never fewer than MIN_LOO.
IMAGES_BUDGET_ROWS = 2_000_000
MIN_LOO = 3


def _map(gt, dt, match: MatchResult, counts=None) -> float:
    precision, _, _ = _accumulate(gt, dt, match, max_dets=(100,), image_counts=counts)
    s = precision[..., 0, 0]
    valid = s[s > -1]
    return float(np.mean(valid)) if valid.size else float("nan")


def compare_detectors(
    ground_truth,
    baseline,
    candidate,
    *,
    metric: str = "coco_map",
    n_resamples: int = 200,
    seed: int = 0,
) -> DetectionComparison:
    """Paired image bootstrap of ``metric`` (``"coco_map"``: AP@[.5:.95]; ``"coco_map50"``).

    Each resample costs one accumulation per detector (the matching is reused): about half
    a second at COCO val2017 size.
    """
    from metrics.detection.io import load_detections, load_ground_truth

    if metric not in DETECTION_METRICS:
        raise ValueError(
            f"metric={metric!r} is not a detection metric; use one of "
            f"{', '.join(repr(m) for m in DETECTION_METRICS)}."
        )
    gt = load_ground_truth(ground_truth)
    a = load_detections(baseline, gt)
    b = load_detections(candidate, gt)
    thr = DETECTION_METRICS[metric]
    ma, mb = _match_all_area(gt, a, thr), _match_all_area(gt, b, thr)
    est_a, est_b = _map(gt, a, ma), _map(gt, b, mb)
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_resamples)
    for i in range(n_resamples):
        counts = rng.poisson(1.0, gt.n_images)
        diffs[i] = _map(gt, b, mb, counts) - _map(gt, a, ma, counts)
    return DetectionComparison(
        metric=metric,
        baseline=est_a,
        candidate=est_b,
        difference=est_b - est_a,
        differences=diffs,
        n_images=gt.n_images,
        seed=seed,
    )


def weighted_scores(
    gt, dt, match: MatchResult, weights, *, max_cells: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray]:
    """COCO mAP and AP per category (area "all", 100 detections an image) for many image
    weightings at once: ``weights`` (n_weightings, n_images) of copy counts, each row one
    bootstrap resample or one image left out.

    A copy count repeats an image's ground truths and detections (``_accumulate``'s
    ``image_counts``). The copies of a detection sit side by side in the score order, so only
    the last copy's point of the precision-recall curve can be read: inside a run of copies of
    a true positive precision rises, so the envelope at each copy is the envelope at the last
    one, and a false positive's copies add no recall. The cumulative counts are therefore
    weighted cumulative sums, computed for every weighting together (in blocks of about
    ``max_cells`` numbers), with pycocotools' 101-point reading.

    Returns
    -------
    maps : ndarray of shape (n_weightings,)
    class_ap : ndarray of shape (n_weightings, n_categories), NaN without ground truth
    """
    w_all = np.asarray(weights, dtype=np.int64)
    n_w, n_cat = w_all.shape[0], gt.n_categories
    n_t = match.tp.shape[2]
    r_thr = np.asarray(RECALL_THRESHOLDS, dtype=np.float64)
    n_r = r_thr.size
    counted = ~match.gt_ignored[:, 0]
    gi, gc = gt.image[counted], gt.category[counted]
    npig = np.zeros((n_w, n_cat), dtype=np.int64)
    for k in np.unique(gc):
        npig[:, k] = w_all[:, gi[gc == k]].sum(axis=1)
    kept = match.kept
    cat, img = dt.category[kept], dt.image[kept]
    order = np.lexsort((match.rank, img, -dt.score[kept], cat))  # as _accumulate
    bounds = np.searchsorted(cat[order], np.arange(n_cat + 1))
    tp_all = match.tp[:, 0, :]
    fp_all = ~tp_all & ~match.ignored[:, 0, :]
    eps = np.spacing(1)
    ap = np.full((n_w, n_cat), np.nan)
    for k in range(n_cat):
        has = npig[:, k] > 0
        if not has.any():
            continue
        rows = order[bounds[k] : bounds[k + 1]]
        nd = rows.size
        if nd == 0:
            ap[has, k] = 0.0
            continue
        npos = np.maximum(npig[:, k], 1).astype(np.float64)
        j = np.ceil(r_thr[None, :] * npos[:, None]).astype(np.int64)
        j = np.where((j - 1) / npos[:, None] >= r_thr, j - 1, j)
        tmin = np.where(j / npos[:, None] < r_thr, j + 1, j)  # (W, R): TPs recall r needs
        tpk = np.ascontiguousarray(tp_all[rows].T, dtype=np.int64)  # (T, nd)
        fpk = np.ascontiguousarray(fp_all[rows].T, dtype=np.int64)
        step = max(1, max_cells // (nd * n_t))
        for s0 in range(0, n_w, step):
            b = slice(s0, min(n_w, s0 + step))
            nb = b.stop - b.start
            w = w_all[b][:, img[rows]][:, None, :]  # (nb, 1, nd); int64 cumsums are fastest
            # one row a (weighting, threshold) column, along the score order
            tp = np.cumsum(w * tpk[None], axis=2).reshape(nb * n_t, nd)
            fp = np.cumsum(w * fpk[None], axis=2).reshape(nb * n_t, nd)
            pr = tp / ((fp + tp) + eps)
            env = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
            # first position where tp >= tmin in every column: the columns are
            # non-decreasing, offset so all of them form one sorted array
            top = int(tp[:, -1].max()) + 2
            off = np.arange(nb * n_t, dtype=np.int64) * top
            flat = (tp + off[:, None]).ravel()
            # (a tmin past a column's last count lands past the column: outside, precision 0)
            want = np.repeat(tmin[b], n_t, axis=0) + off[:, None]
            idx = np.searchsorted(flat, want, side="left") - (np.arange(nb * n_t) * nd)[:, None]
            inside = idx < nd
            q = np.take_along_axis(env, np.where(inside, idx, 0), axis=1)
            q = np.where(inside, q, 0.0).reshape(nb, n_t * n_r)
            ap[b, k] = np.where(has[b], q.sum(axis=1) / (n_t * n_r), np.nan)
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(ap)
        n = valid.sum(axis=1)
        maps = np.where(n > 0, np.where(valid, ap, 0.0).sum(axis=1) / np.maximum(n, 1), np.nan)
    return maps, ap


def per_image_counts(gt: GroundTruth, dt: Detections, match) -> dict[str, np.ndarray]:
    """TP, FP and missed ground truths of every image, per IoU threshold of ``match`` (an
    area-"all" :class:`MatchResult`): arrays of shape (n_images, n_thresholds)."""
    n_img = gt.n_images
    img = dt.image[match.kept]
    tp = match.tp[:, 0, :]
    fp = ~tp & ~match.ignored[:, 0, :]
    n_t = tp.shape[1]
    tps = np.zeros((n_img, n_t), dtype=np.int64)
    fps = np.zeros((n_img, n_t), dtype=np.int64)
    np.add.at(tps, img, tp.astype(np.int64))
    np.add.at(fps, img, fp.astype(np.int64))
    n_gt = np.bincount(gt.image[~match.gt_ignored[:, 0]], minlength=n_img)
    return {"tp": tps, "fp": fps, "missed": n_gt[:, None] - tps, "n_gt": n_gt}


def loo_candidates(errors: np.ndarray, n_rows: int, budget: int = IMAGES_BUDGET_ROWS) -> np.ndarray:
    """The images to leave out one at a time, most ``errors`` first, within the budget."""
    k = max(MIN_LOO, budget // max(n_rows, 1))
    order = np.argsort(-errors, kind="stable")
    return order[: min(k, errors.size)]


def leave_one_image_out(gt, dt, match: MatchResult, images) -> tuple[float, np.ndarray]:
    """COCO mAP with every image, and with each of ``images`` (indices) left out in turn.

    ``match`` is an area-"all" match (:func:`match_all_area`); leaving an image out drops its
    ground truths and detections (a category found only there drops out of the mean).
    """
    full = _map(gt, dt, match)
    images = np.asarray(images, dtype=np.int64)
    weights = np.ones((images.size, gt.n_images), dtype=np.int64)
    weights[np.arange(images.size), images] = 0
    return full, weighted_scores(gt, dt, match, weights)[0]


# --- Several detectors, every pair, per class, the family declared -------------------------

MAP_NAME = "COCO mAP"
DETECTOR_FAMILIES = (MAP_NAME, "all")


def _class_ap(precision: np.ndarray) -> np.ndarray:
    """AP per category from ``precision`` (T, R, K): NaN where a category has no ground truth
    (the sum over valid entries divided by their count, as ``COCOEvaluation.category_ap``)."""
    valid = precision > -1
    total = np.where(valid, precision, 0.0).sum(axis=(0, 1))
    n = valid.sum(axis=(0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def _scores(gt, dt, match: MatchResult, counts=None) -> tuple[float, np.ndarray]:
    """(COCO mAP, AP per category) of one detector on one resample."""
    precision, _, _ = _accumulate(gt, dt, match, max_dets=(100,), image_counts=counts)
    s = precision[..., 0, 0]
    valid = s[s > -1]
    return (float(np.mean(valid)) if valid.size else float("nan")), _class_ap(s)


def _class_metric_names(gt) -> list[str]:
    names = [f"AP {n}" for n in gt.category_names]
    if len(set(names)) < len(names):  # two categories of one name: tell them apart by id
        names = [f"AP {n} ({c})" for n, c in zip(gt.category_names, gt.category_ids, strict=True)]
    return names


@dataclass(frozen=True)
class DetectorSetComparison:
    """Detectors on the same images: COCO mAP and AP per category of each, every pair's
    difference with a paired image-bootstrap interval and p-value, the family declared.

    Attributes
    ----------
    names : tuple of str
    map : ndarray of shape (k,)
        COCO mAP@[.5:.95] of each detector (pycocotools' ``stats[0]``).
    class_ap : ndarray of shape (k, n_categories)
        AP per category (``per_class["ap"]`` of :func:`coco_evaluate`), NaN without ground truth.
    map_replicates : ndarray of shape (n_resamples, k)
    class_replicates : ndarray of shape (n_resamples, k, n_categories)
        The same on each resample; every detector sees the same images (the pairing).
    family : metrics.families.FamilyResult
        The tests (``COCO mAP`` and ``AP <category>`` on every pair), Holm across the family
        declared: the primary metric ``COCO mAP`` alone (per-category tests exploratory), or
        ``"all"`` (Holm across mAP and every category x every pair).
    table : pandas.DataFrame
        One row a test: ``metric, candidate, baseline, difference, ci_low, ci_high, p_value,
        role, p_adjusted, significant``; ``difference`` is candidate - baseline.
    """

    names: tuple[str, ...]
    category_ids: np.ndarray
    category_names: tuple[str, ...]
    metric_names: tuple[str, ...]
    map: np.ndarray
    class_ap: np.ndarray
    map_replicates: np.ndarray
    class_replicates: np.ndarray
    family: Any
    table: Any
    confidence: float
    n_resamples: int
    seed: int
    n_images: int
    _inputs: tuple = field(repr=False, compare=False)

    def declare(self, family: str, *, alpha: float = 0.05) -> DetectorSetComparison:
        """The same resamples under another family (``"COCO mAP"`` or ``"all"``)."""
        table, verdict = _tests(
            self.names, self.metric_names, self.map, self.class_ap, self.map_replicates,
            self.class_replicates, family, self.confidence, alpha,
        )  # fmt: skip
        return replace(self, family=verdict, table=table)

    def _index(self, name: str) -> int:
        if name not in self.names:
            raise ValueError(f"{name!r} is not one of the detectors ({', '.join(self.names)}).")
        return self.names.index(name)

    def pair(self, candidate: str, baseline: str):
        """The tests of one pair, ``candidate - baseline`` (a row of the other direction is
        turned round)."""
        t = self.table
        same = t[(t["candidate"] == candidate) & (t["baseline"] == baseline)]
        if len(same):
            return same.reset_index(drop=True)
        other = t[(t["candidate"] == baseline) & (t["baseline"] == candidate)].copy()
        other["difference"] = -other["difference"]
        other["ci_low"], other["ci_high"] = -other["ci_high"], -other["ci_low"]
        other["candidate"], other["baseline"] = candidate, baseline
        return other.reset_index(drop=True)

    def classes(self, candidate: str, baseline: str):
        """The per-category tests of the pair, largest absolute difference first."""
        rows = self.pair(candidate, baseline)
        rows = rows[rows["metric"] != MAP_NAME].copy()
        rows.insert(1, "category_id", self.category_ids[: len(rows)])
        rows.insert(2, f"AP {baseline}", self.class_ap[self._index(baseline)])
        rows.insert(3, f"AP {candidate}", self.class_ap[self._index(candidate)])
        key = rows["difference"].abs().fillna(-1.0)
        return rows.iloc[np.argsort(-key.to_numpy(), kind="stable")].reset_index(drop=True)

    def images(self, candidate: str, baseline: str, *, top: int = 10):
        """The images where the two differ most: each image's change of candidate - baseline
        COCO mAP when it is left out (``influence``: the difference with it minus without it),
        with both detectors' TP and FP averaged over the 10 IoU thresholds.

        Leaving an image out costs one accumulation per detector; the images are tried by the
        largest change in TP and FP first, within a budget of detection rows.
        """
        import pandas as pd

        gt, dets, matches = self._inputs
        ia, ib = self._index(candidate), self._index(baseline)
        ca = per_image_counts(gt, dets[ia], matches[ia])
        cb = per_image_counts(gt, dets[ib], matches[ib])
        tp_a, tp_b = ca["tp"].mean(axis=1), cb["tp"].mean(axis=1)
        fp_a, fp_b = ca["fp"].mean(axis=1), cb["fp"].mean(axis=1)
        change = np.abs(tp_a - tp_b) + np.abs(fp_a - fp_b)
        rows = matches[ia].kept.size + matches[ib].kept.size
        tried = loo_candidates(change, rows, IMAGES_BUDGET_ROWS)
        tried = tried[change[tried] > 0]
        full_a, without_a = leave_one_image_out(gt, dets[ia], matches[ia], tried)
        full_b, without_b = leave_one_image_out(gt, dets[ib], matches[ib], tried)
        influence = (full_a - full_b) - (without_a - without_b)
        order = np.argsort(-np.abs(np.nan_to_num(influence, nan=-1.0)), kind="stable")[:top]
        pick = tried[order]
        return pd.DataFrame(
            {
                "image_id": gt.image_ids[pick],
                "influence": influence[order],
                f"TP {baseline}": tp_b[pick],
                f"TP {candidate}": tp_a[pick],
                f"FP {baseline}": fp_b[pick],
                f"FP {candidate}": fp_a[pick],
                "ground truths": ca["n_gt"][pick],
            }
        )


def _order_interval(d: np.ndarray, tail: float) -> tuple[float, float]:
    """The equal-tailed interval of resampled differences as order statistics: the k-th
    smallest and the k-th largest, k = ceil(tail * n) counted in whole resamples (0.025 * 200
    is 5, not the 5.000000000000004 floating point makes of it). It leaves 0 out exactly when
    :func:`metrics.significance.bootstrap_p_value` is below ``2 * tail``."""
    s = np.sort(d)
    k = max(1, int(np.ceil(round(tail * s.size, 9))))
    return float(s[k - 1]), float(s[s.size - k])


def _tests(names, metric_names, maps, class_ap, map_rep, class_rep, family, confidence, alpha):
    """The table of every (metric, pair) test and the family's verdicts."""
    import pandas as pd

    from metrics.families import FamilyTest, family_verdicts
    from metrics.significance import bootstrap_p_value

    if family not in DETECTOR_FAMILIES:
        raise ValueError(
            f"family={family!r} must be {MAP_NAME!r} (the primary metric) or 'all' "
            "(Holm across mAP and every category)."
        )
    k = len(names)
    tail = (1.0 - float(confidence)) / 2.0
    rows, tests = [], []
    for i in range(k):
        for j in range(i + 1, k):
            a, b = names[j], names[i]  # the later is the candidate
            point = np.concatenate(([maps[j] - maps[i]], class_ap[j] - class_ap[i]))
            reps = np.column_stack(
                [map_rep[:, j] - map_rep[:, i], class_rep[:, j] - class_rep[:, i]]
            )
            for m, name in enumerate(metric_names):
                d = reps[:, m][np.isfinite(reps[:, m])]
                finite = np.isfinite(point[m]) and d.size > 0
                lo, hi = _order_interval(d, tail) if finite else (np.nan, np.nan)
                p = bootstrap_p_value(d) if finite else float("nan")
                tests.append(FamilyTest(name, a, b, p, float(point[m])))
                rows.append((name, a, b, float(point[m]), float(lo), float(hi)))
    verdict = family_verdicts(tests, family=family, alpha=alpha)
    table = pd.DataFrame(
        rows, columns=["metric", "candidate", "baseline", "difference", "ci_low", "ci_high"]
    )
    table["p_value"] = [r.p_value for r in verdict.rows]
    table["role"] = [r.role for r in verdict.rows]
    table["p_adjusted"] = [r.adjusted_p for r in verdict.rows]
    table["significant"] = [r.significant for r in verdict.rows]
    table.attrs["family"] = verdict.description
    return table, verdict


def compare_detector_set(
    ground_truth,
    detections,
    *,
    family: str = MAP_NAME,
    n_resamples: int = 200,
    seed: int = 0,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> DetectorSetComparison:
    """Every pair of detectors on the same images, paired by an image bootstrap.

    Parameters
    ----------
    ground_truth : GroundTruth, COCO dict or path
    detections : mapping of name -> detections (Detections, COCO results or path)
        Two or more, in the order pairs are read: each later one is a candidate against each
        earlier one (a difference is candidate - baseline).
    family : {"COCO mAP", "all"}
        Declared before looking: ``"COCO mAP"`` makes COCO mAP@[.5:.95] the primary metric
        (Holm across its pairs; every per-category difference is exploratory, shown with its
        unadjusted p-value and never starred); ``"all"`` puts mAP and every category's AP of
        every pair in one Holm family.
    n_resamples : int, default 200
        Image resamples: Poisson(1) counts an image, the same for every detector.
    confidence : float, default 0.95
        Of the equal-tailed percentile intervals (order statistics of the resampled
        differences, without interpolation); a p-value is
        :func:`metrics.significance.bootstrap_p_value` of the same replicates, so it is below
        ``1 - confidence`` exactly when the interval leaves 0 out.

    Returns
    -------
    DetectorSetComparison
    """
    from metrics.detection.io import load_detections, load_ground_truth

    if family not in DETECTOR_FAMILIES:  # before the resamples: the same sentence as _tests
        _tests((), (), None, None, None, None, family, confidence, alpha)
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence={confidence!r} must be strictly between 0 and 1.")
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples={n_resamples!r} must be at least 1.")
    if not hasattr(detections, "items") or len(detections) < 2:
        raise ValueError(
            "give two or more detectors as a mapping {name: detections} to compare them."
        )
    gt = load_ground_truth(ground_truth)
    names = tuple(str(n) for n in detections)
    if len(set(names)) < len(names):
        raise ValueError("two detectors have the same name; give each its own.")
    dets = [load_detections(d, gt) for d in detections.values()]
    matches = [_match_all_area(gt, d, IOU_THRESHOLDS) for d in dets]
    k, n_cat = len(dets), gt.n_categories
    est = [_scores(gt, d, m) for d, m in zip(dets, matches, strict=True)]
    maps = np.array([e[0] for e in est])
    class_ap = np.array([e[1] for e in est]).reshape(k, n_cat)
    rng = np.random.default_rng(seed)
    counts = rng.poisson(1.0, (n_resamples, gt.n_images))  # one row a resample
    map_rep = np.empty((n_resamples, k))
    class_rep = np.empty((n_resamples, k, n_cat))
    for j in range(k):  # the same counts for every detector: the pairing
        map_rep[:, j], class_rep[:, j] = weighted_scores(gt, dets[j], matches[j], counts)

    metric_names = [MAP_NAME, *_class_metric_names(gt)]
    table, verdict = _tests(
        names, metric_names, maps, class_ap, map_rep, class_rep, family, confidence, alpha
    )
    return DetectorSetComparison(
        names=names,
        category_ids=gt.category_ids,
        category_names=gt.category_names,
        metric_names=tuple(metric_names),
        map=maps,
        class_ap=class_ap,
        map_replicates=map_rep,
        class_replicates=class_rep,
        family=verdict,
        table=table,
        confidence=float(confidence),
        n_resamples=int(n_resamples),
        seed=int(seed),
        n_images=gt.n_images,
        _inputs=(gt, dets, matches),
    )
