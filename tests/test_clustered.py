"""Obuchowski's clustered-data AUC variance against a slow O(n²) reference and against DeLong.

The reference follows the paper's definitions literally: the kernel psi over every
positive-negative pair, each row's structural component as a mean of psi, per-cluster sums,
then S10, S01, S11 and the variance (Obuchowski 1997, Biometrics 53, 567-578).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import UndefinedMetricWarning, clustered_auc_test, delong_test, roc_auc_ci
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _slow_components(y, s, groups):
    """Per cluster: (m_i, n_i, sum of V10 over its positives, sum of V01 over its negatives)."""
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])  # O(M N)
    v10 = psi.mean(axis=1)  # per positive: share of negatives it outscores
    v01 = psi.mean(axis=0)  # per negative: share of positives outscoring it
    theta = psi.mean()
    ids = sorted(set(groups.tolist()))
    m, n, x_sum, y_sum = [], [], [], []
    for g in ids:
        pos = groups[y] == g
        neg = groups[~y] == g
        m.append(pos.sum())
        n.append(neg.sum())
        x_sum.append(v10[pos].sum())
        y_sum.append(v01[neg].sum())
    return theta, np.array(m), np.array(n), np.array(x_sum), np.array(y_sum)


def _slow_cov(y, s1, s2, groups):
    """Obuchowski's covariance of two AUCs (their variance when s1 is s2)."""
    t1, m, n, x1, y1 = _slow_components(y, s1, groups)
    t2, _, _, x2, y2 = _slow_components(y, s2, groups)
    big_i, i10, i01 = m.size, np.count_nonzero(m), np.count_nonzero(n)
    big_m, big_n = m.sum(), n.sum()
    s10 = i10 / ((i10 - 1) * big_m) * np.sum((x1 - m * t1) * (x2 - m * t2))
    s01 = i01 / ((i01 - 1) * big_n) * np.sum((y1 - n * t1) * (y2 - n * t2))
    s11_12 = big_i / (big_i - 1) * np.sum((x1 - m * t1) * (y2 - n * t2))
    s11_21 = big_i / (big_i - 1) * np.sum((x2 - m * t2) * (y1 - n * t1))
    return s10 / big_m + s01 / big_n + (s11_12 + s11_21) / (big_m * big_n)


def _defined(t) -> bool:
    g_pos = np.unique(t.groups[t.y]).size
    g_neg = np.unique(t.groups[~t.y]).size
    return g_pos >= 2 and g_neg >= 2


@SETTINGS
@given(binary_tables(max_models=2, groups=True))
def test_one_model_equals_the_slow_reference(t):
    r = _quiet(clustered_auc_test, t.y, t.scores[0], groups=t.groups)
    theta, *_ = _slow_components(t.y, t.scores[0], t.groups)
    assert r.auc_a == pytest.approx(theta, rel=1e-12)
    if not _defined(t):
        assert math.isnan(r.std_error_a)
        return
    variance = max(0.0, _slow_cov(t.y, t.scores[0], t.scores[0], t.groups))
    assert r.std_error_a == pytest.approx(math.sqrt(variance), rel=1e-9, abs=1e-12)
    z = 1.959963984540054 * r.std_error_a
    assert r.ci_low_a == pytest.approx(max(0.0, r.auc_a - z), abs=1e-12)
    assert r.ci_high_a == pytest.approx(min(1.0, r.auc_a + z), abs=1e-12)


@SETTINGS
@given(binary_tables(max_models=2, groups=True), st.data())
def test_two_models_equal_the_slow_reference(t, data):
    a = t.scores[0]
    b = t.scores[-1] if len(t.scores) > 1 else data.draw(st.sampled_from([a, a[::-1].copy()]))
    _check_two_models(t, a, b)


def _check_two_models(t, a, b) -> None:
    r = _quiet(clustered_auc_test, t.y, a, b, groups=t.groups)
    if not _defined(t):
        assert math.isnan(r.std_error)
        assert math.isnan(r.p_value)
        return
    var_a = _slow_cov(t.y, a, a, t.groups)
    var_b = _slow_cov(t.y, b, b, t.groups)
    var_diff = var_a + var_b - 2 * _slow_cov(t.y, a, b, t.groups)
    # Variances compared, not their roots: a variance that is 0 comes out of the slow sums as
    # a rounding residue near 1e-18, whose root (1e-9) is no error of the fast code.
    assert r.std_error_a**2 == pytest.approx(max(0, var_a), rel=1e-9, abs=1e-15)
    assert r.std_error_b**2 == pytest.approx(max(0, var_b), rel=1e-9, abs=1e-15)
    assert r.std_error == pytest.approx(math.sqrt(max(0, var_diff)), rel=1e-9, abs=1e-9)
    assert r.difference == pytest.approx(r.auc_a - r.auc_b, abs=1e-15)
    if r.std_error > 1e-9:
        assert r.z == pytest.approx(r.difference / r.std_error, rel=1e-12)
        p = math.erfc(abs(r.z) / math.sqrt(2))
        assert r.p_value == pytest.approx(p, rel=1e-9, abs=1e-15)


def test_a_zero_variance_is_no_error_against_the_slow_sums():
    # Found by a generated run: model b is model a reversed, its variance 0 exactly, the slow
    # reference's 3.5e-18.
    class T:
        y = np.array([0, 1, 0, 1, 1, 1, 0, 0, 1, 0], dtype=bool)
        groups = np.array([0, 0, 1, 0, 1, 0, 0, 0, 1, 0])

    a = np.array([-1.3, -0.5, 0.8, -0.5, -1.8, -0.5, 1.3, 1.1, -1.5, -1.2])
    _check_two_models(T, a, a[::-1].copy())


@SETTINGS
@given(binary_tables(max_models=2))
def test_groups_of_one_row_are_delong_exactly(t):
    a = t.scores[0]
    b = t.scores[-1]
    singletons = np.arange(t.y.size)
    one = _quiet(clustered_auc_test, t.y, a, groups=singletons)
    ci = _quiet(roc_auc_ci, t.y, a)
    pair = _quiet(clustered_auc_test, t.y, a, b, groups=singletons)
    dl = _quiet(delong_test, t.y, a, b)
    got = [one.auc_a, one.std_error_a, one.ci_low_a, one.ci_high_a]
    want = [ci.auc, ci.std_error, ci.ci_low, ci.ci_high]
    got += [pair.auc_a, pair.auc_b, pair.difference, pair.std_error, pair.std_error_a]
    want += [dl.auc_a, dl.auc_b, dl.difference, dl.std_error, dl.std_error_a]
    got += [pair.std_error_b, pair.ci_low, pair.ci_high, pair.p_value, pair.correlation]
    want += [dl.std_error_b, dl.ci_low, dl.ci_high, dl.p_value, dl.correlation]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)
    if math.isfinite(dl.z) and abs(dl.z) < 1e6:
        assert pair.z == pytest.approx(dl.z, rel=1e-9, abs=1e-12)


def test_a_strong_cluster_effect_widens_the_interval():
    # 40 users, each with a shared shift of both the label's odds and the score: rows of one
    # user move together, so the clustered standard error exceeds DeLong's row-level one.
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(40), 25)
    effect = rng.normal(size=40)[users] * 2
    y = rng.random(users.size) < 1 / (1 + np.exp(-effect))
    s = effect + rng.normal(size=users.size) + 0.5 * y
    r = clustered_auc_test(y, s, groups=users)
    assert r.std_error_a > 1.5 * roc_auc_ci(y, s).std_error


def test_relabelled_and_shuffled_groups_give_the_same_result():
    rng = np.random.default_rng(1)
    g = rng.integers(0, 12, 200)
    y = rng.random(200) < 0.3
    a, b = rng.normal(size=200) + y, np.round(rng.normal(size=200) + 0.5 * y, 1)
    r = clustered_auc_test(y, a, b, groups=g)
    order = rng.permutation(200)
    names = np.array([f"user-{i}" for i in range(12)])[::-1]
    r2 = clustered_auc_test(y[order], a[order], b[order], groups=names[g][order])
    for field in ("auc_a", "std_error_a", "std_error_b", "std_error", "p_value", "correlation"):
        assert getattr(r2, field) == pytest.approx(getattr(r, field), rel=1e-12)


def test_identical_models_have_no_difference():
    rng = np.random.default_rng(2)
    g = rng.integers(0, 9, 90)
    y = rng.random(90) < 0.5
    s = rng.normal(size=90) + y
    r = clustered_auc_test(y, s, s.copy(), groups=g)
    assert (r.difference, r.std_error, r.z, r.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert r.n_groups == np.unique(g).size


def test_undefined_cases_warn_and_give_nan():
    y = np.array([0, 1, 0, 1, 0, 0])
    s = np.array([0.1, 0.9, 0.3, 0.8, 0.2, 0.4])
    with pytest.warns(UndefinedMetricWarning, match="positives are in 1 cluster"):
        r = clustered_auc_test(y, s, s[::-1], groups=[1, 1, 2, 1, 2, 3])
    assert r.auc_a == 1.0
    assert math.isnan(r.std_error_a)
    assert math.isnan(r.p_value)
    with pytest.warns(UndefinedMetricWarning, match="needs both classes"):
        r = clustered_auc_test(np.zeros(4), s[:4], groups=[1, 2, 3, 4])
    assert math.isnan(r.auc_a)
    assert r.auc_b is None


def test_bad_groups_are_refused_with_what_arrived():
    y, s = [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="one value per row \\(4 rows"):
        clustered_auc_test(y, s, groups=[1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        clustered_auc_test(y, s, groups=[1.0, np.nan, 2.0, 2.0])
    with pytest.raises(ValueError, match="cannot be compared"):
        clustered_auc_test(y, s, groups=np.array([1, "a", 2, "b"], dtype=object))
    with pytest.raises(ValueError, match="same length"):
        clustered_auc_test(y, s, [0.1], groups=[1, 2, 3, 4])
