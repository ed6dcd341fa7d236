"""A threshold that keeps its promise: "recall at least 0.9" with a stated guarantee.

The threshold picked on a test set as the highest one whose recall is at least the target (the
plain choice) misses the target on new data about half the time: the test set's recall there is
an estimate that overshoots the truth as often as it undershoots it. The guaranteed choice tests
each candidate threshold with an exact one-sided binomial (Clopper-Pearson) bound and walks the
thresholds from the safest to the most aggressive, stopping at the first that fails (fixed-
sequence testing, as in Learn-then-Test: Angelopoulos, Bates, Candès, Jordan and Lei, 2021,
"Learn then Test: Calibrating Predictive Algorithms to Achieve Risk Control", arXiv:2110.01052).
The threshold returned is the last that passed; the chance that its true metric misses the
target is at most ``1 - confidence``.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from metrics._beta import beta_ppf, betainc
from metrics._student_t import t_quantile
from metrics._validation import _as_1d, check_binary_inputs

__all__ = [
    "GUARANTEE_METRICS",
    "GuaranteedThreshold",
    "OperatingChoice",
    "threshold_with_guarantee",
]

GUARANTEE_METRICS = ("recall", "precision", "specificity", "fpr", "npv")
# Precision and NPV: the walk starts where an estimate this far from the target to 1 passes,
# and not before the metric's denominator holds MIN_START rows (when the data has that many).
START_MARGIN = 0.5
MIN_START = 30.0
# Precision and NPV on counted rows: the walk tests only the candidates whose exact test is
# tight, its size P(Bin(n, target) >= c) at least TIGHT * delta (c the least count that
# passes), and may start up to a fifth before the halfway start (EARLY) to find a tight one.
# Beyond SPREAD standard deviations per unit of z the binomial is fine enough for every
# candidate to be tight (the size then lies within delta * z / sd of delta).
TIGHT = 0.9
EARLY = 0.8
# The size is a sawtooth in the denominator with a period of 1 / min(target, 1 - target) rows
# (the failures, or successes, allowed grow by one). Up to PERIOD rows the walk steps from
# tight candidate to tight candidate; past it (NPV 0.99: 100 rows) those steps would skip whole
# stretches, so only the start is chosen tight and every candidate after it is tested.
PERIOD = 20.0
SPREAD = 10.0
# The confidence a guarantee may ask for: below one half the "bound" would lie above the
# estimate (no promise at all); above 1 - 1e-6 the binomial tails underflow the walk's tests.
CONFIDENCE_RANGE = (0.5, 0.999999)

# Each metric as a ratio A / D of two sums over clusters (a row is a cluster of one without
# groups), both linear in the per-cluster vector (flagged positives, flagged negatives,
# positives, negatives). FPR is tested as specificity >= 1 - target.
_RATIO = {
    "recall": ((1, 0, 0, 0), (0, 0, 1, 0)),  # TP / P
    "precision": ((1, 0, 0, 0), (1, 1, 0, 0)),  # TP / (TP + FP)
    "specificity": ((0, -1, 0, 1), (0, 0, 0, 1)),  # TN / N
    "npv": ((0, -1, 0, 1), (-1, -1, 1, 1)),  # TN / (TN + FN)
}
# Which way is safe: True when a lower threshold is safer (recall and NPV rise as it falls).
# The metrics whose denominator (positives, negatives) is the same at every threshold.
_FIXED_DENOMINATOR = ("recall", "specificity", "fpr")
_LOW_IS_SAFE = {"recall": True, "npv": True, "precision": False, "specificity": False}


@dataclass(frozen=True)
class OperatingChoice:
    """A threshold and what it gives: the metric's estimate and one-sided bound, the weight
    flagged (``score >= threshold``) and the precision among the flagged rows."""

    threshold: float | None
    estimate: float
    bound: float
    n_flagged: float
    precision: float


@dataclass(frozen=True)
class GuaranteedThreshold:
    """The result of :func:`threshold_with_guarantee`.

    Attributes
    ----------
    threshold : float or None
        The guaranteed threshold (``score >= threshold`` is flagged); ``+inf`` flags nothing;
        None when not even the safest threshold passes (too few rows for the target).
    bound : float
        The one-sided bound of the metric at ``threshold`` at ``confidence``: a lower bound,
        an upper bound for ``"fpr"``. It is on the right side of ``target``.
    estimate : float
        The metric on these rows at ``threshold``.
    n_flagged, precision : float
        The weight (rows, unweighted) flagged at ``threshold`` and the precision there: what
        the guarantee costs, beside ``plain``'s.
    method : str
        The method in words, with the effective sample size rule when weights or groups are
        given.
    plain : OperatingChoice
        The plain choice: the most aggressive threshold whose estimate meets the target, with
        its own bound (usually on the wrong side of the target).
    n_tested : int
        How many thresholds the sequence tested (the last one failed unless every one passed).
    """

    metric: str
    target: float
    confidence: float
    threshold: float | None
    bound: float
    estimate: float
    n_flagged: float
    precision: float
    method: str
    plain: OperatingChoice
    n_tested: int

    @property
    def met(self) -> bool:
        """Whether a threshold with the guarantee exists."""
        return self.threshold is not None


def _check_groups(groups: Any, n: int) -> np.ndarray:
    g = _as_1d(groups, "groups")
    if g.size != n:
        raise ValueError(
            f"groups has {g.size} rows but y_true has {n}; give one group (user, query) per row."
        )
    missing = (g != g) if g.dtype.kind in "fO" else np.zeros(n, bool)
    if g.dtype.kind == "O":
        missing = missing | np.array([v is None for v in g.tolist()], dtype=bool)
    if missing.any():
        raise ValueError(
            f"groups has {int(missing.sum())} missing values; every row needs a group. "
            "Drop those rows or give them a group of their own."
        )
    return np.unique(g, return_inverse=True)[1].ravel()


@dataclass
class _Table:
    """Per candidate threshold: the flagged weights and what the bounds need."""

    thresholds: np.ndarray  # descending distinct scores, then +inf when that is a candidate
    v: np.ndarray  # (K, 4): flagged positives, flagged negatives, positives, negatives
    v2: np.ndarray  # (K, 4): the same sums of squared weights (Kish)
    moments: np.ndarray | None  # (K, 4, 4): sums over clusters of products (groups only)
    flagged_groups: np.ndarray | None  # (K,): clusters with a flagged row
    unflagged_groups: np.ndarray | None  # (K,): clusters with an unflagged row
    n_groups: tuple[int, int, int]  # clusters with a positive, with a negative, in all
    # Recall, specificity: the sums over clusters of the positives' (negatives') weight squared
    # and to the fourth power, for the degrees of freedom
    spread: dict[str, tuple[np.ndarray, np.ndarray]] | None = None


def _table(y: np.ndarray, s: np.ndarray, w: np.ndarray, g: np.ndarray | None) -> _Table:
    order = np.argsort(-s, kind="stable")
    s, y, w = s[order], y[order], w[order]
    ends = np.flatnonzero(np.append(s[1:] != s[:-1], True))
    pos_w = np.where(y, w, 0.0)
    neg_w = w - pos_w
    cum = np.stack(
        [np.cumsum(pos_w)[ends], np.cumsum(neg_w)[ends]], axis=1
    )  # flagged at each distinct threshold
    total = np.array([pos_w.sum(), neg_w.sum()])
    v = np.column_stack([cum, np.broadcast_to(total, cum.shape)])
    cum2 = np.stack([np.cumsum(pos_w * w)[ends], np.cumsum(neg_w * w)[ends]], axis=1)
    total2 = np.array([(pos_w * w).sum(), (neg_w * w).sum()])
    v2 = np.column_stack([cum2, np.broadcast_to(total2, cum2.shape)])
    # +inf flags nothing (a candidate for the metrics that a high threshold keeps safe)
    thresholds = np.append(s[ends], np.inf)
    v = np.vstack([v, [0.0, 0.0, *total]])
    v2 = np.vstack([v2, [0.0, 0.0, *total2]])
    if g is None:
        return _Table(thresholds, v, v2, None, None, None, (0, 0, 0))

    g = g[order]
    n_g = int(g.max()) + 1
    p_g = np.bincount(g, pos_w, n_g)
    q_g = np.bincount(g, neg_w, n_g)
    # Each cluster's flagged positive / negative weight before each row (rows in score order).
    by_group = np.argsort(g, kind="stable")
    starts = np.searchsorted(g[by_group], np.arange(n_g))

    def before(x: np.ndarray) -> np.ndarray:
        c = np.cumsum(x[by_group])
        c = c - x[by_group]  # exclusive
        c = c - np.repeat(c[starts], np.diff(np.append(starts, g.size)))
        out = np.empty_like(c)
        out[by_group] = c
        return out

    pp, qq = before(pos_w), before(neg_w)
    # Increments of the sums over clusters of products of (Pf, Nf, P, N) as each row enters.
    inc = np.zeros((s.size, 4, 4))
    inc[:, 0, 0] = 2 * pp * pos_w + pos_w * pos_w
    inc[:, 1, 1] = 2 * qq * neg_w + neg_w * neg_w
    inc[:, 0, 1] = pos_w * qq + neg_w * pp  # a row is one class, so one term is 0
    inc[:, 0, 2] = pos_w * p_g[g]
    inc[:, 0, 3] = pos_w * q_g[g]
    inc[:, 1, 2] = neg_w * p_g[g]
    inc[:, 1, 3] = neg_w * q_g[g]
    m = np.cumsum(inc, axis=0)[ends]
    m = np.vstack([m, np.zeros((1, 4, 4))])
    m[:, 2, 2] = (p_g * p_g).sum()
    m[:, 3, 3] = (q_g * q_g).sum()
    m[:, 2, 3] = (p_g * q_g).sum()
    for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
        m[:, j, i] = m[:, i, j]
    first = np.zeros(s.size)
    first[np.unique(g, return_index=True)[1]] = 1
    last = np.zeros(s.size)
    last[s.size - 1 - np.unique(g[::-1], return_index=True)[1]] = 1
    flagged_groups = np.append(np.cumsum(first)[ends], 0)
    unflagged_groups = n_g - np.append(np.cumsum(last)[ends], 0)
    groups_of = (int((p_g > 0).sum()), int((q_g > 0).sum()), n_g)
    spread = {
        "recall": (np.array([(p_g**2).sum()]), np.array([(p_g**4).sum()])),
        "specificity": (np.array([(q_g**2).sum()]), np.array([(q_g**4).sum()])),
    }
    return _Table(thresholds, v, v2, m, flagged_groups, unflagged_groups, groups_of, spread)


def _effective(
    table: _Table, metric: str, how: str, delta: float, clusters: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, effective successes, effective trials) at every candidate; ``clusters``
    False leaves the clusters out (the start rule reads no labels)."""
    alpha, beta = (np.asarray(c, dtype=np.float64) for c in _RATIO[metric])
    a = table.v @ alpha
    d = table.v @ beta
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(d > 0, a / d, np.nan)
        # Kish's effective sample size of the rows in D; else rows, or integer weights as rows
        n = np.where(d > 0, d * d / (table.v2 @ beta), 0.0) if how == "kish" else d.copy()
        if clusters and table.moments is not None:
            n = _korn_graubard(table, metric, r, a, d, n, alpha, beta, delta)
    n = np.where(np.isfinite(r), n, 0.0)
    r0 = np.where(np.isfinite(r), r, 0.0)
    return r, r0 * n, n


def _korn_graubard(table, metric, r, a, d, n, alpha, beta, delta) -> np.ndarray:
    """The effective sample size of a ratio over clusters (Korn and Graubard, 1998): the
    binomial variance over the cluster (linearisation) variance, at most ``n``, shrunk by
    ``(z / t_{nu-1})^2``, with ``nu`` the clusters in the denominator counted as Satterthwaite
    counts the degrees of freedom of a sum of unequal parts."""
    mom = table.moments
    saa = np.einsum("i,kij,j->k", alpha, mom, alpha)
    sab = np.einsum("i,kij,j->k", alpha, mom, beta)
    sbb = np.einsum("i,kij,j->k", beta, mom, beta)
    n_pos_g, n_neg_g, _ = table.n_groups
    if metric == "recall":
        g = np.full(r.shape, float(n_pos_g))
    elif metric == "specificity":
        g = np.full(r.shape, float(n_neg_g))
    elif metric == "precision":
        g = table.flagged_groups.astype(np.float64)
    else:
        g = table.unflagged_groups.astype(np.float64)
    resid = np.maximum(saa - 2 * r * sab + r * r * sbb, 0.0)
    var = np.where(g > 1, g / np.maximum(g - 1, 1) * resid / (d * d), np.nan)
    binomial = r * (1 - r)
    kg = np.where((var > 0) & (binomial > 0), binomial / var, n)
    n = np.minimum(kg, n)
    z = NormalDist().inv_cdf(1 - delta)
    if metric in _FIXED_DENOMINATOR:
        # The variance is a sum over users; with users of unequal size a few large ones carry
        # it, and it has fewer degrees of freedom than users: Satterthwaite's count, each
        # user's part taken as its positives (negatives) squared, (sum d_g^2)^2 / sum d_g^4,
        # at most the users and equal to them when all are of one size.
        square, fourth = table.spread["specificity" if metric == "fpr" else metric]
        # Under 1.5 users' worth (t's degrees of freedom under 0.5) the factor is below 0.002:
        # taken as 0, no promise.
        nu = float(square[0] ** 2 / fourth[0]) if fourth[0] > 0 else 0.0
        return n * ((z / t_quantile(1 - delta, nu - 1)) ** 2 if nu >= 1.5 else 0.0)
    # Precision and NPV: their denominators (the flagged, unflagged rows) change along the walk,
    # and the clusters behind each candidate count as they are (see docs/guarantees.md).
    values, inverse = np.unique(g, return_inverse=True)
    per = np.array([(z / t_quantile(1 - delta, v - 1)) ** 2 if v > 1 else 0.0 for v in values])
    return n * per[inverse.reshape(-1)]


def _passes(x: np.ndarray, n: np.ndarray, tau: float, delta: float) -> np.ndarray:
    """Whether the Clopper-Pearson lower bound of ``x`` successes in ``n`` is at least
    ``tau``: the binomial test ``P(Bin(n, tau) >= x) <= delta``, as ``I_tau(x, n - x + 1)``."""
    ok = (x > 0) & (n > 0)
    out = np.zeros(x.shape, dtype=bool)
    if ok.any():
        out[ok] = betainc(x[ok], n[ok] - x[ok] + 1.0, tau) <= delta
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _start(base: np.ndarray, tau: float, delta: float) -> int:
    """Where the walk of precision or NPV starts, from the denominators ``base`` along the
    sequence (flagged or unflagged rows: scores only, never labels).

    The first candidate whose denominator is large enough for an estimate halfway from the
    target to 1 to pass, and not before ``MIN_START`` rows. Without the floor a low target
    starts after a handful of rows (precision 0.4: 11 rows at 95%), where the walk's first
    test needs an estimate of 0.7, which a good model's top rows reach about half the time
    (the walk then ends at its first test: no threshold). At 30 rows the test passes an
    estimate 0.34 standard deviations above the target (17 of 30 for 0.4). Targets from 0.7
    up need 30 rows or more anyway (0.7: 30, 0.8: 50, 0.9: 107, 0.99: 1,146), so the floor
    changes nothing there. Data whose denominators never reach the floor start where the
    halfway rule alone puts them.
    """
    half = tau + (1.0 - tau) * START_MARGIN
    can = _passes(half * base, base, tau, delta)
    deep = can & (base >= MIN_START)
    if deep.any():
        return int(np.argmax(deep))
    return int(np.argmax(can)) if can.any() else base.size


def _exact_size(n: np.ndarray, tau: float, delta: float) -> np.ndarray:
    """The size ``P(Bin(n, tau) >= c)`` of the exact one-sided test at each whole count ``n``,
    ``c`` the least count that passes (0 where none can): how much of ``delta`` the test can
    spend there. Where the binomial is fine (``sd >= SPREAD * z + 5``) it is taken as
    ``delta``: every count there is within a few percent of it."""
    n = np.asarray(n, dtype=np.float64)
    z = NormalDist().inv_cdf(1 - delta)
    sd = np.sqrt(n * tau * (1 - tau))
    size = np.full(n.shape, delta)
    coarse = np.flatnonzero(sd < SPREAD * z + 5)
    if coarse.size == 0:
        return size
    m, sd = n[coarse], sd[coarse]
    # c lies above the median (which fails: its tail is at least one half, delta at most one
    # half) and, but for a count past the bracket, below n tau + (z + 4) sd + 12.
    lo = np.maximum(np.floor(m * tau) - 1.0, 0.0)
    hi = np.minimum(np.ceil(m * tau + (z + 4.0) * sd + 12.0), m + 1.0)
    wide = (hi <= m) & ~_passes(hi, m, tau, delta)
    hi[wide] = m[wide] + 1.0
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = np.floor((lo + hi) / 2)
        ok = _passes(np.where(open_, mid, 0.0), m, tau, delta)
        hi = np.where(open_ & ok, mid, hi)
        lo = np.where(open_ & ~ok, mid, lo)
    exact = np.zeros(m.shape)
    can = hi <= m
    exact[can] = betainc(hi[can], m[can] - hi[can] + 1.0, tau)
    size[coarse] = exact
    return size


def _tight_sequence(base: np.ndarray, tau: float, delta: float) -> np.ndarray | None:
    """The positions along the precision (NPV) sequence that the walk tests when the
    denominators ``base`` are whole counts: from ``EARLY`` times the halfway start's
    denominator on, only where the exact test is tight (size at least ``TIGHT * delta``).
    None when there is no halfway start or no tight candidate (the caller keeps the plain
    start). Scores (and integer weights) only, never labels: the guarantee is untouched.

    Why: with whole counts the exact test spends less than ``delta`` wherever the count that
    passes jumps (precision 0.7 at 95%: 24 of 28 is a test of size 0.047, 26 of 30 one of
    0.030, 28 of 32 one of 0.019). The first test decides whether any threshold is found, and
    on 300-row test sets the start at 30 rows failed one in four; at 28 rows one in five. A
    later test at a needlessly strict count ends the walk early too."""
    start = _start(base, tau, delta)
    if start >= base.size:
        return None
    after = np.flatnonzero(base >= EARLY * base[start])
    keep = after[_exact_size(base[after], tau, delta) >= TIGHT * delta]
    if keep.size and 1.0 / min(tau, 1.0 - tau) > PERIOD:
        return np.arange(keep[0], base.size)
    return keep if keep.size else None


def _meets(x: float, n: float, tau: float, delta: float) -> bool:
    """Whether the reported bound at ``x`` of ``n`` reaches ``tau``."""
    return _lower(float(x), float(n), delta) >= tau


def _lower(x: float, n: float, delta: float) -> float:
    """The one-sided Clopper-Pearson lower bound at confidence ``1 - delta``."""
    if not n > 0:
        return float("nan")
    if x <= 0:
        return 0.0
    return float(beta_ppf(delta, x, n - x + 1.0))


def threshold_with_guarantee(
    y_true: Any,
    y_score: Any,
    *,
    metric: str = "recall",
    target: float = 0.9,
    confidence: float = 0.95,
    sample_weight: Any = None,
    groups: Any = None,
    pos_label: Any = None,
) -> GuaranteedThreshold:
    """The most aggressive threshold whose metric is at least ``target`` with probability
    ``confidence`` on new data from the same distribution (at most ``target`` for ``"fpr"``).

    Every distinct score is a candidate threshold (a score ``>= threshold`` is flagged). The
    candidates are tested in a fixed order, from the safest to the most aggressive (for recall
    and NPV from the lowest threshold up, for precision, specificity and FPR from the highest
    down); each test asks whether the one-sided exact binomial (Clopper-Pearson) bound of the
    metric there reaches the target, and the walk stops at the first that does not. The last
    threshold that passed is returned. This is fixed-sequence testing, the Learn-then-Test
    procedure of Angelopoulos et al. (2021): the family-wise error is at most
    ``delta = 1 - confidence`` because an error needs the first candidate whose true metric
    misses the target to pass its own level-``delta`` test. The counts change only at observed
    scores, so testing every observed score is testing every real threshold. For recall (and
    specificity, FPR), where the metric is monotone in the threshold, this is exact: the
    returned threshold is an order statistic of the positives' scores, and the chance that its
    true recall is below the target equals the binomial tail the test bounds.

    For precision and NPV (not monotone), a high precision on the first few flagged rows cannot
    pass a bound, so the walk starts at the first threshold whose flagged (for NPV, unflagged)
    rows are enough for an estimate halfway between the target and 1 to pass, and at least 30
    of them (``MIN_START``): a rule that reads the scores only, never the labels. On counted
    rows (no weights, or integer ones, and no groups) the walk then tests only the candidates
    where the exact test is tight, its size at least ``TIGHT`` (90%) of ``1 - confidence``,
    from four fifths of that start on (``EARLY``; for targets within 0.05 of 0 or 1 only the
    start is chosen so, ``PERIOD``): with whole counts the count that passes
    jumps, and a test at a needlessly strict count (26 of 30 for precision 0.7, a test of size
    0.030) would end the walk where a tighter one nearby (24 of 28, 0.047) passes. A dip of
    the bound below the target stops the walk, which is the price of the guarantee.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_score : array-like of shape (n_samples,)
        Scores; higher means more likely positive.
    metric : {"recall", "precision", "specificity", "fpr", "npv"}, default "recall"
        The metric held to the target.
    target : float in (0, 1), default 0.9
    confidence : float in [0.5, 0.999999], default 0.95
        The probability, over repeated test sets, that the returned threshold meets the target.
        Below 0.5 the one-sided bound would lie above the estimate (a ValueError says so).
    sample_weight : array-like of shape (n_samples,), optional
        Integer weights count rows (a weight of 3 is three rows), and the guarantee is the exact
        one of the repeated rows. Other weights enter through Kish's effective sample size
        ``(sum w)^2 / sum w^2`` of the rows in the metric's denominator, an approximation (a
        bound of a weighted proportion has no exact finite-sample form).
    groups : array-like of shape (n_samples,), optional
        A cluster (user, query, patient) per row. Rows of one cluster are not independent, so
        the count of rows overstates the evidence. The bound then uses the Korn-Graubard
        effective sample size (Korn and Graubard, 1998, Survey Methodology 24(2)): the binomial
        variance of the estimate over its cluster (linearisation) variance, never more than the
        rows, shrunk by ``(z / t_{G-1})^2`` for the ``G`` clusters behind the estimate, and put
        in the same Clopper-Pearson bound and the same fixed sequence. Chosen over a cluster
        bootstrap because it is the exact bound when every cluster is one row, it needs no seed
        (the same data gives the same threshold), it costs one pass for every threshold, and a
        bootstrap percentile bound collapses to a point where the metric is 0 or 1 (recall near
        1 is where it matters). It is approximate: the guarantee holds as the number of
        clusters grows, and the simulation in the documentation measures it.
    pos_label : scalar, optional
        The positive class when the labels are not 0/1, -1/1 or booleans.

    Returns
    -------
    GuaranteedThreshold

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.3
    >>> s = rng.normal(size=2000) + 2 * y
    >>> g = threshold_with_guarantee(y, s, metric="recall", target=0.9)
    >>> g.bound >= 0.9, g.plain.estimate >= 0.9
    (True, True)
    >>> g.threshold < g.plain.threshold  # a lower threshold: more rows flagged
    True
    """
    if metric not in GUARANTEE_METRICS:
        raise ValueError(f"metric must be one of {GUARANTEE_METRICS}, got {metric!r}.")
    if not (_is_number(target) and 0 < target < 1):
        raise ValueError(f"target must be a number strictly between 0 and 1, got {target!r}.")
    low, high = CONFIDENCE_RANGE
    if not (_is_number(confidence) and low <= confidence <= high):
        raise ValueError(
            f"confidence must be a number from {low} to {high} (0.95 for a 95% guarantee), "
            f"got {confidence!r}; below {low} the bound would lie above the estimate and "
            "promise nothing."
        )
    if np.iscomplexobj(y_score):
        raise ValueError(
            "y_score holds complex numbers; scores must be real. Pass the real part (or the "
            "magnitude) yourself if that is what you mean."
        )
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    g = None if groups is None else _check_groups(groups, y.size)
    if w is None:
        how, w = "rows", np.ones(y.size)
    else:
        keep = w > 0
        y, s, w = y[keep], s[keep], w[keep]
        g = None if g is None else np.unique(g[keep], return_inverse=True)[1].ravel()
        how = "counts" if np.array_equal(w, np.round(w)) else "kish"
    if y.size == 0:
        raise ValueError("No rows with a positive weight; the threshold needs some rows.")
    delta = 1.0 - float(confidence)
    inner = "specificity" if metric == "fpr" else metric
    tau = 1.0 - float(target) if metric == "fpr" else float(target)

    table = _table(y, s, w, g)
    r, x, n = _effective(table, inner, how, delta)
    k = table.thresholds.size  # the last candidate is +inf (nothing flagged)
    full = _full_sequence(inner, k)
    sequence = full
    if inner in ("precision", "npv"):
        # the denominator's rows (or weight, or Kish size) are the flagged or unflagged rows:
        # a function of the scores alone
        base = _effective(table, inner, how, delta, clusters=False)[2][sequence]
        tight = _tight_sequence(base, tau, delta) if how != "kish" and g is None else None
        sequence = sequence[tight] if tight is not None else sequence[_start(base, tau, delta) :]
    passed = _passes(x[sequence], n[sequence], tau, delta)
    stop = int(np.argmin(passed)) if not passed.all() else sequence.size
    n_tested = min(stop + 1, sequence.size)
    # A returned guarantee meets its own target: the bound reported is computed by another
    # route (the beta quantile) than the test (the beta tail), so where the two disagree in
    # the last digits at the target, the walk steps back to a candidate both agree on.
    while stop > 0 and not _meets(x[sequence[stop - 1]], n[sequence[stop - 1]], tau, delta):
        stop -= 1
    chosen = int(sequence[stop - 1]) if stop > 0 else None

    plain_candidates = np.flatnonzero(np.isfinite(r) & (r >= tau - 1e-12))
    plain = None
    if plain_candidates.size:  # the most aggressive candidate whose estimate meets the target
        rank = np.full(k, -1)
        rank[full] = np.arange(full.size)
        best_rank = int(rank[plain_candidates].max())
        plain = int(full[best_rank]) if best_rank >= 0 else None

    def point(i: int | None) -> OperatingChoice:
        if i is None:
            return OperatingChoice(None, float("nan"), float("nan"), float("nan"), float("nan"))
        lower = _lower(float(x[i]), float(n[i]), delta)
        est = float(r[i])
        if metric == "fpr":
            lower, est = 1.0 - lower, 1.0 - est
        flagged = float(table.v[i, 0] + table.v[i, 1])
        precision = float(table.v[i, 0] / flagged) if flagged > 0 else float("nan")
        return OperatingChoice(float(table.thresholds[i]), est, lower, flagged, precision)

    best = point(chosen)
    method = "Clopper-Pearson bound, fixed-sequence testing (Learn-then-Test)"
    if g is not None:
        method += f"; Korn-Graubard effective sample size over {table.n_groups[2]:,} clusters"
        if inner in _FIXED_DENOMINATOR:
            square, fourth = table.spread[inner]
            nu = float(square[0] ** 2 / fourth[0]) if fourth[0] > 0 else 0.0
            method += f" (as {nu:,.1f} by Satterthwaite's degrees of freedom)"
    elif how == "kish":
        method += "; Kish effective sample size of the weights"
    elif how == "counts" and sample_weight is not None:
        method += "; integer weights counted as rows"
    return GuaranteedThreshold(
        metric=metric,
        target=float(target),
        confidence=float(confidence),
        threshold=best.threshold,
        bound=best.bound,
        estimate=best.estimate,
        n_flagged=best.n_flagged,
        precision=best.precision,
        method=method,
        plain=point(plain),
        n_tested=int(n_tested),
    )


def _full_sequence(inner: str, k: int) -> np.ndarray:
    """Every candidate from the safest to the most aggressive (no start rule)."""
    if _LOW_IS_SAFE[inner]:
        seq = np.arange(k - 2, -1, -1)
        return np.append(seq, k - 1) if inner == "npv" else seq
    seq = np.arange(k - 1)
    return np.append(k - 1, seq) if inner == "specificity" else seq
