"""scikit-learn's label-ranking metrics in plain numpy (``coverage_error``,
``label_ranking_loss``, ``dcg_score``) and ``metric_at_thresholds``: any label metric at every
distinct threshold of a score. Equal to ``sklearn.metrics``' functions of the same names (split
from :mod:`metrics.classification`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics._validation import as_real, check_sample_weight
from metrics.classification import _densify

__all__ = ["coverage_error", "dcg_score", "label_ranking_loss", "metric_at_thresholds"]


def _label_matrices(y_true: Any, y_score: Any, *, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    from metrics.ranking import _as_matrix

    y = _as_matrix(_densify(y_true), "y_true", "labels" if binary else "relevance values")
    s = _as_matrix(y_score, "y_score", "scores")
    if y.shape != s.shape:
        raise ValueError(
            f"y_true has shape {y.shape} but y_score has shape {s.shape}; they must be the same."
        )
    if binary and not ((y == 0) | (y == 1)).all():
        raise ValueError("y_true must be a 0/1 (or boolean) label indicator matrix.")
    return y, s


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """How far down each row's ranked labels one must go to cover every true label, averaged.

    Ties count against the row (every label scoring at least the lowest-scored true label is
    counted), as in scikit-learn; rows without true labels count 0. The best value is the
    average number of true labels per row.

    >>> coverage_error([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    2.5
    """
    y, s = _label_matrices(y_true, y_score, binary=True)
    w = check_sample_weight(sample_weight, y.shape[0])
    relevant = y > 0
    lowest = np.where(relevant, s, np.inf).min(axis=1, keepdims=True)
    coverage = np.count_nonzero(s >= lowest, axis=1)
    coverage[~relevant.any(axis=1)] = 0
    return float(np.average(coverage, weights=w))


def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Share of (true, false) label pairs per row ranked the wrong way (ties count), averaged.

    Rows with no true or no false label score 0, as in scikit-learn. Vectorised over rows:
    one ``argsort`` along the labels.

    >>> round(label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]), 4)
    0.75
    """
    y, s = _label_matrices(y_true, y_score, binary=True)
    w = check_sample_weight(sample_weight, y.shape[0])
    n_rows, n_labels = y.shape
    order = np.argsort(s, axis=1, kind="stable")
    ranked = np.take_along_axis(s, order, axis=1)
    relevant = np.take_along_axis(y, order, axis=1) > 0
    # A pair is wrong when the false label scores at least as high as the true one: for each
    # false label, the true labels up to the end of its tie run in ascending order.
    last = np.ones((n_rows, n_labels), dtype=bool)
    last[:, :-1] = ranked[:, 1:] != ranked[:, :-1]
    cols = np.arange(n_labels)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, cols, n_labels), 1), axis=1), 1)
    true_to_end = np.take_along_axis(np.cumsum(relevant, axis=1), end, axis=1)
    n_true = relevant.sum(axis=1)
    wrong = np.where(relevant, 0, true_to_end).sum(axis=1).astype(np.float64)
    pairs = (n_labels - n_true) * n_true
    loss = np.divide(wrong, pairs, out=np.zeros(n_rows), where=pairs > 0)
    return float(np.average(loss, weights=w))


def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Discounted cumulative gain, ``sum_i y_true_i / log_base(i + 1)`` in score order, averaged.

    Unnormalised (see :func:`metrics.ndcg_score`); gains may be any numbers. Tied scores share
    the average of their gains, as in scikit-learn; ``k`` keeps the top k ranks.

    >>> round(dcg_score([[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]), 4)
    9.4995
    """
    from metrics.ranking import _as_matrix, _row_dcg

    if k is not None and (not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1):
        raise ValueError(f"k must be a positive integer or None, got {k!r}.")
    if not log_base > 1:
        raise ValueError(f"log_base must be a number > 1, got {log_base!r}.")
    y = _as_matrix(y_true, "y_true", "gains")
    s = _as_matrix(y_score, "y_score", "scores")
    if y.shape != s.shape:
        raise ValueError(
            f"y_true has shape {y.shape} but y_score has shape {s.shape}; they must be the same."
        )
    if y.shape[1] < 2:
        raise ValueError("y_true has one column; DCG needs at least 2 labels to rank.")
    w = check_sample_weight(sample_weight, y.shape[0])
    dcg, _ = _row_dcg(y, s, k=k, log_base=log_base, ignore_ties=ignore_ties)
    return float(np.average(dcg, weights=w))


# --- any metric at every threshold -------------------------------------------------------------


def metric_at_thresholds(
    y_true: Any,
    y_score: Any,
    metric_func: Any,
    *,
    sample_weight: Any = None,
    metric_params: dict | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``metric_func(y_true, y_score >= t)`` at every distinct score ``t``, as scikit-learn 1.9's.

    Rows of weight 0 are dropped; the others are passed sorted by decreasing score (stable),
    with predictions as int32 0/1 and the weights, if any, as ``sample_weight``, exactly as
    scikit-learn passes them. The metric is called once per threshold; for precision, recall
    and the other confusion-matrix rates :func:`metrics.threshold_counts` is far faster.

    Returns
    -------
    metric_values : ndarray of shape (n_thresholds,) or (n_thresholds, n_outputs)
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing.

    Examples
    --------
    >>> from metrics import accuracy_score
    >>> values, thr = metric_at_thresholds([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], accuracy_score)
    >>> values.tolist(), thr.tolist()
    ([0.75, 0.5, 0.75, 0.5], [0.8, 0.4, 0.35, 0.1])
    """
    if not callable(metric_func):
        raise ValueError(f"metric_func must be callable, got {metric_func!r}.")
    y = np.asarray(y_true)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    s = as_real(y_score, "y_score")
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if y.ndim != 1 or s.ndim != 1 or y.shape != s.shape:
        raise ValueError(
            f"y_true and y_score must be 1-D and the same length; got shapes {y.shape} and "
            f"{s.shape}."
        )
    if not np.isfinite(s).all():
        raise ValueError("y_score has NaN or infinite values; scores must be finite.")
    w = check_sample_weight(sample_weight, y.shape[0])
    if w is not None:
        keep = w != 0
        y, s, w = y[keep], s[keep], w[keep]
    if s.size == 0:
        raise ValueError("Every row has sample_weight 0; there is no threshold to evaluate.")
    order = np.argsort(-s, kind="stable")
    y, s = y[order], s[order]
    params = dict(metric_params or {})
    if w is not None:
        w = w[order]
        params["sample_weight"] = w
    last = [*np.flatnonzero(np.diff(s)).tolist(), s.size - 1]
    thresholds = s[last]
    values = [metric_func(y, (s >= t).astype(np.int32), **params) for t in thresholds]
    return np.asarray(values), thresholds
