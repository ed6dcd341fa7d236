"""Arg-max confusion matrix and top-k accuracy against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

from metrics.multiclass import multiclass_confusion_matrix, top_k_accuracy_score


def random_multiclass(rng, n=None, c=None):
    n = n or int(rng.integers(6, 100))
    c = c or int(rng.integers(3, 6))
    y = rng.integers(0, c, n)
    y[:c] = np.arange(c)  # every class present
    s = np.round(rng.random((n, c)), 1)  # many ties
    return y, s


@pytest.mark.parametrize("seed", range(60))
def test_top_k_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    y, s = random_multiclass(rng)
    w = rng.uniform(0.1, 2, len(y)) if seed % 2 else None
    for k in range(1, s.shape[1]):
        assert top_k_accuracy_score(y, s, k=k, sample_weight=w) == pytest.approx(
            skm.top_k_accuracy_score(y, s, k=k, sample_weight=w, labels=np.arange(s.shape[1])),
            abs=1e-12,
        )


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_confusion_matrix_matches_sklearn(seed, normalize):
    rng = np.random.default_rng(seed)
    y, s = random_multiclass(rng)
    names = np.array(["lion", "owl", "yak", "emu", "cod", "gnu"])[: s.shape[1]]
    order = np.argsort(names)
    labels = names[y]
    w = rng.uniform(0.1, 2, len(y)) if seed % 2 else None
    got = multiclass_confusion_matrix(labels, s[:, order], sample_weight=w, normalize=normalize)
    expected = skm.confusion_matrix(
        labels, names[order][np.argmax(s[:, order], axis=1)], labels=names[order],
        sample_weight=w, normalize=normalize,
    )  # fmt: skip
    np.testing.assert_allclose(got, np.nan_to_num(expected), atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="k must be a positive integer"):
        top_k_accuracy_score([0, 1], [[0.1, 0.9], [0.2, 0.8]], k=0)
    with pytest.raises(ValueError, match="normalize must be"):
        multiclass_confusion_matrix([0, 1], [[0.1, 0.9], [0.2, 0.8]], normalize="rows")
    with pytest.raises(ValueError, match="one class label per row"):
        top_k_accuracy_score([[0, 1], [1, 0]], [[0.1, 0.9], [0.2, 0.8]])
