"""Two detectors compared: each category's AP difference with its bootstrap interval (a forest
plot), COCO mAP on top. Values in, figure out; no Streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.figures.charts import PALETTE

__all__ = ["difference_forest_figure"]


def difference_forest_figure(pair: pd.DataFrame, *, candidate: str, baseline: str) -> go.Figure:
    """``pair``: the rows of :meth:`DetectorSetComparison.pair` (mAP first, then categories).

    One row a metric, the difference as a dot and the interval as a bar; a filled dot where the
    family's test is significant, a hollow one elsewhere (exploratory or not significant)."""
    rows = pair[np.isfinite(pair["difference"].to_numpy(dtype=float))]
    labels = rows["metric"].tolist()
    d = rows["difference"].to_numpy(dtype=float)
    lo = rows["ci_low"].to_numpy(dtype=float)
    hi = rows["ci_high"].to_numpy(dtype=float)
    sig = rows["significant"].to_numpy(dtype=bool)
    fig = go.Figure()
    for flag, name, symbol in (
        (True, "significant in the family", "circle"),
        (False, "not significant, or exploratory", "circle-open"),
    ):
        m = sig == flag
        if not m.any():
            continue
        fig.add_trace(
            go.Scatter(
                x=d[m],
                y=np.array(labels, dtype=object)[m],
                mode="markers",
                name=name,
                marker=dict(symbol=symbol, size=10, color=PALETTE[0 if flag else 7]),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=(hi - d)[m],
                    arrayminus=(d - lo)[m],
                    thickness=1.5,
                ),
                hovertemplate="%{y}: %{x:+.4f}<extra></extra>",
            )
        )
    fig.add_vline(x=0, line=dict(color="#999", dash="dot"))
    fig.update_layout(
        title=dict(
            text=f"{candidate} − {baseline}: AP difference, 95% interval", font=dict(size=14)
        ),
        xaxis=dict(title="AP difference (candidate − baseline)", zeroline=False),
        yaxis=dict(autorange="reversed", type="category"),
        height=max(220, 60 + 26 * len(labels)),
        margin=dict(l=10, r=10, t=40, b=40),
        legend=dict(orientation="h", y=1.02, x=0),  # moved below by show.finish
    )
    return fig
