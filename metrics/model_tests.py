"""Tests between models: Friedman with the Nemenyi critical difference (three or more models over
blocks), McNemar (two models' decisions on the same rows), and the power of DeLong's paired AUC
comparison.

Every distribution here is computed in numpy and the standard library (scipy is a test-only
oracle): the chi-square tail by its closed form for whole degrees of freedom, the studentized
range with infinite degrees of freedom by quadrature, the binomial tail by summing log-space
terms.

References
----------
J. Demšar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7, 1-30.
Q. McNemar (1947), Psychometrika 12(2), 153-157.
R. L. Iman, J. M. Davenport (1980), "Approximations of the critical region of the Friedman
statistic", Communications in Statistics - Theory and Methods 9(6), 571-595.
N. A. Obuchowski, D. K. McClish (1997), "Sample size determination for diagnostic accuracy
studies involving binormal ROC curve indices", Statistics in Medicine 16, 1529-1542.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from metrics._validation import UndefinedMetricWarning, as_real, refuse_complex, warn_undefined
from metrics.compare import (
    _check_alpha,
    _check_binary_scores,
    _class_counts_problem,
    _placements,
    _sample_variance,
)

__all__ = [
    "FriedmanResult",
    "ImanDavenportResult",
    "McNemarResult",
    "auc_difference_power",
    "auc_min_detectable_difference",
    "friedman_test",
    "iman_davenport_test",
    "mcnemar_test",
    "studentized_range_cdf",
    "studentized_range_quantile",
]

_NORMAL = NormalDist()


# --- distributions --------------------------------------------------------------------------------


def _chi2_sf(x: float, df: int) -> float:
    """``P(X > x)`` for a chi-square with whole ``df`` degrees of freedom, in closed form."""
    if x <= 0:
        return 1.0
    h = x / 2.0
    if df % 2 == 0:
        # e^-h * sum_{j < df/2} h^j / j!
        terms = [0.0] + [j * math.log(h) - math.lgamma(j + 1) for j in range(1, df // 2)]
        return float(min(1.0, sum(math.exp(t - h) for t in terms)))
    # erfc(sqrt(h)) + e^-h * sum_{j=1}^{(df-1)/2} h^(j - 1/2) / Gamma(j + 1/2)
    total = math.erfc(math.sqrt(h))
    for j in range(1, (df - 1) // 2 + 1):
        total += math.exp((j - 0.5) * math.log(h) - math.lgamma(j + 0.5) - h)
    return float(min(1.0, total))


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(400)
_erf = np.frompyfunc(math.erf, 1, 1)


def _phi_cdf(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(z / math.sqrt(2.0)).astype(np.float64))


def studentized_range_cdf(q: float, k: int) -> float:
    """``P(R <= q)`` for the range ``R`` of ``k`` independent standard normals (the studentized
    range with infinite degrees of freedom): ``k * int phi(z) (Phi(z) - Phi(z - q))^(k-1) dz``,
    by 400-point Gauss-Legendre quadrature on [-9, 9 + q]."""
    if q <= 0:
        return 0.0
    lo, hi = -9.0, 9.0 + q
    z = 0.5 * (hi - lo) * _NODES + 0.5 * (hi + lo)
    dens = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    inner = np.clip(_phi_cdf(z) - _phi_cdf(z - q), 0.0, 1.0)
    value = k * 0.5 * (hi - lo) * float(np.sum(_WEIGHTS * dens * inner ** (k - 1)))
    return min(1.0, max(0.0, value))


def studentized_range_quantile(p: float, k: int) -> float:
    """The ``p`` quantile of the studentized range of ``k`` means, infinite degrees of freedom
    (bisection on :func:`studentized_range_cdf`, to 1e-10)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be strictly between 0 and 1, got {p!r}.")
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k!r}.")
    lo, hi = 0.0, 20.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if studentized_range_cdf(mid, k) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _binomial_cdf_half(m: int, n: int) -> float:
    """``P(X <= m)`` for X ~ Binomial(n, 1/2), summed in log space."""
    if m < 0:
        return 0.0
    if m >= n:
        return 1.0
    i = np.arange(m + 1, dtype=np.float64)
    from math import lgamma

    log_terms = (
        lgamma(n + 1)
        - np.array([lgamma(v + 1) for v in i])
        - np.array([lgamma(n - v + 1) for v in i])
        - n * math.log(2.0)
    )
    top = float(np.max(log_terms))
    return float(math.exp(top) * np.sum(np.exp(log_terms - top)))


# --- Friedman and Nemenyi -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FriedmanResult:
    """Friedman's test over blocks (data sets, users, slices) and the Nemenyi post-hoc test.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square, corrected for ties, equal to ``scipy.stats.friedmanchisquare``.
    p_value : float
        From the chi-square distribution with ``k - 1`` degrees of freedom.
    average_ranks : ndarray of shape (n_models,)
        Mean rank of each model over the blocks, 1 the best (ties share their mean rank).
    critical_difference : float
        Nemenyi's: two models whose average ranks differ by more are different at ``alpha``,
        ``q_alpha * sqrt(k (k + 1) / (6 N))`` with ``q_alpha`` the studentized range quantile
        over ``sqrt(2)`` (Demšar 2006, Table 5: 2.343 for 3 models at 0.05).
    q_alpha : float
    pairwise_p_values : ndarray of shape (n_models, n_models)
        Nemenyi p-values of each pair's rank difference (1 on the diagonal).
    n_blocks, n_models : int
    alpha : float
    """

    statistic: float
    p_value: float
    average_ranks: np.ndarray
    critical_difference: float
    q_alpha: float
    pairwise_p_values: np.ndarray
    n_blocks: int
    n_models: int
    alpha: float


def _row_ranks(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ascending mid-ranks within each row, and each row's ties term sum(t^3 - t)."""
    less = (table[:, :, None] > table[:, None, :]).sum(axis=2)
    equal = (table[:, :, None] == table[:, None, :]).sum(axis=2)
    ranks = less + (equal + 1) / 2.0
    return ranks, (equal * equal - 1).sum(axis=1).astype(np.float64)


def friedman_test(
    table: Any, *, higher_is_better: bool = True, alpha: float = 0.05
) -> FriedmanResult:
    """Friedman's test that ``k`` models perform alike over ``N`` blocks, with Nemenyi's
    critical difference for the critical-difference diagram (Demšar 2006).

    Parameters
    ----------
    table : array-like of shape (n_blocks, n_models)
        One metric value per block (data set, user, slice or resample) and model. Say which
        blocks they are: resamples of one data set are not independent data sets.
    higher_is_better : bool, default True
        Rank 1 goes to the highest value (AUC) or, with False, the lowest (log loss). The
        statistic does not depend on it.
    alpha : float, default 0.05
        For the critical difference.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    Within each block the models are ranked, ties sharing their mid-rank; with ``R_j`` the rank
    sums, ``chi2 = (12 / (N k (k + 1)) sum R_j^2 - 3 N (k + 1)) / C``, where
    ``C = 1 - sum over blocks and tie groups (t^3 - t) / (N k (k^2 - 1))``. When every block is
    one big tie ``C = 0``: statistic and p-value are NaN, with a warning.

    Examples
    --------
    >>> r = friedman_test([[0.9, 0.8, 0.7], [0.85, 0.8, 0.6], [0.7, 0.75, 0.5], [0.9, 0.7, 0.8]])
    >>> r.average_ranks.tolist(), round(r.statistic, 4), round(r.p_value, 4)
    ([1.25, 2.0, 2.75], 4.5, 0.1054)
    >>> round(r.q_alpha, 3), round(r.critical_difference, 4)
    (2.344, 1.6572)
    """
    alpha = _check_alpha(alpha)
    refuse_complex(np.asarray(table), "table")
    try:
        t = as_real(table, "table")
    except (TypeError, ValueError):
        raise ValueError(
            "table must hold numbers: one row per block, one column per model."
        ) from None
    if t.ndim != 2 or t.shape[0] < 2 or t.shape[1] < 2:
        raise ValueError(
            f"table must be 2-D with at least 2 blocks (rows) and 2 models (columns), got shape "
            f"{t.shape}."
        )
    if not np.isfinite(t).all():
        bad = np.argwhere(~np.isfinite(t))[0]
        raise ValueError(
            f"table has a missing or infinite value (block {bad[0]}, model {bad[1]}); Friedman's "
            "test needs every model scored on every block."
        )
    n, k = t.shape
    ranks, ties = _row_ranks(-t if higher_is_better else t)
    sums = ranks.sum(axis=0)
    c = 1.0 - ties.sum() / (n * k * (k * k - 1))
    if c <= 0:
        warn_undefined("Every block ties every model: Friedman's statistic is undefined (NaN).")
        statistic = p_value = math.nan
    else:
        statistic = (12.0 / (n * k * (k + 1)) * float(np.sum(sums**2)) - 3.0 * n * (k + 1)) / c
        p_value = _chi2_sf(statistic, k - 1)
    average = sums / n
    q_alpha = studentized_range_quantile(1.0 - alpha, k) / math.sqrt(2.0)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    diff = np.abs(average[:, None] - average[None, :])
    pairwise = np.array(
        [[1.0 - studentized_range_cdf(math.sqrt(2.0) * d / se, k) for d in row] for row in diff]
    )
    np.fill_diagonal(pairwise, 1.0)
    return FriedmanResult(
        statistic=float(statistic),
        p_value=float(p_value),
        average_ranks=average,
        critical_difference=q_alpha * se,
        q_alpha=q_alpha,
        pairwise_p_values=pairwise,
        n_blocks=n,
        n_models=k,
        alpha=alpha,
    )


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _f_sf(x: float, df1: float, df2: float) -> float:
    """``P(F > x)`` for Fisher's F with ``df1`` and ``df2`` degrees of freedom:
    ``I_{df2 / (df2 + df1 x)}(df2 / 2, df1 / 2)``."""
    if math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return float(min(1.0, max(0.0, _betainc(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * x)))))


@dataclass(frozen=True)
class ImanDavenportResult:
    """Iman and Davenport's F form of Friedman's statistic.

    Attributes
    ----------
    statistic : float
        ``F = (N - 1) chi2 / (N (k - 1) - chi2)``, with ``chi2`` Friedman's (ties corrected);
        ``inf`` when every block ranks the models alike (``chi2 = N (k - 1)``), NaN when every
        block ties every model.
    p_value : float
        ``P(F > statistic)`` with ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom.
    df_numerator, df_denominator : int
    """

    statistic: float
    p_value: float
    df_numerator: int
    df_denominator: int


def iman_davenport_test(table: Any) -> ImanDavenportResult:
    """Iman and Davenport's correction of Friedman's test, less conservative than the
    chi-square (Demšar 2006, Section 3.2.2).

    Parameters
    ----------
    table : array-like of shape (n_blocks, n_models)
        As :func:`friedman_test`.

    Returns
    -------
    ImanDavenportResult

    Examples
    --------
    >>> r = iman_davenport_test([[0.9, 0.8, 0.7], [0.85, 0.8, 0.6], [0.7, 0.75, 0.5],
    ...                          [0.9, 0.7, 0.8]])
    >>> round(r.statistic, 4), round(r.p_value, 4), r.df_numerator, r.df_denominator
    (3.8571, 0.0837, 2, 6)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        fr = friedman_test(table)
    n, k = fr.n_blocks, fr.n_models
    df1, df2 = k - 1, (k - 1) * (n - 1)
    chi2 = fr.statistic
    if math.isnan(chi2):
        warn_undefined("Every block ties every model: Iman-Davenport's F is undefined (NaN).")
        return ImanDavenportResult(math.nan, math.nan, df1, df2)
    room = n * (k - 1) - chi2
    statistic = math.inf if room <= 1e-12 * n * k else (n - 1) * chi2 / room
    return ImanDavenportResult(float(statistic), _f_sf(statistic, df1, df2), df1, df2)


# --- McNemar --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test of two models' decisions on the same rows.

    Attributes
    ----------
    statistic : float
        Exact: ``min(b, c)``, the smaller discordant count. Otherwise the continuity-corrected
        chi-square ``(|b - c| - 1)^2 / (b + c)`` (0 when ``b + c = 0``).
    p_value : float
        Exact: two-sided binomial test of ``b`` against Binomial(b + c, 1/2),
        ``min(1, 2 P(X <= min(b, c)))``. Otherwise the chi-square (1 degree of freedom) tail.
    only_a_right : int
        ``b``: rows model a gets right and model b wrong.
    only_b_right : int
        ``c``: rows model b gets right and model a wrong.
    exact : bool
    """

    statistic: float
    p_value: float
    only_a_right: int
    only_b_right: int
    exact: bool


def mcnemar_test(y_true: Any, pred_a: Any, pred_b: Any, *, exact: bool = True) -> McNemarResult:
    """McNemar's test that two models make as many errors on the same rows.

    Only the discordant rows count: ``b`` where only model a is right, ``c`` where only model b
    is. Under the null hypothesis each discordant row is a fair coin.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (any values).
    pred_a, pred_b : array-like of shape (n_samples,)
        Each model's predicted labels (for a scored model, at its chosen threshold).
    exact : bool, default True
        The exact binomial test; False: the chi-square with continuity correction (fine when
        ``b + c`` is above about 25).

    Returns
    -------
    McNemarResult

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 0]
    >>> r = mcnemar_test(y, [1, 1, 1, 0, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0, 0, 0])
    >>> r.only_a_right, r.only_b_right, r.statistic, round(r.p_value, 6)
    (4, 1, 1.0, 0.375)
    """
    arrays = []
    for name, v in (("y_true", y_true), ("pred_a", pred_a), ("pred_b", pred_b)):
        a = np.asarray(v)
        refuse_complex(a, name)
        if a.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}.")
        arrays.append(a)
    y, a, b = arrays
    if not (a.size == y.size == b.size):
        raise ValueError(
            f"y_true, pred_a and pred_b must be the same length, got {y.size}, {a.size} and "
            f"{b.size}."
        )
    right_a, right_b = a == y, b == y
    only_a = int(np.count_nonzero(right_a & ~right_b))
    only_b = int(np.count_nonzero(right_b & ~right_a))
    discordant = only_a + only_b
    if exact:
        low = min(only_a, only_b)
        p = 1.0 if discordant == 0 else min(1.0, 2.0 * _binomial_cdf_half(low, discordant))
        return McNemarResult(float(low), p, only_a, only_b, True)
    if discordant == 0:
        return McNemarResult(0.0, 1.0, only_a, only_b, False)
    statistic = (abs(only_a - only_b) - 1.0) ** 2 / discordant
    if abs(only_a - only_b) < 1:  # |b - c| = 0: the correction would overshoot to 1/(b + c)
        statistic = 0.0
    return McNemarResult(statistic, _chi2_sf(statistic, 1), only_a, only_b, False)


# --- power of DeLong's test -----------------------------------------------------------------------


def _difference_variance_parts(
    y_true, score_a, score_b, pos_label
) -> tuple[float, float, int, int]:
    """``(S10, S01, n_pos, n_neg)`` of the AUC difference: the variances (ddof 1) of the
    per-positive and per-negative placement differences, so that
    ``Var(AUC_a - AUC_b) = S10 / n_pos + S01 / n_neg`` (DeLong)."""
    y, scores = _check_binary_scores(y_true, {"score_a": score_a, "score_b": score_b}, pos_label)
    n_pos = int(np.count_nonzero(y))
    n_neg = y.size - n_pos
    problem = _class_counts_problem(n_pos, n_neg)
    if problem is not None:
        raise ValueError(
            problem.replace(" Returning NaN.", "").replace(
                " The standard error, test and interval are NaN.", ""
            )
            + " Power needs the variance, so at least 2 of each."
        )
    pl = _placements(y, scores)
    s10 = _sample_variance(pl.t10[0] - pl.t10[1]) / (4.0 * n_neg**2)
    s01 = _sample_variance(pl.t01[0] - pl.t01[1]) / (4.0 * n_pos**2)
    return s10, s01, n_pos, n_neg


def _sizes(n_pos: Any, n_neg: Any, observed: tuple[int, int]) -> tuple[float, float]:
    out = []
    for name, v, default in (("n_pos", n_pos, observed[0]), ("n_neg", n_neg, observed[1])):
        if v is None:
            v = default
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer)) or not v >= 2:
            raise ValueError(f"{name} must be a number of rows >= 2, got {v!r}.")
        out.append(float(v))
    return out[0], out[1]


def _power(difference: float, std_error: float, alpha: float) -> float:
    if std_error == 0:
        return 1.0 if difference != 0 else alpha
    z = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    shift = abs(difference) / std_error
    return _NORMAL.cdf(shift - z) + _NORMAL.cdf(-shift - z)


def auc_difference_power(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    difference: float,
    *,
    n_pos: int | None = None,
    n_neg: int | None = None,
    alpha: float = 0.05,
    pos_label: Any = None,
) -> float:
    """Power of DeLong's two-sided test to find a paired AUC difference of ``difference``.

    The variance structure is these rows' (pilot data): DeLong's per-class variances of the
    placement differences, ``S10`` and ``S01``, scaled to ``n_pos`` positives and ``n_neg``
    negatives (default: as many as here), ``V = S10 / n_pos + S01 / n_neg``; then, in the
    normal approximation of Obuchowski & McClish (1997) with the same variance under the null
    and the alternative, ``power = Phi(|d| / sqrt(V) - z) + Phi(-|d| / sqrt(V) - z)``,
    ``z = z_{1 - alpha/2}``.

    Parameters
    ----------
    y_true, score_a, score_b, pos_label
        As in :func:`metrics.delong_test`.
    difference : float
        The true AUC difference to detect.
    n_pos, n_neg : number, optional
        The planned numbers of positives and negatives.
    alpha : float, default 0.05

    Returns
    -------
    float

    Notes
    -----
    "With these positives and negatives, a difference of d is found with power p." The
    variance is estimated from these rows, around their own AUCs: it is a planning figure, not
    an exact one, and it does not change with ``d`` as the true variance would.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(400) < 0.5
    >>> a = rng.normal(size=400) + 1.2 * y
    >>> b = a + rng.normal(size=400) * 0.8
    >>> round(auc_difference_power(y, a, b, 0.03), 3)
    0.499
    """
    alpha = _check_alpha(alpha)
    s10, s01, p, n = _difference_variance_parts(y_true, score_a, score_b, pos_label)
    n_pos_f, n_neg_f = _sizes(n_pos, n_neg, (p, n))
    return _power(float(difference), math.sqrt(s10 / n_pos_f + s01 / n_neg_f), alpha)


def auc_min_detectable_difference(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    power: float = 0.8,
    n_pos: int | None = None,
    n_neg: int | None = None,
    alpha: float = 0.05,
    pos_label: Any = None,
) -> float:
    """The smallest paired AUC difference DeLong's two-sided test finds with ``power``.

    Solves :func:`auc_difference_power` ``= power`` for the difference (bisection, both tails
    counted); about ``(z_{1 - alpha/2} + z_power) * sqrt(V)``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(400) < 0.5
    >>> a = rng.normal(size=400) + 1.2 * y
    >>> b = a + rng.normal(size=400) * 0.8
    >>> round(auc_min_detectable_difference(y, a, b), 4)
    0.0429
    """
    alpha = _check_alpha(alpha)
    if not alpha / 1.0 < power < 1.0:
        raise ValueError(f"power must be between alpha ({alpha}) and 1, got {power!r}.")
    s10, s01, p, n = _difference_variance_parts(y_true, score_a, score_b, pos_label)
    n_pos_f, n_neg_f = _sizes(n_pos, n_neg, (p, n))
    se = math.sqrt(s10 / n_pos_f + s01 / n_neg_f)
    if se == 0:
        return 0.0
    lo, hi = 0.0, 20.0 * se
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if _power(mid, se, alpha) < power:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
