"""Tables, figures and the per-user offset experiment of the GAUC page; no Streamlit.

Every number comes from :func:`metrics.group_auc_table` / :func:`metrics.roc_auc_score`; this
module only arranges it (per-user table, model summary), bins it (the AUC histogram is binned
here, so the browser gets one bar per bin whatever the number of users) and builds the offset
experiment: add the same offset to every row of a user, which keeps each user's order (so
GAUC) and moves the global AUC.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import metrics
from metrics import GroupAUC
from ui.figures.charts import _BASE_LAYOUT, PALETTE
from ui.words.safe import label

WEIGHTING_LABELS = {
    "impressions": "impressions (rows per user)",
    "positives": "positives (clicks)",
    "uniform": "uniform (plain mean)",
}
WEIGHTING_USED_BY = {
    "impressions": "as many CTR papers' code computes group AUC",
    "positives": "as RecBole does",
    "uniform": "as DIN's code and TorchRec do",
}
# What w_u is, in LaTeX, for the explain expander.
WEIGHTING_LATEX = {
    "impressions": r"w_u = \text{rows of } u",
    "positives": r"w_u = \text{positives of } u",
    "uniform": r"w_u = 1",
}
OFFSET_MODES = {
    "click_rate": "by the user's click rate",
    "random": "random per user (seed 0)",
}
GAUC_COLOR = "#d62728"
GLOBAL_COLOR = "#555555"

__all__ = [
    "OFFSET_MODES",
    "WEIGHTING_LABELS",
    "WEIGHTING_USED_BY",
    "UserOffsets",
    "auc_histogram_figure",
    "four_users_example",
    "gauc_value",
    "model_summary_frame",
    "offset_sweep",
    "offset_sweep_figure",
    "pair_counts",
    "skipped_counts",
    "user_frame",
    "user_offsets",
]


def gauc_value(table: GroupAUC, weighting: str) -> float:
    """``table.score(weighting)``, or NaN without a warning when no user has both classes."""
    return table.score(weighting) if table.defined.any() else float("nan")


def skipped_counts(table: GroupAUC) -> dict[str, int]:
    """Skipped users per reason ("only positives", "only negatives", "zero weight")."""
    reasons, counts = np.unique(table.reason[~table.defined], return_counts=True)
    return {str(r): int(c) for r, c in zip(reasons, counts, strict=True)}


def model_summary_frame(results: dict[str, tuple[float, GroupAUC]], weighting: str) -> pd.DataFrame:
    """One row per model: global AUC, GAUC under ``weighting``, their difference, the users
    counted and the users skipped with why."""
    rows = []
    for model, (global_auc, table) in results.items():
        gauc = gauc_value(table, weighting)
        skipped = skipped_counts(table)
        rows.append(
            {
                "model": model,
                "global AUC": global_auc,
                "GAUC": gauc,
                "GAUC − AUC": gauc - global_auc,
                "users counted": int(table.defined.sum()),
                "skipped: only positives": skipped.get("only positives", 0),
                "skipped: only negatives": skipped.get("only negatives", 0),
            }
        )
    frame = pd.DataFrame(rows)
    zero = [skipped_counts(t).get("zero weight", 0) for _, t in results.values()]
    if any(zero):
        frame["skipped: zero weight"] = zero
    return frame


def user_frame(table: GroupAUC, weighting: str, *, group_name: str = "user") -> pd.DataFrame:
    """The per-user table: id, rows, positives, negatives, AUC (NaN when skipped), why it was
    skipped, and the user's weight and share of the total weight under ``weighting``."""
    weight = table.weights(weighting)
    total = weight.sum()
    share = weight / total if total > 0 else np.zeros(weight.shape)
    return pd.DataFrame(
        {
            group_name: table.group,
            "rows": table.rows,
            "positives": table.positives,
            "negatives": table.negatives,
            "AUC": table.auc,
            "skipped because": table.reason,
            "weight": weight,
            "share of weight": share,
        }
    )


def pair_counts(table: GroupAUC) -> tuple[float, float]:
    """(positive-negative pairs within users, all positive-negative pairs): what GAUC and
    the global AUC compare (weighted sums when the table is weighted)."""
    within = float(np.dot(table.positives.astype(np.float64), table.negatives))
    every = float(table.positives.sum()) * float(table.negatives.sum())
    return within, every


# --- the per-user AUC histogram ---------------------------------------------------------------


def auc_histogram_figure(
    table: GroupAUC,
    weighting: str,
    *,
    gauc: float,
    global_auc: float,
    bins: int = 20,
) -> go.Figure:
    """Users per AUC bin on [0, 1] (binned here: ``bins`` bars whatever the number of users),
    with the GAUC and the global AUC as vertical lines. Skipped users are not drawn; a bar's
    hover gives its share of the GAUC weight."""
    auc = table.auc[table.defined]
    weight = table.weights(weighting)[table.defined].astype(np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    users, _ = np.histogram(auc, bins=edges)
    weight_in, _ = np.histogram(auc, bins=edges, weights=weight)
    share = weight_in / weight.sum() if weight.sum() > 0 else np.zeros(bins)
    centers = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(
        go.Bar(
            x=centers, y=users, width=np.diff(edges), name="users",
            marker=dict(color=PALETTE[0], line=dict(color="white", width=1)),
            customdata=np.column_stack([edges[:-1], edges[1:], share]),
            hovertemplate="AUC %{customdata[0]:.2f}–%{customdata[1]:.2f}<br>%{y} users<br>"
            "%{customdata[2]:.1%} of the GAUC weight<extra></extra>",
            showlegend=False,
        )
    )  # fmt: skip
    top = max(int(users.max()) if users.size else 0, 1) * 1.08
    for value, name, color, dash in (
        (gauc, f"GAUC ({weighting}) {gauc:.4f}", GAUC_COLOR, "solid"),
        (global_auc, f"global AUC {global_auc:.4f}", GLOBAL_COLOR, "dash"),
    ):
        if np.isfinite(value):
            fig.add_trace(
                go.Scatter(
                    x=[value, value], y=[0, top], mode="lines", name=name,
                    line=dict(color=color, width=3, dash=dash), hoverinfo="name",
                )
            )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=340,
        bargap=0,
        xaxis=dict(title="per-user AUC", range=[0, 1]),
        yaxis=dict(title="users", range=[0, top]),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


# --- the offset experiment --------------------------------------------------------------------


@dataclass(frozen=True)
class UserOffsets:
    """The offset each user gets at strength 1, and what it was made of.

    ``per_user`` is aligned with the GroupAUC table (sorted ids); ``per_row`` with the data;
    ``codes`` numbers each row's user 0, 1, ... in table order (an integer stand-in for the ids
    that makes every later group AUC skip the sort of the ids).
    Click-rate mode: offset_u = (click rate_u − overall click rate) × k with
    k = sd(scores) / sd(users' click rates). Random mode: offset_u = z_u × k, z_u ~ N(0, 1)
    drawn with seed 0, k = sd(scores).
    """

    mode: str
    per_user: np.ndarray
    per_row: np.ndarray
    codes: np.ndarray
    k: float
    overall_rate: float


def user_offsets(
    table: GroupAUC, groups: np.ndarray, scores: np.ndarray, mode: str, *, seed: int = 0
) -> UserOffsets:
    """The per-user offsets at strength 1 (see :class:`UserOffsets`), one vectorised pass."""
    if mode not in OFFSET_MODES:
        raise ValueError(f"mode must be one of {', '.join(OFFSET_MODES)}; got {mode!r}.")
    uniques, codes = np.unique(groups, return_inverse=True)
    if uniques.size != len(table) or not np.array_equal(uniques, table.group):
        raise ValueError("groups do not match the table's groups; build both from the same data.")
    codes = codes.reshape(-1)
    pos = table.positives.astype(np.float64)
    total = pos + table.negatives
    overall = float(pos.sum() / total.sum()) if total.sum() > 0 else 0.0
    sd_scores = float(np.std(scores))
    if mode == "click_rate":
        rate = np.divide(pos, total, out=np.full(pos.shape, overall), where=total > 0)
        sd_rate = float(np.std(rate))
        k = sd_scores / sd_rate if sd_rate > 0 else 0.0
        per_user = (rate - overall) * k
    else:
        k = sd_scores
        per_user = np.random.default_rng(seed).standard_normal(len(table)) * k
    return UserOffsets(mode, per_user, per_user[codes], codes, k, overall)


def offset_sweep(
    y: np.ndarray,
    scores: np.ndarray,
    groups: np.ndarray,
    offsets: np.ndarray,
    strengths: np.ndarray,
    *,
    weighting: str,
    sample_weight: np.ndarray | None = None,
) -> pd.DataFrame:
    """Global AUC and GAUC of ``scores + strength * offsets`` for each strength (one
    vectorised score array per strength, then the library's two metrics). Pass integer user
    codes (``UserOffsets.codes``) as ``groups`` for speed: text ids are sorted on every call."""
    global_auc, gauc = [], []
    for strength in np.asarray(strengths, dtype=np.float64):
        shifted = scores + strength * offsets
        global_auc.append(metrics.roc_auc_score(y, shifted, sample_weight=sample_weight))
        table = metrics.group_auc_table(y, shifted, groups, sample_weight=sample_weight)
        gauc.append(gauc_value(table, weighting))
    return pd.DataFrame(
        {"strength": np.asarray(strengths, dtype=np.float64), "global AUC": global_auc,
         "GAUC": gauc}
    )  # fmt: skip


def offset_sweep_figure(sweep: pd.DataFrame, *, strength: float | None = None) -> go.Figure:
    """Global AUC and GAUC against the offset strength, the current strength marked."""
    fig = go.Figure()
    for column, color, dash in (
        ("global AUC", GLOBAL_COLOR, "dash"),
        ("GAUC", GAUC_COLOR, "solid"),
    ):
        fig.add_trace(
            go.Scatter(
                x=sweep["strength"], y=sweep[column], mode="lines+markers", name=column,
                line=dict(color=color, width=3, dash=dash), marker=dict(size=7),
                hovertemplate=f"strength %{{x:g}}<br>{column} %{{y:.4f}}<extra></extra>",
            )
        )  # fmt: skip
    if strength is not None:
        fig.add_vline(x=strength, line=dict(color="#999999", dash="dot"))
    low = float(np.nanmin(sweep[["global AUC", "GAUC"]].to_numpy()))
    high = float(np.nanmax(sweep[["global AUC", "GAUC"]].to_numpy()))
    pad = max((high - low) * 0.1, 0.01)
    fig.update_layout(
        **_BASE_LAYOUT,
        height=320,
        xaxis=dict(title="per-user offset strength"),
        yaxis=dict(title="AUC", range=[max(low - pad, 0), min(high + pad, 1.0)]),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


# --- seed 004's worked example ----------------------------------------------------------------


def four_users_example() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seed 004's worked AUC examples as four users: (labels, scores, user ids).

    ``a``: example 1 (AUC 0.75); ``b``: example 2, a tied pair counting one half (AUC 0.875);
    ``c``: the rank-formula table with ties (AUC 10/12); ``d``: two clicks and no non-click, so
    seed 004's ``cal_group_auc`` leaves it out. The others are weighted by their rows.
    """
    users = (
        ("a", [0, 1, 0, 1], [0.1, 0.35, 0.4, 0.8]),
        ("b", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8]),
        ("c", [0, 1, 1, 0, 0, 1, 1], [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]),
        ("d", [1, 1], [0.6, 0.9]),
    )
    y = np.concatenate([labels for _, labels, _ in users]).astype(bool)
    s = np.concatenate([scores for _, _, scores in users]).astype(np.float64)
    groups = np.concatenate([[user] * len(labels) for user, labels, _ in users])
    return y, s, groups


def head_to_head(a: GroupAUC, b: GroupAUC) -> dict[str, float]:
    """Users where both models' AUC is defined: how many, and the shares where B's AUC is
    higher, equal and lower than A's (same users: the tables come from the same rows)."""
    both = a.defined & b.defined
    diff = b.auc[both] - a.auc[both]
    n = int(both.sum())
    return {
        "users": n,
        "B higher": float(np.mean(diff > 0)) if n else np.nan,
        "equal": float(np.mean(diff == 0)) if n else np.nan,
        "B lower": float(np.mean(diff < 0)) if n else np.nan,
    }


def head_to_head_figure(a: GroupAUC, b: GroupAUC, name_a: str, name_b: str) -> go.Figure:
    """Each user's AUC under model A (x) against model B (y), marker size by rows; above the
    diagonal B ranks that user's rows better."""
    both = a.defined & b.defined
    rows = a.rows[both]
    size = 5 + 15 * np.sqrt(rows / rows.max()) if rows.size else rows
    fig = go.Figure(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line=dict(color="#999999", dash="dot"),
            hoverinfo="skip", showlegend=False,
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=a.auc[both], y=b.auc[both], mode="markers", showlegend=False,
            marker=dict(size=size, color=PALETTE[0], opacity=0.5),
            text=[str(g) for g in a.group[both]], customdata=rows,
            hovertemplate="user %{text}<br>" + label(name_a) + " %{x:.3f}<br>" + label(name_b)
            + " %{y:.3f}<br>rows %{customdata:,}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=420,
        xaxis=dict(title=f"per-user AUC, {label(name_a)}", range=[-0.02, 1.02]),
        yaxis=dict(title=f"per-user AUC, {label(name_b)}", range=[-0.02, 1.02]),
    )
    return fig
