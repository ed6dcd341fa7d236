"""Scores read as probabilities: Brier score, log loss and the reliability (calibration) curve.

These only make sense when scores lie in [0, 1]; each function says so when they do not.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._bounds import MAX_BINS, check_at_most, check_cells
from metrics._validation import as_real, check_binary_inputs

__all__ = [
    "CALIBRATION_ERROR_METHOD",
    "RECALIBRATION_METHODS",
    "BrierDecomposition",
    "CalibrationErrorInterval",
    "Calibrator",
    "brier_decomposition",
    "brier_score_loss",
    "calibration_curve",
    "calibration_error",
    "calibration_error_interval",
    "fit_calibrator",
    "log_loss",
    "recalibrate",
    "squared_calibration_error",
]


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
    y, p, w = _probabilities(y_true, y_proba, sample_weight, pos_label)
    b = _binned(y, p, w, n_bins, strategy)
    used = b.total > 0
    return b.positive[used] / b.total[used], b.predicted[used] / b.total[used], b.total[used]


@dataclass(frozen=True)
class _Bins:
    index: np.ndarray  # bin of each row
    weight: np.ndarray  # weight of each row (ones when unweighted)
    total: np.ndarray  # (n_bins,) weight per bin
    positive: np.ndarray  # (n_bins,) positive weight per bin
    predicted: np.ndarray  # (n_bins,) weighted sum of predictions per bin


def _binned(y: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: Any, strategy: str):
    """Rows into reliability bins, as scikit-learn's ``calibration_curve`` bins them: a value on
    an inner edge goes to the lower bin."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    check_at_most(n_bins, "n_bins", MAX_BINS)
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
    return _Bins(bins, w, total, positive, predicted)


def calibration_error(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    norm: str = "l1",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    """Binned calibration error: how far the observed positive rate is from the mean prediction.

    Over the non-empty bins ``b`` of :func:`calibration_curve` (same bins), with ``n_b / n`` the
    bin's share of the weight:

    * ``norm="l1"``: the expected calibration error (ECE), ``sum_b n_b/n |ybar_b - pbar_b|``;
    * ``norm="l2"``: ``sqrt(sum_b n_b/n (ybar_b - pbar_b)^2)``, the root of the reliability
      term of :func:`brier_decomposition`;
    * ``norm="max"``: the maximum calibration error (MCE), ``max_b |ybar_b - pbar_b|``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default 10
        At most 100,000 (``metrics._bounds.MAX_BINS``); more raises ValueError.
    strategy : {"uniform", "quantile"}, default "uniform"
    norm : {"l1", "l2", "max"}, default "l1"
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional

    Returns
    -------
    float

    Notes
    -----
    A binned estimate: it depends on the bins and is biased upwards for small bins (a perfectly
    calibrated model shows an ECE of about ``sqrt(2 / (pi n_b))`` per bin from noise alone).

    Examples
    --------
    Bins [0, 0.5] and (0.5, 1]: predictions 0.15 and 0.8 on average, outcomes 0 and 1.

    >>> round(calibration_error([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9], n_bins=2), 4)
    0.175
    >>> round(calibration_error([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9], n_bins=2, norm="max"), 4)
    0.2
    """
    if norm not in ("l1", "l2", "max"):
        raise ValueError(f'norm must be "l1", "l2" or "max", got {norm!r}.')
    y, p, w = _probabilities(y_true, y_prob, sample_weight, pos_label)
    b = _binned(y, p, w, n_bins, strategy)
    used = b.total > 0
    if not used.any():
        return float("nan")
    gap = np.abs(b.positive[used] - b.predicted[used]) / b.total[used]
    share = b.total[used] / b.total[used].sum()
    if norm == "l1":
        return float(np.sum(share * gap))
    if norm == "l2":
        return float(np.sqrt(np.sum(share * gap * gap)))
    return float(np.max(gap))


# --- debiased calibration error and its interval --------------------------------------------


def _ce_features(r: np.ndarray, a: np.ndarray, bins: np.ndarray, n_bins: int) -> np.ndarray:
    """Per-row values whose (count-weighted) sums per bin the estimator needs: shape
    (n, 6 * n_bins), a row's values in its own bin's columns, zeros elsewhere. ``r`` is the
    residual ``y - p`` and ``a`` the row weight; a row drawn ``c`` times counts as ``c`` rows."""
    values = np.column_stack((a, a * a, a**3, a * r, (a * r) ** 2, a * a * r))
    out = np.zeros((r.size, 6 * n_bins))
    cols = bins[:, None] * 6 + np.arange(6)[None, :]
    out[np.arange(r.size)[:, None], cols] = values
    return out


class _BinSums:
    """``counts @ features`` for blocks of resample counts, using that each row's six values
    sit in its own bin's columns: rows sorted by bin once, then per block one gather of the
    (small integer) counts and one (B, n_b) @ (n_b, 6) product per bin. With groups, the
    features are summed per group first and the group counts used directly."""

    def __init__(self, bins: np.ndarray, features: np.ndarray, n_bins: int, groups=None):
        self.n_bins = n_bins
        if groups is not None:  # groups: the inverse index of each row's group
            size = int(groups.max()) + 1
            self.dense = np.zeros((size, features.shape[1]))
            np.add.at(self.dense, groups, features)
            return
        self.dense = None
        self.order = np.argsort(bins, kind="stable")
        self.edges = np.searchsorted(bins[self.order], np.arange(n_bins + 1))
        self.values = [
            np.ascontiguousarray(features[self.order[lo:hi], 6 * b : 6 * b + 6])
            for b, (lo, hi) in enumerate(itertools.pairwise(self.edges))
        ]

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        if self.dense is not None:
            return counts.astype(np.float64) @ self.dense
        c = counts[:, self.order]
        out = np.zeros((counts.shape[0], 6 * self.n_bins))
        for b, (lo, hi) in enumerate(itertools.pairwise(self.edges)):
            if hi > lo:
                block = np.ascontiguousarray(c[:, lo:hi], dtype=np.float64)
                out[:, 6 * b : 6 * b + 6] = block @ self.values[b]
        return out


def _bin_terms(sums: np.ndarray, n_bins: int):
    """Per bin, from the sums of :func:`_ce_features` (shape (..., 6 * n_bins)): the bin's
    share of the weight, its mean residual ``d`` and the unbiased variance of that mean (all 0
    for an empty bin)."""
    s = sums.reshape(*sums.shape[:-1], n_bins, 6)
    w, s2, s3, ar, q0, q1 = (s[..., k] for k in range(6))
    total = w.sum(axis=-1)
    used = w > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(used, ar / w, 0.0)
        spread = q0 - 2.0 * d * q1 + d * d * s2  # sum a^2 (r - d)^2
        # E[sum a^2 (r - d)^2] = sigma^2 (S2 - 2 S3 / W + S2^2 / W^2) for i.i.d. residuals in
        # the bin, and Var(d) = sigma^2 S2 / W^2. One row (or one weighted row) has no spread.
        denom = s2 - 2.0 * s3 / w + (s2 / w) ** 2
        ok = used & (denom > 1e-12 * np.maximum(s2, 1e-300))
        var = np.where(ok, np.maximum(spread, 0.0) * (s2 / (w * w)) / denom, 0.0)
        share = np.where(used, w / total[..., None], 0.0)
    return share, d, var


def squared_calibration_error(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    debiased: bool = True,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> float:
    """Binned squared (l2) calibration error, debiased (Kumar, Liang & Ma 2019).

    The plug-in ``sum_b n_b/n (ybar_b - pbar_b)^2`` (the reliability term of
    :func:`brier_decomposition`) is biased upwards: each bin's gap carries its sampling noise,
    whose square adds ``Var(ybar_b - pbar_b)`` on average, so a perfectly calibrated model
    shows a positive error. The debiased estimate subtracts, bin by bin, an unbiased estimate of
    that variance from the residuals ``r = y - p`` of the bin's rows:
    ``sum_b n_b/n [(rbar_b)^2 - s_b^2 / n_b]`` with ``s_b^2`` the sample variance of ``r`` in
    the bin. With one prediction per bin this is Kumar et al.'s estimator exactly (``s_b^2 /
    n_b = ybar_b (1 - ybar_b) / (n_b - 1)``); with weights, the unbiased variance of a
    weighted mean. It estimates the binned error of the population without bias, and can
    therefore come out below 0 when the model is (nearly) calibrated.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default 10
        At most 100,000 (``metrics._bounds.MAX_BINS``); more raises ValueError.
    strategy : {"uniform", "quantile"}, default "uniform"
        Bins as :func:`calibration_curve`.
    debiased : bool, default True
        False gives the plug-in (equal to ``brier_decomposition(...).reliability``).
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : scalar, optional

    Returns
    -------
    float
        In squared probability units; its square root (of the positive part) is the root
        mean squared calibration error.

    References
    ----------
    A. Kumar, P. Liang and T. Ma (2019), "Verified uncertainty calibration", NeurIPS,
    section 5 (the debiased estimator of the squared calibration error).

    Examples
    --------
    Bins [0, 0.5] and (0.5, 1]: gaps 0.15 and 0.2; the noise of 2-row bins is subtracted.

    >>> y, p = [0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9]
    >>> round(squared_calibration_error(y, p, n_bins=2, debiased=False), 5)
    0.03125
    >>> round(squared_calibration_error(y, p, n_bins=2), 5)
    0.025
    """
    y, p, w = _probabilities(y_true, y_prob, sample_weight, pos_label)
    b = _binned(y, p, w, n_bins, strategy)
    if not (b.total > 0).any():
        return float("nan")
    sums = _ce_features(y - p, b.weight, b.index, int(n_bins)).sum(axis=0)
    share, d, var = _bin_terms(sums, int(n_bins))
    return float(np.sum(share * (d * d - var)) if debiased else np.sum(share * d * d))


@dataclass(frozen=True)
class CalibrationErrorInterval:
    """The debiased squared calibration error with its bootstrap interval.

    Attributes
    ----------
    estimate : float
        :func:`squared_calibration_error` (debiased; below 0 when the noise alone explains the
        gaps).
    low, high : float
        The interval of the squared error. It always contains ``estimate``; ``low`` can be
        below 0 (the interval is that of the debiased estimator, whose range includes
        negative values; the error itself is 0 or more).
    plugin : float
        The binned plug-in (upward biased), for reference.
    rms, rms_low, rms_high : float
        The same on the probability scale: the square roots of the positive parts
        (``sqrt(max(x, 0))``), the root mean squared calibration error.
    confidence : float
    n_resamples : int
        Resamples that drew at least one row.
    method : str
        How the interval was made, in words.
    """

    estimate: float
    low: float
    high: float
    plugin: float
    rms: float
    rms_low: float
    rms_high: float
    confidence: float
    n_resamples: int
    method: str


CALIBRATION_ERROR_METHOD = (
    "debiased squared calibration error (Kumar, Liang & Ma 2019); interval by inverting a "
    "bootstrap test over recentred worlds of known error"
)


def _root(x: float) -> float:
    return math.sqrt(x) if x > 0 else 0.0


def _world_quantiles(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, lam: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per world ``lam`` (G,), the alpha/2 and 1 - alpha/2 quantiles over resamples of the
    debiased estimate ``a + 2 b lam + c lam^2`` (each of a, b, c of shape (R,))."""
    theta = a[:, None] + 2.0 * b[:, None] * lam[None, :] + c[:, None] * (lam * lam)[None, :]
    low, high = np.quantile(theta, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return low, high


def calibration_error_interval(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    sample_weight: Any = None,
    groups: Any = None,
    pos_label: Any = None,
) -> CalibrationErrorInterval:
    """The debiased squared calibration error and a bootstrap interval that covers the truth.

    A percentile interval of a binned calibration error inherits the estimator's upward bias
    (a resample's bins are noisier than the population's), so it can lie wholly above its
    own estimate; and at a calibrated model (error 0, the edge of the range) the plain
    bootstrap fails outright (Andrews 2000). Here the interval is the set of errors ``theta``
    the data do not reject (a Neyman construction with the bootstrap): the world of error
    ``theta`` is the empirical distribution with each bin's mean residual ``d_b`` shrunk (or
    stretched) to ``lambda d_b``, ``lambda = sqrt(theta / plugin)``, so that its binned squared
    error is ``theta``; resampling from it (the same row or group draws for every world) gives
    the distribution of the debiased estimate when the truth is ``theta``, and ``theta`` is
    kept when the estimate lies between that distribution's ``alpha / 2`` and
    ``1 - alpha / 2`` quantiles. The worlds differ only by a shift of each bin's mean, so one
    pass of resamples serves them all (the estimate is quadratic in ``lambda``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_prob : array-like of shape (n_samples,)
        Probabilities in [0, 1].
    n_bins : int, default 10
        At most 100,000 (``metrics._bounds.MAX_BINS``); more raises ValueError.
    strategy : {"uniform", "quantile"}, default "uniform"
        Bins as :func:`calibration_curve`; quantile edges are fixed at the original rows'.
    confidence : float, default 0.95
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
    seed : int, Generator or None, default 0
    sample_weight : array-like of shape (n_samples,), optional
    groups : array-like of shape (n_samples,), optional
        Resample whole groups (users) instead of rows, widened for few groups as
        :class:`metrics.SmallGroups` describes.
    pos_label : scalar, optional

    Returns
    -------
    CalibrationErrorInterval
        ``low`` and ``high`` are the smallest and largest errors kept, widened to contain the
        estimate (a negative estimate below every world's range keeps no error: the interval
        is then the estimate alone, and does not contain 0).

    Notes
    -----
    Resamples are drawn by the resampling core of :func:`metrics.fast_paired_bootstrap`
    (each row, or group, a Poisson(1) number of times; the same draws for the same seed). The
    truth it covers is the binned squared error of the population, with these bins. In
    simulation (``python -m bench.bench_coverage_calibration``: Beta(2, 3) scores, 10 bins,
    300 resamples) the 95% interval covered it 95.3% (1,000 rows) and 93.4% (2,000 rows; 700
    experiments) of the time for calibrated scores, and 94.3-95.3% for miscalibrated ones
    (``sigmoid(a logit s)``, a = 0.7 and 1.5; 300 experiments each); the percentile interval of
    the plug-in covered a calibrated model's 0 never, and missed its own estimate 10-15% of
    the time.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0, 1, 2000)
    >>> y = rng.random(2000) < p  # calibrated: the truth is 0
    >>> r = calibration_error_interval(y, p, n_resamples=200, seed=1)
    >>> bool(r.low <= 0.0 <= r.high), bool(r.low <= r.estimate <= r.high)
    (True, True)
    """
    from metrics.bootstrap import _GroupDraws, small_groups_correction
    from metrics.compare import _check_resampling, _Draws

    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float, np.floating))
        or not 0.0 < float(confidence) < 1.0
    ):
        raise ValueError(
            f"confidence must be a number between 0 and 1 (0.95 for a 95% interval), "
            f"got {confidence!r}."
        )
    alpha = _check_resampling(n_resamples, 1.0 - float(confidence), "poisson")
    y, p, w = _probabilities(y_true, y_prob, sample_weight, pos_label)
    b = _binned(y, p, w, n_bins, strategy)
    check_cells("calibration_error_interval", ("n_resamples", n_resamples), ("n_bins", n_bins))
    nb = int(n_bins)
    nan = float("nan")
    if not (b.total > 0).any():
        return CalibrationErrorInterval(
            nan, nan, nan, nan, nan, nan, nan, float(confidence), 0, CALIBRATION_ERROR_METHOD
        )
    features = _ce_features(y - p, b.weight, b.index, nb)
    share, dev, var = _bin_terms(features.sum(axis=0), nb)
    est = float(np.sum(share * (dev * dev - var)))
    plugin = float(np.sum(share * dev * dev))
    n = y.size
    if groups is None:
        draws = _Draws(y, seed, "poisson", False)
    else:
        draws = _GroupDraws(groups, n, seed, "poisson")
    if groups is None:
        sums = _BinSums(b.index, features, nb)
        block_counts = draws.block
    else:  # group counts, and the features summed per group: the same sums, far cheaper
        sums = _BinSums(b.index, features, nb, groups=draws.inverse)
        block_counts = draws.draws.block
    block = max(1, min(n_resamples, (1 << 22) // max(n, 1)))
    # Per resample, its debiased estimate in the world lambda is a + 2 b lambda + c lambda^2:
    # the resample's bin means are d*_b = d_b + e_b, and the world's are e_b + lambda d_b.
    coef = np.full((n_resamples, 3), np.nan)
    for first in range(0, n_resamples, block):
        size = min(block, n_resamples - first)
        c = block_counts(size)
        sh, d_star, v = _bin_terms(sums(c), nb)
        e = d_star - dev
        with np.errstate(invalid="ignore"):
            coef[first : first + size] = np.column_stack(
                (
                    np.sum(sh * (e * e - v), axis=1),
                    np.sum(sh * e * dev, axis=1),
                    np.sum(sh * dev * dev, axis=1),
                )
            )
        coef[first : first + size][c.sum(axis=1) == 0] = np.nan  # an empty resample
    coef = coef[np.isfinite(coef).all(axis=1)]
    if coef.shape[0] == 0:
        return CalibrationErrorInterval(
            est, nan, nan, plugin, _root(est), nan, nan, float(confidence), 0,
            CALIBRATION_ERROR_METHOD,
        )  # fmt: skip
    qa, qb, qc = coef.T
    if plugin > 0:
        # Worlds of error theta = lambda^2 plugin, on a grid reaching past the last one kept.
        spread = float(np.std(qa)) + 2.0 * float(np.sqrt(np.mean(qb * qb) * plugin))
        top = max(4.0 * plugin, (abs(est) + 8.0 * spread) * 2.0, 1e-12)
        for _ in range(8):
            theta = np.linspace(0.0, top, 801)
            low_q, high_q = _world_quantiles(qa, qb, qc, np.sqrt(theta / plugin), alpha)
            if low_q[-1] > est:
                break
            top *= 2.0
        kept = theta[(low_q <= est) & (est <= high_q)]
    else:  # every bin's gap is 0: no world but the calibrated one
        low_q, high_q = np.quantile(qa, [alpha / 2.0, 1.0 - alpha / 2.0])
        kept = np.array([0.0]) if low_q <= est <= high_q else np.array([])
    if kept.size:
        low, high = min(float(kept[0]), est), max(float(kept[-1]), est)
    else:
        low = high = est
    if groups is not None:
        g = draws.inverse
        sizes = np.bincount(g, weights=b.weight, minlength=int(g.max()) + 1)
        low, high = small_groups_correction(sizes, alpha=alpha).widen(est, low, high)
    return CalibrationErrorInterval(
        est, float(low), float(high), plugin, _root(est), _root(low), _root(high),
        float(confidence), int(coef.shape[0]), CALIBRATION_ERROR_METHOD,
    )  # fmt: skip


@dataclass(frozen=True)
class BrierDecomposition:
    """Murphy's (1973) decomposition of the Brier score over reliability bins.

    ``brier = reliability - resolution + uncertainty + within_bin_variance
    - within_bin_covariance`` exactly (Stephenson, Coelho & Jolliffe 2008); the last two terms
    vanish when the predictions are constant within each bin, leaving Murphy's three.

    Attributes
    ----------
    brier : float
        The Brier score, equal to :func:`brier_score_loss`.
    reliability : float
        ``sum_b n_b/n (pbar_b - ybar_b)^2``: miscalibration (lower is better).
    resolution : float
        ``sum_b n_b/n (ybar_b - ybar)^2``: how far the bins' outcome rates spread from the base
        rate (higher is better).
    uncertainty : float
        ``ybar (1 - ybar)``: the Brier score of always predicting the base rate.
    within_bin_variance : float
        ``(1/n) sum_b sum_{i in b} (p_i - pbar_b)^2``.
    within_bin_covariance : float
        ``(2/n) sum_b sum_{i in b} (p_i - pbar_b)(y_i - ybar_b)``.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float


def brier_decomposition(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> BrierDecomposition:
    """The Brier score split into reliability, resolution and uncertainty (Murphy 1973).

    Bins as :func:`calibration_curve`; ``n`` and the means are weighted when weights are given.

    Examples
    --------
    >>> d = brier_decomposition([0, 1, 0, 1], [0.2, 0.2, 0.8, 0.8], n_bins=2)
    >>> [round(v, 4) for v in (d.brier, d.reliability, d.resolution, d.uncertainty)]
    [0.34, 0.09, 0.0, 0.25]
    """
    y, p, w = _probabilities(y_true, y_prob, sample_weight, pos_label)
    b = _binned(y, p, w, n_bins, strategy)
    n = float(b.total.sum())
    used = b.total > 0
    ybar_b = np.zeros(b.total.size)
    pbar_b = np.zeros(b.total.size)
    ybar_b[used] = b.positive[used] / b.total[used]
    pbar_b[used] = b.predicted[used] / b.total[used]
    ybar = float(b.positive.sum()) / n
    share = b.total / n
    dp = p - pbar_b[b.index]
    dy = y - ybar_b[b.index]
    ww = b.weight / n
    return BrierDecomposition(
        brier=float(np.sum(ww * (p - y) ** 2)),
        reliability=float(np.sum(share * (pbar_b - ybar_b) ** 2)),
        resolution=float(np.sum(share * (ybar_b - ybar) ** 2)),
        uncertainty=ybar * (1.0 - ybar),
        within_bin_variance=float(np.sum(ww * dp * dp)),
        within_bin_covariance=float(2.0 * np.sum(ww * dp * dy)),
    )


# --- recalibration -------------------------------------------------------------------------------

RECALIBRATION_METHODS = ("platt", "isotonic", "temperature", "beta")
_EPS = np.finfo(np.float64).eps


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    e = np.exp(z[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def _logistic_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, *, max_iter: int = 100):
    """Weighted maximum-likelihood logistic regression on the columns of ``x`` (no penalty), by
    Newton's method (IRLS) with step halving. Returns the coefficients.

    The columns are scaled (and, when one column is constant, centred) first and the
    coefficients mapped back, which keeps the Hessian well conditioned. On separable data the
    likelihood has no maximum; the iterations stop after ``max_iter`` with large coefficients
    (a near-step function), as an unpenalised fit must.
    """
    const = np.all(x == x[:1], axis=0)
    # Centring moves the intercept, so only a design with a constant column is centred.
    centre = np.where(const | ~const.any(), 0.0, np.average(x, axis=0, weights=w))
    scale = np.sqrt(np.average((x - centre) ** 2, axis=0, weights=w))
    scale = np.where(const | (scale == 0), 1.0, scale)
    z = (x - centre) / scale
    beta = np.zeros(x.shape[1])

    def loss(b: np.ndarray) -> float:
        eta = z @ b
        return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta)))

    current = loss(beta)
    for _ in range(max_iter):
        p = _sigmoid(z @ beta)
        grad = z.T @ (w * (p - y))
        hess = (z * (w * p * (1.0 - p))[:, None]).T @ z
        hess[np.diag_indices_from(hess)] += 1e-12 * max(1.0, float(np.trace(hess)))
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        t = 1.0
        while True:
            trial = beta - t * step
            value = loss(trial)
            if value <= current or t < 1e-10:
                break
            t *= 0.5
        done = current - value <= 1e-14 * max(1.0, abs(current))
        beta, current = trial, value
        if done or np.max(np.abs(t * step)) < 1e-12:
            break
    coef = beta / scale
    # z @ beta = (x - centre) / scale @ beta = x @ coef - centre @ coef
    if const.any():
        shift = float(centre @ coef)
        first_const = int(np.flatnonzero(const)[0])
        coef[first_const] -= shift / x[0, first_const] if x[0, first_const] != 0 else 0.0
    return coef


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, _EPS, 1.0 - _EPS)
    return np.log(p) - np.log1p(-p)


def _pav(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted isotonic (non-decreasing) regression of ``y`` on ``x`` by pool-adjacent-violators,
    tied ``x`` pooled first (their mean label): (distinct x, fitted value at each)."""
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], y[order], w[order]
    starts = np.flatnonzero(np.concatenate(([True], xs[1:] != xs[:-1])))
    ux = xs[starts]
    sw = np.add.reduceat(ws, starts)
    swy = np.add.reduceat(ws * ys, starts)
    # One pass with a stack of blocks: (weighted sum, weight, number of distinct x).
    sums: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for a, b in zip(swy.tolist(), sw.tolist(), strict=True):
        size = 1
        while weights and sums[-1] * b >= a * weights[-1]:  # previous mean >= this mean
            a += sums.pop()
            b += weights.pop()
            size += sizes.pop()
        sums.append(a)
        weights.append(b)
        sizes.append(size)
    means = np.array(sums) / np.array(weights)
    return ux, np.repeat(means, sizes)


@dataclass(frozen=True, eq=False)
class Calibrator:
    """A fitted score-to-probability map; call it on scores to get probabilities.

    Attributes
    ----------
    method : str
        ``"platt"``: ``sigmoid(a * s + b)``; ``"temperature"``: ``sigmoid(a * logit(s))``
        (``a = 1 / T``; scores outside [0, 1] are taken as logits already); ``"beta"``:
        ``sigmoid(a * ln s - b * ln(1 - s) + c)`` with ``a, b >= 0`` (a negative shape is set
        to 0 and the rest refitted, as Kull et al.'s code does; should the other come out
        negative too, both are 0: the base rate); ``"isotonic"``: the
        pool-adjacent-violators fit, linear between the fitted scores and constant beyond them.
    params : dict
        ``{"a", "b"}`` (Platt), ``{"a"}`` (temperature), ``{"a", "b", "c"}`` (beta), or
        ``{"x", "y"}`` (isotonic: the distinct fitted scores and their values).
    """

    method: str
    params: dict

    def __call__(self, y_score: Any) -> np.ndarray:
        s = as_real(y_score, "y_score")
        m, q = self.method, self.params
        if m == "isotonic":
            return np.interp(s, q["x"], q["y"])
        if m == "platt":
            return _sigmoid(q["a"] * s + q["b"])
        if m == "temperature":
            return _sigmoid(q["a"] * (_logit(s) if q["probabilities"] else s))
        c = np.clip(s, _EPS, 1.0 - _EPS)
        return _sigmoid(q["a"] * np.log(c) - q["b"] * np.log1p(-c) + q["c"])


def _fit(y: np.ndarray, s: np.ndarray, w: np.ndarray, method: str) -> Calibrator:
    yf = y.astype(np.float64)
    ones = np.ones(s.size)
    if method == "isotonic":
        x, fitted = _pav(s, yf, w)
        return Calibrator(method, {"x": x, "y": fitted})
    if method == "platt":
        a, b = _logistic_fit(np.column_stack((s, ones)), yf, w)
        return Calibrator(method, {"a": float(a), "b": float(b)})
    if method == "temperature":
        probabilities = bool(np.all((s >= 0) & (s <= 1)))
        z = _logit(s) if probabilities else s
        (a,) = _logistic_fit(z[:, None], yf, w)
        return Calibrator(method, {"a": float(a), "probabilities": probabilities})
    c = np.clip(s, _EPS, 1.0 - _EPS)
    la, lb = np.log(c), -np.log1p(-c)
    a, b, k = _logistic_fit(np.column_stack((la, lb, ones)), yf, w)
    # Kull, Silva Filho & Flach (2017): a negative shape is set to 0 and the rest refitted.
    if a < 0:
        b, k = _logistic_fit(np.column_stack((lb, ones)), yf, w)
        a = 0.0
    elif b < 0:
        a, k = _logistic_fit(np.column_stack((la, ones)), yf, w)
        b = 0.0
    if a < 0 or b < 0:
        # Scores that rank backwards: the reference code would keep a negative shape here;
        # with both shapes at 0 the map is the constant base rate.
        a, b = 0.0, 0.0
        (k,) = _logistic_fit(ones[:, None], yf, w)
    return Calibrator(method, {"a": float(a), "b": float(b), "c": float(k)})


def _check_method(method: Any, s: np.ndarray) -> None:
    if method not in RECALIBRATION_METHODS:
        raise ValueError(
            f"method must be one of {', '.join(map(repr, RECALIBRATION_METHODS))}, got {method!r}."
        )
    if method == "beta" and ((s < 0) | (s > 1)).any():
        raise ValueError(
            "method='beta' reads scores as probabilities, but y_score has values outside "
            f"[0, 1] (for example {s[(s < 0) | (s > 1)][0]:g}); use 'platt' or 'isotonic'."
        )


def fit_calibrator(
    y_true: Any,
    y_score: Any,
    *,
    method: str = "platt",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> Calibrator:
    """Fit a recalibration map on these rows (in-sample); see :func:`recalibrate` for scores
    that were not fitted on their own labels.

    Examples
    --------
    >>> f = fit_calibrator([0, 0, 1, 0, 1, 1], [0.1, 0.3, 0.35, 0.4, 0.8, 0.9], method="isotonic")
    >>> f([0.1, 0.35, 0.9]).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    _check_method(method, s)
    return _fit(y, s, np.ones(s.size) if w is None else w, method)


def _stratified_folds(y: np.ndarray, cv: int, seed: Any) -> np.ndarray:
    """Fold of each row: each class shuffled (``seed``) and dealt round-robin into ``cv`` folds.
    Depends on the labels and the seed only, never on the scores."""
    rng = np.random.default_rng(seed)
    folds = np.empty(y.size, dtype=np.intp)
    for members in (np.flatnonzero(y), np.flatnonzero(~y)):
        folds[rng.permutation(members)] = np.arange(members.size) % cv
    return folds


def recalibrate(
    y_true: Any,
    y_score: Any,
    *,
    method: str = "platt",
    cv: int = 5,
    seed: int | np.random.Generator | None = 0,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> np.ndarray:
    """Out-of-fold recalibrated probabilities: each row's score mapped by a calibrator fitted on
    the other folds only (cross-fitting), so no row's label shapes its own probability.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_score : array-like of shape (n_samples,)
        Scores; probabilities for ``"temperature"`` and ``"beta"`` (temperature takes scores
        outside [0, 1] as logits).
    method : {"platt", "isotonic", "temperature", "beta"}, default "platt"
        ``"platt"``: logistic regression on the score (Platt 1999, without his smoothed
        targets, as an unpenalised ``LogisticRegression``). ``"isotonic"``: pool-adjacent-
        violators, ties pooled, interpolated linearly between fitted scores and clipped beyond
        (as scikit-learn's ``IsotonicRegression(out_of_bounds="clip")``). ``"temperature"``:
        one slope on the logit, no intercept (Guo et al. 2017). ``"beta"``: Kull, Silva Filho &
        Flach's (2017) three-parameter beta calibration.
    cv : int, default 5
        Folds, stratified by class; every class needs at least ``cv`` rows.
    seed : int, Generator or None, default 0
        Shuffles the rows into folds.
    sample_weight : array-like of shape (n_samples,), optional
        Weights in the fits.
    pos_label : scalar, optional

    Returns
    -------
    ndarray of shape (n_samples,)
        Calibrated probabilities of the positive class.

    Notes
    -----
    Everything is numpy: Newton's method (IRLS) for the logistic fits, one pass of
    pool-adjacent-violators for isotonic. A monotone map leaves ROC AUC unchanged in-sample,
    but out-of-fold maps differ between folds, so the recalibrated scores can rank slightly
    differently (and isotonic's flat steps add ties).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(400) < 0.3
    >>> overconfident = np.clip(0.3 + 0.6 * (y - 0.3) + rng.normal(0, 0.3, 400), 0.01, 0.99)
    >>> p = recalibrate(y, overconfident, method="isotonic")
    >>> bool(brier_score_loss(y, p) < brier_score_loss(y, overconfident))
    True
    """
    y, s, w = check_binary_inputs(y_true, y_score, sample_weight, pos_label)
    _check_method(method, s)
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}.")
    n_pos = int(np.count_nonzero(y))
    if min(n_pos, y.size - n_pos) < cv:
        raise ValueError(
            f"y_true has {n_pos} positives and {y.size - n_pos} negatives; cv={cv} folds need "
            f"at least {cv} rows of each class (lower cv)."
        )
    w = np.ones(s.size) if w is None else w
    folds = _stratified_folds(y, int(cv), seed)
    out = np.empty(s.size)
    for k in range(int(cv)):
        held = folds == k
        fitted = _fit(y[~held], s[~held], w[~held], method)
        out[held] = fitted(s[held])
    return out
