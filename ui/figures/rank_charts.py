"""Demšar's critical-difference diagram of models ranked over blocks (no Streamlit): which models'
mean ranks lie within Nemenyi's critical difference, and the figure that joins them."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from metrics.model_tests import FriedmanResult
from ui.figures.charts import PALETTE
from ui.words.numbers import decimals
from ui.words.safe import label

__all__ = ["cd_cliques", "cd_figure"]


def cd_cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs of models (by rank, best first) whose mean ranks differ by at most ``cd``:
    ``(first, last)`` positions in the sorted order, runs of two or more only. These are the
    bars of Demšar's diagram joining models not significantly different."""
    r = np.sort(np.asarray(ranks, dtype=np.float64))
    out: list[tuple[int, int]] = []
    last_end = -1
    for i in range(r.size):
        j = int(np.searchsorted(r, r[i] + cd + 1e-12, side="right")) - 1
        if j > i and j > last_end:
            out.append((i, j))
            last_end = j
    return out


def cd_figure(friedman: FriedmanResult, models: tuple[str, ...]) -> go.Figure:
    """Demšar's critical-difference diagram: the rank axis on top (1, the best, on the left),
    each model hanging from its mean rank to its name (the better half to the left, the rest
    to the right), thick bars joining models whose mean ranks differ by at most Nemenyi's
    critical difference, and a bar of the CD's length above the axis."""
    fr = friedman
    k = len(models)
    order = np.argsort(fr.average_ranks, kind="stable")
    ranks = fr.average_ranks[order]
    cd = fr.critical_difference
    left_n = (k + 1) // 2
    step = 0.55
    cliques = cd_cliques(ranks, cd)
    clique_y = [-0.35 - 0.22 * n for n in range(len(cliques))]
    first_label = (clique_y[-1] if clique_y else -0.2) - 0.45
    lo, hi = 1.0, float(k)
    # Room for the names either side: the axis takes the middle 38% of the width, and each
    # side's room (28% of it, about 95 px on a 390 px phone) holds a name cut to 12 characters
    # (its hover shows all of it) over its mean rank, whatever the number of models.
    pad, gap = 0.8 * (k - 1), 0.07 * (k - 1)
    fig = go.Figure()
    # The axis and its ticks.
    fig.add_trace(go.Scatter(x=[lo, hi], y=[0, 0], mode="lines", hoverinfo="skip",
                             line=dict(color="black", width=1.5), showlegend=False))  # fmt: skip
    for t in np.arange(1.0, k + 0.01, 0.5):
        major = float(t).is_integer()
        fig.add_trace(go.Scatter(x=[t, t], y=[0, 0.12 if major else 0.06], mode="lines",
                                 line=dict(color="black", width=1), hoverinfo="skip",
                                 showlegend=False))  # fmt: skip
        if major:
            fig.add_annotation(x=t, y=0.14, text=str(int(t)), showarrow=False, yanchor="bottom")
    # The critical difference, to scale, above the axis.
    cd_end = min(lo + cd, hi + 0.5)
    fig.add_trace(go.Scatter(x=[lo, cd_end], y=[0.55, 0.55], mode="lines+markers",
                             line=dict(color="black", width=2), marker=dict(symbol="line-ns-open",
                             size=10, color="black"), name="critical difference",
                             hovertemplate=f"Nemenyi CD = {decimals(cd, 3)}<extra></extra>",
                             showlegend=False))  # fmt: skip
    fig.add_annotation(x=(lo + cd_end) / 2, y=0.62, text=f"CD = {decimals(cd, 3)}", showarrow=False,
                       yanchor="bottom")  # fmt: skip
    # Models: a line down from the rank, then across to the name.
    for pos, (m, r) in enumerate(zip(order, ranks, strict=True)):
        on_left = pos < left_n
        y = first_label - step * (pos if on_left else k - 1 - pos)
        x_end = lo - gap if on_left else hi + gap
        color = PALETTE[int(m) % len(PALETTE)]
        fig.add_trace(
            go.Scatter(
                x=[r, r, x_end], y=[0, y, y], mode="lines", line=dict(color=color, width=1.5),
                name=label(models[m]), showlegend=False,
                hovertemplate=f"{label(models[m])}: mean rank {decimals(r, 3)}<extra></extra>",
            )
        )  # fmt: skip
        fig.add_trace(go.Scatter(x=[r], y=[0], mode="markers", marker=dict(color=color, size=7),
                                 hoverinfo="skip", showlegend=False))  # fmt: skip
        fig.add_annotation(
            x=x_end, y=y, text=f"{label(models[m], limit=12)}<br>({decimals(r, 2)})",
            showarrow=False,
            xanchor="right" if on_left else "left", xshift=-4 if on_left else 4,
            font=dict(size=12),
        )  # fmt: skip
    # Bars joining models not significantly different.
    for (i, j), y in zip(cliques, clique_y, strict=True):
        names = ", ".join(label(models[m]) for m in order[i : j + 1])
        fig.add_trace(
            go.Scatter(
                x=[ranks[i] - 0.04, ranks[j] + 0.04], y=[y, y], mode="lines",
                line=dict(color="black", width=5), name="not significantly different",
                showlegend=False,
                hovertemplate=f"not significantly different: {names}<extra></extra>",
            )
        )  # fmt: skip
    bottom = first_label - step * (left_n - 1) - 0.4
    fig.update_layout(
        font=dict(size=13),
        height=int(110 + 48 * (0.9 + left_n * step + 0.22 * len(cliques))),
        margin=dict(l=10, r=10, t=10, b=10),
        # Hidden axes; the titles name them for readers of the figure's JSON.
        xaxis=dict(
            visible=False,
            range=[lo - pad, hi + pad],
            fixedrange=True,
            title=dict(text="mean rank (1 = best)"),
        ),
        yaxis=dict(visible=False, range=[bottom, 0.95], fixedrange=True, title=dict(text="")),
        plot_bgcolor="white",
        hovermode="closest",
    )
    return fig


# --- the Explain lines ---------------------------------------------------------------------------
