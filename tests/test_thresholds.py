"""Threshold presets against brute force over every distinct threshold."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import confusion_at_threshold, threshold_counts
from metrics.thresholds import choose_threshold


def brute(y, s, score_fn, feasible=lambda c: True):
    best, best_t = -np.inf, None
    for t in sorted(set(s), reverse=True):
        c = confusion_at_threshold(y, s, t)
        if feasible(c) and score_fn(c) > best:
            best, best_t = score_fn(c), t
    return best_t, best


@pytest.mark.parametrize("seed", range(40))
def test_choices_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [1, 0]
    s = np.round(rng.random(n), 1)
    counts = threshold_counts(y, s)
    cases = [
        ("max_f_beta", {"beta": 2.0}, lambda c: c.f_beta(2.0), lambda c: True),
        ("youden", {}, lambda c: c.recall - c.fpr, lambda c: True),
        (
            "min_cost",
            {"cost_fp": 1.0, "cost_fn": 5.0},
            lambda c: -(c.fp + 5 * c.fn),
            lambda c: True,
        ),
        ("precision_at_least", {"target": 0.6}, lambda c: c.recall, lambda c: c.precision >= 0.6),
        ("recall_at_least", {"target": 0.8}, lambda c: c.precision, lambda c: c.recall >= 0.8),
    ]
    for criterion, kwargs, score_fn, feasible in cases:
        choice = choose_threshold(counts, criterion, **kwargs)
        t, best = brute(y, s, score_fn, feasible)
        assert choice.threshold == t, criterion
        if t is not None:
            assert abs(choice.value) == pytest.approx(abs(best))


def test_unreachable_target_and_bad_input():
    counts = threshold_counts([1, 0, 1, 0], [0.9, 0.8, 0.2, 0.1])
    assert choose_threshold(counts, "precision_at_least", target=1.0).threshold == 0.9
    none = choose_threshold(threshold_counts([0, 1], [0.9, 0.1]), "precision_at_least", target=0.9)
    assert none.threshold is None
    with pytest.raises(ValueError, match="criterion must be one of"):
        choose_threshold(counts, "best")
    with pytest.raises(ValueError, match="needs a target between 0 and 1"):
        choose_threshold(counts, "recall_at_least")
