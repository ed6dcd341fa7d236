"""Why two detection mAPs differ: a waterfall from one convention's mAP to another's, one bar
a rule, and TIDE's error breakdown as bars of the AP each error type would recover. Values in,
figure out; no Streamlit."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures.charts import PALETTE

__all__ = ["convention_waterfall_figure", "tide_figure"]


def convention_waterfall_figure(walk, *, from_label: str, to_label: str) -> go.Figure:
    """The first convention's mAP, each rule's difference, the second's mAP (AP points)."""
    start = 100 * float(walk["ap_before"].iloc[0])
    diffs = 100 * walk["difference"].fillna(0.0).to_numpy(dtype=float)
    end = 100 * float(walk["ap_after"].iloc[-1])
    x = [from_label, *walk["label"].tolist(), to_label]
    y = [start, *diffs.tolist(), end]
    text = [f"{start:.2f}", *(f"{d:+.2f}" for d in diffs), f"{end:.2f}"]
    fig = go.Figure(
        go.Waterfall(
            x=x,
            y=y,
            measure=["absolute", *["relative"] * diffs.size, "total"],
            text=text,
            textposition="outside",
            connector=dict(line=dict(color="#888", width=1)),
            increasing=dict(marker=dict(color=PALETTE[2])),
            decreasing=dict(marker=dict(color=PALETTE[3])),
            totals=dict(marker=dict(color=PALETTE[0])),
            hovertemplate="%{x}: %{text}<extra></extra>",
            name="mAP",
        )
    )
    lo = min(start, end, *(start + np.cumsum(diffs)).tolist()) if diffs.size else min(start, end)
    hi = max(start, end, *(start + np.cumsum(diffs)).tolist()) if diffs.size else max(start, end)
    pad = max(0.5, 0.15 * (hi - lo))
    fig.update_layout(
        title=f"From {from_label} to {to_label}, one rule at a time (AP points)",
        yaxis=dict(title="mAP (AP points)", range=[max(0.0, lo - pad), min(100.0, hi + pad)]),
        xaxis=dict(tickangle=-30),
        showlegend=False,
    )
    return fig


def tide_figure(table) -> go.Figure:
    """Horizontal bars: dAP of each error type (AP points), counts in the hover."""
    rows = table.iloc[::-1]
    dap = 100 * rows["dap"].fillna(0.0).to_numpy(dtype=float)
    main = ~rows["error"].isin(["false_positives", "false_negatives"]).to_numpy()
    fig = go.Figure(
        go.Bar(
            x=dap,
            y=rows["label"].tolist(),
            orientation="h",
            marker=dict(color=[PALETTE[3] if m else PALETTE[7] for m in main]),
            text=[f"{v:.2f}" for v in dap],
            textposition="outside",
            customdata=rows["count"].to_numpy(),
            hovertemplate="%{y}<br>dAP %{x:.2f} AP points<br>%{customdata:,} errors<extra></extra>",
            name="dAP",
        )
    )
    fig.update_layout(
        title="AP each error type would recover if fixed (TIDE, AP points)",
        xaxis=dict(title="dAP (AP points)", rangemode="tozero"),
        showlegend=False,
    )
    return fig
