"""The AP lab's pieces: its tables and sentences (ui.teaching.ap_lab_notes) against the metrics
library, and its "11-point" section (ui.views.ap_lab_view) on the page."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics import AP_METHODS
from tests.apptest_utils import metric_value, open_page
from ui.compute.data import bundled_dataset
from ui.figures import ap_charts
from ui.figures.ap_charts import METHOD_LABELS, WHEN_THEY_DIFFER, exact_text
from ui.figures.charts import MAX_POINTS
from ui.tables.dataset import DEFAULT_DATASET
from ui.teaching import ap_lab_notes as notes
from ui.words.numbers import decimals

RNG = np.random.default_rng(11)
Y = RNG.random(300) < 0.4
S = np.round(0.3 * Y + 0.7 * RNG.random(300), 2)  # ties on purpose
LAB = ap_charts.ap_lab(Y, S)


def test_the_values_table_shows_the_librarys_five_values():
    methods = ap_charts.methods_frame(LAB)
    table = notes.values_table(methods)
    step = metrics.average_precision_score(Y, S, method="step")
    for m, label, ap, minus in zip(
        AP_METHODS, table["method"], table["AP"], table["minus step"], strict=True
    ):
        value = metrics.average_precision_score(Y, S, method=m)
        assert label == METHOD_LABELS[m]
        assert ap == decimals(value)
        assert minus == f"{value - step:+.4g}"
    assert "exact" not in notes.method_columns(methods.assign(exact=""))
    assert "exact" in notes.method_columns(methods.assign(exact="5/6"))


def test_the_step_sentence_ends_at_the_librarys_ap_or_says_how_far_it_has_got():
    step = metrics.average_precision_score(Y, S)
    assert notes.step_sentence(LAB, LAB.n_thresholds).endswith(
        f"**AP = {exact_text(step)}**, the step value above."
    )
    counts = metrics.threshold_counts(Y, S)
    recall = counts.tps / counts.n_pos
    precision = counts.tps / (counts.tps + counts.fps)
    running = float(np.sum(np.diff(recall[:10], prepend=0.0) * precision[:10]))
    sentence = notes.step_sentence(LAB, 10)
    assert sentence.startswith(
        f"The first 10 of {LAB.n_thresholds:,} distinct thresholds: the running sum is "
        f"{decimals(running)} here and continues over {LAB.n_thresholds - 10:,} more"
    )


@pytest.mark.parametrize("method", AP_METHODS)
def test_the_points_caption_sums_to_the_librarys_value(method):
    n_terms = ap_charts.points_frame(LAB.breakdowns[method], 5)[1]
    caption = notes.points_caption(LAB, method, n_terms, 5)
    value = metrics.average_precision_score(Y, S, method=method)
    assert (
        f"to weight × precision used = {exact_text(value)}, the {METHOD_LABELS[method]}" in caption
    )
    assert caption.startswith(f"The first 5 of {n_terms:,} terms" if n_terms > 5 else "All")
    assert ("weight 0" in caption) == (method not in ("voc11", "coco101"))


def test_the_captions_and_the_warning():
    assert notes.when_they_differ().splitlines()[0] == (
        f"- **{METHOD_LABELS['step']}**: {WHEN_THEY_DIFFER['step']}"
    )
    assert "thresholds" not in notes.regions_caption(MAX_POINTS)
    assert f"{MAX_POINTS + 1:,} thresholds: at most" in notes.regions_caption(MAX_POINTS + 1)
    assert notes.outside_unit(float(S.min()), float(S.max())) is None
    scores = 3 * S - 1
    warning = notes.outside_unit(float(scores.min()), float(scores.max()))
    assert f"run from {scores.min():.4g} to {scores.max():.4g}, outside [0, 1]" in warning


def test_the_eleven_point_section_shows_the_librarys_values():
    """ui.views.ap_lab_view on the sample: VOC 2007's 11-point AP and the 11-score grid."""
    at = open_page("pages/ap_lab.py")
    ds = bundled_dataset(DEFAULT_DATASET)
    model = at.session_state["model"]
    y, s = ds.labels_for(model), ds.score(model)
    voc11 = metrics.average_precision_score(y, s, method="voc11")
    assert metric_value(at, "VOC 2007: best precision at recall ≥ 0, 0.1, ..., 1") == exact_text(
        voc11
    )
    grid = metrics.score_grid_average_precision(y, s)
    label = "Step sum at scores 1, 0.9, ..., 0 (11 fixed score thresholds)"
    assert metric_value(at, label) == exact_text(grid.value)
    levels = next(d.value for d in at.dataframe if "best precision there" in d.value.columns)
    assert float(levels["contribution"].sum()) == pytest.approx(voc11)
