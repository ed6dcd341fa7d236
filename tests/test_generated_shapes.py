"""Every fast path against its slow reference on generated shapes (see ``tests/strategies.py``).

The bug these were written for: the fast paired bootstrap shared one scratch buffer between the
positives' and the negatives' passes whenever both classes had the same size, so every interval
on balanced data was wrong while every hand-picked test (unbalanced by chance) passed.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import (
    average_precision_score,
    fast_paired_bootstrap,
    paired_bootstrap,
    roc_auc_score,
)
from tests.strategies import binary_tables, examples

SETTINGS = settings(
    max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@SETTINGS
@given(binary_tables(), st.integers(0, 2**16), st.booleans())
def test_fast_bootstrap_bit_identical_to_paired_bootstrap(t, seed, stratified):
    n_resamples = 12
    fast = _quiet(
        fast_paired_bootstrap,
        t.y,
        *t.scores,
        n_resamples=n_resamples,
        seed=seed,
        counts="multinomial",
        stratified=stratified,
    )
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = _quiet(
            paired_bootstrap,
            metric,
            t.y,
            *t.scores,
            n_resamples=n_resamples,
            seed=seed,
            counts="multinomial",
            stratified=stratified,
        )
        got = fast.results[name]
        assert np.array_equal(got.replicates, slow.replicates, equal_nan=True), name
        assert got.models == slow.models, name


@SETTINGS
@given(binary_tables(weights=True), st.integers(0, 2**16))
def test_fast_bootstrap_weighted_and_poisson_agree_with_paired_bootstrap(t, seed):
    fast = _quiet(
        fast_paired_bootstrap,
        t.y,
        *t.scores,
        n_resamples=8,
        seed=seed,
        counts="poisson",
        sample_weight=t.weights,
    )
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        slow = _quiet(
            paired_bootstrap,
            metric,
            t.y,
            *t.scores,
            n_resamples=8,
            seed=seed,
            counts="poisson",
            sample_weight=t.weights,
        )
        np.testing.assert_allclose(
            fast.results[name].replicates, slow.replicates, rtol=1e-12, atol=1e-12, err_msg=name
        )


@SETTINGS
@given(
    binary_tables(groups=True), st.integers(0, 2**16), st.sampled_from(["poisson", "multinomial"])
)
def test_fast_bootstrap_with_groups_equals_rows_weighted_by_group_draws(t, seed, counts):
    from metrics.compare import _Draws

    n_resamples = 10
    fast = _quiet(
        fast_paired_bootstrap,
        t.y,
        *t.scores,
        n_resamples=n_resamples,
        seed=seed,
        counts=counts,
        groups=t.groups,
    )
    # The oracle: draw each distinct group (sorted) as cluster_bootstrap does, weight its rows.
    ids, inverse = np.unique(t.groups, return_inverse=True)
    drawn = _Draws(np.zeros(ids.size, bool), seed, counts, False).block(n_resamples)
    for name, metric in (
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ):
        expected = np.array(
            [
                [
                    _quiet(metric, t.y, s, sample_weight=drawn[r][inverse].astype(float))
                    for s in t.scores
                ]
                for r in range(n_resamples)
            ]
        )
        assert np.array_equal(fast.results[name].replicates, expected, equal_nan=True), name
