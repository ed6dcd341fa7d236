"""Comparing models: DeLong's test for two ROC AUCs, and a paired bootstrap for any metric.

DeLong's method (DeLong, DeLong & Clarke-Pearson 1988) estimates the covariance of ROC AUCs
computed on the same rows from the *placement values* of each row:

* a positive's placement ``V10_i`` is the share of negatives it outscores (a tie counts one half);
* a negative's placement ``V01_j`` is the share of positives that outscore it (a tie one half).

Each AUC is the mean of its ``V10`` (and of its ``V01``), and the covariance matrix of the AUCs
is ``S10 / n_pos + S01 / n_neg``, with ``S10`` and ``S01`` the sample covariances (``ddof=1``)
of the placements across models. Sun & Xu (2014) get the placements in O(n log n) from midranks:
``V10_i = (T_Z(i) - T_X(i)) / n_neg``, where ``T_Z`` is the midrank among all rows and ``T_X``
among the positives (likewise ``V01_j = 1 - (T_Z(j) - T_Y(j)) / n_pos``). This module computes
the same differences of midranks from a single sort per model instead of three: within one run
of tied scores, ``T_Z - T_X`` of a positive is the number of negatives below the run plus half
the negatives in it. Twice that is an integer, so the placements are exact integers and the
AUCs come out in exact integer arithmetic, equal to :func:`metrics.roc_auc_score`. The sort
itself is a sort of packed integer keys, which costs far less than ``np.argsort`` (see
:func:`_sort_rows`).

:func:`paired_bootstrap` resamples rows, the same rows for every model, and recomputes any metric
on each resample. A resample is drawn as integer counts and passed as ``sample_weight``, which
for every metric in this library is the same as repeating the rows.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from metrics._bounds import MAX_RESAMPLES, check_at_most
from metrics._draws import _POISSON_CDF as _POISSON_CDF
from metrics._draws import _counts as _counts
from metrics._draws import _draw_indices as _draw_indices
from metrics._draws import _Draws
from metrics._draws import _poisson_counts_by_table as _poisson_counts_by_table
from metrics._draws import _strata as _strata
from metrics._draws import poisson_counts as poisson_counts
from metrics._validation import (
    UndefinedMetricWarning,
    check_binary_labels,
    check_sample_weight,
    check_scores,
    warn_undefined,
)
from metrics.curves import _new_value_mask

__all__ = [
    "AUCInterval",
    "BootstrapInterval",
    "BootstrapResult",
    "DeLongResult",
    "delong_test",
    "paired_bootstrap",
    "roc_auc_ci",
]

# Most row indices paired_bootstrap draws at once (a few arrays of this many 8-byte values).
_MAX_BLOCK_INDICES = 1 << 21


# --- shared helpers ----------------------------------------------------------------------------


def _check_resampling(n_resamples: Any, alpha: Any, counts: Any) -> float:
    """Validate the options every bootstrap takes; returns alpha as a float."""
    if counts not in ("multinomial", "poisson"):
        raise ValueError(f'counts must be "multinomial" or "poisson", got {counts!r}.')
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError(f"n_resamples must be an integer >= 1, got {n_resamples!r}.")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be an integer >= 1, got {n_resamples!r}.")
    check_at_most(n_resamples, "n_resamples", MAX_RESAMPLES)
    return _check_alpha(alpha)


def _check_alpha(alpha: Any) -> float:
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise ValueError(
            f"alpha must be a number strictly between 0 and 1 (0.05 gives a 95% interval), "
            f"got {alpha!r}."
        )
    return value


def _normal_quantile(alpha: float) -> float:
    """The two-sided critical value ``z`` with ``P(|Z| > z) = alpha`` for a standard normal."""
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def _two_sided_p(z: float) -> float:
    """``P(|Z| >= |z|)``; erfc keeps full relative precision far in the tail."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def _check_binary_scores(
    y_true: Any, scores: dict[str, Any], pos_label: Any
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Validate labels (the greater label is positive, as in roc_auc_score) and named scores."""
    y = check_binary_labels(y_true, pos_label, default_positive="greater")
    checked = []
    for name, score in scores.items():
        n_scores = len(score) if hasattr(score, "__len__") else None
        if n_scores is not None and n_scores != y.size:
            raise ValueError(
                f"y_true has {y.size} rows but {name} has {n_scores}; they must be the same length."
            )
        s = check_scores(score, name)
        if s.size != y.size:
            raise ValueError(
                f"y_true has {y.size} rows but {name} has {s.size}; they must be the same length."
            )
        checked.append(s)
    return y, checked


# --- DeLong: placements from one sort per model --------------------------------------------


# Above 2**32 rows _sort_rows uses np.argsort: the packed keys would keep too few score bits.
_MAX_PACKED_INDEX_BITS = 32
_SIGN_BIT = np.uint64(1 << 63)


def _packed_keys(s: np.ndarray, low_bits: int) -> np.ndarray:
    """A fresh uint64 array that sorts like ``s``, its lowest ``low_bits`` bits cleared."""
    keep = ~np.uint64((1 << low_bits) - 1)
    bits = s.view(np.uint64)
    if s.min() >= 0:
        # Non-negative floats sort like their bit patterns. Clearing the sign bit too maps -0.0
        # (the only one with it set) to 0.0, which must sort as equal.
        return bits & (keep & ~_SIGN_BIT)
    # Negative floats: flip every bit (larger magnitudes sort lower); others: set the sign bit.
    # + 0.0 first turns -0.0 into 0.0.
    key = (s + 0.0).view(np.uint64)
    flip = (key.view(np.int64) >> 63).view(np.uint64)
    flip |= _SIGN_BIT
    key ^= flip
    key &= keep
    return key


def _sort_rows(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows in ascending score order: (order, labels in that order, new-value mask in that order).

    ``np.argsort`` costs several times ``np.sort``. So each score's order-preserving 64-bit key
    keeps its top bits and carries the row's label and index in the low bits, and one sort of
    those integers gives the order and the labels. Rows whose keys agree in the top bits (equal
    scores, or scores a few units in the last place apart) come out ordered by label and index
    instead of score; :func:`_resolve_near_ties` compares those rows on their exact scores.
    """
    n = s.size
    index_bits = max(1, (n - 1).bit_length())
    if index_bits > _MAX_PACKED_INDEX_BITS:
        order = np.argsort(s)
        return order, y[order], _new_value_mask(s[order])
    label_bit = np.uint64(1 << index_bits)
    shift = np.uint64(index_bits + 1)
    key = _packed_keys(s, index_bits + 1)
    tag = np.arange(n, dtype=np.uint64)
    key |= tag
    np.multiply(y, label_bit, out=tag)  # arithmetic, not a masked write: random masks are slow
    key |= tag
    del tag
    key.sort()
    order = key & (2 * label_bit - np.uint64(1))
    ys = order >= label_bit
    order &= label_bit - np.uint64(1)
    order = order.view(np.int64)
    key >>= shift
    new = _new_value_mask(key)
    if not new.all() and not _resolve_near_ties(s, order, ys, new):
        order = np.argsort(s)
        return order, y[order], _new_value_mask(s[order])
    return order, ys, new


def _resolve_near_ties(s: np.ndarray, order: np.ndarray, ys: np.ndarray, new: np.ndarray) -> bool:
    """Fix, in place, the runs of rows whose packed keys tie (``new`` is False inside a run).

    Inside such a run the rows are ordered by label and index rather than by score: re-sort the
    runs by exact score, and make ``new`` the exact new-value mask. Returns False, leaving the
    work to ``np.argsort``, when so many rows need re-sorting that it would be slower.
    """
    n = s.size
    if n - np.count_nonzero(new) > n // 8:
        # Mostly genuine ties: one sort of the scores gives the exact new-value mask, and only
        # the runs that hold different scores need re-sorting.
        exact = _new_value_mask(np.sort(s))
        mixed = np.flatnonzero(exact > new)  # a new score inside a run of equal keys
        if mixed.size > n // 8:
            return False
        if mixed.size:
            starts = np.flatnonzero(new)
            runs = np.unique(np.searchsorted(starts, mixed, side="right") - 1)
            _sort_runs(s, order, ys, starts[runs], np.append(starts, n)[runs + 1])
        new[:] = exact
        return True
    # Few runs (scores a few units in the last place apart): compare their rows exactly.
    joined = np.flatnonzero(~new)  # rows in the same run as the row before them
    begins = np.empty(joined.size, dtype=bool)
    begins[:1] = True
    np.not_equal(joined[1:], joined[:-1] + 1, out=begins[1:])
    lo = joined[begins] - 1
    hi = joined[np.append(begins[1:], True)] + 1
    at, values = _sort_runs(s, order, ys, lo, hi)
    differs = np.empty(at.size, dtype=bool)
    differs[:1] = True
    np.not_equal(values[1:], values[:-1], out=differs[1:])
    new[at] |= differs
    return True


def _sort_runs(
    s: np.ndarray, order: np.ndarray, ys: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Sort ``order[lo[r]:hi[r]]`` by score for every run r, in place, moving ``ys`` along.

    Returns the positions covered and their scores, now ascending within each run.
    """
    lengths = hi - lo
    run = np.repeat(np.arange(lengths.size), lengths)
    at = np.arange(run.size) + np.repeat(lo - (np.cumsum(lengths) - lengths), lengths)
    values = s[order[at]]
    moved = np.lexsort((values, run))
    order[at] = order[at[moved]]
    ys[at] = ys[at[moved]]
    return at, values[moved]


def _twice_placements(y: np.ndarray, s: np.ndarray, n_pos: int, out: np.ndarray) -> None:
    """Write into ``out`` (shape (n_samples,)) twice each row's placement count.

    For a positive: ``2 * (negatives scoring below it) + (negatives tied with it)``, which is
    ``2 * n_neg * V10``. For a negative: ``2 * (positives scoring above it) + (positives tied with
    it)``, which is ``2 * n_pos * V01``. Takes validated arrays (``y`` boolean, ``s`` finite).
    """
    n = s.size
    order, ys, new = _sort_rows(y, s)
    if new.all():
        # No ties: the row of rank k (from 1) has pos_upto[k] positives at or below it. A positive
        # gets 2 * (negatives below) = 2 * (k - pos_upto); a negative 2 * (n_pos - pos_upto).
        # Blended arithmetically: np.where on a random mask is slower than these passes.
        pos_upto = np.cumsum(ys, dtype=out.dtype)
        twice = np.arange(1 - n_pos, n + 1 - n_pos, dtype=out.dtype)  # k - n_pos
        twice *= ys
        twice -= pos_upto
        twice += n_pos
        twice *= 2
    else:
        # Runs of tied scores: count each class per run, then give every row its run's value
        # (repeating per-run values is a sequential fill, unlike a gather from a table).
        starts = np.flatnonzero(new)
        lengths = np.diff(starts, append=n)
        pos_run = np.add.reduceat(ys, starts, dtype=np.int64)
        pos_below = np.cumsum(pos_run) - pos_run
        twice_v10 = 2 * (starts - pos_below) + (lengths - pos_run)
        twice_v01 = 2 * (n_pos - pos_below) - pos_run  # 2 * positives above + tied positives
        twice = np.repeat((twice_v10 - twice_v01).astype(out.dtype), lengths)
        twice *= ys
        twice += np.repeat(twice_v01.astype(out.dtype), lengths)
    out[order] = twice


@dataclass(frozen=True)
class _Placements:
    """Twice-scaled placements of k models, integers: per model, ``t10`` of shape (n_pos,) and
    ``t01`` of shape (n_neg,), the rows of each class in their original order."""

    t10: list[np.ndarray]
    t01: list[np.ndarray]

    @property
    def n_pos(self) -> int:
        return self.t10[0].size

    @property
    def n_neg(self) -> int:
        return self.t01[0].size

    def aucs(self) -> list[float]:
        # sum(t10) = 2 U exactly; Python int division rounds the quotient correctly once.
        denominator = 2 * self.n_pos * self.n_neg
        return [int(t10.sum(dtype=np.int64)) / denominator for t10 in self.t10]

    def variance(self, i: int, j: int | None = None) -> float:
        """DeLong variance of AUC ``i``, or of AUC ``i`` minus AUC ``j``.

        The difference is taken on the integer placements before centring, so a difference
        whose placements are constant (identical models, say) has variance exactly 0. (It
        cannot overflow: placements lie in [0, 2 * n_samples] and the dtype holds +-that.)
        """
        t10, t01 = self.t10[i], self.t01[i]
        if j is not None:
            t10 = t10 - self.t10[j]
            t01 = t01 - self.t01[j]
        s10 = _sample_variance(t10) / (4.0 * self.n_neg**2)
        s01 = _sample_variance(t01) / (4.0 * self.n_pos**2)
        return s10 / self.n_pos + s01 / self.n_neg


def _sample_variance(values: np.ndarray) -> float:
    """Variance with ``ddof=1`` of integers; exactly 0 when they are all equal."""
    centred = values - int(values.sum(dtype=np.int64)) / values.size
    # Not np.dot: a BLAS call may wake OpenBLAS's threads, whose spinning after the call slows
    # the next numpy calls on a busy machine more than this loop costs.
    centred *= centred
    return float(centred.sum()) / (values.size - 1)


def _placements(y: np.ndarray, scores: list[np.ndarray]) -> _Placements:
    n_pos = int(np.count_nonzero(y))
    negative = ~y
    # Twice a placement is at most 2 * n_samples: int32 unless that overflows.
    dtype = np.int32 if 2 * y.size < np.iinfo(np.int32).max else np.int64
    twice = np.empty(y.size, dtype=dtype)
    t10, t01 = [], []
    for s in scores:
        _twice_placements(y, s, n_pos, twice)
        t10.append(np.compress(y, twice))
        t01.append(np.compress(negative, twice))
    return _Placements(t10, t01)


def _class_counts_problem(n_pos: int, n_neg: int) -> str | None:
    if n_pos == 0 or n_neg == 0:
        return (
            f"y_true has {n_pos} positives and {n_neg} negatives; ROC AUC needs both classes. "
            "Returning NaN."
        )
    if n_pos < 2 or n_neg < 2:
        return (
            f"y_true has {n_pos} positives and {n_neg} negatives; the DeLong variance needs at "
            "least 2 of each. The standard error, test and interval are NaN."
        )
    return None


@dataclass(frozen=True)
class AUCInterval:
    """ROC AUC with its DeLong standard error and a normal-approximation confidence interval.

    Attributes
    ----------
    auc : float
        The ROC AUC, equal to :func:`metrics.roc_auc_score`.
    std_error : float
        DeLong's standard error of the AUC.
    ci_low, ci_high : float
        ``auc -/+ z_{1 - alpha/2} * std_error``, clipped to [0, 1].
    alpha : float
        The interval covers ``1 - alpha``.
    n_pos, n_neg : int
        Rows of each class.
    """

    auc: float
    std_error: float
    ci_low: float
    ci_high: float
    alpha: float
    n_pos: int
    n_neg: int


def roc_auc_ci(
    y_true: Any, y_score: Any, *, pos_label: Any = None, alpha: float = 0.05
) -> AUCInterval:
    """ROC AUC with DeLong's standard error and a ``1 - alpha`` confidence interval.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With labels other than 0/1, -1/1 or booleans and no ``pos_label``, the
        greater of the two values is positive, as in :func:`metrics.roc_auc_score`.
    y_score : array-like of shape (n_samples,)
        Scores; higher means more likely positive. Ties count one half.
    pos_label : scalar, optional
        The positive class.
    alpha : float, default 0.05
        One minus the confidence level.

    Returns
    -------
    AUCInterval
        With only one class, every field but the counts is NaN, with an
        :class:`UndefinedMetricWarning`; with fewer than 2 rows of a class, ``auc`` is defined
        and the rest is NaN, with a warning. When every placement value is the same (for example
        perfect separation) the standard error is 0 and the interval is ``[auc, auc]``.

    Notes
    -----
    Unweighted only. O(n log n): one sort of the scores. The interval is the normal (Wald)
    interval on the AUC scale, symmetric about the AUC as pROC's ``ci.auc(method="delong")``
    computes it, then clipped to [0, 1]; it is optimistic for small samples or an AUC near 0
    or 1.

    Examples
    --------
    The positives' placements are 1/2 and 1, the negatives' 1 and 1/2, so the variance is
    0.125 / 2 + 0.125 / 2 = 1/8.

    >>> r = roc_auc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.auc, r.std_error == 0.125**0.5
    (0.75, True)
    """
    alpha = _check_alpha(alpha)
    y, (s,) = _check_binary_scores(y_true, {"y_score": y_score}, pos_label)
    n_pos = int(np.count_nonzero(y))
    n_neg = y.size - n_pos
    problem = _class_counts_problem(n_pos, n_neg)
    if n_pos == 0 or n_neg == 0:
        warn_undefined(problem)
        return AUCInterval(math.nan, math.nan, math.nan, math.nan, alpha, n_pos, n_neg)
    placements = _placements(y, [s])
    (auc,) = placements.aucs()
    if problem is not None:
        warn_undefined(problem)
        return AUCInterval(auc, math.nan, math.nan, math.nan, alpha, n_pos, n_neg)
    return auc_interval_from_variance(auc, placements.variance(0), n_pos, n_neg, alpha=alpha)


@dataclass(frozen=True)
class DeLongResult:
    """DeLong's test of two correlated ROC AUCs (the same rows scored by two models).

    Attributes
    ----------
    auc_a, auc_b : float
        The two ROC AUCs, equal to :func:`metrics.roc_auc_score`.
    difference : float
        ``auc_a - auc_b``.
    std_error : float
        DeLong's standard error of the difference.
    z : float
        ``difference / std_error``; 0.0 when both are 0, +-inf when only the standard error is.
    p_value : float
        Two-sided, from the standard normal: ``P(|Z| >= |z|)``.
    ci_low, ci_high : float
        ``difference -/+ z_{1 - alpha/2} * std_error``, clipped to [-1, 1].
    alpha : float
        The interval covers ``1 - alpha``.
    std_error_a, std_error_b : float
        DeLong's standard error of each AUC.
    correlation : float
        Estimated correlation of the two AUC estimates; NaN when either standard error is 0.
    n_pos, n_neg : int
        Rows of each class.
    """

    auc_a: float
    auc_b: float
    difference: float
    std_error: float
    z: float
    p_value: float
    ci_low: float
    ci_high: float
    alpha: float
    std_error_a: float
    std_error_b: float
    correlation: float
    n_pos: int
    n_neg: int


def delong_test(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    pos_label: Any = None,
    alpha: float = 0.05,
) -> DeLongResult:
    """DeLong's test that two models scored on the same rows have the same ROC AUC.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels. With labels other than 0/1, -1/1 or booleans and no ``pos_label``, the
        greater of the two values is positive, as in :func:`metrics.roc_auc_score`.
    score_a, score_b : array-like of shape (n_samples,)
        Each model's scores for the same rows; higher means more likely positive. Ties count
        one half, in the AUCs and in the placement values alike.
    pos_label : scalar, optional
        The positive class.
    alpha : float, default 0.05
        One minus the confidence level of the interval for the difference.

    Returns
    -------
    DeLongResult

    Notes
    -----
    Degenerate inputs give a documented result rather than an error:

    * one class only: every float field is NaN, with an :class:`UndefinedMetricWarning`;
    * fewer than 2 positives or 2 negatives: the AUCs and their difference are defined, the
      standard errors, ``z``, ``p_value``, correlation and interval are NaN, with a warning;
    * a difference with variance 0 (the placement differences are constant within each class:
      identical scores, say, or perfect separation by both): ``z = 0`` and ``p_value = 1`` when
      the difference is 0. If the variance is 0 but the difference is not (a perfect model against
      a constant one), ``z = +-inf``, ``p_value = 0`` and the interval is
      ``[difference, difference]``: the DeLong estimate sees no sampling variation at all, which
      is an artefact of small or degenerate data rather than certainty.

    Cost: one sort per model, O(n log n), and a few linear passes, with exact integer placements;
    about the time of two :func:`metrics.roc_auc_score` calls. The p-value uses the normal
    approximation, which is poor for small samples.

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988), "Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach",
    Biometrics 44(3), 837-845.
    X. Sun, W. Xu (2014), "Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves", IEEE Signal Processing Letters
    21(11), 1389-1393.

    Examples
    --------
    Model b separates the classes perfectly (every placement is 1); model a's placements are
    1/2 and 1 for the positives, 1 and 1/2 for the negatives. The placement differences have
    variance 1/8 in each class, so the difference has variance 1/8 / 2 + 1/8 / 2 = 1/8.

    >>> r = delong_test([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [0.1, 0.2, 0.3, 0.4])
    >>> r.auc_a, r.auc_b, r.difference, r.std_error == 0.125**0.5
    (0.75, 1.0, -0.25, True)
    >>> round(r.z, 4), round(r.p_value, 4)
    (-0.7071, 0.4795)
    """
    alpha = _check_alpha(alpha)
    y, scores = _check_binary_scores(y_true, {"score_a": score_a, "score_b": score_b}, pos_label)
    n_pos = int(np.count_nonzero(y))
    n_neg = y.size - n_pos
    problem = _class_counts_problem(n_pos, n_neg)
    nan = math.nan
    undefined = {"std_error": nan, "z": nan, "p_value": nan, "ci_low": nan, "ci_high": nan}
    undefined |= {"std_error_a": nan, "std_error_b": nan, "correlation": nan}
    counts = {"alpha": alpha, "n_pos": n_pos, "n_neg": n_neg}
    if n_pos == 0 or n_neg == 0:
        warn_undefined(problem)
        return DeLongResult(auc_a=nan, auc_b=nan, difference=nan, **undefined, **counts)
    placements = _placements(y, scores)
    auc_a, auc_b = placements.aucs()
    difference = auc_a - auc_b
    if problem is not None:
        warn_undefined(problem)
        return DeLongResult(auc_a=auc_a, auc_b=auc_b, difference=difference, **undefined, **counts)
    return delong_from_variances(
        auc_a, auc_b, placements.variance(0), placements.variance(1),
        placements.variance(0, 1), n_pos, n_neg, alpha=alpha,
    )  # fmt: skip


def delong_from_variances(
    auc_a: float,
    auc_b: float,
    var_a: float,
    var_b: float,
    var_diff: float,
    n_pos: int,
    n_neg: int,
    *,
    alpha: float = 0.05,
) -> DeLongResult:
    """The :class:`DeLongResult` of two AUCs whose DeLong variances (of each, and of their
    difference) were computed elsewhere: by :func:`delong_test`, or by an engine that summed
    the placements in SQL (:func:`metrics.sql.delong`)."""
    alpha = _check_alpha(alpha)
    difference = auc_a - auc_b
    std_error = math.sqrt(var_diff)
    if math.isnan(std_error):  # fewer than two rows of a class: undefined, as delong_test says
        z = math.nan
    elif std_error > 0:
        z = difference / std_error
    else:
        z = 0.0 if difference == 0 else math.copysign(math.inf, difference)
    half = _normal_quantile(alpha) * std_error
    if var_a > 0 and var_b > 0:
        # Var(a - b) = Var(a) + Var(b) - 2 Cov(a, b)
        correlation = (var_a + var_b - var_diff) / (2.0 * math.sqrt(var_a * var_b))
        correlation = min(1.0, max(-1.0, correlation))
    else:
        correlation = math.nan
    return DeLongResult(
        auc_a=auc_a,
        auc_b=auc_b,
        difference=difference,
        std_error=std_error,
        z=z,
        p_value=math.nan if math.isnan(z) else _two_sided_p(z),
        ci_low=_clip(difference - half, -1.0, 1.0),
        ci_high=_clip(difference + half, -1.0, 1.0),
        alpha=alpha,
        std_error_a=math.sqrt(var_a),
        std_error_b=math.sqrt(var_b),
        correlation=correlation,
        n_pos=n_pos,
        n_neg=n_neg,
    )


def auc_interval_from_variance(
    auc: float, variance: float, n_pos: int, n_neg: int, *, alpha: float = 0.05
) -> AUCInterval:
    """The :class:`AUCInterval` of an AUC whose DeLong variance was computed elsewhere (as
    :func:`roc_auc_ci` computes it from the rows)."""
    alpha = _check_alpha(alpha)
    std_error = math.sqrt(variance)
    half = _normal_quantile(alpha) * std_error
    return AUCInterval(
        auc, std_error, _clip(auc - half, 0.0, 1.0), _clip(auc + half, 0.0, 1.0), alpha, n_pos,
        n_neg,
    )  # fmt: skip


def _clip(x: float, low: float, high: float) -> float:
    """``x`` within [low, high], NaN staying NaN (``max`` and ``min`` would drop it)."""
    return x if math.isnan(x) else min(high, max(low, x))


# --- paired bootstrap ----------------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapInterval:
    """A point estimate with its bootstrap percentile interval and standard error.

    Attributes
    ----------
    estimate : float
        The metric (or the difference of two metrics) on the original rows.
    ci_low, ci_high : float
        The ``alpha / 2`` and ``1 - alpha / 2`` quantiles of the bootstrap replicates (numpy's
        default linear interpolation). NaN when no replicate is finite.
    std_error : float
        Standard deviation (``ddof=1``) of the finite replicates; NaN with fewer than 2.
    n_used : int
        Resamples with a finite value that the interval is computed from.
    """

    estimate: float
    ci_low: float
    ci_high: float
    std_error: float
    n_used: int


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Paired bootstrap intervals for one or more models scored on the same rows.

    Attributes
    ----------
    models : tuple of BootstrapInterval
        One per score array, in the order given.
    differences : dict of (int, int) -> BootstrapInterval
        For every pair ``i < j``: model ``i`` minus model ``j``, from the resamples where both
        are finite. Because every model sees the same rows in a resample, the interval reflects
        the paired (correlated) variation, which is usually far narrower than the unpaired one.
    replicates : ndarray of shape (n_resamples, n_models)
        The metric on each resample; NaN where it was NaN (those are dropped from the intervals).
    n_dropped : tuple of int
        Per model, how many resamples gave NaN.
    n_resamples : int
    alpha : float
    small_groups : metrics.SmallGroups or None
        When the resamples drew whole groups and the intervals were widened for few groups
        (:func:`metrics.fast_paired_bootstrap` and :func:`metrics.cluster_bootstrap`), the
        correction applied, whose :meth:`~metrics.SmallGroups.p_value` agrees with those
        intervals; None otherwise (plain percentile or BCa intervals).
    """

    models: tuple[BootstrapInterval, ...]
    differences: dict[tuple[int, int], BootstrapInterval]
    replicates: np.ndarray
    n_dropped: tuple[int, ...]
    n_resamples: int
    alpha: float
    small_groups: Any = None

    def difference_p_value(self, i: int, j: int) -> float:
        """Two-sided p-value of "model ``i`` minus model ``j`` is 0" that agrees with the
        interval ``differences[(i, j)]``: the few-groups corrected one when the intervals were
        widened (:meth:`metrics.SmallGroups.p_value`), else the percentile one
        (:func:`metrics.significance.bootstrap_p_value`)."""
        from metrics.significance import bootstrap_p_value

        d = self.replicates[:, i] - self.replicates[:, j]
        if self.small_groups is not None:
            return self.small_groups.p_value(self.differences[(i, j)].estimate, d)
        return bootstrap_p_value(d)


def _percentile_interval(estimate: float, values: np.ndarray, alpha: float) -> BootstrapInterval:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return BootstrapInterval(estimate, math.nan, math.nan, math.nan, 0)
    low, high = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0])
    std_error = float(np.std(values, ddof=1)) if values.size > 1 else math.nan
    return BootstrapInterval(estimate, float(low), float(high), std_error, int(values.size))


def paired_bootstrap(
    metric: Callable[..., float],
    y_true: Any,
    *scores: Any,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    sample_weight: Any = None,
    stratified: bool = True,
    resample: str = "weights",
    counts: str = "multinomial",
) -> BootstrapResult:
    """Paired bootstrap percentile intervals for any metric, and for differences between models.

    Every resample draws rows with replacement once and scores every model on those same rows,
    so the differences between models are paired.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, score, sample_weight=None) -> float``, for example
        :func:`metrics.roc_auc_score`; use ``functools.partial`` to fix other options. It must
        treat an integer weight ``k`` like ``k`` copies of the row (every metric in this library
        and scikit-learn's do), unless ``resample="rows"``.
    y_true : array-like of shape (n_samples,)
        Passed to ``metric`` unchanged (labels of any kind).
    *scores : array-like of shape (n_samples, ...)
        One or more models' scores for the same rows.
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
    alpha : float, default 0.05
        One minus the confidence level.
    seed : int, numpy Generator or None, default 0
        Seeds ``numpy.random.default_rng``; the same seed gives the same result, and a larger
        ``n_resamples`` keeps the same first resamples.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights; a resample's weights are these times the resample counts.
    stratified : bool, default True
        Resample within each distinct value of ``y_true``, so every resample keeps each class's
        row count (and has both classes). Pass False for a continuous ``y_true``.
    resample : {"weights", "rows"}, default "weights"
        ``"weights"`` passes each resample as integer counts in ``sample_weight`` (no copies of
        the data); ``"rows"`` indexes the rows out and calls ``metric(y, score)`` (with
        ``sample_weight=`` only when weights were given), for metrics without weights.
    counts : {"multinomial", "poisson"}, default "multinomial"
        ``"multinomial"`` draws ``n`` rows with replacement (within each class when
        ``stratified``); ``"poisson"`` draws each row a Poisson(1) number of times, as TFMA
        does, and ignores ``stratified``. :func:`metrics.fast_paired_bootstrap` draws the same
        resamples for the same ``seed``.

    Returns
    -------
    BootstrapResult
        Resamples where a model's metric is NaN are dropped from its interval and counted in
        ``n_dropped``, with one :class:`UndefinedMetricWarning` (the metric's own
        UndefinedMetricWarnings inside the resamples are silenced).

    Notes
    -----
    Cost: ``n_resamples * len(scores)`` metric calls, a Python loop over resamples (the metric
    itself is vectorised), plus O(n) per resample to draw the rows, drawn in blocks of about
    2 million indices (tens of MB) at a time. 1000 resamples of :func:`roc_auc_score` on 1e5
    rows take a few seconds per model. ``resample="weights"`` never copies the data, but a
    metric's weighted path can be slower than its unweighted one (our weighted ROC AUC needs an
    argsort that the unweighted one avoids), so ``resample="rows"`` can be the faster choice.

    The interval is the plain percentile interval, which can undercover for small samples or
    skewed statistics.

    Examples
    --------
    >>> from metrics.areas import roc_auc_score
    >>> r = paired_bootstrap(
    ...     roc_auc_score, [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7], n_resamples=200
    ... )
    >>> r.models[0].estimate, r.models[0].n_used
    (0.8888888888888888, 200)
    """
    if not callable(metric):
        raise ValueError(
            f"metric must be a function metric(y_true, score, sample_weight=None), got "
            f"{type(metric).__name__}."
        )
    if not scores:
        raise ValueError("paired_bootstrap needs at least one score array after y_true.")
    if resample not in ("weights", "rows"):
        raise ValueError(f'resample must be "weights" or "rows", got {resample!r}.')
    alpha = _check_resampling(n_resamples, alpha, counts)
    y = np.asarray(y_true)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(
            f"y_true must be a non-empty one-dimensional array (one value per row), got shape "
            f"{y.shape}."
        )
    n = y.size
    arrays = [np.asarray(s) for s in scores]
    for k, s in enumerate(arrays):
        if s.ndim == 0 or s.shape[0] != n:
            raise ValueError(
                f"scores[{k}] has shape {s.shape} but y_true has {n} rows; every score array "
                "needs one entry per row."
            )
    w = check_sample_weight(sample_weight, n)
    draws = _Draws(y, seed, counts, stratified)

    estimates = [
        float(metric(y, s) if w is None else metric(y, s, sample_weight=w)) for s in arrays
    ]
    replicates = np.empty((n_resamples, len(arrays)))
    block = max(1, min(n_resamples, _MAX_BLOCK_INDICES // n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for first in range(0, n_resamples, block):
            size = min(block, n_resamples - first)
            drawn = draws.block(size)
            if resample == "weights":
                weights = drawn.astype(np.float64)
                if w is not None:
                    weights *= w
                for r in range(size):
                    for k, s in enumerate(arrays):
                        replicates[first + r, k] = metric(y, s, sample_weight=weights[r])
            else:
                for r in range(size):
                    rows = np.repeat(np.arange(n), drawn[r])
                    for k, s in enumerate(arrays):
                        replicates[first + r, k] = (
                            metric(y[rows], s[rows])
                            if w is None
                            else metric(y[rows], s[rows], sample_weight=w[rows])
                        )

    finite = np.isfinite(replicates)
    n_dropped = tuple(int(d) for d in (~finite).sum(axis=0))
    for k, dropped in enumerate(n_dropped):
        if dropped:
            warnings.warn(
                f"scores[{k}]: the metric was NaN on {dropped} of {n_resamples} resamples; they "
                "are left out of its interval."
                + ("" if stratified else " stratified=True keeps every class in every resample."),
                UndefinedMetricWarning,
                stacklevel=2,
            )
    models = tuple(
        _percentile_interval(estimates[k], replicates[:, k], alpha) for k in range(len(arrays))
    )
    differences = {
        (i, j): _percentile_interval(
            estimates[i] - estimates[j], replicates[:, i] - replicates[:, j], alpha
        )
        for i in range(len(arrays))
        for j in range(i + 1, len(arrays))
    }
    return BootstrapResult(models, differences, replicates, n_dropped, n_resamples, alpha)
