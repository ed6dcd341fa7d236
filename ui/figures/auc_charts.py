"""Figures, tables and formulas for the AUC lab: the pair grid, the rank sum, the ROC staircase.

Plain functions from the library's results to plotly figures, DataFrames and LaTeX strings; no
Streamlit. The classic worked examples (no ties, a tie, the rank formula) are :data:`PRESETS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from metrics import AUCPairGrid, AUCRankTable, ThresholdCounts
from ui.figures.charts import _BASE_LAYOUT, MAX_POINTS, sample_indices
from ui.words.safe import label

# One colour per pair outcome, shared by the grid and the ROC staircase (ties are amber both
# places: a tied positive-negative pair is a cell of the grid and a diagonal of the curve).
OUTCOME_COLORS = {"loss": "#d62728", "tie": "#f0b429", "win": "#1f77b4"}
CURVE_COLOR = "#555555"


@dataclass(frozen=True)
class Preset:
    """A small inline dataset from a source article, with the numbers it must give."""

    title: str
    y: tuple[int, ...]
    scores: tuple[float, ...]
    note: str


PRESETS: dict[str, Preset] = {
    p.title: p
    for p in (
        Preset(
            "AUC 0.75: no ties",
            (0, 0, 1, 1),
            (0.1, 0.4, 0.35, 0.8),
            "Of the 4 positive-negative pairs the model orders 3 correctly: AUC = 3/4 = 0.75.",
        ),
        Preset(
            "AUC 0.875: a tie counts 1/2",
            (0, 0, 1, 1),
            (0.1, 0.4, 0.4, 0.8),
            "The positive and the negative at 0.4 are tied: that pair counts 1/2, so "
            "AUC = 3.5/4 = 0.875.",
        ),
        Preset(
            "AUC 10/12: the rank formula with ties",
            (0, 1, 1, 0, 0, 1, 1),
            (0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8),
            "Four rows tie at 0.5 and share ranks 2 to 5, so each gets (2+3+4+5)/4 = 3.5: "
            "AUC = (3.5 + 3.5 + 6 + 7 − 4·5/2) / (4·3) = 10/12.",
        ),
    )
}


# --- pair counts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairCounts:
    """How many positive-negative pairs the scores order correctly, tie, or order wrongly."""

    wins: float
    ties: float
    losses: float
    n_pos: float
    n_neg: float

    @property
    def pairs(self) -> float:
        return self.n_pos * self.n_neg

    @property
    def auc(self) -> float:
        return (self.wins + self.ties / 2) / self.pairs if self.pairs else float("nan")


def pair_counts(counts: ThresholdCounts) -> PairCounts:
    """Wins, ties and losses over all P·N pairs, from the per-threshold run counts.

    A run of tied scores holding ``p`` positives and ``q`` negatives makes ``p·q`` tied pairs;
    its positives beat every negative with a lower score (``n_neg - fps`` at that threshold).
    Exact integers for unweighted counts, without building the P x N grid.
    """
    run_pos = np.diff(counts.tps, prepend=0)
    run_neg = np.diff(counts.fps, prepend=0)
    n_pos, n_neg = counts.n_pos, counts.n_neg
    wins = (run_pos * (n_neg - counts.fps)).sum()
    ties = (run_pos * run_neg).sum()
    return PairCounts(
        wins=wins.item(),
        ties=ties.item(),
        losses=(n_pos * n_neg - wins - ties).item(),
        n_pos=np.asarray(n_pos).item(),
        n_neg=np.asarray(n_neg).item(),
    )


def frac(numerator: float, denominator: float) -> str:
    """``a/b`` as the seed writes it (3.5/4, 10/12), not reduced."""
    return f"{plain(numerator)}/{plain(denominator)}"


# --- the pair grid ----------------------------------------------------------------------------


def pair_grid_figure(
    grid: AUCPairGrid, *, positive_name: str = "positive", negative_name: str = "negative"
) -> go.Figure:
    """The positive x negative grid as a heatmap coloured win / tie / loss.

    Rows are positives, columns negatives, both by decreasing score, so wins fill the upper
    right. The colour scale is discrete: 0 loss, 0.5 tie, 1 win; the colour bar is the legend.
    Small grids write 1 / ½ / 0 in each cell.
    """
    n_pos, n_neg = grid.outcome.shape
    c = OUTCOME_COLORS
    scale = [
        [0.0, c["loss"]], [1 / 3, c["loss"]], [1 / 3, c["tie"]],
        [2 / 3, c["tie"]], [2 / 3, c["win"]], [1.0, c["win"]],
    ]  # fmt: skip
    custom = np.stack(
        np.broadcast_arrays(grid.pos_score[:, None], grid.neg_score[None, :]), axis=-1
    )
    small = grid.outcome.size <= 144
    heat = go.Heatmap(
        z=grid.outcome,
        x=np.arange(1, n_neg + 1),
        y=np.arange(1, n_pos + 1),
        zmin=0,
        zmax=1,
        colorscale=scale,
        customdata=custom,
        xgap=1 if n_neg <= 60 else 0,
        ygap=1 if n_pos <= 60 else 0,
        colorbar=dict(
            title="pair",
            tickvals=[1 / 6, 0.5, 5 / 6],
            ticktext=["loss (0)", "tie (½)", "win (1)"],
            len=0.6,
            thickness=14,
        ),
        hovertemplate=f"{label(positive_name)} #%{{y}} score %{{customdata[0]:.6~g}}<br>"
        f"{label(negative_name)} #%{{x}} score %{{customdata[1]:.6~g}}<br>"
        "counts %{z}<extra></extra>",
    )
    if small:
        heat.text = np.where(grid.outcome == 1, "1", np.where(grid.outcome == 0, "0", "½"))
        heat.texttemplate = "%{text}"
        heat.textfont = dict(size=16, color="white")
    fig = go.Figure(heat)
    sample = " (sample)" if grid.sampled else ""
    fig.update_layout(
        **_BASE_LAYOUT,
        height=int(min(560, max(260, 140 + 6 * n_pos))),
        xaxis=dict(
            title=f"{label(negative_name)}{sample}: {n_neg}, by decreasing score",
            showgrid=False,
            zeroline=False,
        ),
        yaxis=dict(
            title=f"{label(positive_name)}{sample}: {n_pos}",
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
    )
    if small:
        # Tick labels carry the scores themselves when there are few of them.
        fig.update_xaxes(
            tickvals=np.arange(1, n_neg + 1).tolist(),
            ticktext=[f"{v:.4g}" for v in grid.neg_score],
        )
        fig.update_yaxes(
            tickvals=np.arange(1, n_pos + 1).tolist(),
            ticktext=[f"{v:.4g}" for v in grid.pos_score],
        )
    return fig


# --- the ROC staircase ------------------------------------------------------------------------


def diagonal_runs(counts: ThresholdCounts) -> np.ndarray:
    """Indices of the thresholds whose run of tied scores holds both positives and negatives.

    Run ``i`` moves the ROC curve from point ``i`` to point ``i + 1`` of
    ``counts.roc()`` (point 0 is the origin); for these runs the move is diagonal.
    """
    run_pos = np.diff(counts.tps, prepend=0)
    run_neg = np.diff(counts.fps, prepend=0)
    return np.flatnonzero((run_pos > 0) & (run_neg > 0))


def roc_staircase_figure(
    fpr: np.ndarray,
    tpr: np.ndarray,
    thresholds: np.ndarray,
    counts: ThresholdCounts,
    *,
    auc: float,
    max_points: int = MAX_POINTS,
) -> go.Figure:
    """The ROC curve point by point, its diagonal (tied) segments in the tie colour.

    ``fpr, tpr, thresholds`` are ``roc_curve(..., drop_intermediate=False)``, one point per
    distinct score plus the origin; ``counts`` are the same data's threshold counts, whose run
    counts say which segments are diagonal. At most about ``max_points`` curve points and
    ``max_points // 2`` diagonal segments are sent; the segments drawn are exact.
    """
    n = fpr.size
    idx = sample_indices(n, max_points)
    every = idx.size == n
    fig = go.Figure(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", name="chance (AUC 0.5)",
            line=dict(color="#999999", dash="dot", width=1), hoverinfo="skip",
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=fpr[idx],
            y=tpr[idx],
            customdata=thresholds[idx],
            mode="lines+markers" if every and n <= 400 else "lines",
            name=f"ROC (AUC {auc:.4f})",
            line=dict(color=CURVE_COLOR, width=2),
            marker=dict(size=7, color=CURVE_COLOR),
            hovertemplate="threshold %{customdata:.4g}<br>FPR %{x:.3f}<br>TPR %{y:.3f}"
            "<extra></extra>",
        )
    )
    diag = diagonal_runs(counts)
    shown = diag[sample_indices(diag.size, max_points // 2)] if diag.size else diag
    if shown.size:
        xs = np.column_stack((fpr[shown], fpr[shown + 1], np.full(shown.size, np.nan))).ravel()
        ys = np.column_stack((tpr[shown], tpr[shown + 1], np.full(shown.size, np.nan))).ravel()
        th = np.repeat(thresholds[shown + 1], 3)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                customdata=th,
                mode="lines",
                name=f"tied positive and negative ({diag.size:,} diagonal"
                f"{'' if diag.size == 1 else 's'})",
                line=dict(color=OUTCOME_COLORS["tie"], width=5),
                connectgaps=False,
                hovertemplate="tied at score %{customdata:.4g}<extra></extra>",
            )
        )
    fig.update_layout(
        **_BASE_LAYOUT,
        height=420,
        xaxis=dict(title="false positive rate", range=[-0.02, 1.02], constrain="domain"),
        yaxis=dict(title="true positive rate", range=[-0.02, 1.02], scaleanchor="x"),
        legend=dict(
            x=0.98, y=0.02, xanchor="right", yanchor="bottom", bgcolor="rgba(255,255,255,0.85)"
        ),
    )
    return fig


# --- the rank table ---------------------------------------------------------------------------

ENDS = 10
MAX_TIED_ROWS = 200


def rank_frame(t: AUCRankTable) -> pd.DataFrame:
    """Every row of the rank table: position by increasing score, label 1/0, tie-averaged rank
    and how many rows share the score. R sums the rank column over the rows labelled 1."""
    n = t.score.size
    new = np.concatenate(([True], t.score[1:] != t.score[:-1]))
    run = np.cumsum(new) - 1
    sizes = np.bincount(run)
    return pd.DataFrame(
        {
            "position": np.arange(1, n + 1),
            "score": t.score,
            "label": t.positive.astype(np.int64),
            "rank": t.rank,
            "tied rows": sizes[run],
        }
    )


def mixed_tie_rows(t: AUCRankTable) -> np.ndarray:
    """Positions (0-based) of rows whose score is shared by a positive and a negative."""
    new = np.concatenate(([True], t.score[1:] != t.score[:-1]))
    run = np.cumsum(new) - 1
    pos = np.bincount(run, weights=t.positive)
    size = np.bincount(run)
    mixed = (pos > 0) & (pos < size)
    return np.flatnonzero(mixed[run])


def rank_view(t: AUCRankTable, view: str) -> tuple[pd.DataFrame, str]:
    """The rows to show ("all", "ends" or "ties") and a note on what was left out."""
    frame = rank_frame(t)
    n = len(frame)
    if view == "all" or n <= 2 * ENDS:
        return frame, ""
    if view == "ends":
        shown = frame.iloc[np.r_[0:ENDS, n - ENDS : n]]
        return shown, (
            f"The {ENDS} lowest and {ENDS} highest of {n:,} rows; the {n - 2 * ENDS:,} between "
            "are summed in the same way."
        )
    rows = mixed_tie_rows(t)
    if rows.size == 0:
        return frame.iloc[:0], (
            "No score is shared by a positive and a negative: every pair is a win or a loss, "
            "and each rank is a plain position."
        )
    groups = np.unique(t.score[rows]).size
    note = (
        f"{rows.size:,} rows in {groups:,} scores shared by a positive and a negative; their "
        "ranks are the average of the positions they share."
    )
    if rows.size > MAX_TIED_ROWS:
        note += f" The first {MAX_TIED_ROWS} are shown."
        rows = rows[:MAX_TIED_ROWS]
    return frame.iloc[rows], note


# --- formulas ---------------------------------------------------------------------------------


def pair_count_latex(p: PairCounts) -> list[str]:
    """The pair-count formula, then with the counts in."""
    return [
        r"\text{AUC} = \frac{\text{wins} + \text{ties}/2}{P \cdot N}",
        rf"= \frac{{{_tex(p.wins)} + {_tex(p.ties)}/2}}{{{_tex(p.n_pos)} \cdot {_tex(p.n_neg)}}}"
        rf" = \frac{{{_tex(p.wins + p.ties / 2)}}}{{{_tex(p.pairs)}}} = {_tex(p.auc)}",
    ]


def pair_count_text(p: PairCounts) -> str:
    """The same as one line of markdown: (3 + 1/2) / (2·2) = 3.5/4 = 0.875."""
    return (
        f"AUC = (wins + ties/2) / (P·N) = ({plain(p.wins)} + {plain(p.ties)}/2) / "
        f"({plain(p.n_pos)}·{plain(p.n_neg)}) = {frac(p.wins + p.ties / 2, p.pairs)} = {p.auc:.4g}"
    )


def rank_sum_latex(t: AUCRankTable, *, list_up_to: int = 12) -> list[str]:
    """The rank-sum formula, the positives' ranks summed (when few), then the numbers in."""
    p, n = t.n_pos, t.n_neg
    offset = p * (p + 1) / 2
    lines = [r"\text{AUC} = \frac{R_{pos} - P(P+1)/2}{P \cdot N}"]
    if p <= list_up_to:
        ranks = " + ".join(_tex(r) for r in t.rank[t.positive])
        lines.append(rf"R_{{pos}} = {ranks} = {_tex(t.rank_sum)}")
    else:
        lines.append(
            rf"R_{{pos}} = \text{{sum of the {p:,} positives' ranks}} = {_tex(t.rank_sum)}"
        )
    lines.append(
        rf"\text{{AUC}} = \frac{{{_tex(t.rank_sum)} - {_tex(p)}\cdot{_tex(p + 1)}/2}}"
        rf"{{{_tex(p)} \cdot {_tex(n)}}} = \frac{{{_tex(t.rank_sum)} - {_tex(offset)}}}"
        rf"{{{_tex(p * n)}}} = \frac{{{_tex(t.rank_sum - offset)}}}{{{_tex(p * n)}}}"
        rf" = {_tex(t.auc)}"
    )
    return lines


def rank_sum_text(t: AUCRankTable) -> str:
    """One line of markdown: (20 − 10) / (4·3) = 10/12 = 0.8333."""
    p, n = t.n_pos, t.n_neg
    offset = p * (p + 1) / 2
    return (
        f"AUC = (R − P(P+1)/2) / (P·N) = ({plain(t.rank_sum)} − {plain(offset)}) / "
        f"({plain(p)}·{plain(n)}) = {frac(t.rank_sum - offset, p * n)} = {t.auc:.4g}"
    )


def plain(x: float) -> str:
    """A number for markdown: integers and half-integers (rank sums) exactly, with thousands
    commas; other numbers to 4 significant digits."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    if (2 * x).is_integer() and abs(x) < 1e15:
        return f"{x:,.1f}"
    return f"{x:.4g}"


def _tex(x: float) -> str:
    return plain(x).replace(",", "\\,")


def plural(count: float, noun: str, plural_form: str | None = None) -> str:
    """``1 tie``, ``3 ties``, ``1,580 wins``."""
    word = noun if count == 1 else (plural_form or noun + "s")
    return f"{plain(count)} {word}"


def outcomes_text(wins: float, ties: float, losses: float, *, bold: bool = False) -> str:
    """``3 wins, 1 tie, 0 losses`` (each part in bold for markdown when ``bold``)."""
    b = "**" if bold else ""
    parts = (plural(wins, "win"), plural(ties, "tie"), plural(losses, "loss", "losses"))
    return ", ".join(f"{b}{part}{b}" for part in parts)
