"""Small-sample corrections: Student t without scipy, the few-groups widening of group-level
intervals, Obuchowski's test with a t reference, and the exact jackknife of AP behind its BCa.

Oracles: scipy.stats.t for the t distribution, leave-one-out :func:`average_precision_score`
for the jackknife, the definitions written out for the rest.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import metrics
import metrics.bootstrap as mb
from metrics import (
    average_precision_score,
    cluster_bootstrap,
    clustered_auc_test,
    fast_paired_bootstrap,
)
from metrics._student_t import t_cdf, t_quantile
from metrics.compare import _percentile_interval
from metrics.significance import bootstrap_p_value
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
Z975 = NormalDist().inv_cdf(0.975)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# --- Student t ----------------------------------------------------------------------------------

DFS = [0.5, 1, 1.5, 2, 3, 4, 5, 9.5, 17, 29, 49, 100, 499, 1e3, 1e4, 99_999, 1e5, 1e6, 1e8]
PS = [1e-12, 1e-8, 1e-5, 1e-3, 0.01, 0.025, 0.05, 0.1, 0.3, 0.49, 0.5, 0.51, 0.7, 0.9, 0.95]
PS += [0.975, 0.99, 0.999, 1 - 1e-5, 1 - 1e-8, 1 - 1e-12]


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_equals_scipy(df):
    got = [t_quantile(p, df) for p in PS]
    np.testing.assert_allclose(got, stats.t.ppf(PS, df), rtol=1e-11, atol=0)


@pytest.mark.parametrize("df", [df for df in DFS if df <= 1e6])
def test_t_cdf_equals_scipy(df):
    t = stats.t.ppf(PS, df)
    got = np.array([t_cdf(x, df) for x in t])
    want = stats.t.cdf(t, df)
    # Relative to the smaller tail: the far tails are where a careless CDF loses every digit.
    tail = np.minimum(want, stats.t.sf(t, df))
    assert np.all(np.abs(got - want) <= 1e-9 * tail + 1e-16)


@settings(max_examples=examples(300), deadline=None)
@given(st.floats(0.3, 2e6), st.floats(1e-10, 1 - 1e-10))
def test_t_quantile_equals_scipy_anywhere(df, p):
    assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10, abs=1e-14)


def test_t_ends_and_bad_input():
    assert t_quantile(0.0, 5) == -math.inf
    assert t_quantile(1.0, 5) == math.inf
    assert t_quantile(0.5, 3) == 0.0
    assert t_cdf(math.inf, 3) == 1.0
    assert t_cdf(-math.inf, 3) == 0.0
    assert math.isnan(t_cdf(math.nan, 3))
    with pytest.raises(
        ValueError, match=r"degrees of freedom\) must be a positive number, got 0\.0"
    ):
        t_quantile(0.9, 0)
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\], got 1.5"):
        t_quantile(1.5, 3)


# --- the jackknife of AP -------------------------------------------------------------------------


def _slow_ap_jackknife(y, s):
    out = np.empty(y.size)
    for i in range(y.size):
        keep = np.arange(y.size) != i
        out[i] = (
            _quiet(average_precision_score, y[keep], s[keep], pos_label=True)
            if y[keep].any()
            else math.nan
        )
    return out


@SETTINGS
@given(binary_tables(max_size=40, max_models=3))
def test_ap_jackknife_equals_leaving_each_row_out(t):
    got = mb.ap_jackknife(t.y, list(t.scores))
    for k, s in enumerate(t.scores):
        want = _slow_ap_jackknife(t.y, s)
        if t.y.sum() == 1:  # the only positive left out: AP undefined
            want[t.y] = math.nan
        np.testing.assert_allclose(got[:, k], want, rtol=0, atol=1e-12, equal_nan=True)


def test_fast_bootstrap_bca_for_ap_is_bca_with_the_ap_jackknife():
    rng = np.random.default_rng(4)
    n = 400
    y = rng.random(n) < 0.1
    a, b = rng.normal(size=n) + y, rng.normal(size=n) + 0.8 * y
    r = fast_paired_bootstrap(
        y, a, b, n_resamples=300, seed=2, interval="bca",
        bca_metrics=("roc_auc", "average_precision"),
    )  # fmt: skip
    assert r.bca == ("roc_auc", "average_precision")
    res = r.results["average_precision"]
    jack = mb.ap_jackknife(y, [a, b])
    want = mb.bca_interval(res.models[0].estimate, res.replicates[:, 0], jack[:, 0], 0.05)
    assert res.models[0] == want
    diff = mb.bca_interval(
        res.differences[(0, 1)].estimate,
        res.replicates[:, 0] - res.replicates[:, 1],
        jack[:, 0] - jack[:, 1],
        0.05,
    )
    assert res.differences[(0, 1)] == diff
    plain = fast_paired_bootstrap(y, a, b, n_resamples=300, seed=2, interval="bca")
    assert plain.bca == ("roc_auc",)  # the default still leaves AP percentile
    assert plain.results["roc_auc"].models == r.results["roc_auc"].models
    assert np.array_equal(plain.results["average_precision"].replicates, res.replicates)
    assert plain.results["average_precision"].models[0] != res.models[0]
    with pytest.raises(
        ValueError, match=r"bca_metrics can hold \['average_precision', 'roc_auc'\]"
    ):
        fast_paired_bootstrap(y, a, interval="bca", bca_metrics=("f1",))


# --- the few-groups correction ------------------------------------------------------------------


def _kish(sizes):
    sizes = np.asarray(sizes, float)
    return sizes.sum() ** 2 / (sizes**2).sum()


def _factor(sizes, alpha=0.05, *classes):
    """sqrt(G / (G - 1)) t / z, G* the smallest Kish number of ``sizes`` and ``classes``."""
    sizes = np.asarray(sizes, float)
    g = np.count_nonzero(sizes + sum(np.asarray(c, float) for c in classes) > 0)
    kish = min(_kish(x) for x in (sizes, *classes) if np.any(np.asarray(x) > 0))
    q = 1 - alpha / 2
    return math.sqrt(g / (g - 1)) * stats.t.ppf(q, kish - 1) / stats.norm.ppf(q)


@pytest.mark.parametrize(
    "sizes", [[20] * 50, [1, 1], [3, 1, 0, 7], list(range(1, 200)), [100, 1, 1, 1, 1]]
)
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01])
def test_small_groups_factor_is_the_t_over_z_ratio(sizes, alpha):
    c = metrics.small_groups_correction(sizes, alpha=alpha)
    assert c.factor == pytest.approx(_factor(sizes, alpha), rel=1e-10)
    positive = [s for s in sizes if s > 0]
    assert c.n_groups == len(positive)
    assert c.df == pytest.approx(sum(positive) ** 2 / sum(s * s for s in positive) - 1, rel=1e-12)


def test_per_class_sizes_take_the_smaller_effective_number():
    pos = np.array([5.0, 0.0, 1.0, 1.0, 9.0])
    neg = np.array([5.0, 3.0, 4.0, 5.0, 6.0])
    c = metrics.small_groups_correction(np.column_stack([pos, neg]))
    assert c.n_groups == 5
    assert c.effective_groups == pytest.approx(min(_kish(pos), _kish(neg)), rel=1e-12)
    assert c.factor == pytest.approx(
        math.sqrt(5 / 4) * stats.t.ppf(0.975, _kish(pos) - 1) / Z975, rel=1e-10
    )


def test_equal_groups_give_g_minus_1_degrees_and_one_group_no_correction():
    c = metrics.small_groups_correction([7.0] * 50)
    assert (c.effective_groups, c.df) == (50.0, 49.0)
    assert c.factor == pytest.approx(math.sqrt(50 / 49) * stats.t.ppf(0.975, 49) / Z975)
    assert metrics.small_groups_correction([5.0]).factor == 1.0
    with pytest.raises(ValueError, match="sizes must be finite and non-negative"):
        metrics.small_groups_correction([1.0, -2.0])


def _clustered(seed, n=600, users=25):
    rng = np.random.default_rng(seed)
    g = rng.choice(users, size=n, p=(w := rng.lognormal(size=users)) / w.sum())
    u = rng.normal(size=users)[g]
    y = rng.random(n) < 1 / (1 + np.exp(-u))
    a = u + y + rng.normal(size=n) + rng.normal(size=users)[g]
    b = u + y + rng.normal(size=n) + rng.normal(size=users)[g]
    return y, a, b, g


def _widened(est, low, high, f, bounds):
    c = min(max(est, low), high)
    return max(bounds[0], c - f * (c - low)), min(bounds[1], c + f * (high - c))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_bootstrap_intervals_are_the_percentile_ones_widened(seed):
    y, a, b, g = _clustered(seed)
    common = dict(n_resamples=300, seed=seed, thresholds=[0.5, 0.5], groups=g)
    brier = {"brier": [(1 / (1 + np.exp(-a)) - y) ** 2, (1 / (1 + np.exp(-b)) - y) ** 2]}
    fixed = fast_paired_bootstrap(y, a, b, row_means=brier, **common)
    plain = fast_paired_bootstrap(y, a, b, row_means=brier, small_groups=False, **common)
    assert plain.small_groups is None
    pos, neg = (np.bincount(g[c], minlength=g.max() + 1) for c in (y, ~y))
    assert fixed.small_groups.factor == pytest.approx(_factor(pos, 0.05, neg), rel=1e-10)
    f = fixed.small_groups.factor
    assert f > 1.05  # about 10 effective users of 25
    for name, res in fixed.results.items():
        reps = plain.results[name].replicates
        assert np.array_equal(res.replicates, reps, equal_nan=True)
        assert res.small_groups is fixed.small_groups
        if name == "brier":
            losses = np.column_stack(brier["brier"])
            bounds = [(losses[:, k].min(), losses[:, k].max()) for k in range(2)]
        else:
            bounds = [(0.0, 1.0)] * 2
        for k, iv in enumerate(res.models):
            finite = reps[:, k][np.isfinite(reps[:, k])]
            low, high = np.quantile(finite, [0.025, 0.975])
            assert (
                plain.results[name].models[k].ci_low,
                plain.results[name].models[k].ci_high,
            ) == (
                low,
                high,
            )
            want = _widened(iv.estimate, low, high, f, bounds[k])
            assert (iv.ci_low, iv.ci_high) == pytest.approx(want, rel=1e-12, abs=1e-15)
            assert iv.ci_low <= low
            assert iv.ci_high >= high
        d = reps[:, 0] - reps[:, 1]
        low, high = np.quantile(d[np.isfinite(d)], [0.025, 0.975])
        limits = (bounds[0][0] - bounds[1][1], bounds[0][1] - bounds[1][0])
        want = _widened(res.differences[(0, 1)].estimate, low, high, f, limits)
        got = res.differences[(0, 1)]
        assert (got.ci_low, got.ci_high) == pytest.approx(want, rel=1e-12, abs=1e-15)


@SETTINGS
@given(binary_tables(max_size=60, max_models=3), st.sampled_from(["poisson", "multinomial"]))
def test_without_groups_the_flag_changes_nothing(t, counts):
    runs = [
        _quiet(
            fast_paired_bootstrap, t.y, *t.scores, n_resamples=30, seed=5, counts=counts,
            thresholds=[0.0] * len(t.scores), small_groups=flag,
        )
        for flag in (True, False)
    ]  # fmt: skip
    assert runs[0].small_groups is None
    assert runs[1].small_groups is None
    for name, res in runs[0].results.items():
        other = runs[1].results[name]
        assert res.models == other.models
        assert res.differences == other.differences
        for k, iv in enumerate(res.models):  # and they are the plain percentile intervals
            want = _percentile_interval(iv.estimate, res.replicates[:, k], 0.05)
            assert iv == want


@SETTINGS
@given(binary_tables(max_size=60, max_models=2, groups=True))
def test_group_intervals_contain_the_plain_ones_and_stay_in_range(t):
    common = dict(n_resamples=40, seed=1, groups=t.groups, thresholds=[0.0] * len(t.scores))
    fixed = _quiet(fast_paired_bootstrap, t.y, *t.scores, **common)
    plain = _quiet(fast_paired_bootstrap, t.y, *t.scores, small_groups=False, **common)
    for name, res in fixed.results.items():
        pairs = [*zip(res.models, plain.results[name].models, strict=True)]
        pairs += [(res.differences[k], plain.results[name].differences[k]) for k in res.differences]
        for got, was in pairs:
            if math.isnan(was.ci_low):
                assert math.isnan(got.ci_low)
                continue
            assert got.ci_low <= was.ci_low
            assert got.ci_high >= was.ci_high
            assert -1.0 <= got.ci_low <= got.ci_high <= 1.0


def test_p_value_agrees_with_the_corrected_intervals():
    y, a, b, g = _clustered(3)
    fb = fast_paired_bootstrap(y, a, b, n_resamples=400, seed=3, groups=g, thresholds=[0.5] * 2)
    for name in ("roc_auc", "average_precision", "f1"):
        res = fb.results[name]
        d = res.replicates[:, 0] - res.replicates[:, 1]
        est = res.differences[(0, 1)].estimate
        p = res.small_groups.p_value(est, d)
        assert p >= bootstrap_p_value(d)  # wider intervals, larger p-values
        for alpha in (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
            low, high = np.quantile(d, [alpha / 2, 1 - alpha / 2])
            low, high = res.small_groups.widen(est, low, high, alpha=alpha)
            excludes = low > 0 or high < 0
            if abs(p - alpha) > 1e-9:
                assert excludes == (p < alpha), (name, alpha, p)
        # At the bootstrap's own alpha the widened interval is the one reported.
        low, high = np.quantile(d, [0.025, 0.975])
        want = res.small_groups.widen(est, low, high, bounds=(-1.0, 1.0))
        assert (res.differences[(0, 1)].ci_low, res.differences[(0, 1)].ci_high) == want


def test_the_results_p_value_is_the_one_its_intervals_agree_with():
    """What Compare, the GAUC page and the server's Compare show beside a difference."""
    y, a, b, g = _clustered(4)
    grouped = fast_paired_bootstrap(y, a, b, n_resamples=300, seed=4, groups=g)
    rows = fast_paired_bootstrap(y, a, b, n_resamples=300, seed=4)
    for name in ("roc_auc", "average_precision"):
        res = grouped.results[name]
        d = res.replicates[:, 0] - res.replicates[:, 1]
        want = res.small_groups.p_value(res.differences[(0, 1)].estimate, d)
        assert res.difference_p_value(0, 1) == want
        plain = rows.results[name]
        assert plain.small_groups is None
        d = plain.replicates[:, 0] - plain.replicates[:, 1]
        assert plain.difference_p_value(0, 1) == bootstrap_p_value(d)
    rng = np.random.default_rng(4)  # per-user values of two models (a GAUC's per-user AUCs)
    per_user = rng.random((30, 2))
    gauc = metrics.cluster_bootstrap(per_user, rng.integers(1, 50, 30), n_resamples=200, seed=4)
    d = gauc.replicates[:, 0] - gauc.replicates[:, 1]
    assert gauc.difference_p_value(0, 1) == gauc.small_groups.p_value(
        gauc.differences[(0, 1)].estimate, d
    )


def test_p_value_of_a_difference_every_resample_agrees_on():
    """The search reaches alphas where 1 - alpha / 2 rounds to 1 (a GAUC page raised there)."""
    correction = metrics.small_groups_correction(np.full(40, 25.0))
    d = np.linspace(0.05, 0.15, 500)  # every replicate above 0
    p = correction.p_value(0.1, d)
    assert 0 < p < 1e-6
    assert correction.factor_at(1e-30) == correction.factor_at(1e-12)


def test_band_is_widened_around_the_pointwise_median():
    y, a, b, g = _clustered(5)
    grid = np.linspace(0, 1, 11)
    fixed = fast_paired_bootstrap(y, a, b, n_resamples=200, groups=g, roc_grid=grid)
    plain = fast_paired_bootstrap(y, a, b, n_resamples=200, groups=g, roc_grid=grid,
                                  small_groups=False)  # fmt: skip
    curves = fixed.roc_curves[0]
    low, high = plain.band(curves)
    mid = np.median(curves, axis=0)
    f = fixed.small_groups.factor
    got_low, got_high = fixed.band(curves)
    np.testing.assert_allclose(got_low, np.maximum(mid - f * (mid - low), curves.min()))
    np.testing.assert_allclose(got_high, np.minimum(mid + f * (high - mid), curves.max()))
    assert np.all(got_low <= low)
    assert np.all(got_high >= high)


def test_cluster_bootstrap_widens_by_each_models_effective_groups():
    rng = np.random.default_rng(8)
    values = rng.random((30, 2))
    values[3, 1] = np.nan  # undefined for model 1: left out of its effective groups
    weights = rng.lognormal(size=30)
    fixed = cluster_bootstrap(values, weights, n_resamples=300, seed=4)
    plain = cluster_bootstrap(values, weights, n_resamples=300, seed=4, small_groups=False)
    assert plain.small_groups is None
    assert np.array_equal(fixed.replicates, plain.replicates)
    factors = [_factor(weights), _factor(np.delete(weights, 3))]
    assert fixed.small_groups.factor == pytest.approx(max(factors), rel=1e-10)
    for k in range(2):
        iv, was = fixed.models[k], plain.models[k]
        ok = np.isfinite(values[:, k])
        bounds = (values[ok, k].min(), values[ok, k].max())
        want = _widened(iv.estimate, was.ci_low, was.ci_high, factors[k], bounds)
        assert (iv.ci_low, iv.ci_high) == pytest.approx(want, rel=1e-12)


# --- Obuchowski with a t reference --------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_clustered_auc_small_sample_uses_t_with_kish_degrees(seed):
    y, a, b, g = _clustered(seed, n=400, users=15)
    normal = clustered_auc_test(y, a, b, groups=g)
    t = clustered_auc_test(y, a, b, groups=g, small_sample=True)
    assert normal.df is None
    pos, neg = (np.bincount(g[c]) for c in (y, ~y))
    df = min(_kish(pos), _kish(neg)) - 1
    assert t.df == pytest.approx(df, rel=1e-12)
    q = stats.t.ppf(0.975, df)
    for field in ("auc_a", "std_error_a", "auc_b", "std_error_b", "difference", "std_error", "z"):
        assert getattr(t, field) == getattr(normal, field)
    assert t.ci_low_a == pytest.approx(max(0, t.auc_a - q * t.std_error_a), rel=1e-12)
    assert t.ci_high_a == pytest.approx(min(1, t.auc_a + q * t.std_error_a), rel=1e-12)
    assert t.ci_low_b == pytest.approx(max(0, t.auc_b - q * t.std_error_b), rel=1e-12)
    assert t.ci_low == pytest.approx(t.difference - q * t.std_error, rel=1e-12)
    assert t.ci_high == pytest.approx(t.difference + q * t.std_error, rel=1e-12)
    assert t.p_value == pytest.approx(2 * stats.t.sf(abs(t.z), df), rel=1e-10)
    assert t.p_value > normal.p_value


def test_clustered_auc_small_sample_with_equal_balanced_clusters_is_g_minus_1():
    g = np.repeat(np.arange(10), 8)
    rng = np.random.default_rng(0)
    y = np.tile([True, False], 40)  # every cluster 4 positives and 4 negatives
    r = clustered_auc_test(y, rng.normal(size=80) + y, groups=g, small_sample=True)
    assert r.df == 9.0
    q = stats.t.ppf(0.975, 9)
    assert r.ci_high_a == pytest.approx(min(1, r.auc_a + q * r.std_error_a), rel=1e-12)
