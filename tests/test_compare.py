"""DeLong's test and the paired bootstrap against slow references, scipy and scikit-learn."""

from __future__ import annotations

import functools
import itertools
import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics.compare as compare
from metrics._validation import UndefinedMetricWarning
from metrics.areas import average_precision_score, roc_auc_score
from metrics.compare import delong_test, paired_bootstrap, roc_auc_ci
from tests.strategies import examples

# --- slow, obviously correct references ------------------------------------------------------


def psi(x, y):
    """The Mann-Whitney kernel: 1 if the positive outscores the negative, 1/2 on a tie."""
    return 1.0 if x > y else 0.5 if x == y else 0.0


def ref_placements(y, s):
    """V10_i = mean_j psi(X_i, Y_j) and V01_j = mean_i psi(X_i, Y_j), by explicit pair loops."""
    positives = [float(v) for v, label in zip(s, y, strict=True) if label]
    negatives = [float(v) for v, label in zip(s, y, strict=True) if not label]
    v10 = [sum(psi(x, yj) for yj in negatives) / len(negatives) for x in positives]
    v01 = [sum(psi(x, yj) for x in positives) / len(positives) for yj in negatives]
    return np.array(v10), np.array(v01)


def ref_covariance(y, *scores):
    """AUCs and DeLong's covariance matrix S = S10 / m + S01 / n, from the textbook formulas."""
    parts = [ref_placements(y, s) for s in scores]
    aucs = [v10.mean() for v10, _ in parts]
    k, m, n = len(scores), len(parts[0][0]), len(parts[0][1])
    s10 = np.zeros((k, k))
    s01 = np.zeros((k, k))
    for r, q in itertools.product(range(k), repeat=2):
        s10[r, q] = sum(
            (parts[r][0][i] - aucs[r]) * (parts[q][0][i] - aucs[q]) for i in range(m)
        ) / (m - 1)
        s01[r, q] = sum(
            (parts[r][1][j] - aucs[r]) * (parts[q][1][j] - aucs[q]) for j in range(n)
        ) / (n - 1)
    return aucs, s10 / m + s01 / n


def ref_delong(y, a, b):
    """DeLong's z and two-sided p-value for AUC(a) - AUC(b), from the textbook covariance."""
    (auc_a, auc_b), cov = ref_covariance(y, a, b)
    variance = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    return auc_a, auc_b, cov, max(variance, 0.0)


def midranks_by_loop(values):
    """1-based average rank of each value among ``values``, by comparing every pair."""
    values = list(values)
    return np.array(
        [
            sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) + 1) / 2
            for v in values
        ]
    )


def sun_xu(y, scores, rankdata):
    """Sun & Xu (2014) as written in the paper: midranks over positives, negatives and all rows."""
    y = np.asarray(y, dtype=bool)
    m, n = y.sum(), (~y).sum()
    v10, v01, aucs = [], [], []
    for s in scores:
        s = np.asarray(s, dtype=float)
        tx, ty, tz = rankdata(s[y]), rankdata(s[~y]), rankdata(s)
        aucs.append((tz[y].sum() - m * (m + 1) / 2) / (m * n))
        v10.append((tz[y] - tx) / n)
        v01.append(1 - (tz[~y] - ty) / m)
    cov = np.cov(np.array(v10)) / m + np.cov(np.array(v01)) / n
    return np.array(aucs), cov


def random_problem(rng, n=None):
    """Labels with at least 2 of each class and two heavily tied, correlated scores."""
    n = n or int(rng.integers(4, 50))
    y = rng.random(n) < rng.uniform(0.2, 0.8)
    y[:4] = [True, True, False, False]
    rng.shuffle(y)
    shared = rng.normal(size=n) + y * rng.uniform(0, 2)
    a = shared + rng.normal(size=n) * rng.uniform(0, 1)
    b = shared + rng.normal(size=n) * rng.uniform(0, 1)
    kind = rng.integers(0, 5)
    if kind == 0:  # a few distinct values
        a, b = np.round(a), np.round(b)
    elif kind == 1:  # one decimal
        a, b = np.round(a, 1), np.round(b, 1)
    elif kind == 2:  # integer codes, b often equal to a
        a = rng.integers(0, 4, n).astype(float)
        b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    elif kind == 3:  # scores a few units in the last place apart
        a = 1 + np.round(a) * np.finfo(float).eps
        b = np.round(b, 1)
    return y.astype(int), a, b


def assert_close(actual, expected, tol=1e-10):
    if math.isnan(expected) or math.isinf(expected):
        assert actual == expected or (math.isnan(actual) and math.isnan(expected))
    else:
        assert actual == pytest.approx(expected, abs=tol)


# --- DeLong against the references -----------------------------------------------------------


@pytest.mark.parametrize("seed", range(300))
def test_delong_matches_pair_counting_reference(seed):
    rng = np.random.default_rng(seed)
    y, a, b = random_problem(rng)
    auc_a, auc_b, cov, variance = ref_delong(y, a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division or degenerate-input warnings
        result = delong_test(y, a, b, alpha=0.1)
    assert result.auc_a == pytest.approx(auc_a, abs=1e-12)
    assert result.auc_b == pytest.approx(auc_b, abs=1e-12)
    assert result.difference == pytest.approx(auc_a - auc_b, abs=1e-12)
    assert result.std_error == pytest.approx(math.sqrt(variance), abs=1e-10)
    assert result.std_error_a == pytest.approx(math.sqrt(cov[0, 0]), abs=1e-10)
    assert result.std_error_b == pytest.approx(math.sqrt(cov[1, 1]), abs=1e-10)
    if cov[0, 0] > 1e-12 and cov[1, 1] > 1e-12:
        expected_corr = cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1])
        assert result.correlation == pytest.approx(expected_corr, abs=1e-8)
    if variance > 1e-12:
        z = (auc_a - auc_b) / math.sqrt(variance)
        assert result.z == pytest.approx(z, abs=1e-8)
        assert result.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), abs=1e-10)
        half = 1.6448536269514722 * math.sqrt(variance)  # z_{0.95}
        assert result.ci_low == pytest.approx(max(-1, auc_a - auc_b - half), abs=1e-10)
        assert result.ci_high == pytest.approx(min(1, auc_a - auc_b + half), abs=1e-10)
    else:  # with under 50 rows a non-zero variance is far above 1e-12: it is exactly zero
        assert result.std_error == 0
        assert (result.ci_low, result.ci_high) == (result.difference, result.difference)
        if result.difference == 0:
            assert (result.z, result.p_value) == (0, 1)
        else:
            assert (abs(result.z), result.p_value) == (math.inf, 0)
    assert (result.n_pos, result.n_neg) == (sum(y), len(y) - sum(y))


@pytest.mark.parametrize("seed", range(100))
def test_roc_auc_ci_matches_pair_counting_reference(seed):
    rng = np.random.default_rng(5000 + seed)
    y, a, _ = random_problem(rng)
    (auc,), cov = ref_covariance(y, a)
    result = roc_auc_ci(y, a, alpha=0.05)
    assert result.auc == pytest.approx(auc, abs=1e-12)
    assert result.std_error == pytest.approx(math.sqrt(cov[0, 0]), abs=1e-10)
    half = 1.959963984540054 * math.sqrt(cov[0, 0])
    assert result.ci_low == pytest.approx(max(0, auc - half), abs=1e-10)
    assert result.ci_high == pytest.approx(min(1, auc + half), abs=1e-10)


@pytest.mark.parametrize("seed", range(100))
def test_placements_match_pair_counting_for_three_models(seed):
    rng = np.random.default_rng(9000 + seed)
    y, a, b = random_problem(rng)
    c = np.round(a - b, 1)
    aucs, cov = ref_covariance(y, a, b, c)
    placements = compare._placements(y.astype(bool), [a, b, c])
    assert placements.aucs() == pytest.approx(aucs, abs=1e-12)
    for i, j in itertools.combinations(range(3), 2):
        expected = cov[i, i] + cov[j, j] - 2 * cov[i, j]
        assert placements.variance(i, j) == pytest.approx(expected, abs=1e-10)
    for i in range(3):
        assert placements.variance(i) == pytest.approx(cov[i, i], abs=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_midrank_identity_behind_the_single_sort(seed):
    """T_Z - T_X of Sun & Xu, from explicit midranks, equals our placement of each positive."""
    rng = np.random.default_rng(seed)
    y, a, _ = random_problem(rng)
    y = y.astype(bool)
    tz, tx, ty = midranks_by_loop(a), midranks_by_loop(a[y]), midranks_by_loop(a[~y])
    out = np.empty(y.size, dtype=np.int64)
    compare._twice_placements(y, a, int(y.sum()), out)
    np.testing.assert_array_equal(out[y], 2 * (tz[y] - tx))
    np.testing.assert_array_equal(out[~y], 2 * (y.sum() - (tz[~y] - ty)))


@pytest.mark.parametrize("seed", range(40))
def test_aucs_equal_roc_auc_score_exactly_on_large_inputs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 20_000))
    y = rng.random(n) < rng.uniform(0.05, 0.95)
    y[:2] = [True, False]
    raw = rng.normal(size=n) + y
    a = [raw, np.round(raw, 1), np.round(raw), 1 + np.round(raw * 3) * np.finfo(float).eps][
        seed % 4
    ]
    b = rng.permutation(a) if seed % 3 else -a
    result = delong_test(y, a, b)
    assert result.auc_a == roc_auc_score(y, a)
    assert result.auc_b == roc_auc_score(y, b)
    assert result.auc_a == pytest.approx(skm.roc_auc_score(y, a), abs=1e-12)


def test_against_scipy_rankdata_and_normal_distribution():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(42)
    for _ in range(200):
        y, a, b = random_problem(rng, n=int(rng.integers(4, 300)))
        aucs, cov = sun_xu(y, [a, b], stats.rankdata)
        result = delong_test(y, a, b)
        assert [result.auc_a, result.auc_b] == pytest.approx(aucs.tolist(), abs=1e-12)
        variance = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
        assert result.std_error == pytest.approx(math.sqrt(max(variance, 0)), abs=1e-10)
        if result.std_error > 0:
            assert result.p_value == pytest.approx(2 * stats.norm.sf(abs(result.z)), abs=1e-12)
            q = stats.norm.ppf(0.975)
            assert result.ci_high == pytest.approx(
                min(1, result.difference + q * result.std_error), abs=1e-12
            )


def test_sort_rows_is_an_exact_argsort_even_for_near_ties():
    rng = np.random.default_rng(3)
    eps = np.finfo(float).eps
    specials = np.array([0.0, -0.0, -1.0, 1e-300, -1e-300, 5e-324, -5e-324, 1.0, 1 + eps, 1 - eps])
    cases = [
        rng.random(50_000),
        np.round(rng.normal(size=50_000), 2),
        1 + rng.integers(0, 6, 50_000) * eps,  # every row in one packed run, values differ
        1 + rng.permutation(5000) * eps,  # one packed run of distinct values: np.argsort
        np.concatenate([np.round(rng.random(30_000), 2), 1 + rng.integers(0, 9, 1000) * eps]),
        rng.choice(specials, 5000),
        np.array([2.5]),
    ]
    for _ in range(200):
        n = int(rng.integers(1, 400))
        cases.append(
            np.where(rng.random(n) < 0.5, rng.normal(size=n), rng.choice(specials, n))
            * rng.choice([1.0, 1e-5, 1e300])
        )
    for s in cases:
        y = rng.random(s.size) < 0.4
        order, ys, new = compare._sort_rows(y, s)
        np.testing.assert_array_equal(np.sort(order), np.arange(s.size))
        np.testing.assert_array_equal(s[order], np.sort(s))
        np.testing.assert_array_equal(ys, y[order])
        expected_new = np.concatenate(([True], s[order][1:] != s[order][:-1]))
        np.testing.assert_array_equal(new, expected_new)


def test_argsort_fallback_and_int64_placements_agree(monkeypatch):
    rng = np.random.default_rng(8)
    for _ in range(50):
        y, a, _ = random_problem(rng, n=int(rng.integers(4, 500)))
        y = y.astype(bool)
        fast32 = np.empty(y.size, dtype=np.int32)
        compare._twice_placements(y, a, int(y.sum()), fast32)
        with monkeypatch.context() as patch:
            patch.setattr(compare, "_MAX_PACKED_INDEX_BITS", 0)  # always np.argsort
            slow64 = np.empty(y.size, dtype=np.int64)
            compare._twice_placements(y, a, int(y.sum()), slow64)
        np.testing.assert_array_equal(fast32, slow64)


# --- properties -------------------------------------------------------------------------------

problems = st.integers(4, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda v: 2 <= sum(v) <= len(v) - 2),
        st.lists(st.integers(-4, 4), min_size=n, max_size=n),
        st.lists(st.integers(-4, 4), min_size=n, max_size=n),
    )
)


@settings(max_examples=examples(200), deadline=None)
@given(problems)
def test_invariances(problem):
    y, a, b = (np.array(v) for v in problem)
    a, b = a.astype(float), b.astype(float)
    base = delong_test(y, a, b)
    # Strictly increasing transforms keep every comparison, hence every placement.
    same = delong_test(y, np.exp(a / 3) * 7 - 2, b**3 + 10)
    assert same.difference == pytest.approx(base.difference, abs=1e-12)
    assert same.std_error == pytest.approx(base.std_error, abs=1e-12)
    perm = np.random.default_rng(len(y)).permutation(len(y))
    permuted = delong_test(y[perm], a[perm], b[perm])
    assert permuted.std_error == pytest.approx(base.std_error, abs=1e-12)
    assert permuted.p_value == pytest.approx(base.p_value, abs=1e-12)
    swapped = delong_test(y, b, a)
    assert swapped.difference == -base.difference
    assert swapped.std_error == pytest.approx(base.std_error, abs=1e-12)
    assert swapped.p_value == pytest.approx(base.p_value, abs=1e-12)
    flipped = roc_auc_ci(y, -a)
    assert flipped.auc == pytest.approx(1 - base.auc_a, abs=1e-12)
    assert flipped.std_error == pytest.approx(base.std_error_a, abs=1e-12)


def test_p_values_are_calibrated_under_the_null():
    """Two models with the same AUC: about alpha of the tests reject (normal approximation)."""
    rng = np.random.default_rng(11)
    rejections = 0
    trials = 400
    for _ in range(trials):
        y = rng.random(300) < 0.4
        signal = y * 1.0
        a = signal + rng.normal(size=300)
        b = signal + rng.normal(size=300)
        rejections += delong_test(y, a, b).p_value < 0.05
    assert 0.02 <= rejections / trials <= 0.09


# --- degenerate inputs ------------------------------------------------------------------------


def test_identical_scores_give_zero_difference_and_p_value_one():
    y = [0, 0, 1, 1, 0, 1]
    s = [0.1, 0.4, 0.35, 0.8, 0.4, 0.2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = delong_test(y, s, s)
    assert (result.difference, result.std_error, result.z, result.p_value) == (0, 0, 0, 1)
    assert (result.ci_low, result.ci_high) == (0, 0)
    assert result.correlation == pytest.approx(1.0)


def test_perfect_separation_by_both_models():
    y = [0, 0, 0, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = delong_test(y, [1, 2, 3, 4, 5], [0.0, 0.0, 0.1, 0.9, 0.95])
        single = roc_auc_ci(y, [1, 2, 3, 4, 5])
    assert (result.auc_a, result.auc_b, result.std_error, result.p_value) == (1, 1, 0, 1)
    assert math.isnan(result.correlation)
    assert (single.auc, single.std_error, single.ci_low, single.ci_high) == (1, 0, 1, 1)


def test_zero_variance_with_a_difference_is_an_infinite_z():
    y = [0, 0, 0, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = delong_test(y, [1, 2, 3, 4, 5], [7, 7, 7, 7, 7])
    assert (result.auc_a, result.auc_b, result.difference) == (1.0, 0.5, 0.5)
    assert result.std_error == 0
    assert result.z == math.inf
    assert result.p_value == 0.0
    assert (result.ci_low, result.ci_high) == (0.5, 0.5)
    assert delong_test(y, [7, 7, 7, 7, 7], [1, 2, 3, 4, 5]).z == -math.inf


def test_one_class_gives_nan_and_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="needs both classes"):
        result = delong_test([1, 1, 1], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    assert all(
        math.isnan(v)
        for v in (result.auc_a, result.difference, result.std_error, result.p_value, result.ci_low)
    )
    assert (result.n_pos, result.n_neg) == (3, 0)
    with pytest.warns(UndefinedMetricWarning, match="needs both classes"):
        single = roc_auc_ci([0, 0], [0.1, 0.2])
    assert math.isnan(single.auc)
    assert math.isnan(single.ci_high)


def test_a_single_positive_defines_the_aucs_but_not_the_variance():
    with pytest.warns(UndefinedMetricWarning, match="at least 2 of each"):
        result = delong_test([0, 0, 1, 0], [0.1, 0.5, 0.4, 0.2], [0.1, 0.2, 0.4, 0.5])
    assert (result.auc_a, result.auc_b) == (2 / 3, 2 / 3)
    assert result.difference == 0
    assert math.isnan(result.std_error)
    assert math.isnan(result.p_value)
    with pytest.warns(UndefinedMetricWarning, match="at least 2 of each"):
        single = roc_auc_ci([0, 0, 1, 0], [0.1, 0.5, 0.4, 0.2])
    assert single.auc == 2 / 3
    assert math.isnan(single.std_error)


def test_validation_messages():
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="y_true has 4 rows but score_b has 3"):
        delong_test(y, [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"score_a has 1 NaN value at position 2"):
        delong_test(y, [0.1, 0.2, np.nan, 0.4], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
        delong_test(y, [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], alpha=1.0)
    with pytest.raises(ValueError, match="y_true has 3 distinct values"):
        delong_test([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="y_score has 1 -inf value"):
        roc_auc_ci(y, [0.1, -np.inf, 0.3, 0.4])


def test_string_labels_and_pos_label():
    rng = np.random.default_rng(2)
    y, a, b = random_problem(rng, n=40)
    labels = np.where(y == 1, "spam", "ham")
    expected = delong_test(y, a, b)
    assert delong_test(labels, a, b) == expected  # the greater label is positive
    assert delong_test(labels, a, b, pos_label="spam") == expected
    flipped = delong_test(labels, a, b, pos_label="ham")
    assert flipped.auc_a == pytest.approx(1 - expected.auc_a, abs=1e-12)
    assert flipped.std_error == pytest.approx(expected.std_error, abs=1e-12)


# --- paired bootstrap -------------------------------------------------------------------------


def weighted_mean(y_true, score, sample_weight=None):
    return float(np.average(score, weights=sample_weight))


def bootstrap_problem(seed, n=300):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    a = y + rng.normal(size=n)
    b = 0.6 * y + rng.normal(size=n)
    return y, np.round(a, 1), b


def test_bootstrap_is_reproducible_with_a_seed():
    y, a, b = bootstrap_problem(0)
    first = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=50, seed=7)
    second = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=50, seed=7)
    np.testing.assert_array_equal(first.replicates, second.replicates)
    assert first.models == second.models
    assert first.differences == second.differences
    other = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=50, seed=8)
    assert not np.array_equal(first.replicates, other.replicates)
    longer = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=80, seed=7)
    np.testing.assert_array_equal(longer.replicates[:50], first.replicates)
    from_generator = paired_bootstrap(
        roc_auc_score, y, a, b, n_resamples=50, seed=np.random.default_rng(7)
    )
    np.testing.assert_array_equal(first.replicates, from_generator.replicates)


def test_bootstrap_interval_contains_the_estimate():
    y, a, b = bootstrap_problem(1)
    result = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=300)
    for k, model in enumerate(result.models):
        assert model.estimate == roc_auc_score(y, (a, b)[k])
        assert model.ci_low < model.estimate < model.ci_high
        assert model.n_used == 300
        assert model.std_error == pytest.approx(np.std(result.replicates[:, k], ddof=1))
    diff = result.differences[0, 1]
    assert diff.estimate == result.models[0].estimate - result.models[1].estimate
    assert diff.ci_low < diff.estimate < diff.ci_high
    assert result.n_dropped == (0, 0)


def test_bootstrap_standard_error_is_close_to_delong():
    y, a, b = bootstrap_problem(2, n=2000)
    boot = paired_bootstrap(roc_auc_score, y, a, b, n_resamples=1000, seed=3)
    delong = delong_test(y, a, b)
    assert boot.models[0].std_error == pytest.approx(delong.std_error_a, rel=0.15)
    assert boot.models[1].std_error == pytest.approx(delong.std_error_b, rel=0.15)
    assert boot.differences[0, 1].std_error == pytest.approx(delong.std_error, rel=0.15)


def test_percentile_interval_of_a_mean_matches_the_normal_interval():
    rng = np.random.default_rng(4)
    n = 5000
    score = rng.exponential(size=n)
    y = np.zeros(n, dtype=int)
    result = paired_bootstrap(
        weighted_mean, y, score, n_resamples=2000, seed=1, stratified=False
    ).models[0]
    se = score.std() / math.sqrt(n)  # the bootstrap distribution's own standard error
    half = 1.959963984540054 * se
    assert result.estimate == pytest.approx(score.mean(), rel=1e-12)
    assert result.std_error == pytest.approx(se, rel=0.05)
    assert result.ci_low == pytest.approx(score.mean() - half, abs=0.1 * half)
    assert result.ci_high == pytest.approx(score.mean() + half, abs=0.1 * half)


def test_difference_of_a_model_with_itself_is_exactly_zero():
    y, a, _ = bootstrap_problem(5)
    result = paired_bootstrap(roc_auc_score, y, a, a.copy(), n_resamples=100)
    diff = result.differences[0, 1]
    assert (diff.estimate, diff.ci_low, diff.ci_high, diff.std_error) == (0, 0, 0, 0)
    np.testing.assert_array_equal(result.replicates[:, 0], result.replicates[:, 1])


@pytest.mark.parametrize("metric", [roc_auc_score, average_precision_score])
@pytest.mark.parametrize("weighted", [False, True])
def test_counts_as_weights_equal_resampled_rows(metric, weighted):
    y, a, b = bootstrap_problem(6, n=200)
    w = np.random.default_rng(0).uniform(0.5, 2, y.size) if weighted else None
    by_weights = paired_bootstrap(metric, y, a, b, n_resamples=40, sample_weight=w)
    by_rows = paired_bootstrap(metric, y, a, b, n_resamples=40, sample_weight=w, resample="rows")
    np.testing.assert_allclose(by_weights.replicates, by_rows.replicates, rtol=0, atol=1e-12)


def test_one_resample_by_counts_equals_one_by_rows():
    y, a, _ = bootstrap_problem(7, n=150)
    strata = compare._strata(y, stratified=True)
    (rows,) = compare._draw_indices(np.random.default_rng(0), strata, 1)
    (counts,) = compare._counts(rows[None, :], y.size)
    assert counts.sum() == y.size
    np.testing.assert_array_equal(counts, np.bincount(rows, minlength=y.size))
    for metric in (roc_auc_score, average_precision_score):
        assert metric(y, a, sample_weight=counts) == pytest.approx(
            metric(y[rows], a[rows]), abs=1e-12
        )
    first = paired_bootstrap(roc_auc_score, y, a, n_resamples=3, seed=0).replicates[0, 0]
    assert first == pytest.approx(roc_auc_score(y[rows], a[rows]), abs=1e-12)


def test_stratified_resamples_keep_the_class_counts(monkeypatch):
    y = np.array([0] * 45 + [1] * 3 + [2] * 2)
    strata = compare._strata(y, stratified=True)
    rng = np.random.default_rng(1)
    indices = np.concatenate([compare._draw_indices(rng, strata, 2) for _ in range(15)])
    assert indices.shape == (30, 50)
    for label, count in ((0, 45), (1, 3), (2, 2)):
        assert ((y[indices] == label).sum(axis=1) == count).all()
    in_one_go = compare._draw_indices(np.random.default_rng(1), strata, 30)
    np.testing.assert_array_equal(indices, in_one_go)
    scores = np.arange(50.0)
    monkeypatch.setattr(compare, "_MAX_BLOCK_INDICES", 120)  # blocks of 2 resamples
    blocks = paired_bootstrap(weighted_mean, y, scores, n_resamples=7, seed=2)
    monkeypatch.undo()
    whole = paired_bootstrap(weighted_mean, y, scores, n_resamples=7, seed=2)
    np.testing.assert_array_equal(blocks.replicates, whole.replicates)


def test_nan_resamples_are_dropped_and_counted():
    rng = np.random.default_rng(9)
    y = np.array([1, 1] + [0] * 28)
    s = rng.random(30)
    with pytest.warns(
        UndefinedMetricWarning, match=r"scores\[0\]: the metric was NaN on \d+ of 200"
    ):
        result = paired_bootstrap(roc_auc_score, y, s, n_resamples=200, stratified=False)
    dropped = result.n_dropped[0]
    assert 0 < dropped < 200
    assert result.models[0].n_used == 200 - dropped
    assert np.isnan(result.replicates[:, 0]).sum() == dropped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stratified = paired_bootstrap(roc_auc_score, y, s, n_resamples=200)
    assert stratified.n_dropped == (0,)


def test_all_nan_resamples_give_nan_intervals():
    def always_nan(y_true, score, sample_weight=None):
        return math.nan

    with pytest.warns(UndefinedMetricWarning, match="NaN on 5 of 5"):
        result = paired_bootstrap(always_nan, [0, 1, 0, 1], [1, 2, 3, 4], n_resamples=5)
    model = result.models[0]
    assert math.isnan(model.ci_low)
    assert math.isnan(model.std_error)
    assert model.n_used == 0


def test_three_models_give_every_pairwise_difference():
    y, a, b = bootstrap_problem(10)
    c = a + b
    result = paired_bootstrap(roc_auc_score, y, a, b, c, n_resamples=60)
    assert sorted(result.differences) == [(0, 1), (0, 2), (1, 2)]
    reps = result.replicates
    for (i, j), diff in result.differences.items():
        assert diff.estimate == result.models[i].estimate - result.models[j].estimate
        assert diff.std_error == pytest.approx(np.std(reps[:, i] - reps[:, j], ddof=1))
        low, high = np.quantile(reps[:, i] - reps[:, j], [0.025, 0.975])
        assert (diff.ci_low, diff.ci_high) == (low, high)


def test_sample_weight_and_rows_mode_for_a_metric_without_weights():
    y, a, _ = bootstrap_problem(11, n=100)
    w = np.random.default_rng(1).integers(1, 3, y.size)
    weighted = paired_bootstrap(roc_auc_score, y, a, n_resamples=20, sample_weight=w)
    assert weighted.models[0].estimate == roc_auc_score(y, a, sample_weight=w)
    # A metric that knows nothing of weights works with resample="rows".
    unweighted = functools.partial(skm.roc_auc_score)
    result = paired_bootstrap(lambda t, s: unweighted(t, s), y, a, n_resamples=20, resample="rows")
    by_weights = paired_bootstrap(roc_auc_score, y, a, n_resamples=20)
    np.testing.assert_allclose(result.replicates, by_weights.replicates, atol=1e-12)


def test_bootstrap_validation_messages():
    y, s = [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="at least one score array"):
        paired_bootstrap(roc_auc_score, y)
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1, got 0"):
        paired_bootstrap(roc_auc_score, y, s, n_resamples=0)
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 1, got 2\.5"):
        paired_bootstrap(roc_auc_score, y, s, n_resamples=2.5)
    with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
        paired_bootstrap(roc_auc_score, y, s, alpha=0)
    with pytest.raises(ValueError, match=r"scores\[1\] has shape \(3,\) but y_true has 4 rows"):
        paired_bootstrap(roc_auc_score, y, s, s[:3])
    with pytest.raises(ValueError, match='resample must be "weights" or "rows"'):
        paired_bootstrap(roc_auc_score, y, s, resample="index")
    with pytest.raises(ValueError, match="metric must be a function"):
        paired_bootstrap("roc_auc", y, s)
    with pytest.raises(ValueError, match="sample_weight has 1 negative value"):
        paired_bootstrap(roc_auc_score, y, s, sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match="Pass stratified=False for a continuous target"):
        paired_bootstrap(weighted_mean, np.arange(10.0), np.arange(10.0))
