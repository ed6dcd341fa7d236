"""Curves for choosing an operating point: DET and the equal error rate, precision-recall gain,
cost curves, Brier curves, and the bootstrap interval of a chosen threshold.

Every curve is a thin layer over the confusion counts at every distinct score that
:mod:`metrics.curves` gets from one sort (:func:`metrics.curves._score_runs`); a score ``>=`` the
threshold is predicted positive, tied rows are taken together, and rows of weight 0 are dropped
(as in scikit-learn), so their scores are no thresholds.

References
----------
A. Martin, G. Doddington, T. Kamm, M. Ordowski, M. Przybocki (1997), "The DET curve in
assessment of detection task performance", Eurospeech.
P. Flach, M. Kull (2015), "Precision-Recall-Gain curves: PR analysis done right", NeurIPS 28;
reference code github.com/meeliskull/prg.
C. Drummond, R. C. Holte (2006), "Cost curves: an improved method for visualizing classifier
performance", Machine Learning 65, 95-130.
J. Hernández-Orallo, P. Flach, C. Ferri (2011), "Brier curves: a new cost-based visualisation
of classifier performance", ICML; (2012) "A unified view of performance metrics", JMLR 13.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._bounds import MAX_GRID, MAX_RESAMPLES, check_at_most, check_cells
from metrics._validation import UndefinedMetricWarning, check_binary_inputs, warn_undefined
from metrics.compare import BootstrapInterval, _check_alpha, _percentile_interval
from metrics.curves import ThresholdCounts, _score_runs

__all__ = [
    "EqualErrorRate",
    "ThresholdInterval",
    "brier_curve",
    "cost_curve",
    "det_curve",
    "equal_error_rate",
    "precision_recall_gain_auc",
    "precision_recall_gain_curve",
    "threshold_interval",
]


def _counts(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any) -> ThresholdCounts:
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    return ThresholdCounts.from_runs(*_score_runs(y, s, w))


def _both_classes(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any, what: str):
    """Counts at every threshold, with (0, 0) at +inf prepended; raises with one class."""
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    n_pos = int(np.count_nonzero(y))
    if n_pos == 0 or n_pos == y.size:
        raise ValueError(
            f"y_true has {n_pos} positives and {y.size - n_pos} negatives; {what} needs both "
            "classes."
        )
    c = ThresholdCounts.from_runs(*_score_runs(y, s, w))
    tps = np.concatenate(([0], c.tps)).astype(np.float64)
    fps = np.concatenate(([0], c.fps)).astype(np.float64)
    return tps, fps, np.concatenate(([np.inf], c.thresholds))


# --- DET and the equal error rate ---------------------------------------------------------------


def det_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Detection error tradeoff: false positive and false negative rates at every threshold.

    The same arrays as ``sklearn.metrics.det_curve`` (scikit-learn 1.7 and later): a point at
    threshold ``+inf`` (nothing flagged: FPR 0, FNR 1) is included unless FPR is already 0 at a
    finite threshold; points start at the last threshold with FPR 0 and stop at the first with
    FNR 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: {0, 1}, {-1, 1}, booleans, or any two values with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores; higher means more likely positive.
    pos_label : scalar, optional
        The positive class.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights; rows of weight 0 are dropped.
    drop_intermediate : bool, default False
        Drop thresholds whose true positive count equals both neighbours' (horizontal runs of
        equal FNR), as scikit-learn does.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds,)
        Decreasing false positive rates.
    fnr : ndarray of shape (n_thresholds,)
        Increasing false negative (miss) rates.
    thresholds : ndarray of shape (n_thresholds,)
        Increasing; may end with ``inf``.

    Raises
    ------
    ValueError
        When ``y_true`` holds one class only (as scikit-learn).

    Examples
    --------
    >>> fpr, fnr, thr = det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), fnr.tolist(), thr.tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.35, 0.4, 0.8])
    """
    tps, fps, thresholds = _both_classes(
        y_true, y_score, pos_label, sample_weight, "the detection error tradeoff curve"
    )
    if drop_intermediate and fps.size > 2:
        keep = np.concatenate(([True], (np.diff(tps[:-1]) != 0) | (np.diff(tps[1:]) != 0), [True]))
        tps, fps, thresholds = tps[keep], fps[keep], thresholds[keep]
    n_pos, n_neg = tps[-1], fps[-1]
    first = int(np.searchsorted(fps, fps[0], side="right")) - 1
    last = int(np.searchsorted(tps, tps[-1])) + 1
    sl = slice(first, last)
    with np.errstate(invalid="ignore", divide="ignore"):
        if n_neg <= 0 or n_pos <= 0:
            warn_undefined("A class has total weight 0: the DET curve is undefined (NaN).")
        fpr = fps[sl][::-1] / n_neg
        fnr = (n_pos - tps[sl])[::-1] / n_pos
    return fpr, fnr, thresholds[sl][::-1].copy()


@dataclass(frozen=True)
class EqualErrorRate:
    """The equal error rate and the threshold that comes closest to it.

    Attributes
    ----------
    rate : float
        Where the DET (equivalently ROC) curve, its points joined by straight lines, crosses
        FPR = FNR. A point on the segment between two thresholds is reached by flagging the
        rows at the lower threshold's score at random, so the rate is attainable, though not by
        one threshold unless a point lies exactly on the diagonal.
    threshold : float
        The distinct score whose (FPR, FNR) is nearest the crossing: the smaller
        ``|FPR - FNR|`` of the crossing segment's two ends; on a tie (within 1e-12) the smaller
        ``max(FPR, FNR)``, then the lower threshold. Never ``inf``.
    fpr, fnr : float
        The false positive and false negative rates at ``threshold`` (flag ``score >=``).
    """

    rate: float
    threshold: float
    fpr: float
    fnr: float


def equal_error_rate(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> EqualErrorRate:
    """The equal error rate (EER): where the false positive rate equals the false negative rate.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`det_curve`.

    Returns
    -------
    EqualErrorRate

    Notes
    -----
    Along decreasing thresholds ``FPR - FNR`` rises strictly from -1 (nothing flagged) to +1
    (everything flagged), so the curve crosses FPR = FNR exactly once. On the segment between
    consecutive points ``k - 1`` and ``k`` with ``d = FPR - FNR`` changing sign, the rate is
    ``FPR[k-1] + lam * (FPR[k] - FPR[k-1])`` with ``lam = -d[k-1] / (d[k] - d[k-1])``: linear
    interpolation in (FPR, FNR), i.e. along the ROC curve's straight segment (the ROC convex
    hull is not taken). This is the usual ``brentq(1 - x - interp(x, fpr, tpr))`` of speaker
    verification, without its trouble with vertical segments.

    Examples
    --------
    >>> r = equal_error_rate([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.rate, r.threshold, r.fpr, r.fnr
    (0.5, 0.4, 0.5, 0.5)
    """
    tps, fps, thresholds = _both_classes(
        y_true, y_score, pos_label, sample_weight, "the equal error rate"
    )
    n_pos, n_neg = tps[-1], fps[-1]
    if n_pos <= 0 or n_neg <= 0:
        warn_undefined("A class has total weight 0: the equal error rate is undefined (NaN).")
        nan = math.nan
        return EqualErrorRate(nan, nan, nan, nan)
    fpr = fps / n_neg
    fnr = (n_pos - tps) / n_pos
    d = fpr - fnr
    k = int(np.searchsorted(d, 0.0, side="left"))  # first point with FPR >= FNR (k >= 1)
    if d[k] == 0:
        rate = float(fpr[k])
    else:
        lam = -d[k - 1] / (d[k] - d[k - 1])
        rate = float(fpr[k - 1] + lam * (fpr[k] - fpr[k - 1]))
    # The nearer end of the crossing segment; on a tie the smaller worst error, then index k.
    pick = k
    if k > 1 or (k == 1 and thresholds[0] != np.inf):
        # Rates within 1e-12 count as equal, so rounding does not break a tie of exact values.
        gap = abs(d[k - 1]) - abs(d[k])
        worse = max(fpr[k - 1], fnr[k - 1]) - max(fpr[k], fnr[k])
        if gap < -1e-12 or (abs(gap) <= 1e-12 and worse < -1e-12):
            pick = k - 1
    return EqualErrorRate(rate, float(thresholds[pick]), float(fpr[pick]), float(fnr[pick]))


# --- precision-recall gain ----------------------------------------------------------------------


def _gains(tps: np.ndarray, fps: np.ndarray, n_pos: float, n_neg: float):
    ratio = n_pos / n_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        precision_gain = 1.0 - ratio * fps / tps
        recall_gain = 1.0 - ratio * (n_pos - tps) / tps
    return precision_gain, recall_gain


def precision_recall_gain_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision gain and recall gain at every distinct threshold (Flach & Kull 2015).

    With ``pi`` the prevalence (share of positive weight), at each threshold

    * ``precG = (prec - pi) / ((1 - pi) * prec) = 1 - (P / N) * FP / TP``
    * ``recG  = (rec - pi) / ((1 - pi) * rec)  = 1 - (P / N) * FN / TP``

    so a gain is 0 at the always-positive classifier's value (precision ``pi``, recall ``pi``)
    and 1 at perfection. Both are ``-inf`` where no positive is flagged (``TP = 0``).

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`metrics.precision_recall_curve`.

    Returns
    -------
    precision_gain, recall_gain : ndarray of shape (n_thresholds,)
        In order of increasing threshold, as :func:`metrics.precision_recall_curve` orders its
        points (without its final recall-0 point, whose recall gain is ``-inf``).
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, increasing.

    Notes
    -----
    With one class only (or a class of weight 0) the gains are undefined: NaN, with an
    :class:`UndefinedMetricWarning`.

    Examples
    --------
    >>> pg, rg, thr = precision_recall_gain_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> pg.tolist(), rg.tolist(), thr.tolist()
    ([0.0, 0.5, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.1, 0.35, 0.4, 0.8])
    """
    c = _counts(y_true, y_score, pos_label, sample_weight)
    tps, fps = c.tps.astype(np.float64), c.fps.astype(np.float64)
    if not (c.n_pos > 0 and c.n_neg > 0):
        warn_undefined("Precision and recall gain need both classes; they are NaN.")
        nan = np.full(tps.shape, np.nan)
        return nan, nan.copy(), c.thresholds[::-1].copy()
    pg, rg = _gains(tps, fps, float(c.n_pos), float(c.n_neg))
    return pg[::-1].copy(), rg[::-1].copy(), c.thresholds[::-1].copy()


def precision_recall_gain_auc(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> float:
    """Area under the precision-recall-gain curve (AUPRG), as Flach & Kull define it.

    The area over recall gain in [0, 1], the curve's points joined by straight lines in gain
    space; precision gains below 0 count negatively (the reference code does not clip them).

    Notes
    -----
    As the authors' reference code (``calc_auprg`` after ``create_prg_curve``): the points are
    every distinct threshold plus the start (nothing flagged). Points with negative recall gain
    (recall below the prevalence) are left out; where the curve crosses recall gain 0, between
    the last point below and the first point above, a point is inserted at ``TP = P**2 / n``
    (recall = prevalence), its FP interpolated linearly between the two points' counts (along
    the ROC segment), and its precision gain computed from those counts. The trapezoids then run
    from that point to the last (recall gain 1, precision gain 0). The reference code also
    inserts points where precision gain crosses 0; on a straight segment they change no
    trapezoid sum, so they are not needed for the area.

    With one class only the area is NaN, with an :class:`UndefinedMetricWarning`.

    Examples
    --------
    >>> precision_recall_gain_auc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    1.0
    """
    c = _counts(y_true, y_score, pos_label, sample_weight)
    if not (c.n_pos > 0 and c.n_neg > 0):
        warn_undefined("AUPRG needs both classes; it is NaN.")
        return math.nan
    n_pos, n_neg = float(c.n_pos), float(c.n_neg)
    tps = np.concatenate(([0.0], c.tps.astype(np.float64)))
    fps = np.concatenate(([0.0], c.fps.astype(np.float64)))
    pg, rg = _gains(tps, fps, n_pos, n_neg)
    j = int(np.argmax(rg >= 0))  # exists: the last point has recall gain 1; j >= 1
    xs, ys = rg[j:], pg[j:]
    if rg[j] > 0:
        tp_cross = n_pos * n_pos / (n_pos + n_neg)
        share = (tp_cross - tps[j - 1]) / (tps[j] - tps[j - 1])
        fp_cross = fps[j - 1] + share * (fps[j] - fps[j - 1])
        xs = np.concatenate(([0.0], xs))
        ys = np.concatenate(([1.0 - n_pos / n_neg * fp_cross / tp_cross], ys))
    return float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2.0))


# --- cost and Brier curves ----------------------------------------------------------------------


def _upper_hull(fps: np.ndarray, tps: np.ndarray) -> np.ndarray:
    """Indices of the ROC convex hull's vertices, from (0, 0) to (N, P), collinear ones dropped.

    ``fps``, ``tps`` are non-decreasing counts starting at (0, 0). Only the corners of the
    staircase can be vertices (the last point of a run of positives that is followed by
    negatives), so the monotone-chain pass walks those.
    """
    n = fps.size
    if n <= 2:
        return np.arange(n)
    dfp, dtp = np.diff(fps), np.diff(tps)
    inner = np.flatnonzero((dtp[:-1] > 0) & (dfp[1:] > 0)) + 1
    candidates = np.concatenate(([0], inner, [n - 1]))
    x, y = fps[candidates].tolist(), tps[candidates].tolist()
    hull: list[int] = []
    for i in range(candidates.size):
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (x[a] - x[o]) * (y[i] - y[o]) - (y[a] - y[o]) * (x[i] - x[o])
            if cross >= 0:  # not a strict right (clockwise) turn: a is not a vertex
                hull.pop()
            else:
                break
        hull.append(i)
    return candidates[hull]


def cost_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Drummond & Holte's cost curve: the least normalised expected cost at every operating point.

    Each threshold (ROC point with rates FPR, FNR) is the line
    ``NEC(x) = FNR * x + FPR * (1 - x)`` over the probability cost
    ``x = PC(+) = p(+) C(-|+) / (p(+) C(-|+) + p(-) C(+|-))`` in [0, 1]; treating no one
    (``NEC = x``) and treating everyone (``NEC = 1 - x``) are among them. The cost curve is the
    lower envelope of all these lines, returned exactly: it is piecewise linear, its pieces are
    the vertices of the ROC convex hull, and a hull edge with rises ``dTPR``, ``dFPR`` puts a
    corner at ``x = dFPR / (dFPR + dTPR)``.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`metrics.roc_curve`.

    Returns
    -------
    probability_cost : ndarray of shape (n_corners,)
        Increasing from 0 to 1: the envelope's corners.
    normalized_expected_cost : ndarray of shape (n_corners,)
        The envelope there; straight in between. 0 at both ends.

    Notes
    -----
    The area under the envelope is the expected cost when every probability cost is equally
    likely (Drummond & Holte). It equals ``sum_e dFPR_e * dTPR_e / (2 * (dFPR_e + dTPR_e))``
    over the hull's edges: the Brier refinement loss of the ROC-convex-hull calibrated scores
    with the classes weighted equally (Hernández-Orallo, Flach & Ferri 2012, optimal threshold
    choice). The operating line of one chosen threshold is ``FNR * x + FPR * (1 - x)`` with its
    rates from :func:`metrics.roc_curve`. With one class only (or a class of weight 0) the cost
    is NaN, with an :class:`UndefinedMetricWarning`. The hull is a Python loop over the ROC
    staircase's corners (exact in integers when unweighted).

    Examples
    --------
    >>> x, nec = cost_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> x.tolist(), nec.tolist()
    ([0.0, 0.5, 1.0], [0.0, 0.25, 0.0])
    """
    c = _counts(y_true, y_score, pos_label, sample_weight)
    if not (c.n_pos > 0 and c.n_neg > 0):
        warn_undefined("The cost curve needs both classes; it is NaN.")
        return np.array([0.0, 1.0]), np.full(2, np.nan)
    fps = np.concatenate(([0], c.fps))
    tps = np.concatenate(([0], c.tps))
    hull = _upper_hull(fps, tps)
    fpr = fps[hull] / float(c.n_neg)
    tpr = tps[hull] / float(c.n_pos)
    dfpr, dtpr = np.diff(fpr), np.diff(tpr)
    corners = dfpr / (dfpr + dtpr)
    # Vertex i is cheapest between the corners of its two edges.
    x = np.concatenate(([0.0], corners, [1.0]))
    fnr = 1.0 - tpr
    cost = np.concatenate(([fpr[0]], corners * fnr[:-1] + (1.0 - corners) * fpr[:-1], [fnr[-1]]))
    keep = np.concatenate(([True], np.diff(x) > 0))
    return x[keep], cost[keep]


def brier_curve(
    y_true: Any,
    y_prob: Any,
    *,
    kind: str = "probability_cost",
    pos_label: Any = None,
    sample_weight: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Hernández-Orallo, Flach & Ferri's Brier curve: the cost when the threshold is set by the
    operating point itself, as a calibrated model would set it.

    At operating point ``x`` a probability ``p >= 1 - x`` is flagged (the Bayes decision when
    ``p`` is calibrated), and the curve is the resulting loss:

    * ``kind="probability_cost"`` (default): ``x`` is the probability cost of
      :func:`cost_curve` and the loss its normalised expected cost
      ``FNR * x + FPR * (1 - x)``, so the Brier curve can be drawn over the cost curve (which
      it never goes below). Its area is the Brier score with the classes weighted equally,
      ``(mean over positives of (1 - p)^2 + mean over negatives of p^2) / 2``.
    * ``kind="cost_proportion"``: ``x = C_FN / (C_FN + C_FP)`` and the loss
      ``2 * (x * pi * FNR + (1 - x) * (1 - pi) * FPR)``, ``pi`` the prevalence. Its area is the
      Brier score.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Probabilities of the positive class, in [0, 1].
    kind : {"probability_cost", "cost_proportion"}, default "probability_cost"
    pos_label, sample_weight
        As in :func:`metrics.brier_score_loss`.

    Returns
    -------
    x : ndarray of shape (n_points,)
        Non-decreasing from 0 to 1. The curve jumps at ``x = 1 - p`` for every distinct
        probability ``p``; there ``x`` appears twice, the loss just before the jump then the
        loss at it (the rows at ``p`` flagged).
    loss : ndarray of shape (n_points,)
        Straight between consecutive points.

    Examples
    --------
    >>> x, loss = brier_curve([0, 1], [0.25, 0.75])
    >>> x.tolist(), loss.tolist()
    ([0.0, 0.25, 0.25, 0.75, 0.75, 1.0], [0.0, 0.25, 0.0, 0.0, 0.25, 0.0])
    """
    from metrics.calibration import _probabilities

    if kind not in ("probability_cost", "cost_proportion"):
        raise ValueError(f'kind must be "probability_cost" or "cost_proportion", got {kind!r}.')
    y, p, w = _probabilities(y_true, y_prob, sample_weight, pos_label)
    c = ThresholdCounts.from_runs(*_score_runs(y, p, w))
    if not (c.n_pos > 0 and c.n_neg > 0):
        warn_undefined("The Brier curve needs both classes; it is NaN.")
        return np.array([0.0, 1.0]), np.full(2, np.nan)
    n_pos, n_neg = float(c.n_pos), float(c.n_neg)
    fpr = np.concatenate(([0.0], c.fps / n_neg))
    fnr = np.concatenate(([1.0], 1.0 - c.tps / n_pos))
    if kind == "probability_cost":
        a, b = fnr, fpr
    else:
        prevalence = n_pos / (n_pos + n_neg)
        a, b = 2.0 * prevalence * fnr, 2.0 * (1.0 - prevalence) * fpr
    jumps = 1.0 - c.thresholds  # increasing
    before = jumps * a[:-1] + (1.0 - jumps) * b[:-1]
    at = jumps * a[1:] + (1.0 - jumps) * b[1:]
    x = np.concatenate(([0.0], np.repeat(jumps, 2), [1.0]))
    loss = np.concatenate(([b[0]], np.column_stack((before, at)).ravel(), [a[-1]]))
    if jumps[0] == 0.0:  # p = 1: the value at x = 0 already has those rows flagged
        x, loss = x[2:], loss[2:]
    same = np.concatenate(([False], (np.diff(x) == 0) & (np.diff(loss) == 0)))
    return x[~same], loss[~same]


# --- the bootstrap interval of a chosen threshold -----------------------------------------------


@dataclass(frozen=True, eq=False)
class ThresholdInterval:
    """A threshold chosen by a rule, and how far it and its metric move across resamples.

    Attributes
    ----------
    rule : str
        ``"f1"``, ``"fbeta"``, ``"youden"`` or ``"cost"``.
    threshold : BootstrapInterval
        The threshold the rule picks on the original rows (exact, over every distinct score)
        and the percentile interval of the thresholds it picks on the resamples.
    value : BootstrapInterval
        The rule's metric at its chosen threshold (max F-beta, max Youden J, or least cost per
        row, ``(cost_fp * FP + cost_fn * FN) / n``) and its interval over the resamples.
    thresholds, values : ndarray of shape (n_resamples,)
        Per resample, the chosen threshold and the metric there (NaN where undefined). A
        ``"cost"`` pick of ``inf`` (flag no one) is kept in ``thresholds`` but, not being
        finite, left out of the threshold interval (its ``n_used`` says how many remain).
    exact : bool
        Whether the resamples searched every distinct positive score (else a grid of
        ``max_grid`` of them, evenly spaced in rank, plus the lowest score).
    n_grid : int
        Thresholds searched per resample.
    """

    rule: str
    threshold: BootstrapInterval
    value: BootstrapInterval
    thresholds: np.ndarray
    values: np.ndarray
    exact: bool
    n_grid: int


def _objective(rule, tpr, fpr, prevalence, beta, cost_fp, cost_fn):
    """The rule's metric at each threshold, from rates and the prevalence (broadcasting)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if rule == "youden":
            return tpr - fpr
        if rule == "cost":
            return -(cost_fn * prevalence * (1.0 - tpr) + cost_fp * (1.0 - prevalence) * fpr)
        b2 = beta * beta
        tp = prevalence * tpr
        value = (1.0 + b2) * tp / (tp + b2 * prevalence + (1.0 - prevalence) * fpr)
        return np.where(tp > 0, value, 0.0)  # nothing flagged (or nothing right): F = 0


def _argbest(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: index of the first (highest-threshold) maximum, and whether any is finite.

    Values within 1e-12 of the maximum count as equal to it, so an exact tie (Youden's J of
    1/3 against 1 - 2/3, say) goes to the higher threshold whatever the rounding.
    """
    v = np.where(np.isfinite(values), values, -np.inf)
    top = np.max(v, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        near = v >= top - 1e-12 * np.maximum(1.0, np.abs(top))
    best = np.argmax(near, axis=-1)
    ok = np.isfinite(top[..., 0])
    return best, ok


def threshold_interval(
    y_true: Any,
    y_score: Any,
    *,
    rule: str = "f1",
    beta: float = 1.0,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    counts: str = "poisson",
    pos_label: Any = None,
    sample_weight: Any = None,
    max_grid: int = 1000,
) -> ThresholdInterval:
    """Bootstrap interval of the threshold a rule picks, and of the rule's metric at it.

    Rules: ``"f1"`` and ``"fbeta"`` (maximise F-beta), ``"youden"`` (maximise TPR - FPR),
    ``"cost"`` (minimise ``cost_fp * FP + cost_fn * FN``, flagging no one allowed). A score
    ``>=`` the threshold is flagged; among equal optima the highest threshold wins.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in :func:`metrics.fast_paired_bootstrap` (one model).
    rule : {"f1", "fbeta", "youden", "cost"}, default "f1"
    beta : float, default 1.0
        For ``"fbeta"``.
    cost_fp, cost_fn : float, default 1.0
        For ``"cost"``: the cost of a false positive and of a false negative.
    n_resamples, alpha, seed, counts
        As in :func:`metrics.fast_paired_bootstrap`, whose resamples these are
        (``n_resamples`` at most 100,000).
    max_grid : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_GRID``), and ``n_resamples x max_grid`` at
        most 50,000,000 (``MAX_CELLS``); more raises ValueError.
        Most thresholds searched per resample (see Notes).

    Returns
    -------
    ThresholdInterval

    Notes
    -----
    The resamples come from :func:`metrics.fast_paired_bootstrap` with ``threshold_grid`` set
    to ``+inf`` (flag no one), the distinct positive scores (an optimum of any of these rules
    sits at one: lowering a threshold past negatives only adds false positives) and the lowest
    score, where precision is the resample's prevalence. Each resample's TPR and FPR on that
    grid give every rule's metric. :class:`metrics.FastBootstrap` keeps per-resample rates only
    at given thresholds, so with more than ``max_grid`` distinct positive scores the grid is
    ``max_grid`` of them, evenly spaced in rank (``exact`` is False): the chosen thresholds
    are then the best on that grid, not over every score. The estimate on the original rows is
    always exact. For ``"f1"`` and ``"youden"`` with an exact grid the thresholds equal the
    bootstrap's own ``chosen_thresholds``.

    Examples
    --------
    >>> r = threshold_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7],
    ...                        n_resamples=200)
    >>> r.threshold.estimate, round(r.value.estimate, 4)
    (0.35, 0.8571)
    """
    from metrics.bootstrap import fast_paired_bootstrap

    if rule not in ("f1", "fbeta", "youden", "cost"):
        raise ValueError(f'rule must be "f1", "fbeta", "youden" or "cost", got {rule!r}.')
    if rule == "f1":
        beta = 1.0
    if not (isinstance(beta, (int, float)) and beta > 0 and math.isfinite(beta)):
        raise ValueError(f"beta must be a positive number, got {beta!r}.")
    for name, v in (("cost_fp", cost_fp), ("cost_fn", cost_fn)):
        if not (isinstance(v, (int, float)) and v >= 0 and math.isfinite(v)):
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}.")
    if isinstance(max_grid, bool) or not isinstance(max_grid, (int, np.integer)) or max_grid < 1:
        raise ValueError(f"max_grid must be a positive integer, got {max_grid!r}.")
    check_at_most(max_grid, "max_grid", MAX_GRID)
    if isinstance(n_resamples, (int, np.integer)):  # the rest of its checks: the bootstrap's
        check_at_most(n_resamples, "n_resamples", MAX_RESAMPLES)
        check_cells("threshold_interval", ("n_resamples", n_resamples), ("max_grid", max_grid))
    alpha = _check_alpha(alpha)
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    c = ThresholdCounts.from_runs(*_score_runs(y, s, w))
    if not (c.n_pos > 0 and c.n_neg > 0):
        raise ValueError(
            "threshold_interval needs both classes with positive weight; y_true has "
            f"{int(y.sum())} positives and {int((~y).sum())} negatives."
        )
    n_pos, n_neg = float(c.n_pos), float(c.n_neg)
    tpr = np.concatenate(([0.0], c.tps / n_pos))
    fpr = np.concatenate(([0.0], c.fps / n_neg))
    all_thresholds = np.concatenate(([np.inf], c.thresholds))
    original = _objective(rule, tpr, fpr, n_pos / (n_pos + n_neg), beta, cost_fp, cost_fn)
    best, _ = _argbest(original)
    estimate_threshold = float(all_thresholds[best])
    estimate_value = float(original[best]) * (-1.0 if rule == "cost" else 1.0)

    positives = np.unique(s[y & (w > 0 if w is not None else True)])[::-1]
    exact = positives.size <= max_grid
    if not exact:
        ranks = np.unique(np.linspace(0, positives.size - 1, max_grid).round()).astype(int)
        positives = positives[ranks]
    lowest = float(s.min() if w is None else s[w > 0].min())
    grid = np.concatenate(([np.inf], positives, [lowest]))
    with warnings.catch_warnings():
        # Resamples without both classes come out NaN below and are counted in n_used.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        fb = fast_paired_bootstrap(
            y, s, n_resamples=n_resamples, alpha=alpha, seed=seed, counts=counts,
            sample_weight=w, threshold_grid=[grid],
        )  # fmt: skip
    rec = fb.threshold_curves["recall"][0]
    fal = fb.threshold_curves["fpr"][0]
    prevalence = fb.threshold_curves["precision"][0][:, -1:]  # everything flagged: P / n
    values = _objective(rule, rec, fal, prevalence, beta, cost_fp, cost_fn)
    idx, ok = _argbest(values)
    ok &= np.isfinite(prevalence[:, 0]) & (prevalence[:, 0] > 0) & (prevalence[:, 0] < 1)
    chosen = np.where(ok, grid[idx], np.nan)
    picked = np.take_along_axis(values, idx[:, None], axis=1)[:, 0]
    picked = np.where(ok, -picked if rule == "cost" else picked, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        threshold_iv = _percentile_interval(estimate_threshold, chosen.copy(), alpha)
        value_iv = _percentile_interval(estimate_value, picked.copy(), alpha)
    return ThresholdInterval(rule, threshold_iv, value_iv, chosen, picked, exact, grid.size)
