"""Where two models disagree: the agreement table at their thresholds and flip rates.

Model A predicts positive where ``score_a >= threshold_a``, model B where ``score_b >=
threshold_b``. The agreement table counts (or weighs) the rows in each of the four cells, per
actual class; flip rates follow TensorFlow Model Analysis's definitions: the share of rows whose
prediction differs between the two models, and the shares that flip from positive to negative
and from negative to positive (of all rows, A as the baseline).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = ["FlipTable", "flip_table"]


@dataclass(frozen=True)
class FlipTable:
    """Agreement between two models' predictions.

    Attributes
    ----------
    counts : ndarray of shape (2, 2, 2)
        ``counts[c, a, b]``: weight of rows of actual class ``c`` (0 negative, 1 positive) that
        model A predicts ``a`` and model B predicts ``b`` (0 negative, 1 positive).
    n : float
        Total weight.
    """

    counts: np.ndarray
    n: float

    @property
    def agreement(self) -> np.ndarray:
        """(2, 2): rows by A's prediction (rows) and B's (columns), both classes together."""
        return self.counts.sum(axis=0)

    @property
    def flip_rate(self) -> float:
        """Share of rows the two models predict differently."""
        a = self.agreement
        return float((a[0, 1] + a[1, 0]) / self.n) if self.n else float("nan")

    @property
    def pos_to_neg_flip_rate(self) -> float:
        """Share of rows A predicts positive and B negative."""
        return float(self.agreement[1, 0] / self.n) if self.n else float("nan")

    @property
    def neg_to_pos_flip_rate(self) -> float:
        """Share of rows A predicts negative and B positive."""
        return float(self.agreement[0, 1] / self.n) if self.n else float("nan")

    @property
    def b_fixes(self) -> float:
        """Weight of rows A gets wrong and B gets right."""
        c = self.counts
        return float(c[1, 0, 1] + c[0, 1, 0])

    @property
    def b_breaks(self) -> float:
        """Weight of rows A gets right and B gets wrong."""
        c = self.counts
        return float(c[1, 1, 0] + c[0, 0, 1])


def flip_table(
    y_true,
    score_a,
    threshold_a: float,
    score_b,
    threshold_b: float,
    *,
    pos_label=None,
    sample_weight=None,
) -> FlipTable:
    """The agreement table of two models at their thresholds, per actual class.

    Examples
    --------
    >>> t = flip_table([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.35, [0.2, 0.1, 0.6, 0.3], 0.3)
    >>> t.agreement.tolist()
    [[1.0, 0.0], [1.0, 2.0]]
    >>> t.flip_rate, t.b_fixes, t.b_breaks
    (0.25, 1.0, 0.0)
    """
    y, sa, w = check_binary_inputs(y_true, score_a, sample_weight, pos_label)
    _, sb, _ = check_binary_inputs(y_true, score_b, None, pos_label)
    w = np.ones(y.shape[0]) if w is None else w
    pa = (sa >= threshold_a).astype(np.int64)
    pb = (sb >= threshold_b).astype(np.int64)
    cell = y.astype(np.int64) * 4 + pa * 2 + pb
    counts = np.bincount(cell, weights=w, minlength=8).reshape(2, 2, 2)
    return FlipTable(counts, float(w.sum()))
