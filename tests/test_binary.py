"""Binary curves, areas and confusion rates against slow references and scikit-learn."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import (
    Confusion,
    UndefinedMetricWarning,
    average_precision_score,
    confusion_at_threshold,
    confusion_matrix_at_thresholds,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
    threshold_counts,
)
from tests.strategies import examples

# --- slow, obviously correct references ------------------------------------------------------


def ref_auc(y, s, w=None):
    """Weighted pair counting: P(score_pos > score_neg) + 1/2 P(tie)."""
    y = np.asarray(y, dtype=bool)
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    num = den = 0.0
    for i, j in itertools.product(np.flatnonzero(y), np.flatnonzero(~y)):
        pair = w[i] * w[j]
        den += pair
        num += pair * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den


def ref_ap(y, s, w=None):
    """A loop over distinct thresholds: sum of (R_i - R_{i-1}) * P_i."""
    y = np.asarray(y, dtype=bool)
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    total_pos = w[y].sum()
    ap, last_recall = 0.0, 0.0
    for t in sorted(set(s[w > 0]), reverse=True):
        predicted = s >= t
        tp = w[predicted & y].sum()
        fp = w[predicted & ~y].sum()
        recall = tp / total_pos
        ap += (recall - last_recall) * (tp / (tp + fp))
        last_recall = recall
    return ap


def random_problem(rng, n=None, *, ties=True, weights=False):
    n = n or int(rng.integers(2, 60))
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    y[:2] = [True, False]  # both classes present
    rng.shuffle(y)
    s = rng.normal(size=n) + y * rng.uniform(0, 2)
    if ties:
        s = np.round(s, int(rng.integers(0, 2)))
    w = rng.integers(0, 4, size=n) * rng.uniform(0.5, 2) if weights else None
    if w is not None:
        w[np.flatnonzero(y)[0]] += 1  # keep a positive and a negative with weight
        w[np.flatnonzero(~y)[0]] += 1
    return y.astype(int), s, w


CASES = [
    (seed, ties, weights)
    for seed in range(150)
    for ties, weights in [(True, False), (True, True), (False, False), (False, True)]
]


# --- against the references -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_auc_and_ap_match_slow_references(seed):
    rng = np.random.default_rng(seed)
    y, s, w = random_problem(rng, weights=seed % 2 == 1)
    assert roc_auc_score(y, s, sample_weight=w) == pytest.approx(ref_auc(y, s, w), abs=1e-12)
    assert average_precision_score(y, s, sample_weight=w) == pytest.approx(
        ref_ap(y, s, w), abs=1e-12
    )


def test_auc_exact_on_large_tied_and_untied_inputs():
    rng = np.random.default_rng(7)
    y = rng.random(200_000) < 0.3
    for s in (rng.random(y.size), np.round(rng.random(y.size), 2), rng.integers(0, 3, y.size)):
        # Mann-Whitney U from scipy-free ranks: average ranks of tied groups.
        _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
        first = np.cumsum(counts) - counts
        ranks = (first + (counts + 1) / 2)[inverse]
        n_pos, n_neg = y.sum(), (~y).sum()
        expected = (ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
        assert roc_auc_score(y, s) == pytest.approx(expected, abs=1e-12)


# --- against scikit-learn ---------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "ties", "weights"), CASES)
def test_matches_sklearn(seed, ties, weights):
    rng = np.random.default_rng(1000 + seed)
    y, s, w = random_problem(rng, n=int(rng.integers(2, 400)), ties=ties, weights=weights)
    assert roc_auc_score(y, s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, s, sample_weight=w), abs=1e-12
    )
    assert average_precision_score(y, s, sample_weight=w) == pytest.approx(
        skm.average_precision_score(y, s, sample_weight=w), abs=1e-12
    )
    pairs = [
        (
            roc_curve(y, s, sample_weight=w),
            skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False),
        ),
        (
            precision_recall_curve(y, s, sample_weight=w),
            skm.precision_recall_curve(y, s, sample_weight=w),
        ),
        (
            confusion_matrix_at_thresholds(y, s, sample_weight=w),
            skm.confusion_matrix_at_thresholds(y, s, sample_weight=w),
        ),
    ]
    if w is None:
        # With fractional weights, which points are collinear depends on the order the weights
        # were summed in (a second difference of 1e-16 or exactly 0); unweighted it is exact.
        pairs += [
            (roc_curve(y, s, drop_intermediate=True), skm.roc_curve(y, s)),
            (
                precision_recall_curve(y, s, drop_intermediate=True),
                skm.precision_recall_curve(y, s, drop_intermediate=True),
            ),
        ]
    for ours, theirs in pairs:
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert a.shape == b.shape
            if w is None:
                np.testing.assert_array_equal(a, b)
            else:  # weighted sums in another order differ in the last bits
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_string_labels_and_pos_label_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    y, s, w = random_problem(rng, weights=seed % 2 == 0)
    labels = np.where(y == 1, "spam", "ham")
    for pos_label, mask in (("spam", y == 1), ("ham", y == 0)):
        assert average_precision_score(
            labels, s, pos_label=pos_label, sample_weight=w
        ) == pytest.approx(
            skm.average_precision_score(labels, s, pos_label=pos_label, sample_weight=w), abs=1e-12
        )
        np.testing.assert_allclose(
            roc_curve(labels, s, pos_label=pos_label, sample_weight=w),
            skm.roc_curve(labels, s, pos_label=pos_label, sample_weight=w, drop_intermediate=False),
            rtol=1e-12,
        )
        assert roc_auc_score(labels, s, pos_label=pos_label, sample_weight=w) == pytest.approx(
            roc_auc_score(mask, s, sample_weight=w), abs=1e-12
        )
    # Without pos_label, roc_auc_score takes the greater label ("spam") as scikit-learn does.
    assert roc_auc_score(labels, s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(labels, s, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("encoding", ["01", "-11", "bool", "float"])
def test_standard_label_encodings(encoding):
    rng = np.random.default_rng(3)
    y, s, _ = random_problem(rng, n=50)
    encoded = {
        "01": y,
        "-11": np.where(y == 1, 1, -1),
        "bool": y.astype(bool),
        "float": y.astype(float),
    }[encoding]
    assert roc_auc_score(encoded, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert average_precision_score(encoded, s) == pytest.approx(
        skm.average_precision_score(y, s), abs=1e-12
    )
    np.testing.assert_array_equal(
        roc_curve(encoded, s)[1], skm.roc_curve(y, s, drop_intermediate=False)[1]
    )


def test_accepts_lists_and_pandas_series():
    import pandas as pd

    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert roc_auc_score(pd.Series(y), pd.Series(s)) == roc_auc_score(y, s) == 0.75
    assert roc_auc_score(np.array(y)[:, None], np.array(s)[:, None]) == 0.75


# --- confusion at a threshold -----------------------------------------------------------------


def sklearn_rates(y, s, t, w):
    pred = (s >= t).astype(int)
    kw = {"sample_weight": w}
    return {
        "precision": skm.precision_score(y, pred, zero_division=0, **kw),
        "recall": skm.recall_score(y, pred, zero_division=0, **kw),
        "accuracy": skm.accuracy_score(y, pred, **kw),
        "f_beta": skm.fbeta_score(y, pred, beta=2.0, zero_division=0, **kw),
        "mcc": skm.matthews_corrcoef(y, pred, **kw),
        "cohen_kappa": skm.cohen_kappa_score(y, pred, sample_weight=w),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred, **kw),
    }


@pytest.mark.parametrize("seed", range(80))
def test_confusion_rates_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    y, s, w = random_problem(rng, weights=seed % 2 == 1)
    t = float(rng.choice(s)) if seed % 5 else float(s.max() + 1)  # and nothing predicted
    c = confusion_at_threshold(y, s, t, sample_weight=w)
    tn, fp, fn, tp = skm.confusion_matrix(
        y, (s >= t).astype(int), sample_weight=w, labels=[0, 1]
    ).ravel()
    assert (c.tn, c.fp, c.fn, c.tp) == pytest.approx((tn, fp, fn, tp), abs=1e-9)
    ours = c.as_dict(beta=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sklearn_rates(y, s, t, w)
    for name, value in theirs.items():
        if np.isnan(value):  # scikit-learn's kappa is NaN where 1 - p_e = 0; ours is 0 there
            assert ours[name] == 0.0
        else:
            assert ours[name] == pytest.approx(value, abs=1e-12), name
    assert c.fpr == pytest.approx(fp / (fp + tn) if fp + tn else 0.0)
    assert c.specificity == pytest.approx(1 - c.fpr if fp + tn else 0.0)
    assert c.prevalence == pytest.approx((tp + fn) / (tp + fn + tn + fp))


@pytest.mark.parametrize("seed", range(30))
def test_threshold_counts_lookup_equals_recount(seed):
    rng = np.random.default_rng(seed)
    y, s, w = random_problem(rng, weights=seed % 2 == 1)
    counts = threshold_counts(y, s, sample_weight=w)
    probes = np.concatenate((s, [s.min() - 1, s.max() + 1, np.inf, -np.inf], rng.normal(size=10)))
    for t in probes:
        direct = confusion_at_threshold(y, s, t, sample_weight=w)
        looked_up = counts.at(t)
        assert (looked_up.tp, looked_up.fp, looked_up.tn, looked_up.fn) == pytest.approx(
            (direct.tp, direct.fp, direct.tn, direct.fn), abs=1e-9
        )
    every = counts.confusion()
    assert every.precision.shape == counts.thresholds.shape
    np.testing.assert_allclose(every.recall, counts.tps / counts.n_pos)


def test_confusion_zero_division_is_zero():
    c = Confusion(tp=0, fp=0, tn=5, fn=0)
    assert (c.precision, c.recall, c.f_beta(1.0), c.mcc, c.cohen_kappa) == (0.0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="beta must be a number >= 0"):
        c.f_beta(-1)


# --- undefined cases --------------------------------------------------------------------------


def test_one_class_gives_nan_with_warning():
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        assert np.isnan(roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        assert np.isnan(roc_auc_score([0, 0], [0.1, 0.2], sample_weight=[1, 2]))
    with pytest.warns(UndefinedMetricWarning, match="No positive samples"):
        assert np.isnan(average_precision_score([0, 0, 0], [0.1, 0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        fpr, tpr, _ = roc_curve([1, 1], [0.1, 0.2])
    assert np.isnan(fpr).all()
    assert tpr[-1] == 1.0
    with pytest.warns(UndefinedMetricWarning, match="recall is set to 1"):
        _, recall, _ = precision_recall_curve([0, 0], [0.1, 0.2])
    assert recall.tolist() == [1.0, 1.0, 0.0]


def test_zero_weight_rows_are_ignored():
    y, s = [0, 1, 0, 1, 0], [0.1, 0.9, 0.5, 0.3, 0.7]
    w = [1, 1, 0, 1, 1]
    keep = [0, 1, 3, 4]
    assert roc_auc_score(y, s, sample_weight=w) == roc_auc_score(np.take(y, keep), np.take(s, keep))
    assert 0.5 not in threshold_counts(y, s, sample_weight=w).thresholds


# --- properties -------------------------------------------------------------------------------

problems = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda v: 0 < sum(v) < len(v)),
        st.lists(st.integers(-5, 5), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )
)


@settings(max_examples=examples(200), deadline=None)
@given(problems)
def test_monotone_transform_and_permutation_invariance(problem):
    y, s, _ = (np.array(v) for v in problem)
    s = s.astype(float)
    auc, ap = roc_auc_score(y, s), average_precision_score(y, s)
    assert roc_auc_score(y, np.exp(s / 3) * 7 - 2) == pytest.approx(auc, abs=1e-12)
    assert average_precision_score(y, s**3 + 10) == pytest.approx(ap, abs=1e-12)
    perm = np.random.default_rng(len(y)).permutation(len(y))
    assert roc_auc_score(y[perm], s[perm]) == pytest.approx(auc, abs=1e-12)
    assert average_precision_score(y[perm], s[perm]) == pytest.approx(ap, abs=1e-12)
    assert roc_auc_score(y, -s) == pytest.approx(1 - auc, abs=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(problems)
def test_integer_weights_equal_repeated_rows(problem):
    y, s, w = (np.array(v) for v in problem)
    s = s.astype(float)
    if not (w[y].sum() and w[~y].sum()):
        return
    repeated = np.repeat(np.arange(len(y)), w)
    assert roc_auc_score(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y[repeated], s[repeated]), abs=1e-12
    )
    assert average_precision_score(y, s, sample_weight=w) == pytest.approx(
        average_precision_score(y[repeated], s[repeated]), abs=1e-12
    )
    weighted = threshold_counts(y, s, sample_weight=w)
    plain = threshold_counts(y[repeated], s[repeated])
    np.testing.assert_array_equal(weighted.thresholds, plain.thresholds)
    np.testing.assert_allclose(weighted.tps, plain.tps)
    np.testing.assert_allclose(weighted.fps, plain.fps)
