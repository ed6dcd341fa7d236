"""Plotly figure builders: plain functions from metric results to figures, no streamlit."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from metrics import Confusion, ThresholdCounts

# One colour per role, used across every chart so a reader learns them once.
COLORS = {
    "precision": "#1f77b4",
    "recall": "#d62728",
    "f_beta": "#2ca02c",
    "threshold": "#555555",
}

_BASE_LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=10, r=10, t=40, b=10),
    font=dict(size=13),
)


def _fmt_count(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.3f}"


def confusion_matrix_figure(
    c: Confusion,
    *,
    normalize: str | None = None,
    positive_name: str = "positive",
    negative_name: str = "negative",
) -> go.Figure:
    """The 2 x 2 confusion matrix as a heatmap, rows = actual class, columns = predicted.

    ``normalize``: None shows counts; "true" divides each row by its total (recall and
    specificity on the diagonal); "pred" divides each column (precision and NPV).
    """
    counts = np.array([[c.tn, c.fp], [c.fn, c.tp]], dtype=np.float64)
    names = np.array([["TN", "FP"], ["FN", "TP"]])
    if normalize is None:
        shown = counts
        text = [
            [f"{names[i, j]}<br>{_fmt_count(counts[i, j])}" for j in range(2)] for i in range(2)
        ]
    else:
        axis = {"true": 1, "pred": 0}[normalize]
        totals = counts.sum(axis=axis, keepdims=True)
        shown = np.divide(counts, totals, out=np.zeros_like(counts), where=totals != 0)
        text = [
            [
                f"{names[i, j]}<br>{shown[i, j]:.1%}<br>({_fmt_count(counts[i, j])})"
                for j in range(2)
            ]
            for i in range(2)
        ]
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=[f"Predicted {negative_name}", f"Predicted {positive_name}"],
            y=[f"Actual {negative_name}", f"Actual {positive_name}"],
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=16),
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(**_BASE_LAYOUT, height=320)
    fig.update_yaxes(autorange="reversed")
    return fig


def rates_vs_threshold_figure(
    counts: ThresholdCounts, *, threshold: float, beta: float = 1.0
) -> go.Figure:
    """Precision, recall and F-beta at every distinct threshold, with the current one marked."""
    rates = counts.confusion()
    thresholds = counts.thresholds
    fig = go.Figure()
    for name, values, label in (
        ("precision", rates.precision, "Precision"),
        ("recall", rates.recall, "Recall"),
        ("f_beta", rates.f_beta(beta), f"F{beta:g}" if beta != 1 else "F1"),
    ):
        fig.add_trace(
            go.Scatter(
                x=thresholds,
                y=values,
                name=label,
                mode="lines",
                line=dict(color=COLORS[name], width=2, shape="hv"),
                hovertemplate="threshold %{x:.4g}<br>" + label + " %{y:.3f}<extra></extra>",
            )
        )
    fig.add_vline(x=threshold, line=dict(color=COLORS["threshold"], dash="dash"))
    fig.update_layout(
        **_BASE_LAYOUT,
        height=320,
        xaxis_title="threshold (score >= threshold is positive)",
        yaxis=dict(range=[0, 1.02], title="rate"),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig
