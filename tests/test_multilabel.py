"""Multi-label and multi-class averaging against scikit-learn and seed 000."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

from metrics import UndefinedMetricWarning, average_precision_score, roc_auc_score
from metrics.average_precision import AP_METHODS
from metrics.multilabel import label_binarize

AVERAGES = ["macro", "micro", "weighted", "samples", None]

# Seed 000: 4 samples x 3 classes.
SEED_Y = np.array([[0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 1, 0]])
SEED_S = np.array([[0.1, 0.8, 0.3], [0.9, 0.7, 0.5], [0.2, 0.1, 0.9], [0.1, 0.8, 0.6]])


def test_seed000_per_class_ap_075_1_1():
    assert average_precision_score(SEED_Y, SEED_S, average=None).tolist() == pytest.approx(
        [0.75, 1, 1]
    )


def test_seed000_map_is_eleven_twelfths():
    assert average_precision_score(SEED_Y, SEED_S) == pytest.approx(11 / 12, abs=1e-15)


def test_seed000_weighted_is_thirteen_fourteenths():
    assert average_precision_score(SEED_Y, SEED_S, average="weighted") == pytest.approx(
        13 / 14, abs=1e-15
    )


def random_multilabel(rng, *, n=None, c=None, ties=True, full_rows=False):
    n = n or int(rng.integers(4, 80))
    c = c or int(rng.integers(2, 7))
    y = rng.random((n, c)) < rng.uniform(0.2, 0.7)
    # every class has both values; with full_rows, every row too
    y[0, :], y[1, :] = True, False
    if full_rows:
        y[:, 0], y[:, 1] = True, False
        y[0, 1], y[1, 0] = True, False  # keep columns 0 and 1 two-valued
        y[0, 0], y[1, 1] = False, True
    s = rng.normal(size=(n, c)) + y
    if ties:
        s = np.round(s, 0)
    return y.astype(int), s


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("average", AVERAGES)
def test_matches_sklearn(seed, average):
    rng = np.random.default_rng(seed)
    y, s = random_multilabel(rng, full_rows=True, ties=seed % 2 == 0)
    w = rng.uniform(0.1, 3, len(y)) if seed % 3 == 0 else None
    for ours, theirs in (
        (roc_auc_score, skm.roc_auc_score),
        (average_precision_score, skm.average_precision_score),
    ):
        expected = theirs(y, s, average=average, sample_weight=w)
        got = ours(y, s, average=average, sample_weight=w)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("method", AP_METHODS)
def test_every_method_averages_like_its_binary_core(seed, method):
    rng = np.random.default_rng(seed)
    y, s = random_multilabel(rng, full_rows=True)
    per_class = [
        average_precision_score(y[:, c], s[:, c], method=method) for c in range(y.shape[1])
    ]
    per_row = [average_precision_score(y[i], s[i], method=method) for i in range(len(y))]
    got = average_precision_score(y, s, average=None, method=method)
    np.testing.assert_allclose(got, per_class, atol=1e-12)
    assert average_precision_score(y, s, average="samples", method=method) == pytest.approx(
        np.mean(per_row), abs=1e-12
    )
    assert average_precision_score(y, s, average="micro", method=method) == pytest.approx(
        average_precision_score(y.ravel(), s.ravel(), method=method), abs=1e-12
    )


def test_samples_auc_rows_with_ties_equal_binary():
    rng = np.random.default_rng(11)
    y, s = random_multilabel(rng, n=200, c=8, full_rows=True)
    rows = [roc_auc_score(y[i], s[i]) for i in range(len(y))]
    assert roc_auc_score(y, s, average="samples") == pytest.approx(np.mean(rows), abs=1e-12)


def test_undefined_classes_and_rows_are_left_out_with_one_warning():
    y = np.array([[1, 0, 0], [0, 0, 1], [1, 0, 1]])
    s = np.array([[0.9, 0.1, 0.2], [0.3, 0.2, 0.8], [0.7, 0.4, 0.6]])
    with pytest.warns(
        UndefinedMetricWarning, match=r"undefined for 1 class \(class position 1: no positives\)"
    ):
        macro = average_precision_score(y, s)
    assert macro == pytest.approx(
        np.mean([average_precision_score(y[:, c], s[:, c]) for c in (0, 2)])
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_class = average_precision_score(y, s, average=None)
    assert np.isnan(per_class[1])
    assert not caught  # average=None reports NaN entries without a warning
    with pytest.warns(UndefinedMetricWarning, match=r"ROC AUC is undefined for 1 class"):
        roc_auc_score(y, s)


def test_multiclass_one_vs_rest_equals_sklearn():
    rng = np.random.default_rng(2)
    labels = rng.choice(["ant", "bee", "cat"], size=90)
    s = rng.dirichlet([1, 1, 1], size=90)
    for average in ("macro", "weighted"):
        assert roc_auc_score(labels, s, multi_class="ovr", average=average) == pytest.approx(
            skm.roc_auc_score(labels, s, multi_class="ovr", average=average), abs=1e-12
        )
    onehot, classes = label_binarize(labels)
    assert classes.tolist() == ["ant", "bee", "cat"]
    assert average_precision_score(labels, s) == pytest.approx(
        skm.average_precision_score(onehot, s), abs=1e-12
    )


def test_bad_multilabel_input():
    with pytest.raises(
        ValueError, match=r"y_true has shape \(2, 3\) but y_score has shape \(2, 2\)"
    ):
        roc_auc_score([[0, 1, 1], [1, 0, 0]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match=r"must hold 0/1 or booleans"):
        roc_auc_score([[0, 2], [1, 0]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(
        ValueError, match=r"y_true has 2 classes \['a', 'b'\] but y_score has 3 columns"
    ):
        roc_auc_score(["a", "b"], [[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]], multi_class="ovr")
    with pytest.raises(ValueError, match=r"1 NaN or infinite value in 1 row \(position 1\)"):
        roc_auc_score([[0, 1], [1, 0]], [[0.1, 0.2], [np.nan, 0.4]])
    with pytest.raises(ValueError, match=r"outside the classes \['a', 'b'\]"):
        roc_auc_score(["a", "c"], [[0.1, 0.2], [0.3, 0.4]], labels=["a", "b"], multi_class="ovr")
