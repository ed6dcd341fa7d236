"""The debiased squared calibration error and its interval (issue 31 §4).

A slow reference (a loop over bins, the unbiased variance of each bin's mean residual written
out), Kumar, Liang & Ma's (2019) own formula where each bin holds one prediction, generated
shapes (ties, one positive, zero and fractional weights, groups), and a small seeded coverage
simulation with known truth (the full one is ``bench/bench_coverage_calibration.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

import metrics
from metrics.calibration import calibration_error_interval, squared_calibration_error
from tests.strategies import binary_tables, examples


def slow_debiased(y, p, w=None, n_bins=10):
    """Per bin: share * (mean residual^2 - unbiased variance of the weighted mean residual)."""
    y = np.asarray(y, float)
    p = np.asarray(p, float)
    w = np.ones(p.size) if w is None else np.asarray(w, float)
    edges = np.linspace(0, 1, n_bins + 1)
    total = w.sum()
    out = 0.0
    for b in range(n_bins):
        lo, hi = edges[b], edges[b + 1]
        inside = (p <= hi) if b == 0 else (p > lo) & (p <= hi)  # an edge: the lower bin
        a, r = w[inside], (y - p)[inside]
        big_w = a.sum()
        if big_w <= 0:
            continue
        d = float(np.sum(a * r) / big_w)
        s2, s3 = float(np.sum(a * a)), float(np.sum(a**3))
        denom = s2 - 2 * s3 / big_w + (s2 / big_w) ** 2
        var = 0.0
        if denom > 1e-12 * s2:
            # E[sum a^2 (r - d)^2] = sigma^2 * denom and Var(d) = sigma^2 * s2 / W^2
            var = float(np.sum(a * a * (r - d) ** 2)) / denom * s2 / big_w**2
        out += big_w / total * (d * d - var)
    return out


def _probabilities(rng, n):
    p = rng.random(n)
    return rng.random(n) < p, p


@pytest.mark.parametrize("seed", range(12))
def test_equals_the_slow_reference(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    y, p = _probabilities(rng, n)
    p = np.round(p, int(rng.integers(1, 4)))  # ties, values on the bin edges
    w = rng.uniform(0.1, 3, n) if seed % 2 else None
    got = squared_calibration_error(y, p, sample_weight=w)
    assert got == pytest.approx(slow_debiased(y, p, w), abs=1e-13)


def test_one_prediction_per_bin_is_kumar_liang_ma():
    """With every row of a bin at the same prediction, the estimate is Kumar et al.'s:
    sum_b n_b/n [(ybar_b - p_b)^2 - ybar_b (1 - ybar_b) / (n_b - 1)]."""
    rng = np.random.default_rng(4)
    levels = np.array([0.05, 0.25, 0.45, 0.65, 0.85])
    p = rng.choice(levels, 800)
    y = rng.random(800) < p + 0.05
    kumar = 0.0
    for v in levels:
        yy = y[p == v]
        nb, ybar = yy.size, yy.mean()
        kumar += nb / 800 * ((ybar - v) ** 2 - ybar * (1 - ybar) / (nb - 1))
    assert squared_calibration_error(y, p, n_bins=5) == pytest.approx(kumar, abs=1e-14)


def test_plug_in_is_the_reliability_term_and_the_worked_example():
    y, p = [0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9]
    d = metrics.brier_decomposition(y, p, n_bins=2)
    assert squared_calibration_error(y, p, n_bins=2, debiased=False) == pytest.approx(
        d.reliability, abs=1e-15
    )
    # bin 1: residuals -0.1, -0.2 (mean -0.15, variance of the mean 0.0025); bin 2: 0.3, 0.1
    # (mean 0.2, 0.01): 0.5 (0.0225 - 0.0025) + 0.5 (0.04 - 0.01) = 0.025
    assert squared_calibration_error(y, p, n_bins=2) == pytest.approx(0.025, abs=1e-15)


def test_unbiased_where_the_plug_in_is_not():
    """Over many calibrated samples the plug-in averages well above 0; the debiased estimate
    averages 0 within its Monte Carlo error."""
    rng = np.random.default_rng(0)
    debiased, plug = [], []
    for _ in range(300):
        y, p = _probabilities(rng, 300)
        debiased.append(squared_calibration_error(y, p))
        plug.append(squared_calibration_error(y, p, debiased=False))
    se = np.std(debiased) / math.sqrt(len(debiased))
    assert abs(np.mean(debiased)) < 3 * se
    assert np.mean(plug) > 10 * se


def test_weights_are_importance_weights():
    """Multiplying every weight by a constant changes nothing; unit weights are no weights."""
    rng = np.random.default_rng(2)
    y, p = _probabilities(rng, 500)
    w = rng.uniform(0.2, 2, 500)
    a = squared_calibration_error(y, p, sample_weight=w)
    assert squared_calibration_error(y, p, sample_weight=7.5 * w) == pytest.approx(a, rel=1e-10)
    assert squared_calibration_error(y, p, sample_weight=np.ones(500)) == pytest.approx(
        squared_calibration_error(y, p), abs=1e-15
    )


@settings(max_examples=examples(40), deadline=None)
@given(binary_tables(max_size=65, max_models=1, weights=True, groups=True))
def test_interval_always_contains_its_estimate(table):
    """Ties, every score tied, one positive, zero weights, groups of one row: the interval
    holds the estimate, its RMS version the RMS, and everything equals the reference."""
    p = 1.0 / (1.0 + np.exp(-table.scores[0]))
    r = calibration_error_interval(
        table.y, p, sample_weight=table.weights, groups=table.groups, n_resamples=60, seed=1
    )
    assert r.estimate == pytest.approx(slow_debiased(table.y, p, table.weights), abs=1e-12)
    assert r.low <= r.estimate <= r.high
    assert 0.0 <= r.rms_low <= r.rms <= r.rms_high
    assert r.rms == pytest.approx(math.sqrt(max(r.estimate, 0.0)))
    assert r.plugin >= r.estimate - 1e-15


def test_bad_input_gets_a_sentence():
    with pytest.raises(ValueError, match="confidence must be a number between 0 and 1"):
        calibration_error_interval([0, 1], [0.2, 0.7], confidence=95)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        calibration_error_interval([0, 1], [0.2, 1.7])
    with pytest.raises(ValueError, match="n_resamples must be an integer"):
        calibration_error_interval([0, 1], [0.2, 0.7], n_resamples=0)


def _sigmoid_map(s, a):
    return 1.0 / (1.0 + np.exp(-a * (np.log(s) - np.log1p(-s))))


def test_coverage_small_seeded_simulation():
    """Calibrated scores (truth 0) and over-confident ones (a = 1.5; truth by integration,
    bench/bench_coverage_calibration.py's): the 95% interval covers the truth near 95% of the
    time (60 experiments each: a Monte Carlo error of about 2.8 points), the plug-in's
    percentile interval almost never does at the calibrated model."""
    from bench.bench_coverage_calibration import percentile_plugin, true_error

    rng = np.random.default_rng(20261127)
    for a, truth in ((1.0, 0.0), (1.5, true_error(1.5))):
        hits = plug_hits = 0
        reps = 60
        for r in range(reps):
            s = np.clip(rng.beta(2, 3, 1000), 1e-9, 1 - 1e-9)
            y = rng.random(1000) < _sigmoid_map(s, a)
            ci = calibration_error_interval(y, s, n_resamples=120, seed=r)
            hits += ci.low <= truth <= ci.high
            _, low, high = percentile_plugin(y, s, 120, r)
            plug_hits += low <= truth <= high
        assert 0.85 <= hits / reps <= 1.0, (a, hits / reps)
        if a == 1.0:
            assert plug_hits / reps < 0.2, plug_hits / reps
