"""Scores read as probabilities: Brier score, log loss and the reliability (calibration) curve.

These only make sense when scores lie in [0, 1]; each function says so when they do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics._validation import check_binary_inputs

__all__ = [
    "RECALIBRATION_METHODS",
    "BrierDecomposition",
    "Calibrator",
    "brier_decomposition",
    "brier_score_loss",
    "calibration_curve",
    "calibration_error",
    "fit_calibrator",
    "log_loss",
    "recalibrate",
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
        s = np.asarray(y_score, dtype=np.float64)
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
