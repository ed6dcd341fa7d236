"""The fast paired bootstrap against the generic one and against per-resample references.

The generic path (:func:`metrics.paired_bootstrap`) calls the metric once per resample and model
with the resample's counts as weights; the fast path sorts once and works on prefix sums. For the
same draws, AUC and AP must agree to the last bit; the threshold metrics, the chosen thresholds
and the curves on grids are checked against direct computations on each resample's counts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metrics._bootstrap_core as core
import metrics.bootstrap as mb
from metrics import (
    UndefinedMetricWarning,
    average_precision_score,
    brier_score_loss,
    cluster_bootstrap,
    confusion_at_threshold,
    fast_paired_bootstrap,
    group_auc_score,
    group_auc_table,
    ks_statistic,
    log_loss,
    mean_average_precision,
    net_benefit,
    paired_bootstrap,
    precision_recall_curve,
    ranking_report,
    roc_auc_score,
    roc_curve,
)
from metrics.compare import _POISSON_CDF, _Draws, _percentile_interval, poisson_counts


def _case(seed: int, n: int, decimals: int | None = 1, rate: float = 0.35):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rate
    a = rng.normal(size=n) + y
    b = 0.6 * a + rng.normal(size=n)
    if decimals is not None:  # ties within and across classes
        a, b = np.round(a, decimals), np.round(b, decimals)
    return y, a, b


def _counts(y, seed, counts, stratified, n_resamples):
    return _Draws(y, seed, counts, stratified).block(n_resamples)


@pytest.mark.parametrize("counts", ["poisson", "multinomial"])
@pytest.mark.parametrize("decimals", [None, 1, 0])
@pytest.mark.parametrize("seed", [0, 1])
def test_bit_identical_to_generic_path(counts, decimals, seed):
    y, a, b = _case(seed, 700, decimals)
    fast = fast_paired_bootstrap(y, a, b, n_resamples=40, seed=seed, counts=counts)
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = paired_bootstrap(metric, y, a, b, n_resamples=40, seed=seed, counts=counts)
        got = fast.results[name]
        assert np.array_equal(got.replicates, slow.replicates, equal_nan=True), name
        assert [m.estimate for m in got.models] == [m.estimate for m in slow.models]
        assert got.models == slow.models
        assert got.differences == slow.differences


def test_estimates_equal_the_metrics():
    y, a, b = _case(3, 500)
    r = fast_paired_bootstrap(y, a, b, n_resamples=5)
    assert r.results["roc_auc"].models[1].estimate == roc_auc_score(y, b)
    assert r.results["average_precision"].models[0].estimate == average_precision_score(y, a)


def test_unstratified_multinomial_matches_and_drops_one_class_resamples():
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0], dtype=bool)
    s = np.array([0.9, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    with pytest.warns(UndefinedMetricWarning, match="resamples"):
        fast = fast_paired_bootstrap(
            y, s, n_resamples=60, counts="multinomial", stratified=False, seed=2
        )
    with pytest.warns(UndefinedMetricWarning, match="resamples"):
        slow = paired_bootstrap(roc_auc_score, y, s, n_resamples=60, stratified=False, seed=2)
    assert np.array_equal(fast.results["roc_auc"].replicates, slow.replicates, equal_nan=True)
    assert fast.results["roc_auc"].n_dropped == slow.n_dropped
    assert slow.n_dropped[0] > 0


def test_block_size_does_not_change_the_draws(monkeypatch):
    y, a, b = _case(4, 300)
    whole = fast_paired_bootstrap(y, a, b, n_resamples=30, seed=5)
    monkeypatch.setattr(mb, "_BLOCK_CELLS", 7 * 300)  # blocks of 7 resamples
    pieces = fast_paired_bootstrap(y, a, b, n_resamples=30, seed=5)
    for name in ("roc_auc", "average_precision"):
        assert np.array_equal(whole.results[name].replicates, pieces.results[name].replicates)
    first = fast_paired_bootstrap(y, a, b, n_resamples=12, seed=5)
    assert np.array_equal(
        first.results["roc_auc"].replicates, whole.results["roc_auc"].replicates[:12]
    )


def test_one_model_runs_without_threads():
    y, a, _ = _case(6, 400)
    r = fast_paired_bootstrap(y, a, n_resamples=20, seed=1)
    slow = paired_bootstrap(roc_auc_score, y, a, n_resamples=20, seed=1, counts="poisson")
    assert np.array_equal(r.results["roc_auc"].replicates, slow.replicates)


def test_weighted_agrees_with_the_generic_path_to_rounding():
    y, a, b = _case(7, 400)
    w = np.random.default_rng(7).uniform(0.2, 3.0, y.size)
    fast = fast_paired_bootstrap(y, a, b, n_resamples=25, seed=3, sample_weight=w)
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = paired_bootstrap(
            metric, y, a, b, n_resamples=25, seed=3, sample_weight=w, counts="poisson"
        )
        np.testing.assert_allclose(fast.results[name].replicates, slow.replicates, rtol=1e-12)


def test_threshold_metrics_equal_the_confusion_on_each_resample():
    y, a, b = _case(8, 300)
    thresholds = [0.3, 0.5]
    r = fast_paired_bootstrap(y, a, b, n_resamples=15, seed=9, thresholds=thresholds)
    weights = _counts(y, 9, "poisson", True, 15).astype(float)
    for k, s in enumerate((a, b)):
        c0 = confusion_at_threshold(y, s, thresholds[k])
        assert r.results["precision"].models[k].estimate == pytest.approx(c0.precision, abs=1e-15)
        for i in range(15):
            c = confusion_at_threshold(y, s, thresholds[k], sample_weight=weights[i])
            want = {
                "precision": c.precision,
                "recall": c.recall,
                "f1": 2 * c.tp / (2 * c.tp + c.fp + c.fn),
                "fpr": c.fp / (c.fp + c.tn),
                "accuracy": (c.tp + c.tn) / (c.tp + c.fp + c.tn + c.fn),
            }
            for name, value in want.items():
                assert r.results[name].replicates[i, k] == pytest.approx(value, abs=1e-14), name


def test_best_thresholds_are_the_argmax_over_distinct_scores():
    y, a, b = _case(10, 250)
    r = fast_paired_bootstrap(y, a, b, n_resamples=12, seed=4, best_thresholds=True)
    f1 = [
        2 * c.tp / (2 * c.tp + c.fp + c.fn)
        for c in (confusion_at_threshold(y, a, t) for t in np.unique(a)[::-1])
    ]
    assert r.original.chosen["max F1"][0, 0] == np.unique(a)[::-1][int(np.argmax(f1))]
    weights = _counts(y, 4, "poisson", True, 12).astype(float)
    for k, s in enumerate((a, b)):
        for i in range(12):
            best_f1, best_j, at_f1, at_j = -1.0, -2.0, None, None
            for t in np.unique(s)[::-1]:  # descending: the first maximum is the highest score
                c = confusion_at_threshold(y, s, t, sample_weight=weights[i])
                f1 = 2 * c.tp / (2 * c.tp + c.fp + c.fn)
                j = c.tp / (c.tp + c.fn) - c.fp / (c.fp + c.tn)
                if f1 > best_f1 + 1e-15:
                    best_f1, at_f1 = f1, t
                if j > best_j + 1e-15:
                    best_j, at_j = j, t
            assert r.chosen_thresholds["max F1"][i, k] == at_f1
            assert r.chosen_thresholds["Youden"][i, k] == at_j


def test_roc_and_pr_grids_follow_each_resamples_curve():
    y, a, b = _case(11, 300)
    rng = np.random.default_rng(0)
    fpr_grid = np.sort(rng.uniform(0.01, 0.99, 40))
    recall_grid = np.linspace(0.05, 1.0, 20)
    r = fast_paired_bootstrap(
        y, a, b, n_resamples=10, seed=6, roc_grid=fpr_grid, pr_grid=recall_grid
    )
    weights = _counts(y, 6, "poisson", True, 10).astype(float)
    for k, s in enumerate((a, b)):
        for i in range(10):
            fpr, tpr, _ = roc_curve(y, s, sample_weight=weights[i])
            # Grid points on a vertical segment are ambiguous; random ones miss them.
            np.testing.assert_allclose(
                r.roc_curves[k][i], np.interp(fpr_grid, fpr, tpr), rtol=0, atol=1e-12
            )
            precision, recall, _ = precision_recall_curve(y, s, sample_weight=weights[i])
            # recall is decreasing there: the first threshold (from the top) reaching each g.
            rec, prec = recall[::-1], precision[::-1]
            want = [prec[np.flatnonzero(rec >= g - 1e-12)[0]] for g in recall_grid]
            np.testing.assert_allclose(r.pr_curves[k][i], want, rtol=0, atol=1e-14)
    fpr, tpr, _ = roc_curve(y, a)
    np.testing.assert_allclose(r.original.rocs[0][0], np.interp(fpr_grid, fpr, tpr), atol=1e-12)
    low, high = r.band(r.roc_curves[0])
    assert (low <= high).all()
    assert low.shape == fpr_grid.shape


def test_threshold_grid_curves():
    y, a, b = _case(12, 200)
    grid = (np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.1, 0.9]))
    r = fast_paired_bootstrap(y, a, b, n_resamples=6, seed=1, threshold_grid=grid)
    weights = _counts(y, 1, "poisson", True, 6).astype(float)
    for k, s in enumerate((a, b)):
        for i in range(6):
            for j, t in enumerate(grid[k]):
                c = confusion_at_threshold(y, s, t, sample_weight=weights[i])
                assert r.threshold_curves["recall"][k][i, j] == pytest.approx(c.recall, abs=1e-14)
                assert r.threshold_curves["fpr"][k][i, j] == pytest.approx(
                    c.fp / (c.fp + c.tn), abs=1e-14
                )


def test_poisson_counts_follow_poisson_one():
    rng = np.random.default_rng(0)
    fix = np.random.default_rng(1)
    c = poisson_counts(rng, fix, 40, 50_000).ravel()
    assert c.dtype == np.uint8
    freq = np.bincount(c, minlength=12)[:8] / c.size
    pmf = np.diff(np.concatenate(([0.0], _POISSON_CDF[:8])))
    # 2e6 draws: the standard error of a frequency is below 4e-4.
    np.testing.assert_allclose(freq, pmf, atol=2e-3)
    assert abs(c.mean() - 1.0) < 3e-3
    assert abs(c.var() - 1.0) < 5e-3
    assert c.max() >= 7  # the tail beyond the table comes from the fix-up draws


def test_bad_arguments():
    y, a, b = _case(1, 50)
    with pytest.raises(ValueError, match="counts"):
        fast_paired_bootstrap(y, a, counts="bayesian")
    with pytest.raises(ValueError, match="one value per model"):
        fast_paired_bootstrap(y, a, b, thresholds=[0.5])
    with pytest.raises(ValueError, match="at least one score"):
        fast_paired_bootstrap(y)
    with pytest.raises(ValueError, match="n_resamples"):
        fast_paired_bootstrap(y, a, n_resamples=0)


@pytest.mark.parametrize("n", [1, 3, 4, 7, 1001, 50_000])
@pytest.mark.parametrize("size", [1, 3, 40])
def test_poisson_counts_equal_the_16_bit_table(n, size):
    # The high-byte shortcut must give the very counts of one table lookup per row, including
    # the rows it sends to the table and the straddling patterns settled by fix_rng.
    from metrics.compare import _poisson_counts_by_table

    for seed in range(3):
        fast = poisson_counts(np.random.default_rng(seed), np.random.default_rng(seed + 9), size, n)
        slow = _poisson_counts_by_table(
            np.random.default_rng(seed), np.random.default_rng(seed + 9), size, n
        )
        assert fast.dtype == slow.dtype == np.uint8
        assert np.array_equal(fast, slow)


@pytest.mark.parametrize("rows", [1, 2, 3, 17])
def test_sequential_sum_adds_in_order(rows):
    rng = np.random.default_rng(rows)
    terms = rng.random((rows, 5000)) * 10.0 ** rng.integers(-8, 8, (rows, 5000))
    want = np.add.accumulate(terms, axis=1)[:, -1]
    assert np.array_equal(core._sequential_sum(terms), want)


# --- cluster bootstrap ---------------------------------------------------------------------------


def _grouped(seed: int, n: int = 3000, groups: int = 150):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, n)
    y = rng.random(n) < 0.3
    a = np.round(rng.normal(size=n) + y, 1)
    b = np.round(rng.normal(size=n) + 0.5 * y, 1)
    return g, y, a, b


@pytest.mark.parametrize("weighting", ["impressions", "positives"])
@pytest.mark.parametrize("counts", ["poisson", "multinomial"])
def test_cluster_bootstrap_bit_identical_to_gauc_with_group_counts(weighting, counts):
    g, y, a, b = _grouped(1)
    tables = [group_auc_table(y, s, g) for s in (a, b)]
    r = cluster_bootstrap(
        np.column_stack([t.auc for t in tables]),
        np.column_stack([t.weights(weighting) for t in tables]),
        n_resamples=25,
        seed=4,
        counts=counts,
    )
    assert r.models[1].estimate == group_auc_score(y, b, g, weighting=weighting)
    c = _Draws(np.zeros(tables[0].group.size, bool), 4, counts, False).block(25)
    row_group = np.searchsorted(tables[0].group, g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for i in range(25):
            w = c[i][row_group].astype(float)
            for k, s in enumerate((a, b)):
                want = group_auc_score(y, s, g, sample_weight=w, weighting=weighting)
                assert r.replicates[i, k] == want
    assert r.differences[(0, 1)].estimate == r.models[0].estimate - r.models[1].estimate


def _expand(c, g, *arrays):
    """Each group's rows repeated c times, each copy a group of its own."""
    rows = np.concatenate([np.flatnonzero(g == u) for u in np.unique(g)])
    ids = np.unique(g, return_inverse=True)[1]
    keep = np.repeat(rows, c[ids[rows]])
    copy = np.concatenate([np.arange(k) for k in c[ids[rows]]]) if keep.size else keep
    new_ids = ids[keep] * (c.max() + 1) + copy
    return (new_ids, *(x[keep] for x in arrays))


def test_cluster_bootstrap_uniform_gauc_counts_copies_as_users():
    g, y, a, _ = _grouped(2, groups=60)
    t = group_auc_table(y, a, g)
    r = cluster_bootstrap(t.auc, t.weights("uniform"), n_resamples=10, seed=3)
    c = _Draws(np.zeros(t.group.size, bool), 3, "poisson", False).block(10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for i in range(10):
            ids, yy, ss = _expand(c[i], g, y, a)
            want = group_auc_score(yy, ss, ids, weighting="uniform")
            assert r.replicates[i, 0] == pytest.approx(want, rel=1e-13)


def test_cluster_bootstrap_of_a_ranking_metric_equals_resampled_queries():
    g, y, a, b = _grouped(3, n=2000, groups=80)
    reports = [ranking_report(y, s, g, k=5) for s in (a, b)]
    r = cluster_bootstrap(
        np.column_stack([rep.average_precision for rep in reports]), n_resamples=8, seed=2
    )
    assert r.models[0].estimate == pytest.approx(mean_average_precision(y, a, g, k=5), rel=1e-14)
    c = _Draws(np.zeros(reports[0].query.size, bool), 2, "poisson", False).block(8)
    for i in range(8):
        ids, yy, ss = _expand(c[i], g, y, b)
        assert r.replicates[i, 1] == pytest.approx(
            mean_average_precision(yy, ss, ids, k=5), rel=1e-13
        )


def test_cluster_bootstrap_bad_input():
    with pytest.raises(ValueError, match="weights has shape"):
        cluster_bootstrap([[0.5, 0.6], [0.7, 0.8]], [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="no group"):
        cluster_bootstrap([np.nan, np.nan])
    with pytest.raises(ValueError, match="non-negative"):
        cluster_bootstrap([0.5, 0.6], [-1.0, 1.0])


def test_row_means_match_the_generic_brier_and_log_loss():
    y, a, b = _case(13, 400, decimals=None)
    pa, pb = 1 / (1 + np.exp(-a)), 1 / (1 + np.exp(-b))
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.size)
    losses = {
        "brier": [(p - y) ** 2 for p in (pa, pb)],
        "log_loss": [-np.log(np.where(y, p, 1 - p)) for p in (pa, pb)],
    }
    r = fast_paired_bootstrap(y, pa, pb, n_resamples=20, seed=8, row_means=losses, sample_weight=w)
    for name, metric in (("brier", brier_score_loss), ("log_loss", log_loss)):
        slow = paired_bootstrap(
            metric, y, pa, pb, n_resamples=20, seed=8, counts="poisson", sample_weight=w
        )
        np.testing.assert_allclose(r.results[name].replicates, slow.replicates, rtol=1e-12)
        assert r.results[name].models[0].estimate == pytest.approx(
            metric(y, pa, sample_weight=w), rel=1e-13
        )
    with pytest.raises(ValueError, match="one array"):
        fast_paired_bootstrap(y, pa, pb, row_means={"brier": [pa]})


@pytest.mark.parametrize(
    "groups",
    [
        np.zeros(60, dtype=int),  # one group: every resample counts all rows alike
        np.arange(60),  # a group a row
        np.array(["u3", "u1", "u2", "u1", "u0", "u3"] * 10),  # ids out of order, uneven groups
        np.repeat(np.arange(12), 5)[::-1],  # the group whose weights are all zero below
    ],
    ids=["one group", "a group a row", "string ids", "zero-weight group"],
)
def test_row_means_with_groups_count_each_row_as_often_as_its_group(groups):
    # The means are summed by group before the resample counts meet them: they must equal
    # counts-per-row @ (w * loss) / counts-per-row @ w, the rows counted as their group was.
    y, a, b = _case(5, 60, decimals=None)
    w = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 3.0], y.size)
    w[groups == groups[0]] = 0.0
    losses = {"x": [a, b], "y": [a * a, np.abs(b)], "ones": [np.ones(60), np.ones(60)]}
    r = fast_paired_bootstrap(
        y, a, b, n_resamples=40, seed=6, sample_weight=w, groups=groups, row_means=losses, only=()
    )
    counts = core._GroupDraws(groups, y.size, 6, "poisson").block(40).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, arrays in losses.items():
            slow = (counts @ (w[:, None] * np.column_stack(arrays))) / (counts @ w)[:, None]
            np.testing.assert_allclose(r.results[name].replicates, slow, rtol=1e-12, atol=1e-15)


# --- BCa -----------------------------------------------------------------------------------------


def test_auc_jackknife_equals_leaving_each_row_out():
    y, a, b = _case(14, 120)
    jack = mb.auc_jackknife(y, [a, b])
    keep = np.ones(y.size, dtype=bool)
    for i in range(y.size):
        keep[i] = False
        assert jack[i, 0] == pytest.approx(roc_auc_score(y[keep], a[keep]), abs=1e-15)
        assert jack[i, 1] == pytest.approx(roc_auc_score(y[keep], b[keep]), abs=1e-15)
        keep[i] = True


def test_bca_interval_matches_its_definition():
    from scipy.stats import norm

    rng = np.random.default_rng(0)
    reps = rng.gamma(2.0, size=2000)  # skewed
    jack = rng.gamma(2.0, size=300)
    est = 1.7
    got = mb.bca_interval(est, reps, jack, 0.05)
    z0 = norm.ppf(np.mean(reps < est))
    d = jack.mean() - jack
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    lo = norm.cdf(z0 + (z0 + norm.ppf(0.025)) / (1 - a * (z0 + norm.ppf(0.025))))
    hi = norm.cdf(z0 + (z0 + norm.ppf(0.975)) / (1 - a * (z0 + norm.ppf(0.975))))
    assert got.ci_low == pytest.approx(np.quantile(reps, lo), rel=1e-12)
    assert got.ci_high == pytest.approx(np.quantile(reps, hi), rel=1e-12)
    plain = _percentile_interval(est, reps, 0.05)
    assert (got.ci_low, got.ci_high) != (plain.ci_low, plain.ci_high)
    # Every replicate above the estimate: no bias correction is possible, percentile it is.
    assert mb.bca_interval(-1.0, reps, jack, 0.05) == _percentile_interval(-1.0, reps, 0.05)


def test_fast_bootstrap_bca_for_auc_only():
    y, a, b = _case(15, 600)
    r = fast_paired_bootstrap(y, a, b, n_resamples=300, seed=2, interval="bca")
    plain = fast_paired_bootstrap(y, a, b, n_resamples=300, seed=2)
    assert r.bca == ("roc_auc",)
    jack = mb.auc_jackknife(y, [a, b])
    reps = r.results["roc_auc"].replicates
    want = mb.bca_interval(r.results["roc_auc"].models[0].estimate, reps[:, 0], jack[:, 0], 0.05)
    assert r.results["roc_auc"].models[0] == want
    diff = mb.bca_interval(
        r.results["roc_auc"].differences[(0, 1)].estimate,
        reps[:, 0] - reps[:, 1],
        jack[:, 0] - jack[:, 1],
        0.05,
    )
    assert r.results["roc_auc"].differences[(0, 1)] == diff
    assert r.results["average_precision"].models == plain.results["average_precision"].models
    weighted = fast_paired_bootstrap(
        y, a, n_resamples=20, interval="bca", sample_weight=np.ones(y.size)
    )
    assert weighted.bca == ()


@pytest.mark.parametrize("max_fpr", [0.05, 0.3, 1.0])
def test_partial_auc_equals_roc_auc_score_with_max_fpr(max_fpr):
    y, a, b = _case(16, 300)
    r = fast_paired_bootstrap(y, a, b, n_resamples=10, seed=5, max_fpr=max_fpr)
    weights = _counts(y, 5, "poisson", True, 10).astype(float)
    for k, s in enumerate((a, b)):
        got = r.results["partial_auc"]
        assert got.models[k].estimate == pytest.approx(
            roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-13
        )
        for i in range(10):
            want = roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=weights[i])
            assert got.replicates[i, k] == pytest.approx(want, abs=1e-13)
    with pytest.raises(ValueError, match="max_fpr"):
        fast_paired_bootstrap(y, a, max_fpr=0.0)


def test_net_benefit_on_the_threshold_grid_equals_the_decision_curve():
    y, a, b = _case(17, 300, decimals=2)
    pa, pb = 1 / (1 + np.exp(-a)), 1 / (1 + np.exp(-b))
    grid = np.round(np.linspace(0.05, 0.95, 19), 2)
    r = fast_paired_bootstrap(y, pa, pb, n_resamples=8, seed=2, threshold_grid=[grid, grid])
    weights = _counts(y, 2, "poisson", True, 8).astype(float)
    for k, s in enumerate((pa, pb)):
        nb, _, _ = net_benefit(y, s, grid)
        np.testing.assert_allclose(r.original.curves["net_benefit"][k][0], nb, rtol=0, atol=1e-14)
        for i in range(8):
            nb, _, _ = net_benefit(y, s, grid, sample_weight=weights[i])
            np.testing.assert_allclose(
                r.threshold_curves["net_benefit"][k][i], nb, rtol=0, atol=1e-14
            )


@pytest.mark.parametrize("flip", [False, True])
def test_ks_equals_ks_statistic_on_each_resample(flip):
    y, a, b = _case(18, 300)
    if flip:  # a model worse than chance: FPR - TPR is the larger gap
        a = -a
    r = fast_paired_bootstrap(y, a, b, n_resamples=10, seed=3, ks=True)
    weights = _counts(y, 3, "poisson", True, 10).astype(float)
    for k, s in enumerate((a, b)):
        got = r.results["ks"]
        assert got.models[k].estimate == pytest.approx(ks_statistic(y, s).statistic, abs=1e-14)
        for i in range(10):
            want = ks_statistic(y, s, sample_weight=weights[i]).statistic
            assert got.replicates[i, k] == pytest.approx(want, abs=1e-14)


@pytest.mark.parametrize(("n_pos", "n_neg"), [(2, 2), (4, 4), (30, 30), (64, 64), (500, 500)])
def test_balanced_classes_bit_identical_to_generic_path(n_pos, n_neg):
    # Equal class sizes once made both passes share one scratch buffer: intervals 2.4x too narrow.
    rng = np.random.default_rng(n_pos)
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    a, b = rng.random(y.size) + 0.3 * y, rng.random(y.size) + 0.2 * y
    fast = fast_paired_bootstrap(y, a, b, n_resamples=50, seed=3, counts="multinomial")
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = paired_bootstrap(metric, y, a, b, n_resamples=50, seed=3)
        assert np.array_equal(fast.results[name].replicates, slow.replicates), name
        assert fast.results[name].differences == slow.differences, name


def test_bad_scores_are_named_by_their_position():
    with pytest.raises(ValueError, match=r"scores\[1\] has 1 NaN value at position 1"):
        fast_paired_bootstrap([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [0.1, np.nan, 0.3, 0.4])
    with pytest.raises(ValueError, match=r"scores\[0\] has 3 values but y_true has 4 rows"):
        fast_paired_bootstrap([0, 1, 0, 1], [0.1, 0.3, 0.4])


# --- the byte path of the prefix sums ------------------------------------------------------------


@pytest.mark.parametrize("m", [0, 1, 7, 8, 9, 63, 64, 65, 511, 512, 513, 4097])
@pytest.mark.parametrize("b", [1, 5])
def test_byte_prefix_equals_cumsum(m, b):
    rng = np.random.default_rng(m + 100 * b)
    n = m + 3
    counts = rng.integers(0, core._BYTE_MAX_COUNT + 1, (b, n)).astype(np.uint8)
    counts[:, :2] = core._BYTE_MAX_COUNT  # the largest counts, where a byte would overflow first
    order = rng.permutation(n)[:m]
    prefix = core._BytePrefix(np.ascontiguousarray(counts.T), core._padded(order), {})
    want = np.zeros((b, m + 1), dtype=np.int64)
    np.cumsum(counts[:, order], axis=1, out=want[:, 1:])
    k = np.arange(m + 1)
    assert np.array_equal(prefix.at(k), want)
    assert np.array_equal(prefix.rows(k), want.T)
    assert np.array_equal(prefix.run(m), want[:, 1:])
    assert np.array_equal(prefix.at(k[::-1]), want[:, ::-1])


@pytest.mark.parametrize("decimals", [None, 1])
def test_byte_path_equals_the_float_path_on_every_output(monkeypatch, decimals):
    y, a, b = _case(20, 600, decimals)
    options = dict(
        n_resamples=30,
        seed=4,
        thresholds=[0.2, 0.4],
        threshold_grid=[np.linspace(-1, 2, 7), np.linspace(-1, 2, 5)],
        roc_grid=np.linspace(0.01, 0.99, 9),
        pr_grid=np.linspace(0.05, 1.0, 6),
        best_thresholds=True,
        max_fpr=0.3,
        ks=True,
    )
    fast = fast_paired_bootstrap(y, a, b, **options)
    monkeypatch.setattr(core, "_BYTE_MAX_COUNT", -1)  # no block qualifies: the float32 path
    slow = fast_paired_bootstrap(y, a, b, **options)
    for name, result in slow.results.items():
        got = fast.results[name].replicates
        if name in ("roc_auc", "average_precision"):
            assert np.array_equal(got, result.replicates, equal_nan=True), name
        else:
            np.testing.assert_allclose(got, result.replicates, rtol=1e-13, atol=0, err_msg=name)
    for name, v in slow.chosen_thresholds.items():
        assert np.array_equal(fast.chosen_thresholds[name], v, equal_nan=True), name
    for name, curves in slow.threshold_curves.items():
        for k in range(2):
            np.testing.assert_allclose(fast.threshold_curves[name][k], curves[k], rtol=1e-13)
    for k in range(2):
        np.testing.assert_allclose(fast.roc_curves[k], slow.roc_curves[k], rtol=1e-13)
        np.testing.assert_allclose(fast.pr_curves[k], slow.pr_curves[k], rtol=1e-13)


def test_counts_above_a_byte_take_the_float_path():
    # Eight counts of 31 fill a byte; a count of 32 or more (a group drawn into many rows, a
    # tiny unstratified multinomial) must leave the byte path, weights too.
    y = np.array([1, 0, 1, 0, 0, 1] * 20, dtype=bool)
    s = np.round(np.random.default_rng(0).random(y.size), 1)
    c = np.random.default_rng(1).poisson(1.0, (3, y.size))
    assert core._byte_counts(c, None, y.size).dtype == np.uint8
    assert core._byte_counts(c, np.ones(y.size), y.size) is None
    c[1, 5] = core._BYTE_MAX_COUNT + 1
    assert core._byte_counts(c, None, y.size) is None
    model = core._SortedModel(y, s)
    b = core._block(model, c, None, np.float64)
    for i in range(3):
        want = (
            roc_auc_score(y, s, sample_weight=c[i]),
            average_precision_score(y, s, sample_weight=c[i]),
        )
        assert (core._roc_auc(b)[i], core._average_precision(b)[i]) == want


# --- kernels (#21 rule 5: statistics register as named kernels) ----------------------------------


def test_each_option_chooses_its_kernel():
    y, a, b = _case(21, 200)
    base = core._chosen_kernels(core._Spec(None, None, None, None, False))
    assert base.kernels == ("roc_auc", "average_precision")
    assert core._metric_names(base) == ["roc_auc", "average_precision"]
    every = core._chosen_kernels(
        core._Spec(np.zeros(2), (np.zeros(1),) * 2, np.zeros(1), np.zeros(1), True, 0.5, True)
    )
    assert set(every.kernels) == set(core._KERNELS)
    assert core._metric_names(every) == [
        *mb.AREA_METRICS,
        *mb.THRESHOLD_METRICS,
        "partial_auc",
        "ks",
    ]
    r = fast_paired_bootstrap(y, a, b, n_resamples=5, ks=True)
    assert list(r.results) == ["roc_auc", "average_precision", "ks"]
    with pytest.raises(ValueError, match="already named"):
        core._kernel("ks")(lambda job: None)


def test_a_registered_kernel_gets_its_own_intervals(monkeypatch):
    # A statistic added as a kernel (here the positives' weight in each resample) is computed
    # block by block from the same per-run sums and gets intervals like the built-in ones.
    def drawn(job):
        job.metric("positives_drawn", job.block.n_pos)

    kernel = core._Kernel(drawn, lambda spec: True, lambda spec: ("positives_drawn",))
    monkeypatch.setitem(core._KERNELS, "positives_drawn", kernel)
    y, a, b = _case(22, 300)
    r = fast_paired_bootstrap(y, a, b, n_resamples=12, seed=3)
    want = _counts(y, 3, "poisson", True, 12)[:, y].sum(axis=1)
    got = r.results["positives_drawn"]
    assert np.array_equal(got.replicates, np.column_stack([want, want]).astype(float))
    assert got.models[0].estimate == y.sum()
    assert got.differences[(0, 1)].estimate == 0.0


# --- the fused AUC/AP pass over chunks of runs (byte path, two or more resamples) -----------------


def _byte_block(y, s, counts):
    model = core._SortedModel(y, s)
    c = core._byte_counts(counts, None, y.size)
    return core._block(model, np.ascontiguousarray(c.T), None, np.int32)


@pytest.mark.parametrize("b", [2, 31, 32, 33, 63, 64, 65])
@pytest.mark.parametrize(("n_pos", "n_neg", "decimals"), [(40, 40, None), (33, 33, 1), (50, 21, 0)])
@pytest.mark.parametrize("cells", [8, 100, core._AREA_CELLS])
def test_fused_areas_equal_the_whole_array_path(monkeypatch, b, n_pos, n_neg, decimals, cells):
    # Chunks of runs as small as 8 rows put the leading rows with nothing drawn (0 / 0 made
    # 0 / 1), the running AP total and the tied runs' first count across chunk boundaries.
    monkeypatch.setattr(core, "_AREA_CELLS", cells)
    rng = np.random.default_rng(b + n_pos)
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    s = rng.normal(size=y.size) + y
    if decimals is not None:
        s = np.round(s, decimals)
    counts = rng.poisson(0.6, (b, y.size))
    counts[0, :] = 0  # an empty resample
    counts[1, y] = 0  # one with no positive
    fused = _byte_block(y, s, counts)
    whole = _byte_block(y, s, counts)
    whole.fused = False
    assert fused.fused
    for metric in (core._roc_auc, core._average_precision):
        assert np.array_equal(metric(fused), metric(whole), equal_nan=True)
    for i in range(2, b):
        want = (
            roc_auc_score(y, s, sample_weight=counts[i]),
            average_precision_score(y, s, sample_weight=counts[i]),
        )
        assert (core._roc_auc(fused)[i], core._average_precision(fused)[i]) == want


@pytest.mark.parametrize("n_class", [31, 32, 33, 63, 64, 65])
@pytest.mark.parametrize("block", [1, 2, 31, 32, 33])
def test_equal_classes_bit_identical_at_every_block_size(monkeypatch, n_class, block):
    # Blocks of one resample (the whole-array path) and of many (the fused one), the last
    # block shorter than the others, positives as many as negatives.
    monkeypatch.setattr(mb, "_BLOCK_CELLS", block * 2 * n_class)
    monkeypatch.setattr(core, "_AREA_CELLS", 64)
    rng = np.random.default_rng(n_class)
    y = rng.permutation(np.r_[np.ones(n_class, bool), np.zeros(n_class, bool)])
    a = np.round(rng.random(y.size) + 0.3 * y, 2)
    b = rng.random(y.size) + 0.2 * y
    fast = fast_paired_bootstrap(y, a, b, n_resamples=70, seed=8, counts="multinomial")
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = paired_bootstrap(metric, y, a, b, n_resamples=70, seed=8)
        assert np.array_equal(fast.results[name].replicates, slow.replicates), name


def test_fused_block_makes_the_per_run_arrays_only_for_other_kernels():
    y, a, _ = _case(23, 300)  # scores tied within and across classes
    counts = _counts(y, 1, "poisson", True, 6)
    block = _byte_block(y, a, counts)
    core._roc_auc(block), core._average_precision(block)
    assert not [k for k in vars(block) if k.startswith(("_lazy_tp", "_lazy_pos", "_lazy_fp"))]
    # A threshold kernel reads them: made then, from the same prefix sums.
    runs = block.model.run_scores
    want_tp = np.array([[c[y & (a >= t)].sum() for t in runs] for c in counts])
    want_ge = np.array([[c[~y & (a >= t)].sum() for t in runs] for c in counts])
    want_gt = np.array([[c[~y & (a > t)].sum() for t in runs] for c in counts])
    assert np.array_equal(block.tp, want_tp)
    assert np.array_equal(block.pos, np.diff(want_tp, axis=1, prepend=0))
    assert np.array_equal(block.fp_ge, want_ge)
    assert np.array_equal(block.fp_gt, want_gt)


@pytest.mark.parametrize(
    ("options", "only"),
    [
        ({}, ("roc_auc",)),
        ({}, ("average_precision",)),
        ({"thresholds": [0.5, 0.5]}, ("f1",)),
        ({"groups": "users"}, ("roc_auc",)),
    ],
)
def test_only_skips_the_other_kernels_and_keeps_the_replicates(options, only):
    """``only``: the results asked for and no other, with the full run's replicates (a gate
    on AUC alone skips AP's kernel: issue 37's grouped check)."""
    rng = np.random.default_rng(8)
    n = 400
    y = rng.random(n) < 0.3
    a, b = ((rng.random(n) + k * y).round(2) for k in (1.0, 0.5))
    if options.get("groups") == "users":
        options = {"groups": rng.integers(0, 40, n)}
    full = fast_paired_bootstrap(y, a, b, n_resamples=200, seed=4, **options)
    part = fast_paired_bootstrap(y, a, b, n_resamples=200, seed=4, only=only, **options)
    kernel = {"f1": ("accuracy", "f1", "fpr", "precision", "recall")}.get(only[0], only)
    assert set(part.results) == set(kernel)
    for name in part.results:
        np.testing.assert_array_equal(part.results[name].replicates, full.results[name].replicates)
        assert part.results[name].models == full.results[name].models
    with pytest.raises(ValueError, match="only names"):
        fast_paired_bootstrap(y, a, b, n_resamples=200, only=("brier",))
