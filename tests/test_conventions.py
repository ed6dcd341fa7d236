"""ROC AUC under Keras's and Spark's conventions (metrics.conventions), checked on Keras's own
documented example and against independent formulations: Spark's bins as scores replaced by
their bin's highest score (then the exact AUC), Keras's grid as the exact AUC when every score
sits alone in a grid cell, minoring <= interpolation <= majoring."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import roc_auc_score
from metrics.conventions import keras_roc_auc, spark_roc_auc
from tests.strategies import binary_tables


def test_keras_documented_example():
    # keras.metrics.AUC docs: num_thresholds=3, y_true [0, 0, 1, 1], y_pred [0, 0.5, 0.3, 0.9]
    assert keras_roc_auc([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], num_thresholds=3) == pytest.approx(0.75)


@settings(max_examples=60, deadline=None)
@given(binary_tables(max_size=60, max_models=1, weights=True))
def test_keras_bounds_bracket_the_trapezoid(table):
    s = 1 / (1 + np.exp(-table.scores[0]))
    lo, mid, hi = (
        keras_roc_auc(table.y, s, summation_method=m, sample_weight=table.weights)
        for m in ("minoring", "interpolation", "majoring")
    )
    assert lo <= mid + 1e-12
    assert mid <= hi + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 80), st.integers(0, 2**32 - 1))
def test_keras_equals_exact_when_each_score_has_its_own_grid_cell(n, seed):
    rng = np.random.default_rng(seed)
    cells = rng.choice(199, size=n, replace=False)  # 200 thresholds: 199 cells in [0, 1]
    s = (cells + 0.5) / 199
    y = rng.random(n) < 0.5
    y[0], y[1] = True, False
    assert keras_roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def _binned_reference(y, s, w, num_bins):
    """Every score replaced by the highest score of its Spark bin; then the exact AUC."""
    distinct = np.unique(s)[::-1]
    grouping = distinct.size // num_bins
    if grouping < 2:
        return roc_auc_score(y, s, sample_weight=w)
    top = distinct[(np.arange(distinct.size) // grouping) * grouping]
    mapped = top[np.searchsorted(-distinct, -s)]
    return roc_auc_score(y, mapped, sample_weight=w)


@settings(max_examples=80, deadline=None)
@given(binary_tables(max_size=129, max_models=1, weights=True), st.sampled_from([1, 2, 3, 7, 50]))
def test_spark_bins_equal_the_exact_auc_of_binned_scores(table, num_bins):
    y, s, w = table.y, table.scores[0], table.weights
    if w is not None and not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    got = spark_roc_auc(y, s, num_bins=num_bins, sample_weight=w)
    assert got == pytest.approx(_binned_reference(y, s, w, num_bins), abs=1e-12)


def test_spark_without_binning_is_exact():
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3
    s = rng.normal(size=5000) + y
    assert spark_roc_auc(y, s, num_bins=0) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert spark_roc_auc(y, s) != pytest.approx(roc_auc_score(y, s), abs=1e-6)  # 1,000 bins


def test_bad_summation_method_says_so():
    with pytest.raises(ValueError, match="summation_method must be one of"):
        keras_roc_auc([0, 1], [0.2, 0.7], summation_method="riemann")
