"""Counts reweighted to another class balance (ThresholdCounts.at_prevalence) and AP from
counts (ThresholdCounts.average_precision), against scikit-learn and against the same rows
reweighted by hand: the Threshold page's prevalence control rests on both."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_curve

import metrics
from tests.strategies import binary_tables


@given(binary_tables(max_models=1, weights=True))
def test_ap_from_counts_equals_scikit_learns(table):
    y, s, w = table.y, table.scores[0], table.weights
    counts = metrics.threshold_counts(y, s, sample_weight=w)
    assert counts.average_precision() == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-12
    )


@given(binary_tables(max_models=1, weights=True), st.floats(0.001, 0.999))
def test_reweighting_is_the_rows_reweighted_by_hand(table, prevalence):
    y, s, w = table.y, table.scores[0], table.weights
    base = np.ones(y.size) if w is None else w
    counts = metrics.threshold_counts(y, s, sample_weight=w)
    here = counts.n_pos / (counts.n_pos + counts.n_neg)
    by_hand = base * np.where(y, prevalence / here, (1 - prevalence) / (1 - here))
    moved = counts.at_prevalence(prevalence)
    assert moved.n_pos / (moved.n_pos + moved.n_neg) == pytest.approx(prevalence, rel=1e-9)
    assert moved.n_pos + moved.n_neg == pytest.approx(counts.n_pos + counts.n_neg, rel=1e-9)
    assert moved.average_precision() == pytest.approx(
        average_precision_score(y, s, sample_weight=by_hand), abs=1e-9
    )
    # ROC stays put: the same points at every threshold.
    fpr, tpr, _ = moved.roc()
    fpr0, tpr0, _ = counts.roc()
    np.testing.assert_allclose(fpr, fpr0, atol=1e-12)
    np.testing.assert_allclose(tpr, tpr0, atol=1e-12)
    ref_fpr, ref_tpr, _ = roc_curve(y, s, sample_weight=by_hand, drop_intermediate=False)
    np.testing.assert_allclose(fpr, ref_fpr, atol=1e-9)
    np.testing.assert_allclose(tpr, ref_tpr, atol=1e-9)


def test_a_rarer_positive_class_lowers_precision_and_keeps_recall():
    counts = metrics.threshold_counts([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.6, 0.7])
    rare = counts.at_prevalence(0.1)
    for t in counts.thresholds:
        assert rare.at(t).recall == pytest.approx(counts.at(t).recall)
        assert rare.at(t).fpr == pytest.approx(counts.at(t).fpr)
        assert rare.at(t).precision <= counts.at(t).precision + 1e-12
    assert rare.average_precision() < counts.average_precision()


@pytest.mark.parametrize("prevalence", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_a_prevalence_outside_zero_one_is_refused(prevalence):
    counts = metrics.threshold_counts([0, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        counts.at_prevalence(prevalence)


def test_one_class_cannot_be_reweighted():
    with pytest.raises(ValueError, match="both classes"):
        metrics.threshold_counts([1, 1], [0.2, 0.7]).at_prevalence(0.5)


# --- the Threshold page's control ---------------------------------------------------------------


def test_the_threshold_page_reweights_to_the_chosen_prevalence_and_back():
    """Prevalence 0.05 on the breast-cancer sample: the cards show the reweighted precision and
    prevalence, the ROC title keeps its AUC, the PR title shows the reweighted AP; another
    model starts again from the data's own balance."""
    from tests.apptest_utils import figures, metric_value, open_page
    from ui.compute.data import bundled_dataset
    from ui.tables.dataset import DEFAULT_DATASET
    from ui.words.numbers import decimals

    at = open_page("pages/threshold.py")
    table = bundled_dataset(DEFAULT_DATASET)
    counts = metrics.threshold_counts(table.y, table.score("logistic_regression"))
    roc_title = figures(at)[1]["layout"]["title"]["text"]
    at.number_input(key="threshold_prevalence").set_value(0.05).run()
    assert not at.exception, at.exception
    moved = counts.at_prevalence(0.05)
    c = moved.at(0.5)
    assert metric_value(at, "Prevalence") == "0.050"
    assert metric_value(at, "Precision") == decimals(c.precision, 3)
    assert metric_value(at, "Recall (TPR)") == decimals(counts.at(0.5).recall, 3)
    titles = [f["layout"]["title"]["text"] for f in figures(at)[1:3]]
    assert titles[0] == roc_title  # AUC does not move
    assert titles[1] == f"PR · AP {moved.average_precision():.3f}"  # (as show.py writes it)
    assert any("Reweighted to a prevalence of **0.050**" in c.value for c in at.caption)
    at.selectbox(key="model").set_value("naive_bayes").run()
    assert at.number_input(key="threshold_prevalence").value is None
    assert not any("Reweighted" in c.value for c in at.caption)
