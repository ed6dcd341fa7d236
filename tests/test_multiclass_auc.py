"""Multi-class ROC AUC, one-vs-rest and one-vs-one (Hand & Till), equal to scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from metrics import roc_auc_score


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
