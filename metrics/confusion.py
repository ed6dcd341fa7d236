"""The binary confusion matrix and every rate derived from it.

:class:`Confusion` holds scalars (one threshold) or arrays (every threshold at once) and computes
the rates the same way for both, so the dashboard's threshold table and a single operating point
share one formula each. A ratio whose denominator is 0 is 0.0, like scikit-learn's
``zero_division=0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = ["Confusion", "confusion_at_threshold"]


def _ratio(num: Any, den: Any) -> Any:
    """num / den, and 0.0 where den is 0; scalars in, a Python float out."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Confusion:
    """Counts (or total weights) of a binary confusion matrix, scalars or arrays.

    Examples
    --------
    >>> c = Confusion(tp=2, fp=1, tn=1, fn=0)
    >>> c.precision, c.recall, c.accuracy
    (0.6666666666666666, 1.0, 0.75)
    >>> round(c.f_beta(1.0), 4)
    0.8
    """

    tp: Any
    fp: Any
    tn: Any
    fn: Any

    @property
    def n(self) -> Any:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def precision(self) -> Any:
        """TP / (TP + FP): the share of predicted positives that are positive."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> Any:
        """TP / (TP + FN), the true positive rate: the share of positives found."""
        return _ratio(self.tp, self.tp + self.fn)

    tpr = recall

    @property
    def fpr(self) -> Any:
        """FP / (FP + TN): the share of negatives wrongly flagged."""
        return _ratio(self.fp, self.fp + self.tn)

    @property
    def specificity(self) -> Any:
        """TN / (TN + FP), the true negative rate, 1 - FPR."""
        return _ratio(self.tn, self.tn + self.fp)

    @property
    def npv(self) -> Any:
        """TN / (TN + FN): the share of predicted negatives that are negative."""
        return _ratio(self.tn, self.tn + self.fn)

    @property
    def accuracy(self) -> Any:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def balanced_accuracy(self) -> Any:
        """Mean of recall and specificity."""
        return (self.recall + self.specificity) / 2

    @property
    def prevalence(self) -> Any:
        """(TP + FN) / n: the share of positives in the data."""
        return _ratio(self.tp + self.fn, self.n)

    @property
    def predicted_positive_rate(self) -> Any:
        """(TP + FP) / n: the share of rows flagged positive."""
        return _ratio(self.tp + self.fp, self.n)

    def f_beta(self, beta: float = 1.0) -> Any:
        """(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP); beta > 1 weighs recall more."""
        if not beta >= 0:
            raise ValueError(f"beta must be a number >= 0, got {beta!r}.")
        b2 = beta * beta
        return _ratio((1 + b2) * self.tp, (1 + b2) * self.tp + b2 * self.fn + self.fp)

    @property
    def f1(self) -> Any:
        return self.f_beta(1.0)

    @property
    def mcc(self) -> Any:
        """Matthews correlation coefficient, in [-1, 1]; 0 when a row or column is empty."""
        tp, fp, tn, fn = (
            np.asarray(v, dtype=np.float64) for v in (self.tp, self.fp, self.tn, self.fn)
        )
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return _ratio(tp * tn - fp * fn, den)

    @property
    def cohen_kappa(self) -> Any:
        """Agreement of prediction and truth beyond chance: (p_o - p_e) / (1 - p_e)."""
        tp, fp, tn, fn = (
            np.asarray(v, dtype=np.float64) for v in (self.tp, self.fp, self.tn, self.fn)
        )
        n = tp + fp + tn + fn
        # Written over n^2 to avoid dividing twice: p_o - p_e and 1 - p_e share the denominator.
        chance = (tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)
        return _ratio(n * (tp + tn) - chance, n * n - chance)

    def as_dict(self, beta: float = 1.0) -> dict[str, Any]:
        """The counts and every rate, keyed by name (F-beta under ``f_beta``)."""
        return {
            "tp": self.tp,
            "fp": self.fp,
            "tn": self.tn,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "fpr": self.fpr,
            "specificity": self.specificity,
            "npv": self.npv,
            "accuracy": self.accuracy,
            "balanced_accuracy": self.balanced_accuracy,
            "f_beta": self.f_beta(beta),
            "mcc": self.mcc,
            "cohen_kappa": self.cohen_kappa,
            "prevalence": self.prevalence,
            "predicted_positive_rate": self.predicted_positive_rate,
        }


def confusion_at_threshold(
    y_true: Any,
    y_score: Any,
    threshold: float,
    *,
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> Confusion:
    """The confusion matrix when ``score >= threshold`` is predicted positive.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels; ``pos_label`` names the positive one.
    y_score : array-like of shape (n_samples,)
    threshold : float
    pos_label : scalar, default 1
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    Confusion
        Integer counts when unweighted, total weights otherwise.

    Examples
    --------
    Seed 003: truth [T, F, F], scores [0.7, 0.3, 0.5], threshold 0.5.

    >>> c = confusion_at_threshold([True, False, False], [0.7, 0.3, 0.5], 0.5, pos_label=True)
    >>> (c.tp, c.fp, c.tn, c.fn), c.precision, c.recall
    ((1, 1, 1, 0), 0.5, 1.0)
    """
    try:
        threshold = float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a number, got {threshold!r}.") from None
    if np.isnan(threshold):
        raise ValueError("threshold is NaN; pass a number (scores >= it are positive).")
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    predicted = s >= threshold
    if w is None:
        tp = int(np.count_nonzero(predicted & y))
        fp = int(np.count_nonzero(predicted)) - tp
        n_pos = int(np.count_nonzero(y))
        return Confusion(tp=tp, fp=fp, tn=y.size - n_pos - fp, fn=n_pos - tp)
    tp = float(w[predicted & y].sum())
    fp = float(w[predicted & ~y].sum())
    fn = float(w[~predicted & y].sum())
    tn = float(w[~predicted & ~y].sum())
    return Confusion(tp=tp, fp=fp, tn=tn, fn=fn)
