"""top_k_accuracy_score on binary labels with one score per row, equal to scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import top_k_accuracy_score as sk_top_k

from metrics import top_k_accuracy_score


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("k", [1, 2])
def test_binary_one_score_per_row(seed, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 100))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n), 1) if seed % 2 else rng.normal(size=n)  # [0, 1] or margins
    w = rng.integers(1, 4, n).astype(float)
    assert top_k_accuracy_score(y, s, k=k) == pytest.approx(sk_top_k(y, s, k=k), rel=1e-12)
    assert top_k_accuracy_score(y, s, k=k, sample_weight=w) == pytest.approx(
        sk_top_k(y, s, k=k, sample_weight=w), rel=1e-12
    )


def test_string_labels_and_bad_input():
    y = np.array(["no", "yes", "yes", "no"])
    s = np.array([0.2, 0.9, 0.4, 0.6])
    assert top_k_accuracy_score(y, s, k=1) == pytest.approx(sk_top_k(y, s, k=1))
    with pytest.raises(ValueError, match="binary labels"):
        top_k_accuracy_score([0, 1, 2], [0.1, 0.5, 0.9], k=1)
