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

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = [
    "KERAS_SUMMATION",
    "RocConvention",
    "keras_cells",
    "keras_roc_auc",
    "roc_auc_conventions",
    "spark_bins",
    "spark_roc_auc",
    "tied_pairs",
]

KERAS_SUMMATION = ("interpolation", "minoring", "majoring")
_KERAS_EPSILON = 1e-7


def _keras_thresholds(num_thresholds: int) -> np.ndarray:
    """Keras's thresholds: -1e-7, then i / (num_thresholds - 1) for i = 1 .. num_thresholds - 2,
    then 1 + 1e-7."""
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return np.array([-_KERAS_EPSILON, *inner, 1.0 + _KERAS_EPSILON])


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
    thresholds = _keras_thresholds(num_thresholds)
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


def keras_cells(y_score: Any, *, num_thresholds: int = 200) -> np.ndarray:
    """For each score, how many of Keras's thresholds it lies strictly above (0 to
    ``num_thresholds``): rows in one cell are tied for Keras, whatever their scores.

    Keras's trapezoid (``summation_method="interpolation"``) is the exact ROC AUC of these
    cells taken as the scores.

    >>> keras_cells([0.0, 0.004, 0.006, 0.5, 1.0, 7.0]).tolist()
    [1, 1, 2, 100, 199, 200]
    """
    s = np.asarray(y_score, dtype=np.float64).reshape(-1)
    return np.searchsorted(_keras_thresholds(num_thresholds), s, side="left")


def spark_bins(y_score: Any, *, num_bins: int = 1000) -> np.ndarray:
    """Each score's bin in Spark's ``BinaryClassificationMetrics`` (one partition): 0 for the
    run of highest distinct scores, then 1, ... Without binning (``num_bins`` 0, or fewer
    than ``2 * num_bins`` distinct scores) each distinct score is its own bin.

    Spark's AUC is the exact ROC AUC of the negated bins taken as the scores.

    >>> spark_bins([0.1, 0.4, 0.35, 0.8], num_bins=2).tolist()
    [1, 0, 1, 0]
    """
    s = np.asarray(y_score, dtype=np.float64).reshape(-1)
    distinct, inverse = np.unique(s, return_inverse=True)
    descending = distinct.size - 1 - inverse.reshape(-1)
    grouping = distinct.size // num_bins if num_bins > 0 else 0
    return descending // grouping if grouping >= 2 else descending


def tied_pairs(y_true: Any, keys: Any, *, sample_weight: Any = None) -> float:
    """The (positive, negative) pairs sharing a key, by weight: the pairs an AUC counts one
    half. With the scores as keys, the ties of the data; with :func:`keras_cells` or
    :func:`spark_bins`, the ties of that convention.

    >>> tied_pairs([0, 1, 1, 0], [0.2, 0.2, 0.5, 0.5])
    2.0
    """
    y, k, w = check_binary_inputs(y_true, keys, sample_weight)
    w = np.ones(y.size) if w is None else w
    _, inverse = np.unique(k, return_inverse=True)
    pos = np.bincount(inverse, np.where(y, w, 0.0))
    neg = np.bincount(inverse, np.where(y, 0.0, w))
    return float(pos @ neg)


@dataclass(frozen=True)
class RocConvention:
    """ROC AUC as one library computes it, and why it differs from the exact value.

    ``tied_pairs``: the (positive, negative) pairs the convention ties (counts one half,
    or in Keras's bounds 0 or 1), by weight; ``extra_tied_pairs`` those of them whose scores
    differ, the pairs whose order it loses; ``outside``: rows whose score is outside [0, 1]
    (Keras puts them on its end thresholds).
    """

    library: str
    setting: str
    auc: float
    tied_pairs: float
    extra_tied_pairs: float
    outside: int = 0


def roc_auc_conventions(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    num_thresholds: int = 200,
    num_bins: int = 1000,
) -> list[RocConvention]:
    """ROC AUC under the conventions of scikit-learn (exact), Keras (``num_thresholds``,
    three summation methods) and Spark's evaluator (``num_bins``), each with the pairs it ties.

    >>> [round(c.auc, 4) for c in roc_auc_conventions([0, 0, 1, 1], [0, 0.5, 0.3, 0.9],
    ...                                               num_thresholds=3, num_bins=2)]
    [0.75, 0.75, 0.5, 1.0, 0.5]
    """
    from metrics.areas import roc_auc_score

    y, s, w = check_binary_inputs(y_true, y_score, sample_weight)
    exact_ties = tied_pairs(y, s, sample_weight=w)
    cells = keras_cells(s, num_thresholds=num_thresholds)
    keras_ties = tied_pairs(y, cells, sample_weight=w)
    outside = int(np.sum((s < 0) | (s > 1)))
    bins = spark_bins(s, num_bins=num_bins)
    spark_ties = tied_pairs(y, bins, sample_weight=w)
    keras = f"keras.metrics.AUC(num_thresholds={num_thresholds}"
    out = [
        RocConvention(
            "scikit-learn", "roc_auc_score", roc_auc_score(y, s, sample_weight=w), exact_ties, 0.0
        )
    ]
    for method in KERAS_SUMMATION:
        setting = keras + (")" if method == "interpolation" else f", summation_method='{method}')")
        auc = keras_roc_auc(
            y, s, num_thresholds=num_thresholds, summation_method=method, sample_weight=w
        )
        out.append(
            RocConvention("Keras", setting, auc, keras_ties, keras_ties - exact_ties, outside)
        )
    out.append(
        RocConvention(
            "Spark",
            f"BinaryClassificationEvaluator(numBins={num_bins})",
            spark_roc_auc(y, s, num_bins=num_bins, sample_weight=w),
            spark_ties,
            spark_ties - exact_ties,
        )
    )
    return out
