"""The Runs page's figures: the per-query difference chart (candidate minus baseline on each
query, sorted, IR papers' standard figure) and each run's mean with its interval. Values in,
figure out; no Streamlit.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures.charts import PALETTE

__all__ = ["difference_figure"]

_WIN, _LOSS, _TIE = PALETTE[2], PALETTE[3], "#9e9e9e"


def difference_figure(
    query_ids, difference, *, candidate: str, baseline: str, measure: str
) -> go.Figure:
    """One bar per query, ``candidate - baseline``, sorted from the largest gain to the largest
    loss; wins, ties and losses coloured and counted in the legend."""
    d = np.asarray(difference, dtype=np.float64)
    q = np.asarray(query_ids, dtype=object).astype(str)
    order = np.lexsort((q, -d))
    d, q = d[order], q[order]
    x = np.arange(d.size)
    fig = go.Figure()
    for mask, name, color in (
        (d > 0, "wins", _WIN),
        (d == 0, "ties", _TIE),
        (d < 0, "losses", _LOSS),
    ):
        fig.add_trace(
            go.Bar(
                x=x[mask],
                y=d[mask],
                name=f"{name} ({int(mask.sum())})",
                marker_color=color,
                customdata=q[mask],
                hovertemplate="query %{customdata}<br>difference %{y:.4f}<extra></extra>",
            )
        )
    fig.add_hline(y=0.0, line=dict(color="#444", width=1))
    mean = float(d.mean()) if d.size else float("nan")
    fig.update_layout(
        title=f"{measure}: {candidate} - {baseline} per query (mean {mean:+.4f})",
        xaxis=dict(title=f"queries, sorted by difference ({d.size})", showticklabels=False),
        yaxis=dict(title=f"{measure} difference"),
        bargap=0.05,
        barmode="overlay",
        legend=dict(orientation="h", y=1.02, x=0),  # moved below by show.finish
    )
    return fig
