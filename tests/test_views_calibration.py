"""The Calibration page's pieces: its tables and lines (ui.analyses.calibration_tables) and words
(ui.words.calibration_text) against the metrics library, and its sections
(ui.views.calibration_view) on the page."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from tests.apptest_utils import latex, open_page
from ui.analyses import calibration_tables as tables
from ui.compute import decision_compute
from ui.compute.data import bundled_dataset
from ui.tables.dataset import DEFAULT_DATASET
from ui.words import calibration_text as words
from ui.words.numbers import decimals
from ui.words.text import num

RNG = np.random.default_rng(3)
P = RNG.random(600)
Y = RNG.random(600) < P**1.5  # miscalibrated on purpose
Q = np.clip(P + 0.1 * RNG.standard_normal(600), 0.001, 0.999)
STATS = decision_compute.calibration_stats(Y, {"a": P, "b": Q}, n_resamples=60)


def test_the_stats_table_shows_the_librarys_numbers_with_their_intervals():
    frame = tables.stats_frame(STATS)
    assert frame["model"].tolist() == ["a", "b"]
    for i, p in enumerate((P, Q)):
        assert frame["ECE"][i] == decimals(metrics.calibration_error(Y, p))
        assert frame["MCE"][i] == decimals(metrics.calibration_error(Y, p, norm="max"))
        brier = metrics.brier_score_loss(Y, p)
        assert frame["Brier"][i].startswith(f"{decimals(brier)}  [")
    assert words.interval(0.25, math.nan, math.nan) == decimals(0.25)
    assert (
        words.interval(0.25, 0.125, 0.5)
        == f"{decimals(0.25)}  [{decimals(0.125)}, {decimals(0.5)}]"
    )


def test_the_lines_are_the_librarys_bins_with_the_band_chosen():
    prob_true, prob_pred, size = metrics.calibration_curve(Y, P)
    (line,) = tables.reliability_lines({"a": STATS["a"]}, ("b", "a"), "pointwise")
    np.testing.assert_allclose(line.prob_true, prob_true)
    np.testing.assert_allclose(line.prob_pred, prob_pred)
    np.testing.assert_allclose(line.size, size)
    assert line.color == 1
    np.testing.assert_array_equal(line.low, STATS["a"].band_low)
    low, high = tables.band(STATS["a"], "simultaneous")
    np.testing.assert_array_equal(low, STATS["a"].sim_low)
    np.testing.assert_array_equal(high, STATS["a"].sim_high)
    both = tables.before_after_lines(STATS, {"a": STATS["a"]}, ("a", "b"), "platt", "pointwise")
    assert [(x.name, x.dash, x.color) for x in both] == [
        ("a before", True, 0), ("a after (platt)", False, 0), ("b after (platt)", False, 1)
    ]  # fmt: skip


def test_the_ece_formula_carries_the_librarys_decomposition():
    d, sq = tables.ece_numbers(Y, P, None, 10, "uniform")
    assert d == metrics.brier_decomposition(Y, P)
    assert sq == metrics.squared_calibration_error(Y, P)
    s = STATS["a"]
    ece = metrics.calibration_error(Y, P)
    share, gaps = s.size / s.size.sum(), np.abs(s.prob_true - s.prob_pred)
    lines = words.ece_lines("a", d, sq, math.sqrt(max(sq, 0)), ece, share, gaps)
    assert float(np.sum(share * gaps)) == pytest.approx(ece)
    assert lines[3].endswith(rf"+ \dots = {num(ece)}")
    assert lines[5].startswith(f"{num(d.brier)} = {num(d.reliability)} - {num(d.resolution)}")
    assert f"{num(sq, 6)}" in lines[1]


def test_the_recalibration_row_is_the_librarys_before_and_after():
    s = 3 * P - 1  # scores, not probabilities
    q = metrics.recalibrate(Y, s, method="platt", cv=5, seed=0)
    one_map = metrics.fit_calibrator(Y, s, method="platt")
    row = tables.recalibration_row("m", Y, s, None, q, one_map, (None, 0.02), 0.5)
    assert row["AUC before"] == metrics.roc_auc_score(Y, s)
    assert row["AUC after (out of fold)"] == metrics.roc_auc_score(Y, q)
    assert row["AUC, one map for all rows"] == pytest.approx(row["AUC before"], abs=1e-12)
    assert row["Brier after"] == metrics.brier_score_loss(Y, q)
    assert row["log loss after"] == metrics.log_loss(Y, q)
    assert row["Brier before"] is None
    assert row["ECE before"] is None
    assert row["flagged at p ≥ 0.5 after"] == pytest.approx(np.mean(q >= 0.5))
    assert row["threshold as a probability"] == pytest.approx(float(one_map(np.array([0.5]))[0]))
    probabilities = tables.recalibration_row("m", Y, P, None, q, one_map, (0.1, 0.02), 0.5)
    assert probabilities["Brier before"] == metrics.brier_score_loss(Y, P)
    assert probabilities["flagged at p ≥ 0.5 before"] == pytest.approx(np.mean(P >= 0.5))


def test_the_words_say_what_was_resampled_and_why_a_model_has_no_diagram():
    assert words.resampled("user", clustered=True).startswith("cluster bootstrap, whole user")
    assert words.resampled(None, clustered=False) == "bootstrap, rows resampled"
    s = 3 * P - 1
    warning = words.not_probabilities("m", s)
    assert f"run from {s.min():.4g} to {s.max():.4g}" in warning
    assert "(200 resamples" in words.reliability_caption("bootstrap", 200, "pointwise")
    assert "sup-t" in words.reliability_caption("bootstrap", 200, "simultaneous")
    assert "Set resamples above 0" in words.reliability_caption("bootstrap", 0, "pointwise")


def test_the_page_sections_show_the_librarys_numbers():
    """ui.views.calibration_view on the sample: the reliability table, the ECE formula and the
    recalibration table."""
    at = open_page("pages/calibration.py")
    ds = bundled_dataset(DEFAULT_DATASET)
    m = ds.models[0]
    y, s = ds.labels_for(m), ds.score(m)
    before, after = at.dataframe[0].value, at.dataframe[1].value
    assert before["ECE"][0] == decimals(metrics.calibration_error(y, s))
    d = metrics.brier_decomposition(y, s)
    assert any(x.startswith(f"{num(d.brier)} = {num(d.reliability)}") for x in latex(at))
    q = metrics.recalibrate(y, s, method="platt", cv=5, seed=0)
    assert after["Brier after"][0] == metrics.brier_score_loss(y, q)
