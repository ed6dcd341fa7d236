"""Every fast or engine path against its slow, obviously correct reference, on generated shapes.

The shapes come from :func:`tests.strategies.binary_tables` (equal class counts, one or two rows
of a class, block-boundary sizes, all scores tied, zero and fractional weights, groups of one
row). Each reference is the definition written as a loop or a pairwise matrix:

* the cluster bootstrap and ``fast_paired_bootstrap(groups=...)`` against the metric recomputed
  on a table where every group's rows are repeated as often as the resample drew the group;
* threshold counts, the confusion at a threshold, the ROC and precision-recall curves against a
  loop over the distinct thresholds;
* DeLong's variances against the O(n²) matrix of pairwise comparisons;
* :func:`metrics.sql.summarize` and :func:`metrics.sql.delong` (DuckDB, real Parquet and CSV
  files) against the numpy library.
"""

from __future__ import annotations

import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from metrics import (
    average_precision_score,
    cluster_bootstrap,
    confusion_at_threshold,
    delong_test,
    fast_paired_bootstrap,
    group_auc_score,
    group_auc_table,
    precision_recall_curve,
    roc_auc_ci,
    roc_auc_score,
    roc_curve,
    threshold_counts,
)
from metrics.compare import _Draws
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SLOW_SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _group_draws(groups: np.ndarray, seed: int, counts: str, n_resamples: int) -> np.ndarray:
    """Each resample's draw count of every distinct group (sorted ids): the documented draws of
    the cluster bootstrap, one count per group."""
    n_groups = np.unique(groups).size
    return _Draws(np.zeros(n_groups, dtype=bool), seed, counts, False).block(n_resamples)


def _repeat_groups(c: np.ndarray, groups: np.ndarray, *arrays):
    """Every row repeated as often as its group was drawn; each copy of a group a new group."""
    ids = np.unique(groups, return_inverse=True)[1].reshape(-1)
    times = c[ids].astype(np.int64)
    copy = np.concatenate([np.arange(k) for k in times]) if times.sum() else np.zeros(0, int)
    # Copy j of every row of a group is copy j of the group: one new group id for all of them.
    new_ids = np.repeat(ids, times) * (int(c.max(initial=0)) + 1) + copy
    return (new_ids, *(np.repeat(x, times) for x in arrays))


# --- the cluster bootstrap --------------------------------------------------------------------


@SETTINGS
@given(
    binary_tables(max_models=3, weights=True, groups=True),
    st.integers(0, 2**16),
    st.sampled_from(["poisson", "multinomial"]),
    st.sampled_from(["impressions", "positives", "uniform"]),
)
def test_cluster_bootstrap_equals_gauc_on_repeated_groups(t, seed, counts, weighting):
    tables = [_quiet(group_auc_table, t.y, s, t.groups, sample_weight=t.weights) for s in t.scores]
    values = np.column_stack([tb.auc for tb in tables])
    weights = np.column_stack([tb.weights(weighting) for tb in tables])
    assume((np.isfinite(values) & (weights > 0)).any(axis=0).all())
    n_resamples = 8
    r = cluster_bootstrap(values, weights, n_resamples=n_resamples, seed=seed, counts=counts)
    draws = _group_draws(t.groups, seed, counts, n_resamples)
    w = np.ones(t.y.size) if t.weights is None else t.weights
    for i in range(n_resamples):
        ids, yy, ww, *ss = _repeat_groups(draws[i], t.groups, t.y, w, *t.scores)
        for k, s in enumerate(ss):
            has = yy.size and _quiet(group_auc_table, yy, s, ids, sample_weight=ww).defined.any()
            if not has:
                assert math.isnan(r.replicates[i, k])
                continue
            want = _quiet(group_auc_score, yy, s, ids, sample_weight=ww, weighting=weighting)
            assert r.replicates[i, k] == pytest.approx(want, rel=1e-12, abs=1e-12)


# --- fast_paired_bootstrap(groups=...) ----------------------------------------------------------


def _rates(y, s, w, threshold):
    c = confusion_at_threshold(y, s, threshold, pos_label=True, sample_weight=w)
    # Nothing called positive: at a fixed threshold the library's 0/0 is 0, and so are the
    # bootstrap's replicates (metrics.confusion_at_threshold).
    precision = c.tp / (c.tp + c.fp) if c.tp + c.fp > 0 else 0.0
    recall = c.tp / (c.tp + c.fn) if c.tp + c.fn > 0 else 0.0
    return precision, recall


@SETTINGS
@given(
    binary_tables(max_models=3, weights=True, groups=True),
    st.integers(0, 2**16),
    st.sampled_from(["poisson", "multinomial"]),
)
def test_group_bootstrap_equals_the_metrics_on_repeated_groups(t, seed, counts):
    n_resamples = 6
    thresholds = [float(np.median(s)) for s in t.scores]
    fast = _quiet(
        fast_paired_bootstrap,
        t.y,
        *t.scores,
        n_resamples=n_resamples,
        seed=seed,
        counts=counts,
        sample_weight=t.weights,
        thresholds=thresholds,
        groups=t.groups,
    )
    draws = _group_draws(t.groups, seed, counts, n_resamples)
    w = np.ones(t.y.size) if t.weights is None else t.weights
    for i in range(n_resamples):
        _, yy, ww, *ss = _repeat_groups(draws[i], t.groups, t.y, w, *t.scores)
        both = ww[yy].sum() > 0 and ww[~yy].sum() > 0
        for k, s in enumerate(ss):
            got = {name: fast.results[name].replicates[i, k] for name in fast.results}
            if not both:
                assert math.isnan(got["roc_auc"])
                continue
            weight = None if t.weights is None else ww
            auc = roc_auc_score(yy, s, sample_weight=weight)
            ap = average_precision_score(yy, s, pos_label=True, sample_weight=weight)
            assert got["roc_auc"] == pytest.approx(auc, rel=1e-12, abs=1e-12)
            assert got["average_precision"] == pytest.approx(ap, rel=1e-12, abs=1e-12)
            precision, recall = _rates(yy, s, weight, thresholds[k])
            assert got["precision"] == pytest.approx(precision, rel=1e-12, abs=1e-12, nan_ok=True)
            assert got["recall"] == pytest.approx(recall, rel=1e-12, abs=1e-12, nan_ok=True)


# --- threshold metrics ------------------------------------------------------------------------


def _loop_counts(y, s, w):
    """Distinct thresholds of the rows that carry weight, decreasing, with the weight of each
    class at or above each: the definition, one threshold at a time."""
    w = np.ones(y.size) if w is None else w
    thresholds = np.unique(s[w > 0])[::-1]
    tps = np.array([w[y & (s >= t)].sum() for t in thresholds])
    fps = np.array([w[~y & (s >= t)].sum() for t in thresholds])
    return thresholds, tps, fps


@SETTINGS
@given(binary_tables(max_models=1, weights=True))
def test_threshold_counts_and_curves_equal_a_loop(t):
    y, s, w = t.y, t.scores[0], t.weights
    thresholds, tps, fps = _loop_counts(y, s, w)
    c = threshold_counts(y, s, pos_label=True, sample_weight=w)
    np.testing.assert_array_equal(c.thresholds, thresholds)
    np.testing.assert_allclose(c.tps, tps, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.fps, fps, rtol=1e-12, atol=1e-12)
    n_pos, n_neg = tps[-1], fps[-1]

    fpr, tpr, thr = roc_curve(y, s, pos_label=True, sample_weight=w)
    np.testing.assert_array_equal(thr, np.r_[np.inf, thresholds])
    np.testing.assert_allclose(fpr, np.r_[0, fps / n_neg], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tpr, np.r_[0, tps / n_pos], rtol=1e-12, atol=1e-15)

    precision, recall, thr = precision_recall_curve(y, s, pos_label=True, sample_weight=w)
    np.testing.assert_array_equal(thr, thresholds[::-1])
    want_p = np.r_[(tps / (tps + fps))[::-1], 1.0]
    np.testing.assert_allclose(precision, want_p, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(recall, np.r_[(tps / n_pos)[::-1], 0.0], rtol=1e-12, atol=1e-15)


@SETTINGS
@given(binary_tables(max_models=1, weights=True), st.data())
def test_confusion_at_threshold_equals_a_loop(t, data):
    y, s = t.y, t.scores[0]
    w = np.ones(y.size) if t.weights is None else t.weights
    distinct = np.unique(s)
    candidates = np.r_[distinct, (distinct[:-1] + distinct[1:]) / 2, s.min() - 1, s.max() + 1]
    for threshold in data.draw(st.lists(st.sampled_from(candidates.tolist()), min_size=1)):
        c = confusion_at_threshold(y, s, threshold, pos_label=True, sample_weight=t.weights)
        called = s >= threshold
        want = [w[y & called].sum(), w[~y & called].sum(), w[~y & ~called].sum()]
        want.append(w[y & ~called].sum())
        got = [c.tp, c.fp, c.tn, c.fn]
        if t.weights is None:
            assert got == [int(x) for x in want]
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# --- DeLong -----------------------------------------------------------------------------------


def _pairwise_components(y, s):
    """Per positive, the share of negatives it outscores; per negative, the share of positives
    outscoring it (ties one half): from the full M x N comparison matrix."""
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    return psi.mean(axis=1), psi.mean(axis=0), psi.mean()


@SETTINGS
@given(binary_tables(max_models=2))
def test_delong_equals_the_pairwise_matrix(t):
    a, b = t.scores[0], t.scores[-1]
    r = _quiet(delong_test, t.y, a, b)
    v10a, v01a, auc_a = _pairwise_components(t.y, a)
    v10b, v01b, auc_b = _pairwise_components(t.y, b)
    assert r.auc_a == pytest.approx(auc_a, rel=1e-14)
    assert r.auc_b == pytest.approx(auc_b, rel=1e-14)
    n_pos, n_neg = int(t.y.sum()), int((~t.y).sum())
    if n_pos < 2 or n_neg < 2:
        assert math.isnan(r.std_error)
        return
    s10 = np.cov(np.vstack([v10a, v10b]), ddof=1)
    s01 = np.cov(np.vstack([v01a, v01b]), ddof=1)
    cov = s10 / n_pos + s01 / n_neg
    var_diff = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert r.std_error_a == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-9, abs=1e-12)
    assert r.std_error_b == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-9, abs=1e-12)
    assert r.std_error == pytest.approx(math.sqrt(max(var_diff, 0)), rel=1e-7, abs=1e-9)
    ci = _quiet(roc_auc_ci, t.y, a)
    assert ci.std_error == r.std_error_a


# --- metrics.sql on DuckDB ----------------------------------------------------------------------


@SLOW_SETTINGS
@given(
    binary_tables(max_size=65, max_models=3, weights=True, groups=True),
    st.sampled_from(["parquet", "csv"]),
)
def test_sql_summarize_and_delong_equal_numpy(t, fmt):
    from metrics.sql import delong as sql_delong
    from metrics.sql import summarize

    names = [f"s{k}" for k in range(len(t.scores))]
    frame = pd.DataFrame(
        {"y": t.y.astype(int), "g": t.groups, **dict(zip(names, t.scores, strict=True))}
    )
    if t.weights is not None:
        frame["w"] = t.weights
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"t.{fmt}"
        frame.to_parquet(path) if fmt == "parquet" else frame.to_csv(path, index=False)
        weight = None if t.weights is None else "w"
        summary = _quiet(summarize, str(path), "y", names, group="g", weight=weight)
        # One row of a class: the engine's DeLong is wrong there (see the xfail below); the
        # numbers it can get right are checked on every other shape.
        n_pos, n_neg = int(t.y.sum()), int((~t.y).sum())
        plain = t.weights is None and min(n_pos, n_neg) >= 2
        dl = _quiet(sql_delong, str(path), "y", names) if plain else None
    for name, s in zip(names, t.scores, strict=True):
        m = summary.models[name]
        auc = roc_auc_score(t.y, s, sample_weight=t.weights)
        if t.weights is None:
            assert m.auc == auc  # exact integers on both sides
        else:
            assert m.auc == pytest.approx(auc, rel=1e-12)
        ap = average_precision_score(t.y, s, pos_label=True, sample_weight=t.weights)
        assert m.average_precision == pytest.approx(ap, rel=1e-12)
        table = _quiet(group_auc_table, t.y, s, t.groups, sample_weight=t.weights)
        if table.defined.any():
            want = table.score("impressions")
            assert m.gauc == pytest.approx(want, rel=1e-12)
        if dl is not None:
            got, want = dl.interval(name), _quiet(roc_auc_ci, t.y, s)
            assert got.auc == want.auc
            assert got.std_error == pytest.approx(want.std_error, rel=1e-12, nan_ok=True)
    if dl is not None and len(names) > 1:
        got, want = dl.test(names[0], names[1]), _quiet(delong_test, t.y, t.scores[0], t.scores[1])
        assert got.std_error == pytest.approx(want.std_error, rel=1e-9, abs=1e-12, nan_ok=True)
        assert got.p_value == pytest.approx(want.p_value, rel=1e-9, abs=1e-12, nan_ok=True)


def test_sql_delong_with_one_row_of_a_class_is_undefined_as_in_numpy(tmp_path):
    from metrics.sql import delong as sql_delong

    path = tmp_path / "t.parquet"
    pd.DataFrame({"y": [1, 0, 0], "a": [0.1, 0.5, 0.3], "b": [0.4, 0.2, 0.3]}).to_parquet(path)
    dl = _quiet(sql_delong, str(path), "y", ["a", "b"])
    want = _quiet(delong_test, [1, 0, 0], [0.1, 0.5, 0.3], [0.4, 0.2, 0.3])
    assert math.isnan(want.p_value)
    assert math.isnan(dl.test("a", "b").p_value)
    assert math.isnan(dl.interval("a").ci_low)
