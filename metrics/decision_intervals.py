"""Intervals for the averaged metrics of a multi-class or multi-label decision.

Given each row's true classes and predicted classes as indicator matrices (a row may predict
none: an abstention), precision, recall, F1 (or F-beta) and Jaccard with micro, macro, weighted
and samples averaging, and (subset) accuracy, are all functions of weighted sums over rows:
each class's TP, predicted and true totals, and each row's own values. A resample reweights
the rows, so every replicate of every average is one matrix product away: no metric is
recomputed row by row. The decision itself (a threshold, argmax, top-k) is fixed; the
resampling asks how much the averages would move on another sample of rows, or of groups
(users, patients) when ``groups`` is given.

Conventions are the library's (:func:`metrics.precision_score` and friends with every class
as ``labels``): a ratio whose denominator is 0 is 0 (scikit-learn's ``zero_division=0``),
macro is the plain mean over every class, weighted uses the true totals as weights. The
intervals are bootstrap percentile intervals (Poisson counts, as the rest of the library).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import check_sample_weight
from metrics.bootstrap import _GroupDraws
from metrics.compare import _check_resampling, _Draws, _percentile_interval

__all__ = ["DecisionIntervals", "decision_intervals"]

AVERAGES = ("micro", "macro", "weighted", "samples")
_BLOCK_CELLS = 4_000_000  # resamples x rows drawn at once


@dataclass(frozen=True)
class DecisionIntervals:
    """Averaged metrics of one decision with their bootstrap intervals.

    Attributes
    ----------
    values : dict of (str, str) -> float
        ``(metric, average)`` on all rows; metrics "precision", "recall", "F1", "Jaccard" and
        ``f"F{beta:g}"`` when ``beta`` is not 1.
    intervals : dict of (str, str) -> (float, float)
        The ``1 - alpha`` percentile interval of each (NaN without resamples).
    accuracy : float
        The share (weight) of rows whose predicted set is exactly the true set.
    accuracy_interval : (float, float)
    n_resamples : int
    alpha : float
    resampled : str
        "rows" or "groups".
    replicates : dict of (str, str) -> ndarray of shape (n_resamples,), or None
        Each average on each resample (``("accuracy", "")`` too).
    """

    values: dict[tuple[str, str], float]
    intervals: dict[tuple[str, str], tuple[float, float]]
    accuracy: float
    accuracy_interval: tuple[float, float]
    n_resamples: int
    alpha: float
    resampled: str
    replicates: dict[tuple[str, str], np.ndarray] | None = None


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def _scores(tp, pred, true, beta: float) -> dict[str, np.ndarray]:
    """Precision, recall, F1, Jaccard (and F-beta) from TP, predicted and true totals, any
    shape; 0 where a denominator is 0."""
    fn, fp = true - tp, pred - tp
    out = {
        "precision": _ratio(tp, pred),
        "recall": _ratio(tp, true),
        "F1": _ratio(2 * tp, 2 * tp + fn + fp),
        "Jaccard": _ratio(tp, tp + fn + fp),
    }
    if beta != 1:
        b2 = beta * beta
        out[f"F{beta:g}"] = _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    return out


def _averages(tp, pred, true, rows, total, beta: float) -> dict[tuple[str, str], np.ndarray]:
    """Every (metric, average) from summed weights; the class axis last, any leading axes."""
    per_class = _scores(tp, pred, true, beta)
    micro = _scores(tp.sum(axis=-1), pred.sum(axis=-1), true.sum(axis=-1), beta)
    support = true.sum(axis=-1)
    out = {}
    for name, values in per_class.items():
        out[(name, "micro")] = micro[name]
        out[(name, "macro")] = values.mean(axis=-1)
        out[(name, "weighted")] = _ratio((values * true).sum(axis=-1), support)
        out[(name, "samples")] = _ratio(rows[name], total)
    return out


def _row_values(y: np.ndarray, p: np.ndarray, beta: float) -> dict[str, np.ndarray]:
    """Each row's own precision, recall, F and Jaccard of its predicted set (0 where 0/0)."""
    tp = (y & p).sum(axis=1).astype(np.float64)
    return _scores(tp, p.sum(axis=1).astype(np.float64), y.sum(axis=1).astype(np.float64), beta)


def decision_intervals(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    sample_weight: Any = None,
    groups: Any = None,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
) -> DecisionIntervals:
    """Averaged precision, recall, F and Jaccard of a decision, with bootstrap intervals.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples, n_classes)
        0/1 indicator matrices: each row's true classes and predicted classes (one true class
        per row for multi-class; a row predicting none abstains: a miss, never a false
        positive).
    beta : float, default 1.0
        F-beta is added as ``f"F{beta:g}"`` when not 1.
    sample_weight : array-like of shape (n_samples,), optional
    groups : array-like of shape (n_samples,), optional
        The unit rows belong to (a user, a patient): resamples draw whole groups.
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
        0 gives the values only (NaN intervals).
    alpha : float, default 0.05
    seed : int, numpy Generator or None, default 0

    Returns
    -------
    DecisionIntervals

    Examples
    --------
    >>> y = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> p = [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> r = decision_intervals(y, p, n_resamples=0)
    >>> round(r.values[("F1", "macro")], 4), round(r.values[("F1", "micro")], 4), r.accuracy
    (0.7111, 0.7273, 0.6666666666666666)
    """
    y = np.asarray(y_true)
    p = np.asarray(y_pred)
    if y.ndim != 2 or p.shape != y.shape:
        raise ValueError(
            f"y_true and y_pred must be indicator matrices of one shape, got {y.shape} and "
            f"{p.shape}."
        )
    if not (np.isin(y, (0, 1)).all() and np.isin(p, (0, 1)).all()):
        raise ValueError("y_true and y_pred must hold 0/1 (or booleans) only.")
    y, p = y.astype(bool), p.astype(bool)
    n = y.shape[0]
    w = check_sample_weight(sample_weight, n)
    ones = np.ones(n) if w is None else w
    if n_resamples != 0:
        alpha = _check_resampling(n_resamples, alpha, "poisson")
    beta = float(beta)
    if not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive number, got {beta!r}.")
    rows = _row_values(y, p, beta)
    correct = (y == p).all(axis=1).astype(np.float64)
    columns = [y, y & p, p, *(v[:, None] for v in rows.values()), correct[:, None], np.ones((n, 1))]
    matrix = np.column_stack([np.asarray(c, np.float64) for c in columns]) * ones[:, None]
    n_classes = y.shape[1]
    names = list(rows)

    def split(sums: np.ndarray):
        c = n_classes
        true, tp, pred = sums[..., :c], sums[..., c : 2 * c], sums[..., 2 * c : 3 * c]
        per_row = {name: sums[..., 3 * c + k] for k, name in enumerate(names)}
        return true, tp, pred, per_row, sums[..., -2], sums[..., -1]

    true, tp, pred, per_row, right, total = split(matrix.sum(axis=0))
    values = {k: float(v) for k, v in _averages(tp, pred, true, per_row, total, beta).items()}
    accuracy = float(_ratio(right, total))
    intervals = {k: (math.nan, math.nan) for k in values}
    accuracy_interval = (math.nan, math.nan)
    resampled = "rows" if groups is None else "groups"
    reps = None
    if n_resamples:
        draws = (
            _Draws(np.zeros(n, bool), seed, "poisson", False)
            if groups is None
            else _GroupDraws(groups, n, seed, "poisson")
        )
        reps = {k: np.empty(n_resamples) for k in values}
        acc_reps = np.empty(n_resamples)
        block = max(1, min(n_resamples, _BLOCK_CELLS // max(n, 1)))
        for first in range(0, n_resamples, block):
            size = min(block, n_resamples - first)
            sums = draws.block(size).astype(np.float64) @ matrix
            true, tp, pred, per_row, right, total = split(sums)
            at = slice(first, first + size)
            for k, v in _averages(tp, pred, true, per_row, total, beta).items():
                reps[k][at] = v
            acc_reps[at] = _ratio(right, total)
        for k, v in values.items():
            iv = _percentile_interval(v, reps[k], alpha)
            intervals[k] = (iv.ci_low, iv.ci_high)
        iv = _percentile_interval(accuracy, acc_reps, alpha)
        accuracy_interval = (iv.ci_low, iv.ci_high)
        reps[("accuracy", "")] = acc_reps
    return DecisionIntervals(
        values=values,
        intervals=intervals,
        accuracy=accuracy,
        accuracy_interval=accuracy_interval,
        n_resamples=int(n_resamples),
        alpha=float(alpha),
        resampled=resampled,
        replicates=reps,
    )
