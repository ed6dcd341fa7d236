"""Calibration error, the Brier decomposition and recalibration against slow references:
explicit bin loops and scikit-learn's calibration_curve and brier_score_loss, brute-force
isotonic regression and scikit-learn's IsotonicRegression, LogisticRegression without penalty;
and a proof that recalibrate is out-of-fold."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import sklearn.calibration as skc
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from metrics.calibration import (
    _pav,
    _stratified_folds,
    brier_decomposition,
    brier_score_loss,
    calibration_curve,
    calibration_error,
    fit_calibrator,
    recalibrate,
)
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _probabilities(s, rounding):
    p = 1 / (1 + np.exp(-s))
    return np.round(p, rounding) if rounding else p


def _reference_bins(y, p, w, n_bins, strategy):
    """Bin b holds edges[b] < p <= edges[b + 1] (the first bin also p = edges[0]), as
    scikit-learn's searchsorted assigns them; a loop over bins."""
    if strategy == "uniform":
        edges = np.linspace(0, 1, n_bins + 1)
    else:
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
    rows = []
    for b in range(n_bins):
        lower = -np.inf if b == 0 else edges[b]
        upper = np.inf if b == n_bins - 1 else edges[b + 1]
        inside = (p > lower) & (p <= upper)
        if w[inside].sum() > 0:
            rows.append(
                (
                    w[inside].sum(),
                    np.average(y[inside], weights=w[inside]),
                    np.average(p[inside], weights=w[inside]),
                )
            )
    return rows


@SETTINGS
@given(
    binary_tables(weights=True, max_models=2),
    st.sampled_from([0, 1, 2]),
    st.integers(1, 12),
    st.sampled_from(["uniform", "quantile"]),
)
def test_calibration_error_against_bin_loop(t, rounding, n_bins, strategy):
    w = np.ones(t.y.size) if t.weights is None else t.weights
    for s in t.scores:
        p = _probabilities(s, rounding)
        rows = _reference_bins(t.y, p, w, n_bins, strategy)
        total = sum(r[0] for r in rows)
        ece = sum(r[0] / total * abs(r[1] - r[2]) for r in rows)
        l2 = np.sqrt(sum(r[0] / total * (r[1] - r[2]) ** 2 for r in rows))
        mce = max(abs(r[1] - r[2]) for r in rows)
        kw = {"n_bins": n_bins, "strategy": strategy, "sample_weight": t.weights}
        assert calibration_error(t.y, p, **kw) == pytest.approx(ece, abs=1e-12)
        assert calibration_error(t.y, p, norm="l2", **kw) == pytest.approx(l2, abs=1e-12)
        assert calibration_error(t.y, p, norm="max", **kw) == pytest.approx(mce, abs=1e-12)
        # The bins are calibration_curve's, whose counts the loop confirms.
        _, _, counts = calibration_curve(t.y, p, **kw)
        np.testing.assert_allclose(counts, [r[0] for r in rows], rtol=1e-12)
        d = brier_decomposition(t.y, p, **kw)
        assert d.reliability == pytest.approx(l2**2, abs=1e-12)


@SETTINGS
@given(binary_tables(max_models=2), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_bins_against_sklearn_calibration_curve(t, n_bins, strategy):
    for s in t.scores:
        p = _probabilities(s, 2)
        true, pred, counts = calibration_curve(t.y, p, n_bins=n_bins, strategy=strategy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sk_true, sk_pred = skc.calibration_curve(t.y, p, n_bins=n_bins, strategy=strategy)
        np.testing.assert_allclose(true, sk_true, atol=1e-12)
        np.testing.assert_allclose(pred, sk_pred, atol=1e-12)
        assert counts.sum() == t.y.size
        assert np.sum(counts * sk_true) == pytest.approx(t.y.sum(), abs=1e-9)
        # ECE from scikit-learn's bins (counts from sklearn's own binning rule)
        edges = (
            np.linspace(0, 1, n_bins + 1)
            if strategy == "uniform"
            else np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
        )
        sk_counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=n_bins)
        sk_counts = sk_counts[sk_counts > 0]
        np.testing.assert_array_equal(counts, sk_counts)
        ece = np.sum(sk_counts / p.size * np.abs(sk_true - sk_pred))
        assert calibration_error(t.y, p, n_bins=n_bins, strategy=strategy) == pytest.approx(
            ece, abs=1e-12
        )


@SETTINGS
@given(binary_tables(weights=True, max_models=2), st.integers(1, 12))
def test_brier_decomposition_identity(t, n_bins):
    for s in t.scores:
        p = _probabilities(s, 3)
        d = brier_decomposition(t.y, p, n_bins=n_bins, sample_weight=t.weights)
        assert d.brier == pytest.approx(
            skm.brier_score_loss(t.y, p, sample_weight=t.weights), abs=1e-12
        )
        assert d.brier == pytest.approx(
            d.reliability
            - d.resolution
            + d.uncertainty
            + d.within_bin_variance
            - d.within_bin_covariance,
            abs=1e-12,
        )
        # Predictions constant within each bin (the bin's centre): Murphy's three terms alone.
        centres = (np.minimum(np.floor(p * n_bins), n_bins - 1) + 0.5) / n_bins
        c = brier_decomposition(t.y, centres, n_bins=n_bins, sample_weight=t.weights)
        assert c.within_bin_variance == pytest.approx(0, abs=1e-15)
        assert c.reliability - c.resolution + c.uncertainty == pytest.approx(
            skm.brier_score_loss(t.y, centres, sample_weight=t.weights), abs=1e-12
        )


def test_calibration_error_rejects_bad_options():
    with pytest.raises(ValueError, match="norm must be"):
        calibration_error([0, 1], [0.2, 0.6], norm="l3")
    with pytest.raises(ValueError, match="n_bins must be a positive integer"):
        calibration_error([0, 1], [0.2, 0.6], n_bins=0)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        brier_decomposition([0, 1], [0.2, 1.6])


# --- pool-adjacent-violators --------------------------------------------------------------------


def _brute_isotonic(x, y, w):
    """Every split of the distinct x into consecutive blocks; the best one whose block means
    do not decrease. (An isotonic fit is constant on blocks at their weighted means.)"""
    ux = np.unique(x)
    sw = np.array([w[x == v].sum() for v in ux])
    swy = np.array([(w * y)[x == v].sum() for v in ux])
    best = None
    for cuts in itertools.product([False, True], repeat=ux.size - 1):
        bounds = [0, *[i + 1 for i, c in enumerate(cuts) if c], ux.size]
        means, fitted = [], np.empty(ux.size)
        for lo, hi in itertools.pairwise(bounds):
            m = swy[lo:hi].sum() / sw[lo:hi].sum()
            means.append(m)
            fitted[lo:hi] = m
        if any(b < a - 1e-15 for a, b in itertools.pairwise(means)):
            continue
        sse = float(np.sum(w * (y - fitted[np.searchsorted(ux, x)]) ** 2))
        if best is None or sse < best[0] - 1e-12:
            best = (sse, fitted)
    return ux, best[1]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 1), st.sampled_from([0.5, 1.0, 2.0])),
        min_size=1,
        max_size=9,
    )
)
def test_pav_against_brute_force_and_sklearn(rows):
    x = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows])
    ux, fitted = _pav(x, y, w)
    bx, bf = _brute_isotonic(x, y, w)
    np.testing.assert_array_equal(ux, bx)
    np.testing.assert_allclose(fitted, bf, atol=1e-12)
    sk = IsotonicRegression(out_of_bounds="clip").fit(x, y, sample_weight=w)
    np.testing.assert_allclose(fitted, sk.predict(ux), atol=1e-12)


def test_isotonic_calibrator_predicts_as_sklearn():
    rng = np.random.default_rng(1)
    s = np.round(rng.normal(size=500), 1)
    y = rng.random(500) < 1 / (1 + np.exp(-2 * s))
    w = rng.uniform(0.2, 2, 500)
    f = fit_calibrator(y, s, method="isotonic", sample_weight=w)
    sk = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w)
    new = np.linspace(-5, 5, 1001)
    np.testing.assert_allclose(f(new), sk.predict(new), atol=1e-12)


# --- logistic fits --------------------------------------------------------------------------------


def _sk_logistic(x, y, w, intercept=True):
    lr = LogisticRegression(C=1e12, tol=1e-12, max_iter=100000, fit_intercept=intercept)
    return lr.fit(x, y, sample_weight=w)


@pytest.mark.parametrize("seed", range(6))
def test_platt_temperature_beta_against_unpenalised_logistic_regression(seed):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.random(n) < 0.35
    p = np.clip(1 / (1 + np.exp(-(rng.normal(size=n) * 1.5 + 2 * y - 1))), 1e-6, 1 - 1e-6)
    if seed % 2:
        p = np.round(p, 2).clip(0.01, 0.99)
    w = rng.uniform(0.5, 2, n) if seed % 3 == 0 else None
    ww = np.ones(n) if w is None else w
    grid = np.linspace(0.01, 0.99, 99)

    platt = fit_calibrator(y, p, method="platt", sample_weight=w)
    sk = _sk_logistic(p[:, None], y, ww)
    np.testing.assert_allclose(platt(grid), sk.predict_proba(grid[:, None])[:, 1], atol=1e-6)

    temp = fit_calibrator(y, p, method="temperature", sample_weight=w)
    logit = np.log(p / (1 - p))
    sk = _sk_logistic(logit[:, None], y, ww, intercept=False)
    np.testing.assert_allclose(
        temp(grid), sk.predict_proba(np.log(grid / (1 - grid))[:, None])[:, 1], atol=1e-6
    )

    beta = fit_calibrator(y, p, method="beta", sample_weight=w)
    feats = np.column_stack((np.log(p), -np.log1p(-p)))
    sk = _sk_logistic(feats, y, ww)
    a, b = sk.coef_[0]
    if a < 0:
        sk = _sk_logistic(feats[:, 1:], y, ww)
        a, b, c = 0.0, sk.coef_[0][0], sk.intercept_[0]
    elif b < 0:
        sk = _sk_logistic(feats[:, :1], y, ww)
        a, b, c = sk.coef_[0][0], 0.0, sk.intercept_[0]
    else:
        c = sk.intercept_[0]
    want = 1 / (1 + np.exp(-(a * np.log(grid) - b * np.log1p(-grid) + c)))
    np.testing.assert_allclose(beta(grid), want, atol=1e-6)


def test_beta_keeps_shapes_non_negative():
    rng = np.random.default_rng(5)
    y = rng.random(400) < 0.5
    p = np.where(y, rng.uniform(0.0, 0.5, 400), rng.uniform(0.3, 1.0, 400))  # inverted scores
    f = fit_calibrator(y, p, method="beta")
    assert f.params["a"] >= 0
    assert f.params["b"] >= 0


# --- out-of-fold --------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["platt", "isotonic", "temperature", "beta"])
def test_recalibration_is_out_of_fold_on_noise(method):
    """Scores that are pure noise carry no information. Fitted in-sample, a calibrator follows
    its own rows' labels and beats the base rate's Brier score (isotonic by 0.014 on average
    over these 20 tables of 50 rows; Platt and beta nest the constant, so they never lose to
    it); out-of-fold, every method does worse than the base rate on average. A recalibrate that
    fitted on all rows would return the in-sample scores and fail."""
    out_gap, in_gap = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        y = rng.random(50) < 0.4
        s = rng.uniform(0.01, 0.99, 50)
        base = y.mean() * (1 - y.mean())
        out_gap.append(brier_score_loss(y, recalibrate(y, s, method=method, seed=3)) - base)
        in_gap.append(brier_score_loss(y, fit_calibrator(y, s, method=method)(s)) - base)
    assert np.mean(out_gap) > 0.005
    if method == "isotonic":
        assert max(in_gap) < 0
        assert np.mean(in_gap) < -0.01
    if method in ("platt", "beta"):
        assert max(in_gap) <= 1e-12


@pytest.mark.parametrize("method", ["platt", "isotonic", "temperature", "beta"])
def test_a_rows_score_moves_only_other_folds(method):
    """Folds depend on the labels and the seed alone. Changing one row's score changes the
    calibrators of the other folds (trained on it) and its own output, never the outputs of the
    other rows of its fold: those come from a calibrator that did not see it."""
    rng = np.random.default_rng(4)
    n = 200
    y = rng.random(n) < 0.4
    s = np.clip(0.4 + 0.3 * (y - 0.4) + rng.normal(0, 0.2, n), 0.01, 0.99)
    folds = _stratified_folds(y, 5, 7)
    before = recalibrate(y, s, method=method, cv=5, seed=7)
    j = int(np.flatnonzero(folds == 2)[0])
    moved = s.copy()
    moved[j] = 0.999 if y[j] else 0.001
    after = recalibrate(y, moved, method=method, cv=5, seed=7)
    same_fold = (folds == 2) & (np.arange(n) != j)
    np.testing.assert_array_equal(after[same_fold], before[same_fold])
    assert not np.array_equal(after[folds != 2], before[folds != 2])
    # and each fold's output is the calibrator fitted on the others
    for k in range(5):
        held = folds == k
        f = fit_calibrator(y[~held], s[~held], method=method)
        np.testing.assert_allclose(before[held], f(s[held]), atol=1e-12)


def test_recalibrate_improves_a_miscalibrated_model():
    rng = np.random.default_rng(2)
    n = 2000
    y = rng.random(n) < 0.3
    logit = rng.normal(size=n) + 1.5 * y - 1.2
    over = 1 / (1 + np.exp(-3 * logit))  # overconfident
    for method in ("platt", "isotonic", "temperature", "beta"):
        p = recalibrate(y, over, method=method)
        assert brier_score_loss(y, p) < brier_score_loss(y, over)
        assert calibration_error(y, p) < calibration_error(y, over)


def test_recalibrate_errors():
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 rows of each class"):
        recalibrate([0, 1, 0, 1, 0, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    with pytest.raises(ValueError, match="method must be one of"):
        recalibrate([0, 1] * 5, [0.5] * 10, method="spline")
    with pytest.raises(ValueError, match="outside"):
        recalibrate([0, 1] * 5, np.arange(10.0), method="beta")
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        recalibrate([0, 1] * 5, [0.5] * 10, cv=1)
