"""Gains, KS and net benefit against direct per-threshold loops and scipy's ks_2samp."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp

from metrics.gains import cumulative_gain_curve, ks_statistic, net_benefit


def _data(seed: int, weighted: bool = False):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    y = rng.random(n) < 0.35
    y[0], y[-1] = True, False
    s = np.round(rng.random(n) + 0.3 * y, int(rng.integers(1, 4)))  # ties
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    return y, s, w


@pytest.mark.parametrize("seed", range(20))
def test_gains_equal_a_loop_over_distinct_scores(seed):
    y, s, w = _data(seed, weighted=seed % 2 == 1)
    ww = np.ones(y.size) if w is None else w
    taken, gained, thresholds = cumulative_gain_curve(y, s, sample_weight=w)
    assert (taken[0], gained[0]) == (0.0, 0.0)
    for t, a, b in zip(thresholds[1:], taken[1:], gained[1:], strict=True):
        top = s >= t
        assert a == pytest.approx(ww[top].sum() / ww.sum(), rel=1e-12)
        assert b == pytest.approx(ww[top & y].sum() / ww[y].sum(), rel=1e-12)
    np.testing.assert_array_equal(thresholds[1:], np.unique(s)[::-1])


@pytest.mark.parametrize("seed", range(20))
def test_ks_equals_scipy_two_sample_ks(seed):
    y, s, _ = _data(seed)
    r = ks_statistic(y, s)
    assert r.statistic == pytest.approx(ks_2samp(s[y], s[~y]).statistic, abs=1e-12)
    # reached at the threshold it reports
    tpr, fpr = np.mean(s[y] >= r.threshold), np.mean(s[~y] >= r.threshold)
    assert abs(tpr - fpr) == pytest.approx(r.statistic, abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_net_benefit_equals_the_formula_at_each_threshold(seed):
    y, s, w = _data(seed, weighted=seed % 2 == 1)
    ww = np.ones(y.size) if w is None else w
    ts = np.array([0.0, 0.05, 0.2, 0.35, 0.5, 0.8, 0.99])
    model, everyone, none = net_benefit(y, s, ts, sample_weight=w)
    n = ww.sum()
    for t, m, a in zip(ts, model, everyone, strict=True):
        pred = s >= t
        tp, fp = ww[pred & y].sum(), ww[pred & ~y].sum()
        assert m == pytest.approx(tp / n - fp / n * t / (1 - t), rel=1e-12, abs=1e-15)
        prev = ww[y].sum() / n
        assert a == pytest.approx(prev - (1 - prev) * t / (1 - t), rel=1e-12, abs=1e-15)
    assert not none.any()
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        net_benefit(y, s, [1.0])


def test_ks_with_one_class_is_undefined():
    r = ks_statistic([1, 1, 1], [0.2, 0.5, 0.9])
    assert np.isnan(r.statistic)


@pytest.mark.parametrize("seed", range(10))
def test_lift_table_on_untied_scores_is_the_sorted_rows_cut_in_equal_bins(seed):
    from metrics.gains import lift_table

    rng = np.random.default_rng(seed)
    bins = int(rng.choice([4, 5, 10]))
    n = bins * int(rng.integers(3, 40))
    y = rng.random(n) < 0.3
    y[0] = True
    s = rng.permutation(n) + rng.random(n) * 0.5 + y * 20  # distinct scores
    table = lift_table(y, s, bins=bins)
    ordered = y[np.argsort(-s)]
    assert table["rows"].tolist() == [n / bins] * bins
    for k, row in table.iterrows():
        chunk = ordered[k * n // bins : (k + 1) * n // bins]
        assert row["positives"] == chunk.sum()
        assert row["lift"] == pytest.approx(chunk.mean() / y.mean(), rel=1e-12)
        top = ordered[: (k + 1) * n // bins]
        assert row["cumulative lift"] == pytest.approx(top.mean() / y.mean(), rel=1e-12)
    assert table["cumulative lift"].iloc[-1] == pytest.approx(1.0)


def test_lift_table_keeps_ties_together_and_adds_up():
    from metrics.gains import lift_table

    rng = np.random.default_rng(3)
    y = rng.random(500) < 0.2
    s = np.round(rng.random(500), 1)
    w = rng.integers(1, 3, 500).astype(float)
    table = lift_table(y, s, bins=10, sample_weight=w)
    assert table["rows"].sum() == pytest.approx(w.sum())
    assert table["positives"].sum() == pytest.approx(w[y].sum())
    # every distinct score sits in exactly one bin: the bins' lowest scores strictly decrease
    assert table["lowest score"].is_monotonic_decreasing
    assert table["lowest score"].is_unique


@pytest.mark.parametrize("seed", range(15))
def test_expected_cost_equals_a_loop_with_a_matrix_and_with_a_value_column(seed):
    from metrics.gains import expected_cost

    y, s, w = _data(seed, weighted=seed % 2 == 1)
    ww = np.ones(y.size) if w is None else w
    rng = np.random.default_rng(seed + 100)
    value = np.round(rng.random(y.size) * 100, 2)
    matrix = expected_cost(y, s, cost_fp=2, cost_fn=7, benefit_tp=1, benefit_tn=0.5,
                           sample_weight=w)  # fmt: skip
    valued = expected_cost(y, s, cost_fp=3, benefit_tp=0.1, value=value, sample_weight=w)
    for i, t in enumerate(matrix.thresholds):
        pred = s >= t
        tp, fp = ww[pred & y].sum(), ww[pred & ~y].sum()
        fn, tn = ww[~pred & y].sum(), ww[~pred & ~y].sum()
        assert matrix.cost[i] == pytest.approx(2 * fp + 7 * fn - tp - 0.5 * tn, abs=1e-9)
        missed, caught = (value * ww)[~pred & y].sum(), (value * ww)[pred & y].sum()
        assert valued.cost[i] == pytest.approx(3 * fp + missed - 0.1 * caught, abs=1e-9)
    assert matrix.best == int(np.argmin(matrix.cost))
    assert matrix.cost[matrix.best] == min(matrix.cost)
