"""Figures for the Calibration page: reliability diagrams with bootstrap bands.

Pure plotly: values in (from :mod:`metrics` and :mod:`ui.compute.decision_compute`), figure out; no
Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.figures.charts import _BASE_LAYOUT, PALETTE

_GREY = "#9a9a9a"


@dataclass(frozen=True)
class Reliability:
    """One line of a reliability diagram: per non-empty bin, the mean prediction, the observed
    rate and its band (NaN for none), and the bin's rows (or weight).

    ``color`` indexes the palette (a model keeps its colour before and after recalibration);
    ``dash`` draws it dashed (the "before" line beside an "after" one)."""

    name: str
    prob_pred: np.ndarray
    prob_true: np.ndarray
    low: np.ndarray
    high: np.ndarray
    size: np.ndarray
    color: int = 0
    dash: bool = False


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def reliability_figure(
    lines: list[Reliability],
    *,
    height: int = 520,
    band_label: str = "95% band",
    title: str | None = None,
) -> go.Figure:
    """Observed positive rate against mean predicted probability per bin, the diagonal of
    perfect calibration, a shaded band per line where it has one, and below, how many rows
    each bin holds (the histogram of the predictions)."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.78, 0.22],
                        vertical_spacing=0.04)  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
            line=dict(color=_GREY, width=1, dash="dot"), hoverinfo="skip",
        ),
        row=1, col=1,
    )  # fmt: skip
    for line in lines:
        color = PALETTE[line.color % len(PALETTE)]
        x = np.asarray(line.prob_pred, float)
        low, high = np.asarray(line.low, float), np.asarray(line.high, float)
        banded = np.isfinite(low) & np.isfinite(high)
        if banded.any():
            fig.add_trace(
                go.Scatter(
                    x=np.concatenate((x[banded], x[banded][::-1])),
                    y=np.concatenate((high[banded], low[banded][::-1])),
                    fill="toself", fillcolor=_rgba(color, 0.12 if line.dash else 0.2),
                    line=dict(width=0), mode="lines", hoverinfo="skip",
                    name=f"{line.name} {band_label}", legendgroup=line.name, showlegend=False,
                ),
                row=1, col=1,
            )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=x, y=line.prob_true, mode="lines+markers", name=line.name,
                legendgroup=line.name,
                line=dict(color=color, width=2.5, dash="dash" if line.dash else "solid"),
                marker=dict(size=7, symbol="circle-open" if line.dash else "circle"),
                customdata=np.column_stack((low, high, line.size)),
                hovertemplate="mean prediction %{x:.3f}<br>observed rate %{y:.3f}"
                " [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<br>rows %{customdata[2]:,.0f}"
                "<extra>" + line.name + "</extra>",
            ),
            row=1, col=1,
        )  # fmt: skip
        fig.add_trace(
            go.Bar(
                x=x, y=line.size, name=f"{line.name} rows", legendgroup=line.name,
                marker_color=_rgba(color, 0.35 if line.dash else 0.7), width=0.02,
                showlegend=False, hovertemplate="mean prediction %{x:.3f}<br>rows %{y:,.0f}"
                "<extra>" + line.name + "</extra>",
            ),
            row=2, col=1,
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT, height=height, barmode="group",
        legend=dict(orientation="h", y=1.02, x=0),
    )  # fmt: skip
    if title:
        fig.update_layout(title=dict(text=title, x=0, xanchor="left", font=dict(size=15)))
    fig.update_xaxes(range=[-0.02, 1.02])
    fig.update_xaxes(title="mean predicted probability", row=2, col=1)
    # A short chart (a projector's first screen) keeps its axis titles within their plots.
    short = height < 400
    fig.update_yaxes(
        title="observed rate" if short else "observed positive rate",
        range=[-0.02, 1.02],
        row=1,
        col=1,
    )
    fig.update_yaxes(title=None if short else "rows", row=2, col=1, nticks=2 if short else None)
    if short:  # the bars' axis has no room for its own title beside the rates' one
        fig.update_xaxes(title="mean predicted probability (bars: rows)", row=2, col=1)
    return fig
