"""Multi-class ROC AUC, one-vs-rest and one-vs-one (Hand & Till), equal to scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from metrics import UndefinedMetricWarning, roc_auc_score
from metrics.multiclass import ovo_roc_auc
from tests.strategies import examples


def _data(seed: int):
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(3, 6))
    n = int(rng.integers(n_classes * 3, 200))
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    raw = np.round(rng.random((n, n_classes)) + 0.6 * np.eye(n_classes)[y], 1)  # ties
    return y, raw / raw.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_equal_to_scikit_learn(seed, average, multi_class):
    y, p = _data(seed)
    ours = roc_auc_score(y, p, multi_class=multi_class, average=average)
    theirs = sk_roc_auc_score(y, p, multi_class=multi_class, average=average)
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_labels_name_the_score_columns():
    y = np.array(["b", "a", "c", "b", "a", "c"])
    p = np.array([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3],
                  [0.5, 0.2, 0.3], [0.2, 0.3, 0.5]])  # fmt: skip
    ours = roc_auc_score(y, p, multi_class="ovo", labels=["a", "b", "c"])
    assert ours == pytest.approx(sk_roc_auc_score(y, p, multi_class="ovo", labels=["a", "b", "c"]))


def test_ovo_rejects_what_it_cannot_do():
    y, p = _data(0)
    with pytest.raises(ValueError, match="'macro' or 'weighted'"):
        roc_auc_score(y, p, multi_class="ovo", average="micro")
    with pytest.raises(ValueError, match="sample weights"):
        roc_auc_score(y, p, multi_class="ovo", sample_weight=np.ones(y.size))
    with pytest.raises(ValueError, match="'ovr' or 'ovo'"):
        roc_auc_score(y, p, multi_class="raise")


# --- labels absent from y_true (issue 19, item 4) ---------------------------------------------


@st.composite
def _absent_label_cases(draw):
    """Probabilities over 3-5 classes, rows from a random subset of at least two of them (the
    others named in labels= but absent), scores often tied, class counts often equal."""
    n_classes = draw(st.integers(3, 5))
    present = sorted(draw(st.sets(st.integers(0, n_classes - 1), min_size=2, max_size=n_classes)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    per_class = draw(st.integers(1, 12))
    equal = draw(st.booleans())
    counts = [per_class if equal else draw(st.integers(1, 12)) for _ in present]
    y = rng.permutation(np.repeat(present, counts))
    decimals = draw(st.sampled_from([0, 1, 3]))
    raw = np.round(rng.random((y.size, n_classes)) + 0.5 * np.eye(n_classes)[y], decimals) + 0.1
    names = draw(st.sampled_from(["ints", "strings"]))
    labels = np.arange(n_classes) if names == "ints" else np.array(list("abcdefg"[:n_classes]))
    return labels[y], raw / raw.sum(axis=1, keepdims=True), labels


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@settings(max_examples=examples(150), deadline=None)
@given(_absent_label_cases(), st.sampled_from(["macro", "weighted"]))
def test_ovo_with_absent_labels_equals_scikit_learn(case, average):
    y, p, labels = case
    ours = _quiet(ovo_roc_auc, y, p, labels=labels, average=average)
    theirs = _quiet(sk_roc_auc_score, y, p, labels=labels, multi_class="ovo", average=average)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15)


def test_ovo_scikit_learn_toy_case_with_an_absent_label():
    # scikit-learn's test_multiclass_ovo_roc_auc_toydata_binary: only the pair (0, 2) exists.
    p = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    for y, labels in (([0, 2, 0, 2], [0, 1, 2]), (["a", "d", "a", "d"], ["a", "b", "d"])):
        for average in ("macro", "weighted"):
            assert ovo_roc_auc(y, p, labels=labels, average=average) == 0.25


def test_ovo_with_one_class_present_is_nan_with_a_warning():
    p = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4]])
    for average in ("macro", "weighted"):
        with pytest.warns(UndefinedMetricWarning, match="at least two classes"):
            assert np.isnan(ovo_roc_auc([1, 1], p, labels=[0, 1, 2], average=average))


def test_roc_auc_score_ovo_with_an_absent_label_equals_scikit_learn():
    p = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    assert roc_auc_score([0, 2, 0, 2], p, labels=[0, 1, 2], multi_class="ovo") == 0.25


@settings(max_examples=examples(150), deadline=None)
@given(_absent_label_cases(), st.sampled_from(["weighted", "micro", None]))
def test_ovr_with_absent_labels_equals_scikit_learn(case, average):
    y, p, labels = case
    ours = _quiet(roc_auc_score, y, p, labels=labels, multi_class="ovr", average=average)
    theirs = _quiet(sk_roc_auc_score, y, p, labels=labels, multi_class="ovr", average=average)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)  # NaN per absent class


@settings(max_examples=examples(80), deadline=None)
@given(_absent_label_cases())
def test_ovr_macro_with_absent_labels_leaves_them_out(case):
    # A documented difference (metrics.multilabel): scikit-learn's ovr macro average is NaN as
    # soon as one class is absent; ours averages the defined classes and warns.
    y, p, labels = case
    per_class = _quiet(sk_roc_auc_score, y, p, labels=labels, multi_class="ovr", average=None)
    absent = np.isnan(per_class).any()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = roc_auc_score(y, p, labels=labels, multi_class="ovr", average="macro")
    assert ours == pytest.approx(np.nanmean(per_class), rel=1e-12)
    assert any(issubclass(w.category, UndefinedMetricWarning) for w in caught) == absent


def test_ovo_function_rejects_what_it_cannot_do():
    y, p = _data(0)
    with pytest.raises(ValueError, match="'macro' or 'weighted'"):
        ovo_roc_auc(y, p, average="micro")
    with pytest.raises(ValueError, match="sample weights"):
        ovo_roc_auc(y, p, sample_weight=np.ones(y.size))
