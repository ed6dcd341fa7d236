"""Operating-point metrics against a direct loop over every distinct threshold."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.operating import (
    precision_at_recall,
    recall_at_precision,
    top_k_precision_recall,
    tpr_at_fpr,
)


def _loop(y, s, w):
    """(threshold, precision, recall, fpr) at every distinct score, highest first."""
    out = []
    for t in np.unique(s)[::-1]:
        pred = s >= t
        tp, fp = w[pred & y].sum(), w[pred & ~y].sum()
        out.append((t, tp / (tp + fp), tp / w[y].sum(), fp / w[~y].sum()))
    return out


def _best(rows, value, ok):
    good = [(value(r), r[0]) for r in rows if ok(r)]
    if not good:
        return (np.nan, np.nan)
    top = max(v for v, _ in good)
    return top, max(t for v, t in good if v == top)  # the highest threshold among ties


@pytest.mark.parametrize("seed", range(25))
def test_constraints_equal_a_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 200))
    y = rng.random(n) < 0.4
    y[0], y[-1] = True, False
    s = np.round(rng.random(n) + 0.3 * y, 1)
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    sw = w if seed % 2 else None
    rows = _loop(y, s, w)
    for r in (0.3, 0.8, 1.0):
        got = precision_at_recall(y, s, r, sample_weight=sw)
        want = _best(rows, lambda q: q[1], lambda q, r=r: q[2] >= r - 1e-12)
        np.testing.assert_allclose((got.value, got.threshold), want, rtol=1e-12)
    for p in (0.5, 0.9):
        got = recall_at_precision(y, s, p, sample_weight=sw)
        want = _best(rows, lambda q: q[2], lambda q, p=p: q[1] >= p - 1e-12)
        np.testing.assert_allclose((got.value, got.threshold), want, rtol=1e-12)
    for f in (0.0, 0.01, 0.2):
        got = tpr_at_fpr(y, s, f, sample_weight=sw)
        want = _best(rows, lambda q: q[2], lambda q, f=f: q[3] <= f + 1e-12)
        np.testing.assert_allclose((got.value, got.threshold), want, rtol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_top_k_takes_ties_at_the_cut(seed):
    rng = np.random.default_rng(seed)
    n = 100
    y = rng.random(n) < 0.3
    y[0] = True
    s = np.round(rng.random(n), 1)
    for k in (1, 7, 30, 100):
        precision, recall, t = top_k_precision_recall(y, s, k=k)
        kth = np.sort(s)[::-1][k - 1]
        assert t == kth
        pred = s >= kth  # the k-th row's ties come in with it
        assert pred.sum() >= k
        assert precision == pytest.approx(y[pred].mean())
        assert recall == pytest.approx(y[pred].sum() / y.sum())
    assert top_k_precision_recall(y, s, fraction=0.07) == top_k_precision_recall(y, s, k=7)
    with pytest.raises(ValueError, match="exactly one"):
        top_k_precision_recall(y, s)
