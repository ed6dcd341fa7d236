"""scikit-learn's probability losses in plain numpy: ``log_loss`` and ``brier_score_loss``.

One probability per row (of the positive class) or an (n, K) matrix with a column per class,
in the sorted order of ``labels``, as scikit-learn 1.7+ reads them; ``y_true`` as labels, as a
column of labels, or one-hot. The results equal ``sklearn.metrics``' functions of the same
names (split from :mod:`metrics.classification`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from metrics._validation import _positions, as_real, check_binary_inputs, check_sample_weight
from metrics.classification import _warn

__all__ = ["brier_score_loss", "log_loss"]


def _binary_probabilities(y_true, y_proba, sample_weight, pos_label, labels, *, strings_ok):
    """(positive mask, probabilities, weights) for one probability per row."""
    if pos_label is None and labels is not None:
        classes = np.unique(np.asarray(labels))
        if classes.size != 2:
            raise ValueError(
                f"One probability per row needs 2 labels, got {classes.tolist()}; pass two."
            )
        pos_label = classes[1].item()
    y = np.asarray(y_true)
    greater = "greater" if strings_ok or y.dtype.kind in "biuf" else "error"
    if pos_label is not None and y.size and (y.reshape(-1) == y.reshape(-1)[0]).all():
        # One class only and pos_label names another: every row is negative, a defined loss
        # (scikit-learn's brier_score_loss(["foo"], [0.4], pos_label="bar") is 0.16).
        y_true, pos_label = np.asarray(y.reshape(-1) == pos_label), True
    y, p, w = check_binary_inputs(
        y_true, y_proba, sample_weight, pos_label, default_positive=greater
    )
    outside = (p < 0) | (p > 1)
    if outside.any():
        raise ValueError(
            f"y_proba has {int(outside.sum())} values outside [0, 1] (for example "
            f"{p[np.flatnonzero(outside)[0]]:g}); these metrics read scores as probabilities."
        )
    return y, p, w


def _class_probabilities(y_true: Any, y_proba: np.ndarray, sample_weight: Any, labels: Any):
    """(one-hot truth (n, K) float, probabilities (n, K), weights) for a probability matrix."""
    if not np.isfinite(y_proba).all():
        raise ValueError("y_proba has NaN or infinite values; probabilities must be finite.")
    if y_proba.max() > 1 or y_proba.min() < 0:
        raise ValueError(
            f"y_proba has values outside [0, 1] (from {y_proba.min():g} to {y_proba.max():g}); "
            "these metrics read scores as probabilities."
        )
    y = np.asarray(y_true)
    if y.ndim == 2 and y.shape[1] == 1:  # a column of labels, as scikit-learn takes it
        y = y[:, 0]
    if y.ndim == 2 and y_proba.shape[1] > 1:
        return _one_hot_truth(y, y_proba, sample_weight)
    if y.ndim != 1:
        raise ValueError(f"y_true must hold one label per row, got shape {y.shape}.")
    if y.shape[0] != y_proba.shape[0]:
        raise ValueError(
            f"y_true has {y.shape[0]} rows but y_proba has {y_proba.shape[0]}; "
            "they must be the same length."
        )
    w = check_sample_weight(sample_weight, y.shape[0])
    if labels is not None:
        given = np.asarray(labels)
        classes = np.unique(given)
        if not (classes.shape == given.shape and np.all(classes == given)):
            _warn(
                f"labels {given.tolist()} are not in sorted order; the columns of y_proba are "
                f"read as the sorted labels {classes.tolist()}.",
                UserWarning,
            )
        unknown = ~np.isin(y, classes)
        if unknown.any():
            raise ValueError(
                f"y_true has labels not in labels {given.tolist()}: "
                f"{sorted(set(y[unknown].tolist()))[:10]} at {_positions(unknown)}."
            )
    else:
        classes = np.unique(y)
    if classes.size == 1:
        raise ValueError(
            f"Only one class ({classes[0]!r}) is known; pass labels= listing every class "
            "(the columns of y_proba)."
        )
    if y_proba.shape[1] == 1:
        y_proba = np.concatenate((1 - y_proba, y_proba), axis=1)
    _warn_unless_rows_sum_to_one(y_proba)
    if classes.size != y_proba.shape[1]:
        raise ValueError(
            f"There are {classes.size} classes {classes.tolist()[:10]} but y_proba has "
            f"{y_proba.shape[1]} columns; pass labels= naming the class of each column."
        )
    onehot = (y[:, None] == classes[None, :]).astype(np.float64)
    return onehot, y_proba, w


def _warn_unless_rows_sum_to_one(y_proba: np.ndarray) -> None:
    sums = y_proba.sum(axis=1)
    if not np.allclose(sums, 1, rtol=math.sqrt(np.finfo(np.float64).eps), atol=0):
        _warn("The rows of y_proba do not sum to one; are these probabilities?", UserWarning)


def _one_hot_truth(y: np.ndarray, y_proba: np.ndarray, sample_weight: Any):
    """``y_true`` given one-hot, a column per class as ``y_proba`` (scikit-learn takes it too):
    each row must hold a single 1."""
    if y.shape != y_proba.shape:
        raise ValueError(
            f"y_true as a one-hot matrix has shape {y.shape} but y_proba has {y_proba.shape}; "
            "they must match (a column per class)."
        )
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise ValueError(
            "y_true as a matrix must be one-hot: 0/1 (or booleans), a column per class."
        )
    several = y.sum(axis=1) != 1
    if several.any():
        raise ValueError(
            f"y_true as a one-hot matrix needs exactly one 1 per row; {int(several.sum())} rows "
            f"do not, at {_positions(several)}. Pass one label per row instead."
        )
    w = check_sample_weight(sample_weight, y.shape[0])
    _warn_unless_rows_sum_to_one(y_proba)
    return y.astype(np.float64), y_proba, w


_RENAMED = object()  # log_loss(y_pred=) not passed


def _proba_matrix(y_proba: Any) -> np.ndarray:
    arr = as_real(y_proba, "y_proba")
    if arr.ndim not in (1, 2):
        raise ValueError(f"y_proba must be 1-D or 2-D, got shape {arr.shape}.")
    return arr


def log_loss(
    y_true: Any,
    y_proba: Any = None,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    pos_label: Any = None,
    y_pred: Any = _RENAMED,
) -> float:
    """Mean negative log-likelihood (cross-entropy) in nats, binary or multi-class.

    A strict superset of :func:`metrics.calibration.log_loss`: one probability per row (of the
    positive class) as there, or an (n, K) matrix with a column per class, in the sorted order
    of ``labels`` (default: the classes of ``y_true``), as scikit-learn 1.7+. Probabilities are
    clipped to [eps, 1 - eps]. Rows that do not sum to 1 draw a warning, as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
    normalize : bool, default True
        Mean over rows (True) or sum (False).
    sample_weight : array-like of shape (n_samples,), optional
    labels : array-like, optional
        Every class, when ``y_true`` lacks some.
    pos_label : scalar, optional
        For one probability per row: its class (default the greater of the two labels).
    y_pred : array-like, deprecated
        ``y_proba``'s name before scikit-learn 1.9, taken with a ``FutureWarning`` as there.

    Examples
    --------
    >>> round(log_loss([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.4723
    >>> round(log_loss(["a", "b", "c"], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]), 4)
    0.2677
    """
    if y_pred is not _RENAMED:
        if y_proba is not None:
            raise ValueError(
                "Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated, pass y_proba only."
            )
        warnings.warn(
            "`y_pred` was renamed to `y_proba` in version 1.9 and will be removed in 1.11 "
            "(scikit-learn's schedule); pass y_proba.",
            FutureWarning,
            stacklevel=2,
        )
        y_proba = y_pred
    if y_proba is None:
        raise ValueError("log_loss needs y_proba: one probability per row, or a column per class.")
    arr = _proba_matrix(y_proba)
    eps = np.finfo(np.float64).eps
    if arr.ndim == 1 or arr.shape[1] == 1:
        y, p, w = _binary_probabilities(
            y_true, arr.reshape(-1), sample_weight, pos_label, labels, strings_ok=True
        )
        p = np.clip(p, eps, 1 - eps)
        loss = -np.where(y, np.log(p), np.log1p(-p))
    else:
        onehot, p, w = _class_probabilities(y_true, arr, sample_weight, labels)
        p = np.clip(p, eps, 1 - eps)
        loss = -np.sum(np.where(onehot > 0, np.log(p), 0.0), axis=1)
    if normalize:
        return float(np.average(loss, weights=w))
    return float(loss.sum() if w is None else np.dot(loss, w))


def brier_score_loss(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: Any = "auto",
) -> float:
    """Mean squared distance between predicted probabilities and the one-hot outcome.

    A strict superset of :func:`metrics.calibration.brier_score_loss`: one probability per row
    as there, or an (n, K) matrix with a column per class (sorted ``labels``), as scikit-learn
    1.7+. ``scale_by_half="auto"`` halves the sum for binary input, so that it is the familiar
    ``mean((p - y)^2)``, and keeps the full multi-class sum (range [0, 2]) for 3+ classes.

    Examples
    --------
    >>> round(brier_score_loss([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.1581
    >>> round(brier_score_loss([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]), 4)
    0.0867
    """
    arr = _proba_matrix(y_proba)
    if arr.ndim == 1 or arr.shape[1] == 1:
        y, p, w = _binary_probabilities(
            y_true, arr.reshape(-1), sample_weight, pos_label, labels, strings_ok=False
        )
        per_row = 2 * (p - y) ** 2
        n_columns = 2
    else:
        onehot, p, w = _class_probabilities(y_true, arr, sample_weight, labels)
        per_row = np.sum((onehot - p) ** 2, axis=1)
        n_columns = p.shape[1]
    score = np.average(per_row, weights=w)
    if scale_by_half == "auto":
        scale_by_half = n_columns < 3
    if scale_by_half:
        score *= 0.5
    return float(score)
