"""Brier score, log loss and calibration curve against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.calibration as skc
import sklearn.metrics as skm

from metrics.calibration import brier_score_loss, calibration_curve, log_loss


@pytest.mark.parametrize("seed", range(40))
def test_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    p = np.round(rng.random(n), int(rng.integers(1, 4)))
    p[rng.random(n) < 0.05] = 0.0  # certainty, to exercise the log-loss clip
    w = rng.uniform(0.1, 2, n) if seed % 2 else None
    assert brier_score_loss(y, p, sample_weight=w) == pytest.approx(
        skm.brier_score_loss(y, p, sample_weight=w), abs=1e-12
    )
    assert log_loss(y, p, sample_weight=w) == pytest.approx(
        skm.log_loss(y, p, sample_weight=w), rel=1e-12
    )
    for strategy in ("uniform", "quantile"):
        ours = calibration_curve(y, p, n_bins=7, strategy=strategy)
        theirs = skc.calibration_curve(y, p, n_bins=7, strategy=strategy)
        np.testing.assert_allclose(ours[0], theirs[0], atol=1e-12)
        np.testing.assert_allclose(ours[1], theirs[1], atol=1e-12)
        assert ours[2].sum() == n


def test_probabilities_outside_unit_interval():
    with pytest.raises(ValueError, match=r"1 values outside \[0, 1\] \(for example 1.5\)"):
        brier_score_loss([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="strategy must be"):
        calibration_curve([0, 1], [0.2, 0.5], strategy="equal")
