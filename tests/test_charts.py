"""Chart builders are pure functions: check what they send to the browser, without Streamlit."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.colors import get_colorscale

import metrics
from ui.figures import charts


@pytest.fixture(scope="module")
def big():
    rng = np.random.default_rng(0)
    y = rng.random(200_000) < 0.3
    models = {
        "a": rng.normal(size=y.size) + y,
        "b": rng.normal(size=y.size) + 0.5 * y,
    }
    curves = [
        charts.ModelCurve(
            name,
            metrics.threshold_counts(y, s),
            metrics.roc_auc_score(y, s),
            metrics.average_precision_score(y, s),
        )
        for name, s in models.items()
    ]
    return y, models, curves


def test_sample_indices_keeps_ends_and_requested_points():
    idx = charts.sample_indices(1_000_000, 2000, keep=(123_457,))
    assert idx[0] == 0
    assert idx[-1] == 999_999
    assert 123_457 in idx
    assert len(idx) <= 2001
    assert (np.diff(idx) > 0).all()
    np.testing.assert_array_equal(charts.sample_indices(10), np.arange(10))


def test_roc_sends_at_most_about_2000_points_per_curve(big):
    _, _, curves = big
    fig = charts.roc_figure(curves, threshold=0.3)
    lines = [
        t for t in fig.data if t.mode == "lines" and "AUC" in t.name and "chance" not in t.name
    ]
    assert len(lines) == 2
    for trace, m in zip(lines, curves, strict=True):
        assert len(trace.x) <= 2002
        assert trace.x[0] == 0
        assert trace.y[0] == 0
        assert trace.x[-1] == 1
        assert trace.y[-1] == 1
        assert trace.name == f"{m.name} (AUC {m.auc:.3f})"
    markers = [t for t in fig.data if t.mode == "markers"]
    assert len(markers) == 2
    c = curves[0].counts.at(0.3)
    assert markers[0].x[0] == pytest.approx(c.fpr)
    assert markers[0].y[0] == pytest.approx(c.recall)
    # the operating point lies on the curve that is drawn
    assert any(np.isclose(lines[0].x, c.fpr) & np.isclose(lines[0].y, c.recall))


def test_pr_chart_is_a_step_curve_with_chance_line_and_iso_f1(big):
    y, _, curves = big
    prevalence = y.mean()
    fig = charts.pr_figure(curves, prevalence=prevalence, threshold=0.0)
    named = {t.name: t for t in fig.data}
    assert named[f"chance (AP {prevalence:.3f})"].y == (prevalence, prevalence)
    assert sum(1 for t in fig.data if (t.name or "").startswith("F1 = ")) == 4
    model = named[f"a (AP {curves[0].ap:.3f})"]
    assert model.line.shape == "vh"
    assert len(model.x) <= 2002
    assert fig.layout.xaxis.range == (-0.01, 1.01)


def test_confusion_matrix_normalised_by_row_and_column():
    c = metrics.Confusion(tp=30, fp=10, tn=50, fn=10)
    counts = charts.confusion_matrix_figure(c).data[0]
    assert counts.z.tolist() == [[50, 10], [10, 30]]
    by_row = charts.confusion_matrix_figure(c, normalize="true").data[0]
    np.testing.assert_allclose(by_row.z, [[50 / 60, 10 / 60], [10 / 40, 30 / 40]])
    by_col = charts.confusion_matrix_figure(c, normalize="pred").data[0]
    np.testing.assert_allclose(by_col.z, [[50 / 60, 10 / 40], [10 / 60, 30 / 40]])
    assert "TP<br>30" in by_row.text[1][1] or "TP" in by_row.text[1][1]


def shown_matrix(fig, *, presentation: bool = False) -> dict:
    """What a confusion-matrix heatmap draws, read from the figure: each cell as (row label,
    column label, value, text), with numeric axis positions read through their tick texts
    (so a figure drawn on categories and one drawn on numbered ticks compare equal), the
    colours, every font size, the axes' words, the size and margins, the hover, and the
    template's drawn parts. With ``presentation``: what a copy draws once finished for
    presentation mode, as a page finishes it (:func:`ui.views.show.finish`)."""
    if presentation:
        from ui.views.show import finish  # (imports Streamlit; only for this)

        fig = finish(go.Figure(fig), True)
    trace, layout = fig.data[0], fig.layout

    def tick_texts(axis, values) -> list:
        if axis.tickvals is None:
            return list(values)
        return [axis.ticktext[list(axis.tickvals).index(v)] for v in values]

    rows, columns = tick_texts(layout.yaxis, trace.y), tick_texts(layout.xaxis, trace.x)
    z = np.asarray(trace.z, dtype=float)
    drawn = ("font", "paper_bgcolor", "plot_bgcolor", "xaxis", "yaxis", "hoverlabel")
    template = layout.template.layout.to_plotly_json()
    return {
        "cells": [
            (rows[i], columns[j], z[i, j], trace.text[i][j]) for i in range(2) for j in range(2)
        ],
        "colorscale": [list(step) for step in trace.colorscale],
        "showscale": trace.showscale,
        "texttemplate": trace.texttemplate,
        "text_size": trace.textfont.size,
        "font_size": layout.font.size,
        "tick_sizes": (layout.xaxis.tickfont.size, layout.yaxis.tickfont.size),
        "axis_titles": (layout.xaxis.title.text, layout.yaxis.title.text),
        "tickangles": (layout.xaxis.tickangle, layout.yaxis.tickangle),
        "y_reversed": layout.yaxis.autorange == "reversed",
        "height": layout.height,
        "margin": (layout.margin.l, layout.margin.r, layout.margin.t, layout.margin.b),
        "hover": (
            "skip"
            if trace.hoverinfo == "skip"
            else (trace.hovertemplate, [list(r) for r in trace.customdata])
        ),
        "template": {k: template.get(k) for k in drawn},
    }


# The parts of plotly_white a matrix draws with (the slim "metrics_lens" template keeps them).
WHITE = {
    k: pio.templates["plotly_white"].layout.to_plotly_json().get(k)
    for k in ("font", "paper_bgcolor", "plot_bgcolor", "xaxis", "yaxis", "hoverlabel")
}
# What both matrices (Threshold's and the step-through's) draw alike: Blues without a scale,
# each cell's own text, actual negatives on top, plotly_white's look.
MATRIX_LOOK = {
    "colorscale": [[step, colour] for step, colour in get_colorscale("Blues")],
    "showscale": False,
    "texttemplate": "%{text}",
    "tick_sizes": (None, None),  # (they follow the layout font)
    "y_reversed": True,
    "template": WHITE,
}


def test_threshold_pages_matrix_draws_what_it_drew():
    """The Threshold page's matrix (as ui.views.show builds it), pinned: the same cells, texts,
    colours, labels and sizes, in the page's mode and in presentation mode."""
    c = metrics.Confusion(tp=203, fp=3, tn=354, fn=1234)
    fig = charts.confusion_matrix_figure(
        c, positive_name="malignant", negative_name="benign", height=270
    )
    expected = {
        **MATRIX_LOOK,
        "cells": [
            ("benign", "benign", 354.0, "TN<br>354"),
            ("benign", "malignant", 3.0, "FP<br>3"),
            ("malignant", "benign", 1234.0, "FN<br>1,234"),
            ("malignant", "malignant", 203.0, "TP<br>203"),
        ],
        "text_size": 16,
        "font_size": 13,
        "axis_titles": ("Predicted", "Actual"),
        "tickangles": (0, None),
        "height": 270,
        "margin": (10, 10, 10, 10),
        "hover": (
            "%{customdata}: %{text}<extra></extra>",
            [
                ["Actual benign, Predicted benign", "Actual benign, Predicted malignant"],
                ["Actual malignant, Predicted benign", "Actual malignant, Predicted malignant"],
            ],
        ),
    }
    assert shown_matrix(fig) == expected
    presenting = shown_matrix(fig, presentation=True)
    assert (presenting["text_size"], presenting["font_size"]) == (22.2, 18)  # 16 x 18/13
    # named, at the mode's size: Streamlit's chart theme drew unnamed ones at 15.75 px
    assert presenting["tick_sizes"] == (18, 18)
    by_row = shown_matrix(charts.confusion_matrix_figure(c, normalize="true"))
    assert [cell[3] for cell in by_row["cells"]] == [
        "TN<br>99.2%<br>(354)",
        "FP<br>0.8%<br>(3)",
        "FN<br>85.9%<br>(1,234)",
        "TP<br>14.1%<br>(203)",
    ]


def test_rates_chart_marks_the_threshold(big):
    _, _, curves = big
    fig = charts.rates_vs_threshold_figure(curves[0].counts, threshold=0.25, beta=2.0)
    assert [t.name for t in fig.data] == ["Precision", "Recall", "F2"]
    assert all(len(t.x) <= 2001 for t in fig.data)
    assert fig.layout.shapes[0].x0 == 0.25


def test_histograms_are_binned_server_side(big):
    y, models, _ = big
    name, s = next(iter(models.items()))
    fig = charts.score_histogram_figure(name, s, y, bins=30, threshold=0.4)
    assert len(fig.data) == 2  # one trace per class
    assert all(len(t.x) == 30 for t in fig.data)
    assert sum(fig.data[1].y) == pytest.approx(1.0)
    counts, _ = np.histogram(s[y], bins=np.linspace(s.min(), s.max(), 31))
    np.testing.assert_allclose(fig.data[1].y, counts / counts.sum())
    assert fig.layout.title.text == name
    assert fig.layout.shapes[0].x0 == 0.4  # the model's threshold


def test_curves_mark_each_models_own_threshold(big):
    _, _, curves = big
    per_model = {curves[0].name: 0.2, curves[1].name: 0.8}
    fig = charts.roc_figure(curves, threshold=per_model)
    points = [t for t in fig.data if t.mode == "markers"]
    for m, point in zip(curves, points, strict=True):
        c = m.counts.at(per_model[m.name])
        assert (point.x[0], point.y[0]) == (c.fpr, c.recall)
        assert f"{per_model[m.name]:.4g}" in point.hovertemplate


def test_reliability_diagram():
    curves = {"m": metrics.calibration_curve([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9], n_bins=2)}
    fig = charts.reliability_figure(curves)
    assert fig.data[0].name == "perfectly calibrated"
    assert list(fig.data[1].x) == pytest.approx([0.15, 0.8])


def test_long_class_names_wrap_on_the_matrix_axes_and_stay_whole_on_hover():
    c = metrics.Confusion(tp=3, fp=1, tn=5, fn=1)
    long = "diagnosis = malignant tumour of the left breast"
    fig = charts.confusion_matrix_figure(c, positive_name=long, negative_name="<b>benign</b>")
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.ticktext[0] == "&lt;b&gt;benign&lt;/b&gt;"
        lines = axis.ticktext[1].split("<br>")
        assert len(lines) <= 3
        assert all(len(line) <= 16 for line in lines)
        assert lines[-1].endswith("…")
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("Predicted", "Actual")
    hover = fig.data[0].customdata
    assert hover[1][1] == f"Actual {long}, Predicted {long}"
    assert hover[0][1] == f"Actual &lt;b&gt;benign&lt;/b&gt;, Predicted {long}"
