"""Every worked number of the source articles (../shared/seeds/) in this scope, by name."""

from __future__ import annotations

from fractions import Fraction

import pytest

from metrics import (
    average_precision_score,
    confusion_at_threshold,
    precision_recall_curve,
    roc_auc_score,
    threshold_counts,
)


def test_seed000_binary_ap_is_five_sixths():
    # Scores [0.4, 0.1, 0.8, 0.35], truth [0, 0, 1, 1].
    assert average_precision_score([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35]) == pytest.approx(
        5 / 6, abs=1e-15
    )


def test_seed000_step_table():
    # P_i and R_i at thresholds 0.8, 0.4, 0.35, 0.1, as the article lists them.
    counts = threshold_counts([0, 0, 1, 1], [0.4, 0.1, 0.8, 0.35])
    rates = counts.confusion()
    assert counts.thresholds.tolist() == [0.8, 0.4, 0.35, 0.1]
    assert rates.precision.tolist() == pytest.approx([1, 1 / 2, 2 / 3, 2 / 4])
    assert rates.recall.tolist() == pytest.approx([1 / 2, 1 / 2, 1, 1])


def test_seed000_weighted_ap_is_eight_ninths():
    # Scores [0.5, 0.4, 0.3, 0.1], labels [1, 0, 0, 1], weights [2, 0.5, 1, 1].
    y, s, w = [1, 0, 0, 1], [0.5, 0.4, 0.3, 0.1], [2, 0.5, 1, 1]
    assert average_precision_score(y, s, sample_weight=w) == pytest.approx(8 / 9, abs=1e-15)
    precision, recall, _ = precision_recall_curve(y, s, sample_weight=w)
    # The article lists P = [2/2, 2/2.5, 2/3.5, 3/4.5] and R = [2/3, 2/3, 2/3, 1] by rank.
    assert precision[:-1][::-1].tolist() == pytest.approx([2 / 2, 2 / 2.5, 2 / 3.5, 3 / 4.5])
    assert recall[:-1][::-1].tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3, 1])


def test_seed004_auc_pair_counting_no_ties_is_075():
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75


def test_seed004_auc_tie_counts_half_is_0875():
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8]) == 0.875


def test_seed004_rank_formula_with_ties_is_ten_twelfths():
    y = [0, 1, 1, 0, 0, 1, 1]
    s = [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]
    auc = roc_auc_score(y, s)
    assert Fraction(auc).limit_denominator(100) == Fraction(10, 12)
    assert auc == pytest.approx(10 / 12, abs=1e-15)
    # Same value on the weighted path (weights of one).
    assert roc_auc_score(y, s, sample_weight=[1] * 7) == pytest.approx(10 / 12, abs=1e-15)


def test_seed003_threshold_half_gives_precision_half_recall_one():
    c = confusion_at_threshold([True, False, False], [0.7, 0.3, 0.5], 0.5, pos_label=True)
    assert (c.tp, c.fp, c.tn, c.fn) == (1, 1, 1, 0)
    assert c.precision == 0.5
    assert c.recall == 1.0
    looked_up = threshold_counts([True, False, False], [0.7, 0.3, 0.5]).at(0.5)
    assert (looked_up.precision, looked_up.recall) == (0.5, 1.0)


def test_seed003_all_negative_classifier_on_rare_positives():
    # 100 relevant among 10^6: predicting all negative scores 99.99% accuracy and 0% recall.
    import numpy as np

    y = np.zeros(1_000_000, dtype=bool)
    y[:100] = True
    c = confusion_at_threshold(y, np.zeros(y.size), 0.5, pos_label=True)
    assert c.accuracy == pytest.approx(0.9999)
    assert c.recall == 0.0
    assert c.precision == 0.0
