"""One metric, several libraries' conventions: ROC AUC as TensorFlow/Keras and Spark compute it.

The exact ROC AUC (:func:`metrics.roc_auc_score`, scikit-learn's) counts every distinct score as
a threshold. Two widely used libraries approximate it:

* **Keras** (``keras.metrics.AUC``, ``curve="ROC"``): ``num_thresholds`` (200) thresholds
  evenly spaced over [0, 1] (plus one just below 0 and one just above 1), a score strictly
  above a threshold counted positive; the curve's area by ``summation_method``:
  ``"interpolation"`` (the trapezoid), ``"minoring"`` (each step's lower height, a lower
  bound) or ``"majoring"`` (the higher, an upper bound). Scores outside [0, 1] all fall on the
  end thresholds, and rows between two thresholds are tied.
* **Spark** (``BinaryClassificationMetrics`` behind ``BinaryClassificationEvaluator``, whose
  ``numBins`` defaults to 1,000): with more distinct scores than bins, the distinct scores
  (descending) are cut into runs of ``n_distinct // num_bins`` consecutive scores, each run
  counted as one threshold (its highest score); then the trapezoid over (0, 0), the points and
  (1, 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = ["KERAS_SUMMATION", "keras_roc_auc", "spark_roc_auc"]

KERAS_SUMMATION = ("interpolation", "minoring", "majoring")
_KERAS_EPSILON = 1e-7


def keras_roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    num_thresholds: int = 200,
    summation_method: str = "interpolation",
    sample_weight: Any = None,
) -> float:
    """ROC AUC as ``keras.metrics.AUC(num_thresholds, curve="ROC", summation_method)``.

    Examples
    --------
    The example of Keras' documentation (three thresholds: -1e-7, 0.5, 1 + 1e-7):

    >>> keras_roc_auc([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], num_thresholds=3)
    0.75
    """
    if summation_method not in KERAS_SUMMATION:
        raise ValueError(
            f"summation_method must be one of {KERAS_SUMMATION}, got {summation_method!r}."
        )
    if num_thresholds < 2:
        raise ValueError(f"num_thresholds must be at least 2, got {num_thresholds}.")
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    w = np.ones(y.size) if w is None else w
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    thresholds = np.array([-_KERAS_EPSILON, *inner, 1.0 + _KERAS_EPSILON])
    # counts of score > threshold, per threshold (ascending thresholds)
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    pos = np.cumsum(np.where(y[order], w[order], 0.0)[::-1])[::-1]
    neg = np.cumsum(np.where(y[order], 0.0, w[order])[::-1])[::-1]
    first_above = np.searchsorted(s_sorted, thresholds, side="right")
    tp = np.append(pos, 0.0)[first_above]
    fp = np.append(neg, 0.0)[first_above]
    n_pos, n_neg = w[y].sum(), w[~y].sum()
    # Keras divides by (tp + fn) and (fp + tn) with divide_no_nan: 0 without a class
    tpr = tp / n_pos if n_pos > 0 else np.zeros_like(tp)
    fpr = fp / n_neg if n_neg > 0 else np.zeros_like(fp)
    x, h = fpr[:-1] - fpr[1:], tpr
    if summation_method == "interpolation":
        heights = (h[:-1] + h[1:]) / 2
    elif summation_method == "minoring":
        heights = np.minimum(h[:-1], h[1:])
    else:
        heights = np.maximum(h[:-1], h[1:])
    return float(np.sum(x * heights))


def spark_roc_auc(
    y_true: Any, y_score: Any, *, num_bins: int = 1000, sample_weight: Any = None
) -> float:
    """ROC AUC as Spark's ``BinaryClassificationMetrics(scoreAndLabels, numBins)`` (one
    partition), the metric of ``BinaryClassificationEvaluator`` (``numBins`` 1,000).

    Examples
    --------
    Four distinct scores in two bins of two (thresholds 0.8 and 0.35): each bin holds a
    positive and a negative, so the ranking inside each is lost (exact AUC 0.75).

    >>> spark_roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], num_bins=2)
    0.5
    >>> spark_roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], num_bins=0)  # no binning: exact
    0.75
    """
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    w = np.ones(y.size) if w is None else w
    # Per distinct score, descending; a score of weight 0 is still a key (a bin member) in
    # Spark, unlike scikit-learn, which drops it
    distinct, inverse = np.unique(s, return_inverse=True)
    pos = np.bincount(inverse, np.where(y, w, 0.0), distinct.size)[::-1]
    neg = np.bincount(inverse, np.where(y, 0.0, w), distinct.size)[::-1]
    n = distinct.size
    if num_bins > 0:
        grouping = n // num_bins
        if grouping >= 2:  # Spark's grouped(grouping): runs of that many, the last shorter
            starts = np.arange(0, n, grouping)
            pos = np.add.reduceat(np.asarray(pos, dtype=np.float64), starts)
            neg = np.add.reduceat(np.asarray(neg, dtype=np.float64), starts)
    tp = np.concatenate(([0.0], np.cumsum(pos, dtype=np.float64)))
    fp = np.concatenate(([0.0], np.cumsum(neg, dtype=np.float64)))
    if tp[-1] == 0 or fp[-1] == 0:
        return float("nan")
    tpr, fpr = np.append(tp / tp[-1], 1.0), np.append(fp / fp[-1], 1.0)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
