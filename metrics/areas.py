"""Areas under the curves: ROC AUC and Average Precision.

Both are sums over the distinct-score runs of :func:`metrics.curves._score_runs`:

* AUC is the probability that a random positive scores above a random negative, a tie counting
  one half (the Mann-Whitney U statistic over P * N). It equals the trapezoid area under the ROC
  curve; unweighted, it is computed in exact integer arithmetic.
* AP is scikit-learn's step sum ``sum_i (R_i - R_{i-1}) * P_i`` over distinct thresholds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs, warn_undefined
from metrics.curves import (
    _fold_descending,
    _merge_sorted,
    _mostly_tied,
    _new_value_mask,
    _runs_of_parts,
    _score_runs,
    _sorted_parts,
)

__all__ = ["auc", "average_precision_score", "roc_auc_score"]

_AVERAGES = ("macro", "micro", "weighted", "samples", None)


def auc(x: Any, y: Any) -> float:
    """Area under the piecewise-linear curve through the points (x, y), by the trapezoid rule.

    ``x`` must be monotonic (increasing or decreasing), as for a ROC curve.

    >>> auc([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    0.75
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"auc needs two 1-D arrays of the same length >= 2, got shapes {x.shape} and {y.shape}."
        )
    dx = np.diff(x)
    if (dx < 0).any() and (dx > 0).any():
        raise ValueError("x must be monotonic (all increasing or all decreasing) for auc.")
    area = float(np.sum(dx * (y[1:] + y[:-1])) / 2)
    return -area if (dx < 0).any() else area


def _check_average(average: Any) -> None:
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}, got {average!r}.")


def _reject_multilabel(y_score: Any) -> None:
    if np.ndim(y_score) == 2 and np.shape(y_score)[1] > 1:
        raise ValueError(
            f"y_score has shape {np.shape(y_score)}: multi-label input is not supported yet; "
            "pass one column (a binary problem) at a time."
        )


def _auc_from_runs(pos: np.ndarray, neg: np.ndarray) -> float:
    n_pos, n_neg = pos.sum(), neg.sum()
    if n_pos <= 0 or n_neg <= 0:
        warn_undefined(
            "Only one class is present in y_true (after weighting): ROC AUC is undefined, "
            "returning NaN."
        )
        return float("nan")
    # Runs are in decreasing score: negatives strictly below run i are n_neg - cumsum(neg)[i].
    # 2U = sum_i pos_i * (2 * below_i + neg_i) stays an exact integer when unweighted.
    below = n_neg - np.cumsum(neg)
    twice_u = np.dot(pos, 2 * below + neg)
    if pos.dtype.kind in "iu":
        return int(twice_u) / (2 * int(n_pos) * int(n_neg))
    return float(twice_u / (2 * n_pos * n_neg))


def _auc_unweighted(y: np.ndarray, s: np.ndarray) -> float:
    """AUC by the rank-sum (Mann-Whitney) formula, exact, with no argsort of the scores."""
    pos_sorted, neg_sorted = _sorted_parts(y, s)
    n_pos, n_neg = pos_sorted.size, neg_sorted.size
    if (
        n_pos == 0
        or n_neg == 0
        or _mostly_tied(_new_value_mask(pos_sorted), _new_value_mask(neg_sorted))
    ):
        # Few distinct scores: summing over them is cheaper than over rows.
        _, pos, neg = _fold_descending(*_runs_of_parts(pos_sorted, neg_sorted))
        return _auc_from_runs(pos, neg)
    values, order = _merge_sorted(pos_sorted, neg_sorted)
    is_pos = order < n_pos
    # The merge is stable and lists positives first, so among equal scores positives come
    # before negatives: the k-th positive (from 0) at merged position i has exactly i - k
    # negatives strictly below it.
    twice_u = 2 * (int(np.flatnonzero(is_pos).sum()) - n_pos * (n_pos - 1) // 2)
    new = _new_value_mask(values)
    if not new.all():
        # Each tied positive-negative pair counts one half.
        starts = np.flatnonzero(new)
        pos = np.add.reduceat(is_pos, starts, dtype=np.int64)
        twice_u += int(np.dot(pos, np.diff(starts, append=values.size) - pos))
    return twice_u / (2 * n_pos * n_neg)


def _ap_from_runs(pos: np.ndarray, neg: np.ndarray) -> float:
    tps = np.cumsum(pos)
    fps = np.cumsum(neg)
    if tps.size == 0 or tps[-1] <= 0:
        warn_undefined(
            "No positive samples in y_true: average precision is undefined, returning NaN."
        )
        return float("nan")
    # Recall rises by pos_i / P at run i, where precision is tps_i / (tps_i + fps_i).
    return float(np.dot(pos, tps / (tps + fps)) / tps[-1])


def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    """Area under the ROC curve, ties counting one half; equal to scikit-learn's.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With labels other than 0/1, -1/1 or booleans and no ``pos_label``, the
        greater of the two values is positive, as in scikit-learn.
    y_score : array-like of shape (n_samples,)
    average : {"macro", "micro", "weighted", "samples"} or None
        Used for multi-label input; a binary problem has one area and ignores it.
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional
        The positive class (an addition to scikit-learn's signature).

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when only one class is present.

    Examples
    --------
    Seed 004's first example: 3 of the 4 positive-negative pairs are ordered correctly.

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    _check_average(average)
    _reject_multilabel(y_score)
    y, s, w = check_binary_inputs(
        y_true, y_score, sample_weight, pos_label, default_positive="greater"
    )
    if w is None:
        return _auc_unweighted(y, s)
    _, pos, neg = _score_runs(y, s, w)
    return _auc_from_runs(pos, neg)


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> float:
    """Average precision, ``sum_i (R_i - R_{i-1}) * P_i`` over distinct thresholds.

    Equal to ``sklearn.metrics.average_precision_score`` (version 0.19 and later). Tied scores
    form one threshold, so a tie between a positive and a negative is neither pessimistic nor
    optimistic.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_score : array-like of shape (n_samples,)
    average : {"macro", "micro", "weighted", "samples"} or None
        Used for multi-label input; a binary problem has one value and ignores it.
    pos_label : scalar, default 1
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    float
        NaN, with an :class:`UndefinedMetricWarning`, when there are no positives.

    Examples
    --------
    Seed 000: AP = 1/2 * 1 + 0 * 1/2 + 1/2 * 2/3 + 0 * 2/4 = 5/6.

    >>> average_precision_score([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35])
    0.8333333333333333
    """
    _check_average(average)
    _reject_multilabel(y_score)
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    _, pos, neg = _score_runs(y, s, w)
    return _ap_from_runs(pos, neg)
