"""Scores read as probabilities: Brier score, log loss and the reliability (calibration) curve.

These only make sense when scores lie in [0, 1]; each function says so when they do not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = ["brier_score_loss", "calibration_curve", "log_loss"]


def _probabilities(y_true: Any, y_proba: Any, sample_weight: Any, pos_label: Any):
    y, p, w = check_binary_inputs(y_true, y_proba, sample_weight, pos_label)
    outside = (p < 0) | (p > 1)
    if outside.any():
        raise ValueError(
            f"y_proba has {int(outside.sum())} values outside [0, 1] (for example "
            f"{p[np.flatnonzero(outside)[0]]:g}); these metrics read scores as probabilities."
        )
    return y, p, w


def brier_score_loss(
    y_true: Any, y_proba: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> float:
    """Mean squared difference between the predicted probability and the 0/1 outcome.

    Lower is better; 0 is perfect, 0.25 is a constant 0.5. Equal to scikit-learn's.

    >>> round(brier_score_loss([0, 1, 1], [0.1, 0.9, 0.6]), 4)
    0.06
    """
    y, p, w = _probabilities(y_true, y_proba, sample_weight, pos_label)
    return float(np.average((p - y) ** 2, weights=w))


def log_loss(
    y_true: Any, y_proba: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> float:
    """Mean negative log-likelihood of the outcomes (cross-entropy), in nats.

    Probabilities are clipped to [eps, 1 - eps] with eps the float64 machine epsilon, as in
    scikit-learn, so a confident mistake costs about 36 instead of infinity.

    >>> round(log_loss([0, 1, 1], [0.1, 0.9, 0.6]), 4)
    0.2405
    """
    y, p, w = _probabilities(y_true, y_proba, sample_weight, pos_label)
    eps = np.finfo(np.float64).eps
    p = np.clip(p, eps, 1 - eps)
    return float(np.average(-np.where(y, np.log(p), np.log1p(-p)), weights=w))


def calibration_curve(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reliability diagram data: per non-empty bin, the fraction positive, mean prediction, size.

    Bins split [0, 1] evenly (``"uniform"``) or at quantiles of the predictions
    (``"quantile"``). The first two arrays equal ``sklearn.calibration.calibration_curve``'s.

    Returns
    -------
    prob_true, prob_pred, weight : ndarray of shape (n_nonempty_bins,)
        The observed positive rate, the mean predicted probability, and the rows (or total
        weight) in each bin.

    >>> calibration_curve([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9], n_bins=2)
    (array([0., 1.]), array([0.15, 0.8 ]), array([2., 2.]))
    """
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    y, p, w = _probabilities(y_true, y_proba, sample_weight, pos_label)
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    elif strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)  # as scikit-learn
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}.")
    w = np.ones(p.size) if w is None else w
    bins = np.searchsorted(edges[1:-1], p)
    total = np.bincount(bins, weights=w, minlength=n_bins)
    positive = np.bincount(bins, weights=w * y, minlength=n_bins)
    predicted = np.bincount(bins, weights=w * p, minlength=n_bins)
    used = total > 0
    return positive[used] / total[used], predicted[used] / total[used], total[used]
