"""The report's two figures (``metrics-lens report``): every model's ROC and precision-recall
curves overlaid, each with its operating point, as plotly divs that :mod:`metrics_lens.report`
places in its self-contained HTML (plotly's JavaScript is inlined once there).
"""

from __future__ import annotations

import numpy as np

import metrics
from metrics_lens.inputs import Table
from ui.words.safe import label as _label
from ui.words.safe import safe_figure

MAX_CURVE_POINTS = 2000  # per curve: the file stays small; the operating points are kept


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def _thin(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if x.size <= MAX_CURVE_POINTS:
        return x, y
    idx = np.unique(np.linspace(0, x.size - 1, MAX_CURVE_POINTS).round().astype(np.int64))
    return x[idx], y[idx]


def _figure_html(fig, div_id: str) -> str:
    fig = safe_figure(fig)  # names from the data never act as plotly links or styles
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "responsive": True},
    )


def _curves(table: Table, thresholds: dict[str, tuple[float, str]]) -> tuple[str, str]:
    import plotly.graph_objects as go

    roc, pr = go.Figure(), go.Figure()
    prevalence = float(np.average(table.y, weights=table.weight))
    for k, (name, s) in enumerate(table.scores.items()):
        color = COLORS[k % len(COLORS)]
        fpr, tpr, _ = metrics.roc_curve(table.y, s, sample_weight=table.weight)
        precision, recall, _ = metrics.precision_recall_curve(
            table.y, s, sample_weight=table.weight
        )
        x, y = _thin(fpr, tpr)
        shown = _label(name)  # a name from the data, as text
        roc.add_trace(go.Scatter(x=x, y=y, mode="lines", name=shown, line={"color": color}))
        x, y = _thin(recall, precision)
        pr.add_trace(go.Scatter(x=x, y=y, mode="lines", name=shown, line={"color": color}))
        t = thresholds[name][0]
        c = metrics.confusion_at_threshold(table.y, s, t, sample_weight=table.weight)
        label = f"{shown} at {t:.4g}"
        roc.add_trace(
            go.Scatter(
                x=[c.fpr],
                y=[c.recall],
                mode="markers",
                name=label,
                marker={"color": color, "size": 11, "symbol": "circle-open", "line": {"width": 3}},
            )
        )
        if np.isfinite(c.precision):
            pr.add_trace(
                go.Scatter(
                    x=[c.recall],
                    y=[c.precision],
                    mode="markers",
                    name=label,
                    marker={
                        "color": color,
                        "size": 11,
                        "symbol": "circle-open",
                        "line": {"width": 3},
                    },
                )
            )
    roc.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", name="chance", line={"color": "#999", "dash": "dot"}
        )
    )
    pr.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[prevalence, prevalence],
            mode="lines",
            name=f"chance (prevalence {prevalence:.3f})",
            line={"color": "#999", "dash": "dot"},
        )
    )
    for fig, title, xt, yt in (
        (roc, "ROC curves", "false positive rate", "true positive rate (recall)"),
        (pr, "Precision-recall curves", "recall", "precision"),
    ):
        fig.update_layout(
            title=title,
            xaxis_title=xt,
            yaxis_title=yt,
            template="plotly_white",
            height=460,
            margin={"l": 60, "r": 20, "t": 50, "b": 50},
            xaxis={"range": [0, 1]},
            yaxis={"range": [0, 1.02]},
        )
    return _figure_html(roc, "roc-figure"), _figure_html(pr, "pr-figure")
