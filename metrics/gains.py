"""Gains, KS and decision curves: what taking the top of a ranking buys, from one sort.

Every function is a thin layer over :func:`metrics.threshold_counts` (counts at every distinct
score), so each is exact at every distinct threshold; a score ``>= t`` is predicted positive,
and tied rows are taken together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._bounds import MAX_BINS, check_at_most
from metrics._validation import as_real
from metrics.curves import threshold_counts

__all__ = [
    "CostCurve",
    "KSResult",
    "cumulative_gain_curve",
    "expected_cost",
    "ks_statistic",
    "lift_table",
    "net_benefit",
]


def cumulative_gain_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cumulative gains (CAP) curve: share of rows taken against share of positives found.

    Returns
    -------
    taken : ndarray of shape (n_thresholds + 1,)
        Share of the total weight with ``score >= thresholds[i]``, from 0 (nothing taken).
    gained : ndarray of shape (n_thresholds + 1,)
        Share of the positive weight among those rows (recall), from 0.
    thresholds : ndarray of shape (n_thresholds + 1,)
        ``inf`` first, then the distinct scores in decreasing order.

    Examples
    --------
    >>> taken, gained, _ = cumulative_gain_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> taken.tolist(), gained.tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    total = float(c.n_pos + c.n_neg)
    taken = np.concatenate(([0.0], (c.tps + c.fps) / total))
    gained = np.concatenate(([0.0], c.tps / c.n_pos if c.n_pos else np.full(len(c), np.nan)))
    return taken, gained, np.concatenate(([np.inf], c.thresholds))


@dataclass(frozen=True)
class KSResult:
    """The Kolmogorov-Smirnov statistic of a score between the classes.

    Attributes
    ----------
    statistic : float
        max over thresholds of |TPR − FPR|: the largest gap between the two classes' empirical
        score distributions (the two-sample KS statistic).
    threshold : float
        The distinct score where it is reached (the highest one among ties).
    """

    statistic: float
    threshold: float


def ks_statistic(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> KSResult:
    """The two-sample KS statistic between the positives' and the negatives' scores.

    Examples
    --------
    >>> r = ks_statistic([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.statistic, r.threshold
    (0.5, 0.8)
    """
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    if not c.n_pos or not c.n_neg:
        return KSResult(float("nan"), float("nan"))
    gap = np.abs(c.tps / c.n_pos - c.fps / c.n_neg)
    i = int(np.argmax(gap))
    return KSResult(float(gap[i]), float(c.thresholds[i]))


def net_benefit(
    y_true: Any,
    y_score: Any,
    thresholds: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decision-curve net benefit at each threshold probability ``t`` (Vickers & Elkin 2006).

    ``NB(t) = TP/n − FP/n · t / (1 − t)``, a score ``>= t`` predicted positive.

    Returns
    -------
    model, treat_all, treat_none : ndarray of shape (n_thresholds,)
        The model's net benefit; treating everyone (``prevalence − (1 − prevalence) t/(1−t)``);
        treating no one (0).

    Examples
    --------
    >>> nb, everyone, _ = net_benefit([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [0.3, 0.5])
    >>> nb.tolist()  # at 0.3: TP 2, FP 1 of 4 rows, 2/4 − 1/4 · 0.3/0.7
    [0.39285714285714285, 0.25]
    >>> everyone.tolist()
    [0.2857142857142857, 0.0]
    """
    t = as_real(thresholds, "thresholds")
    if np.any((t < 0) | (t >= 1)):
        raise ValueError("thresholds must be probabilities in [0, 1).")
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    n = float(c.n_pos + c.n_neg)
    i = np.searchsorted(-c.thresholds, -t, side="right") - 1  # last distinct score >= t
    tp = np.where(i >= 0, c.tps[np.maximum(i, 0)], 0)
    fp = np.where(i >= 0, c.fps[np.maximum(i, 0)], 0)
    odds = t / (1 - t)
    model = tp / n - fp / n * odds
    prevalence = c.n_pos / n
    return model, prevalence - (1 - prevalence) * odds, np.zeros_like(t)


def lift_table(
    y_true: Any,
    y_score: Any,
    *,
    bins: int = 10,
    pos_label: Any = None,
    sample_weight: Any = None,
):
    """Lift by quantile bin from the top: rows, positives, precision, recall, lift, cumulative
    lift (a pandas DataFrame, one row per non-empty bin).

    Rows are taken by decreasing score; bin ``k`` (from 1) holds the rows whose weight before
    them falls in ``[(k − 1)/bins, k/bins)`` of the total. Tied rows stay together, in the bin
    where their block starts, so a bin can be larger than ``1/bins`` and a later one empty
    (empty bins are left out). Lift is the bin's precision over the overall prevalence.
    ``bins`` is at most 100,000 (``metrics._bounds.MAX_BINS``; a ValueError past it).

    Examples
    --------
    >>> t = lift_table([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bins=2)
    >>> t[["rows", "positives", "lift"]].values.tolist()
    [[2.0, 1.0, 1.0], [2.0, 1.0, 1.0]]
    """
    import pandas as pd

    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}.")
    check_at_most(bins, "bins", MAX_BINS)
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    total = float(c.n_pos + c.n_neg)
    cum = (c.tps + c.fps).astype(np.float64)
    before = np.concatenate(([0.0], cum[:-1]))
    # floor(before / total * bins), with a little slack so 0.3 * 10 is 3, not 2.9999...
    which = np.minimum(np.floor(before * bins / total + 1e-9).astype(np.int64), bins - 1)
    block_pos = np.diff(np.concatenate(([0], c.tps))).astype(np.float64)
    block_all = np.diff(np.concatenate(([0], cum)))
    rows = np.bincount(which, weights=block_all, minlength=bins)
    pos = np.bincount(which, weights=block_pos, minlength=bins)
    keep = rows > 0
    prevalence = c.n_pos / total
    precision = np.divide(pos, rows, out=np.zeros(bins), where=rows > 0)
    cum_rows, cum_pos = np.cumsum(rows), np.cumsum(pos)
    table = pd.DataFrame(
        {
            "bin": np.arange(1, bins + 1),
            "lowest score": [c.thresholds[which == k].min() if (which == k).any() else np.nan
                             for k in range(bins)],
            "rows": rows,
            "positives": pos,
            "precision": precision,
            "recall": pos / c.n_pos if c.n_pos else np.nan,
            "lift": precision / prevalence if prevalence else np.nan,
            "cumulative lift": np.divide(cum_pos, cum_rows, out=np.zeros(bins), where=cum_rows > 0)
            / prevalence
            if prevalence
            else np.nan,
        }
    )  # fmt: skip
    return table[keep].reset_index(drop=True)


@dataclass(frozen=True)
class CostCurve:
    """Expected cost at every distinct threshold (a score >= threshold flagged).

    Attributes
    ----------
    thresholds : ndarray of shape (n_thresholds + 1,)
        ``inf`` first (nothing flagged), then the distinct scores in decreasing order.
    cost : ndarray of shape (n_thresholds + 1,)
        Total cost at each threshold: costs of errors minus benefits of correct calls.
    best : int
        Index of the least cost (the highest threshold among ties).
    """

    thresholds: np.ndarray
    cost: np.ndarray
    best: int

    @property
    def best_threshold(self) -> float:
        return float(self.thresholds[self.best])


def expected_cost(
    y_true: Any,
    y_score: Any,
    *,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    benefit_tp: float = 0.0,
    benefit_tn: float = 0.0,
    value: Any = None,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> CostCurve:
    """Total cost at every distinct threshold, from a 2x2 cost/benefit matrix or a value column.

    ``cost = cost_fp·FP + cost_fn·FN − benefit_tp·TP − benefit_tn·TN``. With ``value`` (one
    number per row, say the amount at risk), a missed positive costs its own value instead of
    ``cost_fn`` and a caught one gains ``benefit_tp`` times its value. Weights multiply both.

    Examples
    --------
    >>> r = expected_cost([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cost_fp=1, cost_fn=5)
    >>> r.cost.tolist(), r.best_threshold
    ([10.0, 5.0, 6.0, 1.0, 2.0], 0.35)
    """
    c = threshold_counts(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
    fp = np.concatenate(([0.0], c.fps.astype(np.float64)))
    tp = np.concatenate(([0.0], c.tps.astype(np.float64)))
    tn, fn = c.n_neg - fp, c.n_pos - tp
    cost = cost_fp * fp - benefit_tn * tn
    if value is None:
        cost = cost + cost_fn * fn - benefit_tp * tp
    else:
        from metrics._validation import check_binary_inputs

        y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
        v = as_real(value, "value") * (1.0 if w is None else w)
        if v.shape != s.shape or not np.isfinite(v).all():
            raise ValueError("value must hold one finite number per row.")
        # Value caught at each distinct threshold: positives' value with score >= threshold.
        order = np.argsort(-s, kind="stable")
        cum = np.cumsum(np.where(y, v, 0.0)[order])
        last = np.searchsorted(-s[order], -c.thresholds, side="right") - 1
        caught = np.concatenate(([0.0], cum[last]))
        cost = cost + (v[y].sum() - caught) - benefit_tp * caught
    thresholds = np.concatenate(([np.inf], c.thresholds))
    return CostCurve(thresholds, cost, int(np.argmin(cost)))
