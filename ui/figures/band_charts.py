"""Plotly figures of bootstrap uncertainty: curves with pointwise or simultaneous bands, and how
far a chosen threshold moves across resamples. Plain functions, no streamlit.

``band`` names the band in the legend and the hover text ("95% band", "95% simultaneous
band"): the figures draw whatever lower and upper curves they are given."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures.charts import _BASE_LAYOUT, PALETTE
from ui.words.safe import label


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _add_band(
    fig: go.Figure, x, mid, low, high, name: str, color: str, hover: str, band: str = "95% band"
) -> None:
    ok = np.isfinite(low) & np.isfinite(high)
    fig.add_trace(
        go.Scatter(
            x=np.concatenate((x[ok], x[ok][::-1])), y=np.concatenate((high[ok], low[ok][::-1])),
            fill="toself", fillcolor=_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
            name=f"{label(name)} {band}", showlegend=False, legendgroup=name,
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=x, y=mid, mode="lines", name=label(name), line=dict(color=color, width=2),
            legendgroup=name, customdata=np.column_stack((low, high)),
            hovertemplate=f"<b>{label(name)}</b><br>{hover.replace('95% band', band)}"
            "<extra></extra>",
        )
    )  # fmt: skip


def _curve_bands(
    grid: np.ndarray,
    curves: dict[str, tuple],
    reference: go.Scatter,
    hover: str,
    axes: tuple,
    band: str = "95% band",
) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(reference)
    for i, (name, (mid, low, high)) in enumerate(curves.items()):
        _add_band(fig, grid, mid, low, high, name, PALETTE[i % len(PALETTE)], hover, band)
    fig.update_layout(
        **_BASE_LAYOUT,
        height=420,
        xaxis=dict(title=axes[0], range=[0, 1]),
        yaxis=dict(title=axes[1], range=[0, 1.02]),
        legend=dict(orientation="h", y=1.08, x=0),
    )
    return fig


_BAND_HOVER = "<br>95% band [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"


def roc_band_figure(
    grid: np.ndarray,
    curves: dict[str, tuple],
    max_fpr: float | None = None,
    band: str = "95% band",
) -> go.Figure:
    """TPR against FPR per model: the curve of the original rows and its band (TPR at each
    FPR over the resamples: vertical averaging; pointwise or simultaneous, as given); the
    partial AUC's FPR range shaded when ``max_fpr`` is given."""
    chance = go.Scatter(
        x=[0, 1], y=[0, 1], mode="lines", name="chance", hoverinfo="skip",
        line=dict(color="#bbbbbb", dash="dot"),
    )  # fmt: skip
    fig = _curve_bands(
        grid, curves, chance, "FPR %{x:.2f}: TPR %{y:.3f}" + _BAND_HOVER,
        ("false positive rate", "true positive rate (recall)"), band,
    )  # fmt: skip
    if max_fpr:
        fig.add_vrect(
            x0=0, x1=max_fpr, fillcolor="#888888", opacity=0.08, line_width=0,
            annotation_text=f"partial AUC: FPR ≤ {max_fpr:g}", annotation_position="bottom left",
        )  # fmt: skip
    return fig


def pr_band_figure(
    grid: np.ndarray, curves: dict[str, tuple], prevalence: float, band: str = "95% band"
) -> go.Figure:
    """Precision against recall per model with its band (precision where each resample's
    recall first reaches the grid value; pointwise or simultaneous, as given)."""
    chance = go.Scatter(
        x=[0, 1], y=[prevalence, prevalence], mode="lines", hoverinfo="skip",
        name="chance (prevalence)", line=dict(color="#bbbbbb", dash="dot"),
    )  # fmt: skip
    return _curve_bands(
        grid, curves, chance, "recall %{x:.2f}: precision %{y:.3f}" + _BAND_HOVER,
        ("recall", "precision"), band,
    )  # fmt: skip


RATE_COLORS = {"precision": "#1f77b4", "recall": "#d62728", "F1": "#2ca02c", "FPR": "#9467bd"}


def threshold_band_figure(
    thresholds: np.ndarray,
    rates: dict[str, tuple],
    chosen: float | None = None,
    band: str = "95% band",
) -> go.Figure:
    """Rates against the threshold for one model, each with its band (pointwise or
    simultaneous, as given); the model's current threshold as a vertical line."""
    fig = go.Figure()
    for name, (mid, low, high) in rates.items():
        _add_band(
            fig, thresholds, mid, low, high, name, RATE_COLORS.get(name, "#555555"),
            "threshold %{x:.4g}: %{y:.3f}" + _BAND_HOVER, band,
        )  # fmt: skip
    if chosen is not None and np.isfinite(chosen):
        fig.add_vline(x=chosen, line=dict(color="#555555", dash="dash"))
    fig.update_layout(
        **_BASE_LAYOUT,
        height=400,
        xaxis=dict(title="threshold (score ≥ threshold is flagged)"),
        yaxis=dict(title="rate", range=[0, 1.02]),
        legend=dict(orientation="h", y=1.08, x=0),
    )
    return fig


def threshold_stability_figure(
    picked: dict[str, np.ndarray], on_all_rows: dict[str, float], rule: str
) -> go.Figure:
    """Histogram, per model, of the threshold a rule picks on each resample, with the one it
    picks on all rows marked."""
    fig = go.Figure()
    for i, (name, values) in enumerate(picked.items()):
        color = PALETTE[i % len(PALETTE)]
        values = values[np.isfinite(values)]
        fig.add_trace(
            go.Histogram(
                x=values, name=label(name), marker_color=color, opacity=0.6, nbinsx=40,
                hovertemplate=f"<b>{label(name)}</b><br>threshold %{{x}}<br>"
                "%{y} resamples<extra></extra>",
            )
        )  # fmt: skip
        at = on_all_rows.get(name)
        if at is not None and np.isfinite(at):
            fig.add_vline(x=at, line=dict(color=color, width=2))
    fig.update_layout(
        **_BASE_LAYOUT,
        height=340,
        barmode="overlay",
        xaxis=dict(title=f"threshold picked by {rule} on a resample"),
        yaxis=dict(title="resamples"),
        legend=dict(orientation="h", y=1.08, x=0),
    )
    return fig
