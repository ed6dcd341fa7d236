"""Operating points: a model's metrics where the business will run it.

Each function searches every distinct threshold (one sort, :func:`metrics.threshold_counts`)
and returns the value with the threshold that reaches it; a score ``>= threshold`` is positive.
Among thresholds that tie on the value, the highest threshold (fewest rows flagged) wins. When
no threshold meets the constraint, the value and the threshold are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics.curves import threshold_counts

__all__ = [
    "OperatingPoint",
    "precision_at_recall",
    "recall_at_precision",
    "top_k_precision_recall",
    "tpr_at_fpr",
]


@dataclass(frozen=True)
class OperatingPoint:
    """A metric's value at the threshold that reaches it."""

    value: float
    threshold: float


def _best(value: np.ndarray, ok: np.ndarray, thresholds: np.ndarray) -> OperatingPoint:
    if not ok.any():
        return OperatingPoint(float("nan"), float("nan"))
    masked = np.where(ok, value, -np.inf)
    i = int(np.argmax(masked))  # the first maximum: the highest threshold
    return OperatingPoint(float(value[i]), float(thresholds[i]))


def _rates(y_true, y_score, pos_label, sample_weight):
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    tps, fps = c.tps.astype(np.float64), c.fps.astype(np.float64)
    precision = tps / (tps + fps)  # every distinct threshold flags at least one row
    recall = tps / c.n_pos if c.n_pos else np.full(tps.shape, np.nan)
    fpr = fps / c.n_neg if c.n_neg else np.full(tps.shape, np.nan)
    return c, precision, recall, fpr


def precision_at_recall(
    y_true: Any, y_score: Any, min_recall: float, *, pos_label: Any = None, sample_weight=None
) -> OperatingPoint:
    """The highest precision among thresholds with recall >= ``min_recall``.

    Examples
    --------
    >>> precision_at_recall([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 1.0)
    OperatingPoint(value=0.6666666666666666, threshold=0.35)
    """
    c, precision, recall, _ = _rates(y_true, y_score, pos_label, sample_weight)
    return _best(precision, recall >= min_recall - 1e-12, c.thresholds)


def recall_at_precision(
    y_true: Any, y_score: Any, min_precision: float, *, pos_label: Any = None, sample_weight=None
) -> OperatingPoint:
    """The highest recall among thresholds with precision >= ``min_precision``.

    Examples
    --------
    >>> recall_at_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 1.0)
    OperatingPoint(value=0.5, threshold=0.8)
    """
    c, precision, recall, _ = _rates(y_true, y_score, pos_label, sample_weight)
    return _best(recall, precision >= min_precision - 1e-12, c.thresholds)


def tpr_at_fpr(
    y_true: Any, y_score: Any, max_fpr: float, *, pos_label: Any = None, sample_weight=None
) -> OperatingPoint:
    """The highest TPR among thresholds with FPR <= ``max_fpr``.

    Examples
    --------
    >>> tpr_at_fpr([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.0)
    OperatingPoint(value=0.5, threshold=0.8)
    """
    c, _, recall, fpr = _rates(y_true, y_score, pos_label, sample_weight)
    return _best(recall, fpr <= max_fpr + 1e-12, c.thresholds)


def top_k_precision_recall(
    y_true: Any,
    y_score: Any,
    *,
    k: float | None = None,
    fraction: float | None = None,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> tuple[float, float, float]:
    """(precision, recall, threshold) when the top ``k`` rows (or ``fraction`` of the weight)
    are flagged: the threshold is the score of the k-th row, and rows tied with it come in
    too, as they must when a score >= threshold is positive.

    Examples
    --------
    >>> top_k_precision_recall([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], k=2)
    (0.5, 0.5, 0.4)
    """
    if (k is None) == (fraction is None):
        raise ValueError("Give exactly one of k (rows) or fraction (of all rows).")
    c, precision, recall, _ = _rates(y_true, y_score, pos_label, sample_weight)
    total = float(c.n_pos + c.n_neg)
    wanted = k if k is not None else fraction * total
    if not 0 < wanted <= total:
        raise ValueError(f"k or fraction must select between 1 row and all rows, got {wanted:g}.")
    flagged = (c.tps + c.fps).astype(np.float64)
    i = min(int(np.searchsorted(flagged, wanted - 1e-9)), len(c) - 1)
    return float(precision[i]), float(recall[i]), float(c.thresholds[i])
