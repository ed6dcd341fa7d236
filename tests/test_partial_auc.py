"""Partial AUC (max_fpr, McClish-standardised) equal to scikit-learn's, ties and weights
included."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from metrics import roc_auc_score


@pytest.mark.parametrize("seed", range(40))
def test_partial_auc_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 150))
    y = rng.random(n) < 0.4
    y[0], y[-1] = True, False
    s = np.round(rng.random(n) + 0.2 * y, int(rng.integers(1, 4)))
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else None
    for max_fpr in (0.01, 0.1, 0.25, 0.5, 0.9):
        ours = roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w)
        theirs = sk_roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w)
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-14)
    assert roc_auc_score(y, s, max_fpr=1.0) == roc_auc_score(y, s)


def test_chance_and_perfect_are_half_and_one():
    y = np.array([0, 1] * 50, bool)
    assert roc_auc_score(y, y.astype(float), max_fpr=0.1) == pytest.approx(1.0)
    assert roc_auc_score(y, np.zeros(100), max_fpr=0.1) == pytest.approx(0.5)


def test_bad_max_fpr():
    with pytest.raises(ValueError, match=r"max_fpr must be in \(0, 1\]"):
        roc_auc_score([0, 1], [0.1, 0.9], max_fpr=0)
    with pytest.raises(ValueError, match="binary labels only"):
        roc_auc_score([[0, 1], [1, 0]], [[0.1, 0.9], [0.8, 0.2]], max_fpr=0.5)
