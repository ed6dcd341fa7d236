"""ROC AUC inference when rows come in clusters (users, queries, patients): Obuchowski (1997).

DeLong's variance treats every row as independent. Rows of one user share the user: their
placement values move together, and a variance that ignores that is too small, so intervals are
too narrow and tests reject too often. Obuchowski's estimator keeps DeLong's placement values
(structural components) but sums them per cluster before taking variances, so the resampled
unit, in effect, is the cluster:

* ``V10(x)``: the share of negatives a positive ``x`` outscores (ties one half); ``V01(y)``: the
  share of positives that outscore a negative ``y``. Their means are both the AUC ``θ``.
* Per cluster ``i`` with ``m_i`` positives and ``n_i`` negatives: ``V10_i = Σ V10`` over its
  positives and ``V01_i = Σ V01`` over its negatives.
* With ``M = Σ m_i``, ``N = Σ n_i``, ``I`` clusters, ``I10`` of them with a positive and ``I01``
  with a negative::

      S10 = I10 / ((I10 - 1) M) · Σ (V10_i - m_i θ)²
      S01 = I01 / ((I01 - 1) N) · Σ (V01_i - n_i θ)²
      S11 = I / (I - 1) · Σ (V10_i - m_i θ)(V01_i - n_i θ)
      Var(θ) = S10 / M + S01 / N + 2 S11 / (M N)

  and for two models scored on the same rows the same sums over the difference of their
  components give ``Var(θ_a - θ_b)``.

With every cluster of one row, ``S11 = 0`` and ``S10``, ``S01`` are DeLong's ``s10``, ``s01``: the
result is DeLong's (:func:`metrics.roc_auc_ci`, :func:`metrics.delong_test`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._student_t import t_cdf, t_quantile
from metrics._validation import warn_undefined
from metrics.compare import (
    _check_alpha,
    _check_binary_scores,
    _clip,
    _placements,
    auc_interval_from_variance,
    delong_from_variances,
)

__all__ = ["ClusteredAUC", "clustered_auc_test", "clustered_result", "obuchowski_variance"]


@dataclass(frozen=True)
class ClusteredAUC:
    """ROC AUC of one or two models with Obuchowski's clustered-data variance.

    Attributes
    ----------
    auc_a, std_error_a, ci_low_a, ci_high_a : float
        Model a's AUC (equal to :func:`metrics.roc_auc_score`), its clustered standard error
        and normal-approximation ``1 - alpha`` interval, clipped to [0, 1].
    auc_b, std_error_b, ci_low_b, ci_high_b : float or None
        The same for model b; None with one model.
    difference, std_error, z, p_value, ci_low, ci_high : float or None
        ``auc_a - auc_b``, its clustered standard error, ``z = difference / std_error``, the
        two-sided normal p-value and the interval of the difference clipped to [-1, 1], as
        :class:`metrics.DeLongResult` defines them; None with one model.
    correlation : float or None
        Estimated correlation of the two AUC estimates; NaN when either standard error is 0.
    alpha : float
    n_pos, n_neg : int
        Rows of each class.
    n_groups, n_groups_pos, n_groups_neg : int
        Clusters, and clusters holding at least one positive / one negative.
    df : float or None
        With ``small_sample=True``: the degrees of freedom of the t reference the intervals and
        the p-value use, ``G* - 1`` (``G*`` Kish's effective number of clusters, of the class
        for which it is smaller); None for the normal reference.
    """

    auc_a: float
    std_error_a: float
    ci_low_a: float
    ci_high_a: float
    alpha: float
    n_pos: int
    n_neg: int
    n_groups: int
    n_groups_pos: int
    n_groups_neg: int
    auc_b: float | None = None
    std_error_b: float | None = None
    ci_low_b: float | None = None
    ci_high_b: float | None = None
    difference: float | None = None
    std_error: float | None = None
    z: float | None = None
    p_value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    correlation: float | None = None
    df: float | None = None


def _group_index(groups: Any, n: int) -> np.ndarray:
    g = np.asarray(groups)
    if g.ndim != 1 or g.size != n:
        raise ValueError(
            f"groups needs one value per row ({n} rows, 1-D), got an array of shape {g.shape}."
        )
    if g.dtype.kind == "f" and np.isnan(g).any():
        raise ValueError(
            f"groups has {int(np.isnan(g).sum())} NaN values; every row needs a group id."
        )
    try:
        _, inverse = np.unique(g, return_inverse=True)
    except TypeError:
        raise ValueError(
            "groups mixes values that cannot be compared (for example numbers and strings); "
            "make the group ids one type."
        ) from None
    return inverse.reshape(-1)


class _Components:
    """Per-cluster deviations ``V10_i - m_i θ`` and ``V01_i - n_i θ`` of each model, and the
    factors that turn their sums of products into Obuchowski's variance."""

    def __init__(self, y: np.ndarray, scores: list[np.ndarray], inverse: np.ndarray) -> None:
        self.n_groups = int(inverse.max()) + 1
        pos_group, neg_group = inverse[y], inverse[~y]
        self.m = np.bincount(pos_group, minlength=self.n_groups)
        self.n = np.bincount(neg_group, minlength=self.n_groups)
        self.big_m, self.big_n = int(self.m.sum()), int(self.n.sum())
        self.i10 = int(np.count_nonzero(self.m))
        self.i01 = int(np.count_nonzero(self.n))
        pl = _placements(y, scores)
        self.aucs = pl.aucs()
        self.d10, self.d01 = [], []
        for t10, t01, theta in zip(pl.t10, pl.t01, self.aucs, strict=True):
            # Twice-scaled integer placements: V10 = t10 / (2 N), V01 = t01 / (2 M).
            v10 = np.bincount(pos_group, weights=t10, minlength=self.n_groups) / (2 * self.big_n)
            v01 = np.bincount(neg_group, weights=t01, minlength=self.n_groups) / (2 * self.big_m)
            self.d10.append(v10 - self.m * theta)
            self.d01.append(v01 - self.n * theta)

    def variance(self, i: int, j: int | None = None) -> float:
        """Obuchowski's variance of AUC ``i``, or of AUC ``i`` minus AUC ``j``."""
        d10, d01 = self.d10[i], self.d01[i]
        if j is not None:
            d10 = d10 - self.d10[j]
            d01 = d01 - self.d01[j]
        return obuchowski_variance(
            float(np.sum(d10 * d10)), float(np.sum(d01 * d01)), float(np.sum(d10 * d01)),
            n_pos=self.big_m, n_neg=self.big_n, groups=self.n_groups, groups_pos=self.i10,
            groups_neg=self.i01,
        )  # fmt: skip

    def kish(self) -> tuple[float, float]:
        """Kish's effective number of clusters of the positives and of the negatives."""
        return tuple(float(c.sum() ** 2 / np.sum(c * c)) for c in (self.m, self.n))


def obuchowski_variance(
    d10_squares: float,
    d01_squares: float,
    d10_d01: float,
    *,
    n_pos: int,
    n_neg: int,
    groups: int,
    groups_pos: int,
    groups_neg: int,
) -> float:
    """Obuchowski's variance from the sums over clusters of ``(V10_i - m_i θ)²``,
    ``(V01_i - n_i θ)²`` and their product (for a difference of two AUCs, of the differences
    of the two models' deviations). Shared by the rows' computation here and the engine's
    exact sums (:meth:`metrics.sql.DeLongSummary.clustered`)."""
    s10 = groups_pos / ((groups_pos - 1) * n_pos) * d10_squares
    s01 = groups_neg / ((groups_neg - 1) * n_neg) * d01_squares
    s11 = groups / (groups - 1) * d10_d01
    # The cross term can make a tiny variance negative by rounding (or, on odd data, by
    # more): it is a variance, so it is at least 0.
    return max(0.0, s10 / n_pos + s01 / n_neg + 2 * s11 / (n_pos * n_neg))


def clustered_auc_test(
    y_true: Any,
    score_a: Any,
    score_b: Any = None,
    *,
    groups: Any,
    pos_label: Any = None,
    alpha: float = 0.05,
    small_sample: bool = False,
) -> ClusteredAUC:
    """ROC AUC with Obuchowski's (1997) clustered-data variance; with two models, their test.

    For rows that come in clusters (several rows per user, query or patient) and may be
    correlated within one. The AUC is the ordinary one over all rows; only its variance (and
    the covariance of two models' AUCs) accounts for the clusters.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With labels other than 0/1, -1/1 or booleans and no ``pos_label``, the
        greater of the two values is positive, as in :func:`metrics.roc_auc_score`.
    score_a : array-like of shape (n_samples,)
        Model a's scores; higher means more likely positive. Ties count one half.
    score_b : array-like of shape (n_samples,), optional
        Model b's scores for the same rows: adds the paired test of ``auc_a - auc_b``.
    groups : array-like of shape (n_samples,)
        The cluster of each row (any comparable ids). A cluster may hold one class or both.
    pos_label : scalar, optional
        The positive class.
    alpha : float, default 0.05
        One minus the confidence level of the intervals.
    small_sample : bool, default False
        Use a Student t reference with ``G* - 1`` degrees of freedom instead of the normal one
        for the intervals and the p-value: ``G*`` is Kish's effective number of clusters of
        the positives, ``(sum m_i)^2 / sum m_i^2``, or of the negatives (``n_i``), whichever
        is smaller (``G* = G`` for clusters of equal size and balance). The variance already
        carries the ``G / (G - 1)`` factors. With 50 users of unequal activity (1,000 rows in
        ``bench/bench_coverage.py``) the normal interval covered 90.0-90.5% of the time; the t
        one covered 92.2-94.0% and its test rejected a true null 5.2% (balanced) and 2.2% (10%
        positives, conservative) of the time. The group bootstrap's default correction
        measured better (``docs/coverage.md``). Off by default: the result stays Obuchowski's
        published normal-theory test (and DeLong's with clusters of one row).

    Returns
    -------
    ClusteredAUC
        One class only: every float is NaN, with an :class:`UndefinedMetricWarning`. Fewer than
        2 clusters holding a positive, or holding a negative: the AUCs and their difference are
        defined, the variances (and what depends on them) NaN, with a warning. A variance of
        0 gives ``z``, ``p_value`` and intervals as :func:`metrics.delong_test` gives them.

    Notes
    -----
    O(n log n): one sort per model (DeLong's placements, computed as
    :func:`metrics.delong_test` computes them) and per-cluster sums. With every cluster of one
    row the result equals :func:`metrics.roc_auc_ci` and :func:`metrics.delong_test` (to
    rounding). Like DeLong's, the interval is a normal (Wald) interval; with few clusters (say
    under 30) it is optimistic: the cluster count, not the row count, is the sample size.

    References
    ----------
    N. A. Obuchowski (1997), "Nonparametric analysis of clustered ROC curve data",
    Biometrics 53(2), 567-578.

    Examples
    --------
    One row per cluster: DeLong's standard error (see :func:`metrics.roc_auc_ci`).

    >>> y = [0, 1, 0, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.3, 0.2, 0.4, 0.5, 0.7, 0.6, 0.8]
    >>> r = clustered_auc_test(y, s, groups=range(8))
    >>> r.auc_a, round(r.std_error_a, 4)
    (0.75, 0.2041)

    Two users, each with AUC 0.75 on its own rows, every row of user 2 above every row of user
    1: whichever users a repeated experiment draws, the AUC is 0.75, and the clustered
    standard error says so (the within-user terms cancel the between-user ones).

    >>> r = clustered_auc_test(y, s, groups=[1, 1, 1, 1, 2, 2, 2, 2])
    >>> r.auc_a, r.std_error_a
    (0.75, 0.0)
    """
    alpha = _check_alpha(alpha)
    named = {"score_a": score_a} if score_b is None else {"score_a": score_a, "score_b": score_b}
    y, scores = _check_binary_scores(y_true, named, pos_label)
    inverse = _group_index(groups, y.size)
    n_pos = int(np.count_nonzero(y))
    n_neg = y.size - n_pos
    pos_groups = int(np.unique(inverse[y]).size)
    neg_groups = int(np.unique(inverse[~y]).size)
    counts = {
        "alpha": alpha,
        "n_pos": n_pos,
        "n_neg": n_neg,
        "n_groups": int(np.unique(inverse).size) if y.size else 0,
        "n_groups_pos": pos_groups,
        "n_groups_neg": neg_groups,
    }
    two = score_b is not None
    nan = math.nan
    if n_pos == 0 or n_neg == 0:
        warn_undefined(
            f"y_true has {n_pos} positives and {n_neg} negatives; ROC AUC needs both classes. "
            "Returning NaN."
        )
        fields = dict.fromkeys(_FIELDS_A + (_FIELDS_B + _FIELDS_DIFF if two else ()), nan)
        return ClusteredAUC(**fields, **counts)
    return clustered_result(_Components(y, scores, inverse), counts, two, alpha, small_sample)


def clustered_result(comp, counts: dict, two: bool, alpha: float, small_sample: bool):
    """The :class:`ClusteredAUC` of components ``comp`` (``aucs``, ``variance(i, j)``,
    ``kish()``, ``n_groups``), both classes present: the rows' computation here and the
    engine's sums (:meth:`metrics.sql.DeLongSummary.clustered`) end in this one function."""
    nan = math.nan
    n_pos, n_neg = counts["n_pos"], counts["n_neg"]
    pos_groups, neg_groups = counts["n_groups_pos"], counts["n_groups_neg"]
    if pos_groups < 2 or neg_groups < 2:
        warn_undefined(
            f"The positives are in {pos_groups} cluster(s) and the negatives in {neg_groups}; "
            "the clustered variance needs at least 2 of each. The standard errors, tests and "
            "intervals are NaN."
        )
        fields = dict.fromkeys(_FIELDS_A + (_FIELDS_B + _FIELDS_DIFF if two else ()), nan)
        fields["auc_a"] = comp.aucs[0]
        if two:
            fields["auc_b"] = comp.aucs[1]
            fields["difference"] = comp.aucs[0] - comp.aucs[1]
        return ClusteredAUC(**fields, **counts)
    df = None
    if small_sample:
        # Kish's effective number of clusters of each class, the smaller one: G* - 1 degrees.
        df = max(min(*comp.kish(), float(comp.n_groups)) - 1.0, 0.0)
    a = auc_interval_from_variance(comp.aucs[0], comp.variance(0), n_pos, n_neg, alpha=alpha)
    if df is not None:
        a = _t_interval(a.auc, a.std_error, df, alpha, (0.0, 1.0))
    fields = {
        "auc_a": a.auc,
        "std_error_a": a.std_error,
        "ci_low_a": a.ci_low,
        "ci_high_a": a.ci_high,
        "df": df,
    }
    if two:
        b = auc_interval_from_variance(comp.aucs[1], comp.variance(1), n_pos, n_neg, alpha=alpha)
        if df is not None:
            b = _t_interval(b.auc, b.std_error, df, alpha, (0.0, 1.0))
        d = delong_from_variances(
            comp.aucs[0], comp.aucs[1], comp.variance(0), comp.variance(1),
            comp.variance(0, 1), n_pos, n_neg, alpha=alpha,
        )  # fmt: skip
        fields |= {
            "auc_b": b.auc,
            "std_error_b": b.std_error,
            "ci_low_b": b.ci_low,
            "ci_high_b": b.ci_high,
            "difference": d.difference,
            "std_error": d.std_error,
            "z": d.z,
            "p_value": d.p_value,
            "ci_low": d.ci_low,
            "ci_high": d.ci_high,
            "correlation": d.correlation,
        }
        if df is not None:
            diff = _t_interval(d.difference, d.std_error, df, alpha, (-1.0, 1.0))
            fields |= {"ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": _t_p(d.z, df)}
    return ClusteredAUC(**fields, **counts)


@dataclass(frozen=True)
class _Interval:
    auc: float
    std_error: float
    ci_low: float
    ci_high: float


def _t_interval(
    estimate: float, std_error: float, df: float, alpha: float, bounds: tuple[float, float]
) -> _Interval:
    """``estimate ± t_{df, 1 - alpha/2} std_error`` clipped to ``bounds`` (NaN stays NaN).
    ``df > 0`` here: at least 2 clusters, so ``G* > 1``."""
    half = t_quantile(1.0 - alpha / 2.0, df) * std_error if df > 0 else math.nan
    low, high = estimate - half, estimate + half
    return _Interval(estimate, std_error, _clip(low, *bounds), _clip(high, *bounds))


def _t_p(z: float, df: float) -> float:
    """Two-sided p-value of the statistic ``z`` against Student's t with ``df`` degrees."""
    if math.isnan(z) or df <= 0:
        return math.nan
    return min(1.0, 2.0 * t_cdf(-abs(z), df))


_FIELDS_A = ("auc_a", "std_error_a", "ci_low_a", "ci_high_a")
_FIELDS_B = ("auc_b", "std_error_b", "ci_low_b", "ci_high_b")
_FIELDS_DIFF = ("difference", "std_error", "z", "p_value", "ci_low", "ci_high", "correlation")
