"""The five AP methods against plain, exact reference implementations and the seeds."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm

from metrics import average_precision_score, precision_recall_curve, threshold_counts
from metrics.average_precision import AP_METHODS, ap_breakdown

# --- exact references, in Fractions, from each method's definition ----------------------------


def pr_points(y, s):
    """(recall, precision) as Fractions at each distinct threshold, decreasing threshold."""
    n_pos = sum(y)
    points = []
    for t in sorted(set(s), reverse=True):
        tp = sum(1 for yi, si in zip(y, s, strict=True) if si >= t and yi)
        fp = sum(1 for yi, si in zip(y, s, strict=True) if si >= t and not yi)
        points.append((Fraction(tp, n_pos), Fraction(tp, tp + fp)))
    return points


def ref_step(points):
    total, last = Fraction(0), Fraction(0)
    for r, p in points:
        total += (r - last) * p
        last = r
    return total


def ref_trapezoid(points):
    total, (last_r, last_p) = Fraction(0), (Fraction(0), Fraction(1))
    for r, p in points:
        total += (r - last_r) * (p + last_p) / 2
        last_r, last_p = r, p
    return total


def ref_interpolated(points, n_levels):
    """VOC 2007 (n_levels=10) / COCO (n_levels=100): best precision at recall >= level."""
    total = Fraction(0)
    for k in range(n_levels + 1):
        level = Fraction(k, n_levels)
        reached = [p for r, p in points if r >= level]
        total += max(reached) if reached else 0
    return total / (n_levels + 1)


def ref_voc_all(points):
    """The VOC 2010 devkit's loop: pad, make precision non-increasing, sum where recall moves."""
    mrec = [Fraction(0)] + [r for r, _ in points] + [Fraction(1)]
    mpre = [Fraction(0)] + [p for _, p in points] + [Fraction(0)]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    return sum(
        (
            (mrec[i + 1] - mrec[i]) * mpre[i + 1]
            for i in range(len(mrec) - 1)
            if mrec[i + 1] != mrec[i]
        ),
        Fraction(0),
    )


REFERENCES = {
    "step": ref_step,
    "trapezoid": ref_trapezoid,
    "voc11": lambda pts: ref_interpolated(pts, 10),
    "voc_all": ref_voc_all,
    "coco101": lambda pts: ref_interpolated(pts, 100),
}


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.parametrize("method", AP_METHODS)
def test_methods_equal_exact_references(seed, method):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    y[rng.integers(n)] = 1
    s = np.round(rng.random(n), int(rng.integers(0, 3)))
    expected = REFERENCES[method](pr_points(y.tolist(), s.tolist()))
    assert average_precision_score(y, s, method=method) == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_trapezoid_is_sklearn_auc_of_its_pr_curve(seed):
    # scikit-learn < 0.19 computed AP as auc(recall, precision) over its PR curve.
    rng = np.random.default_rng(seed)
    y = (rng.random(60) < 0.4).astype(int)
    y[0] = 1
    s = np.round(rng.random(60), 1)
    w = rng.uniform(0.2, 3, 60)
    precision, recall, _ = skm.precision_recall_curve(y, s, sample_weight=w)
    assert average_precision_score(y, s, sample_weight=w, method="trapezoid") == pytest.approx(
        skm.auc(recall, precision), abs=1e-12
    )


def test_recall_level_three_tenths_is_reached_exactly():
    # 3 of 10 positives found: recall exactly 0.3. np.arange(0, 1.1, 0.1)[3] is
    # 0.30000000000000004 and would miss it; our levels are exact.
    y = [1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
    s = np.arange(len(y), 0, -1, dtype=float)
    b = ap_breakdown(*_counts(y, s), "voc11")
    assert b.precision[3] == 1.0  # precision 1 at recall 0.3 counts for level 0.3
    assert np.arange(0, 1.1, 0.1)[3] > 0.3


def _counts(y, s):
    c = threshold_counts(y, s)
    return c.tps, c.fps


def test_breakdown_sums_to_value_and_levels():
    y, s = [1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.2]
    for method in AP_METHODS:
        b = ap_breakdown(*_counts(y, s), method)
        assert float(np.sum(b.weight * b.precision)) == pytest.approx(b.value)
        assert b.value == pytest.approx(average_precision_score(y, s, method=method))
    assert ap_breakdown(*_counts(y, s), "voc11").recall.shape == (11,)
    assert ap_breakdown(*_counts(y, s), "coco101").recall.shape == (101,)
    np.testing.assert_allclose(
        ap_breakdown(*_counts(y, s), "coco101").recall[[0, 37, 100]], [0, 0.37, 1]
    )


def test_envelope_methods_never_below_step():
    rng = np.random.default_rng(5)
    for _ in range(50):
        y = (rng.random(30) < 0.3).astype(int)
        y[0] = 1
        s = rng.random(30)
        assert (
            average_precision_score(y, s, method="voc_all") >= average_precision_score(y, s) - 1e-15
        )


def test_unknown_method():
    with pytest.raises(ValueError, match=r"method must be one of \('step', 'trapezoid'"):
        average_precision_score([0, 1], [0.1, 0.2], method="11point")


# --- seeds ------------------------------------------------------------------------------------


def test_seed002_trapezoid_07917_vs_step_08333():
    y, s = [1, 0, 1, 0], [1, 0.8, 0.6, 0.4]
    assert average_precision_score(y, s, method="trapezoid") == pytest.approx(19 / 24, abs=1e-15)
    assert round(average_precision_score(y, s, method="trapezoid"), 4) == 0.7917
    assert average_precision_score(y, s) == pytest.approx(5 / 6, abs=1e-15)
    assert round(average_precision_score(y, s), 4) == 0.8333


def test_seed000_weighted_ap_points():
    y, s, w = [1, 0, 0, 1], [0.5, 0.4, 0.3, 0.1], [2, 0.5, 1, 1]
    precision, recall, _ = precision_recall_curve(y, s, sample_weight=w)
    b = ap_breakdown(*_weighted_counts(y, s, w), "step")
    assert b.value == pytest.approx(8 / 9)
    assert b.weight.tolist() == pytest.approx([2 / 3, 0, 0, 1 / 3])
    assert precision[0] == pytest.approx(3 / 4.5)
    assert recall[0] == 1.0


def _weighted_counts(y, s, w):
    c = threshold_counts(y, s, sample_weight=w)
    return c.tps, c.fps
