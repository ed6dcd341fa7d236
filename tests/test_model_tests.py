"""Friedman/Nemenyi, McNemar and the power of DeLong's test against scipy (test-only oracle),
Demšar's table, and a seeded simulation."""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from metrics import delong_test
from metrics.model_tests import (
    _chi2_sf,
    _f_sf,
    auc_difference_power,
    auc_min_detectable_difference,
    friedman_test,
    iman_davenport_test,
    mcnemar_test,
    studentized_range_cdf,
    studentized_range_quantile,
)
from tests.strategies import examples

SETTINGS = settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def tables(draw):
    n = draw(st.integers(2, 12))
    k = draw(st.integers(3, 7))
    kind = draw(st.sampled_from(["continuous", "ties", "few values"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.normal(size=(n, k)) + rng.normal(size=k)
    if kind == "ties":
        t = np.round(t)
    elif kind == "few values":
        t = rng.integers(0, 2, size=(n, k)).astype(float)
        t[0] = np.arange(k)  # not every block one big tie
    return t


@SETTINGS
@given(tables(), st.booleans())
@example(np.array([[-0.0, -0.0, 0.0], [1.0, 1.0, 1.0]]), False)  # every block tied (CI found it)
def test_friedman_equals_scipy(t, higher):
    r = friedman_test(t, higher_is_better=higher)
    theirs = ss.friedmanchisquare(*t.T)
    # Undefined (NaN, as scipy's) exactly when every block ties every model.
    assert math.isnan(r.statistic) == bool(np.all(t == t[:, :1]))
    assert r.statistic == pytest.approx(theirs.statistic, rel=1e-10, abs=1e-12, nan_ok=True)
    assert r.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-14, nan_ok=True)
    ranks = ss.rankdata(-t if higher else t, axis=1)
    np.testing.assert_allclose(r.average_ranks, ranks.mean(axis=0), atol=1e-12)
    assert r.average_ranks.sum() == pytest.approx(t.shape[1] * (t.shape[1] + 1) / 2)
    n, k = t.shape
    q = ss.studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2)
    assert r.critical_difference == pytest.approx(q * math.sqrt(k * (k + 1) / (6 * n)), rel=1e-8)
    se = math.sqrt(k * (k + 1) / (6 * n))
    d = abs(r.average_ranks[0] - r.average_ranks[1])
    want = ss.studentized_range.sf(math.sqrt(2) * d / se, k, np.inf)
    assert r.pairwise_p_values[0, 1] == pytest.approx(want, abs=1e-8)


def test_friedman_rank_direction_and_degenerate():
    t = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.6], [0.7, 0.75, 0.5], [0.9, 0.7, 0.8]]
    assert friedman_test(t).average_ranks.tolist() == [1.25, 2.0, 2.75]
    assert friedman_test(t, higher_is_better=False).average_ranks.tolist() == [2.75, 2.0, 1.25]
    with pytest.warns(UserWarning, match="ties every model"):
        r = friedman_test([[1, 1, 1], [2, 2, 2]])
    assert math.isnan(r.statistic)
    with pytest.raises(ValueError, match="block 1, model 2"):
        friedman_test([[1, 2, 3], [1, 2, np.nan]])
    with pytest.raises(ValueError, match="at least 2 blocks"):
        friedman_test([[1, 2, 3]])


# Demšar (2006), Table 5(a): q_0.05 and q_0.10 for 2..10 classifiers.
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("k", range(2, 11))
def test_q_alpha_against_demsar_and_scipy(k):
    for alpha, table in ((0.05, DEMSAR_Q05), (0.10, DEMSAR_Q10)):
        q = studentized_range_quantile(1 - alpha, k)
        assert q / math.sqrt(2) == pytest.approx(table[k - 2], abs=1e-3)
        assert q == pytest.approx(ss.studentized_range.ppf(1 - alpha, k, np.inf), abs=1e-8)
    for x in (0.5, 1.0, 2.5, 4.0, 6.0):
        assert studentized_range_cdf(x, k) == pytest.approx(
            ss.studentized_range.cdf(x, k, np.inf), abs=1e-10
        )


@pytest.mark.parametrize("df", range(1, 16))
def test_chi2_tail_against_scipy(df):
    for x in (0.0, 0.01, 0.5, 1.0, 3.84, 10.0, 40.0, 120.0):
        assert _chi2_sf(x, df) == pytest.approx(ss.chi2.sf(x, df), rel=1e-10, abs=1e-300)


@SETTINGS
@given(st.integers(0, 400), st.integers(0, 400), st.integers(0, 50))
def test_mcnemar_against_scipy_binomtest(b, c, agree):
    rows = (
        [(1, 1, 0)] * b  # truth 1: a right, b wrong
        + [(0, 1, 0)] * c  # truth 0: a wrong, b right
        + [(1, 1, 1)] * agree
    )
    if not rows:
        rows = [(1, 1, 1)]
    y, pa, pb = (np.array(v) for v in zip(*rows, strict=True))
    r = mcnemar_test(y, pa, pb)
    assert (r.only_a_right, r.only_b_right) == (b, c)
    want = 1.0 if b + c == 0 else ss.binomtest(b, b + c, 0.5).pvalue
    assert r.p_value == pytest.approx(want, rel=1e-9, abs=1e-300)
    r = mcnemar_test(y, pa, pb, exact=False)
    if b + c:
        stat = max(abs(b - c) - 1, 0) ** 2 / (b + c)
        assert r.statistic == pytest.approx(stat)
        assert r.p_value == pytest.approx(ss.chi2.sf(stat, 1), rel=1e-10, abs=1e-300)
    else:
        assert r.p_value == 1.0


def test_mcnemar_labels_and_errors():
    r = mcnemar_test(["x", "y", "x"], ["x", "y", "y"], ["y", "y", "x"])
    assert (r.only_a_right, r.only_b_right) == (1, 1)
    with pytest.raises(ValueError, match="same length"):
        mcnemar_test([1, 0], [1], [0, 1])


# --- power ------------------------------------------------------------------------------------

_N = NormalDist()


def _draw(rng, n_pos, n_neg, mu_a, mu_b, rho):
    """Binormal scores: AUC_a = Phi(mu_a / sqrt 2), AUC_b likewise, correlated rows."""
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    z1 = rng.normal(size=y.size)
    z2 = rho * z1 + math.sqrt(1 - rho**2) * rng.normal(size=y.size)
    return y, z1 + mu_a * y, z2 + mu_b * y


def _rejections(rng, n, mu_a, mu_b, rho, reps=400):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.mean(
            [delong_test(*_draw(rng, n, n, mu_a, mu_b, rho)).p_value < 0.05 for _ in range(reps)]
        )


def test_power_against_simulation():
    """A pilot of 5,000 + 5,000 rows gives the variance structure; scaled to 80 and 120 rows a
    class, the predicted power of a true difference matches how often DeLong's test rejects
    on 400 simulated tables of that size (binomial SE about 0.025); and at the minimum
    detectable difference for 80%, the simulated power is about 80%."""
    rng = np.random.default_rng(0)
    mu_a, mu_b, rho = 1.2, 0.9, 0.6
    d = _N.cdf(mu_a / math.sqrt(2)) - _N.cdf(mu_b / math.sqrt(2))
    y, a, b = _draw(rng, 5000, 5000, mu_a, mu_b, rho)
    for n in (80, 120):
        predicted = auc_difference_power(y, a, b, d, n_pos=n, n_neg=n)
        assert 0.3 < predicted < 0.8
        assert _rejections(rng, n, mu_a, mu_b, rho) == pytest.approx(predicted, abs=0.07)
    mdd = auc_min_detectable_difference(y, a, b, n_pos=120, n_neg=120)
    mu_b_at_mdd = math.sqrt(2) * _N.inv_cdf(_N.cdf(mu_a / math.sqrt(2)) - mdd)
    assert _rejections(rng, 120, mu_a, mu_b_at_mdd, rho) == pytest.approx(0.8, abs=0.07)


def test_power_formula_properties():
    rng = np.random.default_rng(1)
    y, a, b = _draw(rng, 300, 200, 1.0, 0.8, 0.5)
    assert auc_difference_power(y, a, b, 0.0) == pytest.approx(0.05)
    mdd = auc_min_detectable_difference(y, a, b)
    assert auc_difference_power(y, a, b, mdd) == pytest.approx(0.8, abs=1e-9)
    assert auc_difference_power(y, a, b, -mdd) == pytest.approx(0.8, abs=1e-9)
    # the variance scales as 1/n: four times the rows halve the detectable difference
    assert auc_min_detectable_difference(y, a, b, n_pos=1200, n_neg=800) == pytest.approx(
        mdd / 2, rel=1e-9
    )
    # same variance as DeLong's test on these rows
    r = delong_test(y, a, b)
    z = _N.inv_cdf(0.975)
    want = _N.cdf(0.02 / r.std_error - z) + _N.cdf(-0.02 / r.std_error - z)
    assert auc_difference_power(y, a, b, 0.02) == pytest.approx(want, rel=1e-9)
    with pytest.raises(ValueError, match="at least 2 of each"):
        auc_difference_power([0, 1, 1], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1], 0.1)
    with pytest.raises(ValueError, match="n_pos must be"):
        auc_difference_power(y, a, b, 0.1, n_pos=1)


@SETTINGS
@given(tables())
def test_iman_davenport_against_its_formula_and_scipy_f(t):
    n, k = t.shape
    chi2 = ss.friedmanchisquare(*t.T).statistic
    r = iman_davenport_test(t)
    assert (r.df_numerator, r.df_denominator) == (k - 1, (k - 1) * (n - 1))
    if n * (k - 1) - chi2 < 1e-9:  # every block ranks the models alike
        assert r.statistic == math.inf
        assert r.p_value == 0.0
        return
    want = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert r.statistic == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert r.p_value == pytest.approx(ss.f.sf(want, k - 1, (k - 1) * (n - 1)), rel=1e-8, abs=1e-13)


@pytest.mark.parametrize("df1", [1, 2, 3, 7, 30])
@pytest.mark.parametrize("df2", [1, 2, 5, 40, 1000])
def test_f_tail_against_scipy(df1, df2):
    for x in (0.0, 1e-4, 0.3, 1.0, 2.5, 9.0, 60.0, 1e4):
        assert _f_sf(x, df1, df2) == pytest.approx(ss.f.sf(x, df1, df2), rel=1e-9, abs=1e-15)


def test_iman_davenport_degenerate_cases():
    perfect = iman_davenport_test([[3, 2, 1], [3, 2, 1], [3, 2, 1]])
    assert perfect.statistic == math.inf
    assert perfect.p_value == 0.0
    with pytest.warns(UserWarning, match="ties every model"):
        tied = iman_davenport_test([[1, 1, 1], [2, 2, 2]])
    assert math.isnan(tied.statistic)
    assert math.isnan(tied.p_value)
