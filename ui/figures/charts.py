"""Plotly figure builders: plain functions from metric results to figures, no streamlit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from metrics import Confusion, ThresholdCounts
from ui.words.numbers import count
from ui.words.safe import label

# One colour per role, used across every chart so a reader learns them once.
COLORS = {
    "precision": "#1f77b4",
    "recall": "#d62728",
    "f_beta": "#2ca02c",
    "threshold": "#555555",
}


# The parts of plotly_white that 2-D charts use: no polar, ternary, 3-D scene or map defaults.
_TEMPLATE_LAYOUT = ("annotationdefaults", "autotypenumbers", "coloraxis", "colorscale", "colorway",
                    "font", "hoverlabel", "hovermode", "paper_bgcolor", "plot_bgcolor",
                    "shapedefaults", "title", "xaxis", "yaxis")  # fmt: skip
_TEMPLATE_TRACES = ("scatter", "bar", "histogram", "heatmap")


def _slim_template(base: str = "plotly_white") -> go.layout.Template:
    """``base`` cut to the layout and trace types these charts draw. Plotly deep-copies a
    template into the figure each time one is set, and copying the full one (defaults for 24
    trace types and every kind of axis) took a third of a page's script time; this one copies
    4x faster."""
    full = pio.templates[base]
    layout = full.layout.to_plotly_json()
    slim = go.layout.Template(layout={k: v for k, v in layout.items() if k in _TEMPLATE_LAYOUT})
    for kind in _TEMPLATE_TRACES:
        setattr(slim.data, kind, getattr(full.data, kind))
    return slim


TEMPLATE = "metrics_lens"
pio.templates[TEMPLATE] = _slim_template()


def use_template() -> None:
    """Make the slim template every new figure's default. A figure takes the default template
    when it is made; naming one in ``update_layout`` afterwards copied the default (Streamlit's,
    set when Streamlit is imported) and then the named one: a quarter of a chart's build time.
    Called here and by :mod:`ui.views.show` (which imports Streamlit first, so it has the last
    word)."""
    pio.templates.default = TEMPLATE


use_template()

_BASE_LAYOUT = dict(
    margin=dict(l=10, r=10, t=40, b=10),
    font=dict(size=13),
)


MAX_POINTS = 2000


def sample_indices(n: int, max_points: int = MAX_POINTS, keep: tuple[int, ...] = ()) -> np.ndarray:
    """At most about ``max_points`` evenly spread indices of ``range(n)``, always with the two
    ends and the indices in ``keep`` (an operating point, say), sorted and unique."""
    if n <= max_points:
        return np.arange(n)
    spread = np.linspace(0, n - 1, max_points).round().astype(np.int64)
    extra = np.array([k for k in keep if 0 <= k < n], dtype=np.int64)
    return np.unique(np.concatenate((spread, extra)))


def confusion_matrix_figure(
    c: Confusion,
    *,
    normalize: str | None = None,
    positive_name: str = "positive",
    negative_name: str = "negative",
    height: int = 320,
    compact: bool = False,
) -> go.Figure:
    """The 2 x 2 confusion matrix as a heatmap, rows = actual class, columns = predicted.

    ``normalize``: None shows counts; "true" divides each row by its total (recall and
    specificity on the diagonal); "pred" divides each column (precision and NPV).
    ``compact``: the small matrix beside a table (the step-through's, whose class names are
    "+" and "−"): a cell's text on one line ("TP 3") at 17 px, the axes labelled "predicted
    <name>" and "actual <name>" with no axis titles, 12 px axis text, 6 px above and below,
    and no hover label.
    """
    counts = np.array([[c.tn, c.fp], [c.fn, c.tp]], dtype=np.float64)
    names = np.array([["TN", "FP"], ["FN", "TP"]])
    gap = " " if compact else "<br>"
    if normalize is None:
        shown = counts
        text = [[f"{names[i, j]}{gap}{count(counts[i, j])}" for j in range(2)] for i in range(2)]
    else:
        axis = {"true": 1, "pred": 0}[normalize]
        totals = counts.sum(axis=axis, keepdims=True)
        shown = np.divide(counts, totals, out=np.zeros_like(counts), where=totals != 0)
        text = [
            [f"{names[i, j]}{gap}{shown[i, j]:.1%}{gap}({count(counts[i, j])})" for j in range(2)]
            for i in range(2)
        ]
    columns = [f"Predicted {negative_name}", f"Predicted {positive_name}"]
    rows = [f"Actual {negative_name}", f"Actual {positive_name}"]
    # Full names on hover; on the axes, wrapped and shortened so a long class name
    # ("diagnosis = malignant") cannot squeeze the cells (plotly gives the labels the room).
    full = [[f"{label(rows[i])}, {label(columns[j])}" for j in range(2)] for i in range(2)]
    hover = (
        dict(hoverinfo="skip")
        if compact
        else dict(customdata=full, hovertemplate="%{customdata}: %{text}<extra></extra>")
    )
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=[0, 1],
            y=[0, 1],
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=17 if compact else 16),
            colorscale="Blues",
            showscale=False,
            **hover,
        )
    )
    fig.update_layout(**_BASE_LAYOUT, height=height)
    margin = 6 if compact else 10
    fig.update_layout(margin=dict(l=10, r=10, t=margin, b=margin))
    classes = (negative_name, positive_name)
    if compact:  # the labels say which axis is which
        fig.update_layout(font_size=12)
        x_ticks = [tick_label(f"predicted {name}") for name in classes]
        y_ticks = [tick_label(f"actual {name}") for name in classes]
        titles, angle = (None, None), None
    else:
        # Each predicted class is named under its own cell, and a cell is about 70 px wide
        # when four charts share a projector's row: names longer together than
        # _SIDE_BY_SIDE characters ("relevance ≥ 3" / "relevance < 3") ran into each other.
        # They wrap to short lines on both axes (narrower row names widen the cells), and
        # plotly may still angle them if they do not fit; short names stay as they were.
        wide = len(negative_name) + len(positive_name) <= _SIDE_BY_SIDE
        x_ticks = y_ticks = [tick_label(name, 16 if wide else _NARROW) for name in classes]
        titles, angle = ("Predicted", "Actual"), 0 if wide else None  # None: auto
    fig.update_xaxes(tickvals=[0, 1], ticktext=x_ticks, tickangle=angle, title_text=titles[0])
    fig.update_yaxes(tickvals=[0, 1], ticktext=y_ticks, autorange="reversed", title_text=titles[1])
    return fig


_SIDE_BY_SIDE = 20  # characters of both class names that fit side by side under the cells
_NARROW = 10  # characters per line of a tick label when they do not


def tick_label(text: str, width: int = 16, lines: int = 3, *, word: int = 16) -> str:
    """An axis label wrapped to ``lines`` lines of at most ``width`` characters (the rest cut
    with "…"), HTML-escaped for plotly. A word of up to ``word`` characters is never split
    (its line is then longer than ``width``); a longer one is, at ``word``."""
    import textwrap

    text = str(text)
    if width >= word:
        wrapped = textwrap.wrap(text, width) or [text]
    else:
        whole = textwrap.wrap(text, width, break_long_words=False) or [text]
        wrapped = [part for line in whole for part in textwrap.wrap(line, word) or [line]]
    if len(wrapped) > lines:
        cut = max(width, word) if width < word else width
        wrapped = [*wrapped[: lines - 1], wrapped[lines - 1][: cut - 1] + "…"]
    return "<br>".join(label(line) for line in wrapped)


def rates_vs_threshold_figure(
    counts: ThresholdCounts, *, threshold: float, beta: float = 1.0
) -> go.Figure:
    """Precision, recall and F-beta at every distinct threshold, with the current one marked."""
    idx = sample_indices(len(counts), keep=(counts.index_at(threshold),))
    rates = counts.confusion()
    thresholds = counts.thresholds[idx]
    fig = go.Figure()
    for name, values, title in (
        ("precision", rates.precision[idx], "Precision"),
        ("recall", rates.recall[idx], "Recall"),
        ("f_beta", rates.f_beta(beta)[idx], f"F{beta:g}"),
    ):
        fig.add_trace(
            go.Scatter(
                x=thresholds,
                y=values,
                name=title,
                mode="lines",
                line=dict(color=COLORS[name], width=2, shape="hv"),
                hovertemplate="threshold %{x:.4g}<br>" + title + " %{y:.3f}<extra></extra>",
            )
        )
    fig.add_vline(x=threshold, line=dict(color=COLORS["threshold"], dash="dash"))
    fig.update_layout(
        **_BASE_LAYOUT,
        height=320,
        xaxis_title="threshold (score ≥ threshold is positive)",
        yaxis=dict(range=[0, 1.02], title="rate"),
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


# --- ROC and precision-recall curves -----------------------------------------------------------

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
_CURVE_HOVER = (
    "<b>%{fullData.name}</b><br>threshold %{customdata[0]:.4g}<br>precision %{customdata[1]:.3f}"
    "<br>recall (TPR) %{customdata[2]:.3f}<br>FPR %{customdata[3]:.3f}<extra></extra>"
)


@dataclass(frozen=True)
class ModelCurve:
    """What one model contributes to the curve charts (areas computed on the full data)."""

    name: str
    counts: ThresholdCounts
    auc: float
    ap: float


Thresholds = float | dict[str, float] | None  # one for all models, or one per model


def _threshold_for(threshold: Thresholds, name: str) -> float | None:
    return threshold.get(name) if isinstance(threshold, dict) else threshold


def _curve_points(m: ModelCurve, threshold: float | None) -> dict[str, np.ndarray]:
    """At most about 2,000 of a model's curve points (keeping the operating point), with a
    first point where nothing is predicted positive (threshold +inf, recall and FPR 0)."""
    keep = () if threshold is None else (m.counts.index_at(threshold),)
    idx = sample_indices(len(m.counts), keep=keep)
    tps, fps = m.counts.tps[idx], m.counts.fps[idx]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros(idx.shape), where=predicted != 0)
    recall = tps / m.counts.n_pos if m.counts.n_pos > 0 else np.full(idx.shape, np.nan)
    fpr = fps / m.counts.n_neg if m.counts.n_neg > 0 else np.full(idx.shape, np.nan)
    return {
        "threshold": np.concatenate(([np.inf], m.counts.thresholds[idx])),
        # the PR curve starts at recall 0 level with its first precision
        "precision": np.concatenate((precision[:1], precision)),
        "recall": np.concatenate(([0.0], recall)),
        "fpr": np.concatenate(([0.0], fpr)),
    }


def _add_model_curves(
    fig: go.Figure,
    curves: list[ModelCurve],
    thresholds: Thresholds,
    *,
    x: str,
    y: str,
    area_name: str,
    shape: str = "linear",
) -> None:
    """One trace per model (x and y name columns of _curve_points), plus its operating point."""
    for i, m in enumerate(curves):
        color = PALETTE[i % len(PALETTE)]
        threshold = _threshold_for(thresholds, m.name)
        pts = _curve_points(m, threshold)
        area = m.auc if area_name == "AUC" else m.ap
        fig.add_trace(
            go.Scatter(
                x=pts[x],
                y=pts[y],
                customdata=np.column_stack(
                    [pts[k] for k in ("threshold", "precision", "recall", "fpr")]
                ),
                mode="lines",
                name=f"{label(m.name)} ({area_name} "
                + (f"{area:.3f})" if np.isfinite(area) else "undefined)"),
                line=dict(color=color, width=2, shape=shape),
                hovertemplate=_CURVE_HOVER,
            )
        )
        if threshold is not None:
            c = m.counts.at(threshold)
            point = {"precision": c.precision, "recall": c.recall, "fpr": c.fpr}
            fig.add_trace(
                go.Scatter(
                    x=[point[x]],
                    y=[point[y]],
                    mode="markers",
                    marker=dict(size=13, color=color, line=dict(color="white", width=2)),
                    showlegend=False,
                    hovertemplate=f"<b>{label(m.name)}</b> operating point<br>threshold "
                    f"{threshold:.4g}<extra></extra>",
                )
            )


def _chance_line(fig: go.Figure, ys: list[float], name: str) -> None:
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=ys, mode="lines", name=name, line=dict(color="#999999", dash="dot"),
            hoverinfo="skip",
        )
    )  # fmt: skip


def roc_figure(
    curves: list[ModelCurve], *, threshold: Thresholds = None, height: int = 480
) -> go.Figure:
    """ROC curves of several models, AUC in the legend, the chance diagonal, and each model's
    operating point at ``threshold`` (one for all, or a dict with one per model). At most about
    2,000 points per curve are sent."""
    fig = go.Figure()
    _chance_line(fig, [0, 1], "chance (AUC 0.5)")
    _add_model_curves(fig, curves, threshold, x="fpr", y="recall", area_name="AUC")
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="false positive rate", range=[-0.01, 1.01], constrain="domain"),
        yaxis=dict(title="true positive rate (recall)", range=[-0.01, 1.01], scaleanchor="x"),
        legend=dict(
            x=0.98, y=0.02, xanchor="right", yanchor="bottom", bgcolor="rgba(255,255,255,0.8)"
        ),
    )
    return fig


def pr_figure(
    curves: list[ModelCurve],
    *,
    prevalence: float,
    threshold: Thresholds = None,
    height: int = 480,
) -> go.Figure:
    """Precision-recall curves drawn as the steps AP sums, AP in the legend, the chance line at
    the prevalence, iso-F1 contours, and each model's operating point at ``threshold`` (one for
    all, or a dict with one per model)."""
    fig = go.Figure()
    r = np.linspace(0.001, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8):
        on = r > f / 2
        fig.add_trace(
            go.Scatter(
                x=r[on], y=f * r[on] / (2 * r[on] - f), mode="lines", name=f"F1 = {f}",
                line=dict(color="#cccccc", width=1), hoverinfo="skip", showlegend=False,
            )
        )  # fmt: skip
        fig.add_annotation(
            x=0.97, y=f * 0.97 / (1.94 - f), text=f"F1={f}", showarrow=False, xanchor="right",
            yanchor="bottom", font=dict(size=10, color="#999999"),
        )  # fmt: skip
    _chance_line(fig, [prevalence, prevalence], f"chance (AP {prevalence:.3f})")
    _add_model_curves(fig, curves, threshold, x="recall", y="precision", area_name="AP", shape="vh")
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="recall (TPR)", range=[-0.01, 1.01]),
        yaxis=dict(title="precision", range=[-0.01, 1.03]),
        legend=dict(
            x=0.02, y=0.02, xanchor="left", yanchor="bottom", bgcolor="rgba(255,255,255,0.8)"
        ),
    )
    return fig


# --- score distributions and calibration ------------------------------------------------------


def score_histogram_figure(
    name: str,
    s: np.ndarray,
    y: np.ndarray,
    *,
    bins: int = 40,
    positive_name: str = "positive",
    negative_name: str = "negative",
    threshold: float | None = None,
) -> go.Figure:
    """One model's score distribution per class (as shares of the class), binned here so the
    browser gets ``bins`` bars per class whatever the number of rows; the threshold as a line.
    One figure per model, so a page can lay them side by side or, on a phone, one under the
    other without their titles running into each other."""
    edges = np.linspace(s.min(), s.max() if s.max() > s.min() else s.min() + 1, bins + 1)
    shares = [np.histogram(s[mask], bins=edges)[0] for mask in (~y, y)]
    return class_histogram_figure(
        name, edges, *(c / max(c.sum(), 1) for c in shares), positive_name=positive_name,
        negative_name=negative_name, threshold=threshold,
    )  # fmt: skip


def class_histogram_figure(
    name: str,
    edges: np.ndarray,
    negative_share: np.ndarray,
    positive_share: np.ndarray,
    *,
    positive_name: str = "positive",
    negative_name: str = "negative",
    threshold: float | None = None,
) -> go.Figure:
    """:func:`score_histogram_figure` from shares already binned (a cached histogram: a
    threshold move then redraws the line without binning the rows again)."""
    centers = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure()
    for share, cls, color in (
        (negative_share, label(negative_name), "#7f7f7f"),
        (positive_share, label(positive_name), "#d62728"),
    ):
        fig.add_trace(
            go.Bar(
                x=centers, y=share, width=np.diff(edges), name=cls, marker_color=color,
                opacity=0.55, hovertemplate=f"{cls}<br>score %{{x:.3g}}<br>%{{y:.1%}} of the class"
                "<extra></extra>",
            )
        )  # fmt: skip
    if threshold is not None:
        fig.add_vline(x=threshold, line=dict(color=COLORS["threshold"], dash="dash"))
    fig.update_layout(
        **_BASE_LAYOUT,
        barmode="overlay",
        height=300,
        title=dict(text=label(name), font=dict(size=14), x=0, xanchor="left"),
        legend=dict(orientation="h", y=1.12, x=0),
        yaxis=dict(tickformat=".0%", title="share of class"),
        xaxis_title="score",
    )
    fig.update_layout(margin=dict(t=60))
    return fig


def reliability_figure(curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> go.Figure:
    """Reliability diagram: observed positive rate against mean predicted probability per bin,
    with the diagonal of perfect calibration; marker size grows with the bin's rows."""
    fig = go.Figure(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
            line=dict(color="#999999", dash="dot"), hoverinfo="skip",
        )
    )  # fmt: skip
    for i, (name, (prob_true, prob_pred, weight)) in enumerate(curves.items()):
        size = 6 + 14 * np.sqrt(weight / weight.max())
        fig.add_trace(
            go.Scatter(
                x=prob_pred, y=prob_true, mode="lines+markers", name=label(name),
                line=dict(color=PALETTE[i % len(PALETTE)]), marker=dict(size=size),
                customdata=weight,
                hovertemplate=f"<b>{label(name)}</b><br>mean predicted %{{x:.3f}}"
                "<br>observed %{y:.3f}<br>rows %{customdata:,.0f}<extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=420,
        xaxis=dict(title="mean predicted probability", range=[-0.02, 1.02]),
        yaxis=dict(title="observed share positive", range=[-0.02, 1.02]),
        legend=dict(x=0.02, y=0.98, bgcolor="rgba(255,255,255,0.8)"),
    )
    return fig


# --- gains and decision curves ----------------------------------------------------------------


def gains_figure(curves: dict[str, tuple[np.ndarray, np.ndarray]], prevalence: float) -> go.Figure:
    """Cumulative gains of each model (share of rows taken, share of positives found), with the
    random line and the perfect model's curve. At most about 2,000 points per curve."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, prevalence, 1], y=[0, 1, 1], mode="lines", name="perfect",
            line=dict(color="#bbbbbb", dash="dash"), hoverinfo="skip",
        )
    )  # fmt: skip
    _chance_line(fig, [0, 1], "random")
    for i, (name, (taken, gained)) in enumerate(curves.items()):
        idx = sample_indices(taken.size)
        fig.add_trace(
            go.Scatter(
                x=taken[idx], y=gained[idx], mode="lines", name=label(name),
                line=dict(color=PALETTE[i % len(PALETTE)], width=2),
                hovertemplate=f"<b>{label(name)}</b><br>top %{{x:.1%}} of rows<br>"
                "%{y:.1%} of positives<extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=400,
        xaxis=dict(title="share of rows taken, highest scores first", tickformat=".0%"),
        yaxis=dict(title="share of positives found", tickformat=".0%"),
        legend=dict(x=0.98, y=0.02, xanchor="right", yanchor="bottom"),
    )
    return fig


def ks_figure(curves: dict[str, tuple[np.ndarray, np.ndarray, float, float]]) -> go.Figure:
    """TPR − FPR against the share of rows flagged (highest scores first), per model, with the
    KS point marked: where the positives' and the negatives' score distributions lie furthest
    apart. ``curves[name] = (share of rows flagged, TPR − FPR, KS, threshold at KS)``."""
    fig = go.Figure()
    for i, (name, (taken, gap, ks, at)) in enumerate(curves.items()):
        color = PALETTE[i % len(PALETTE)]
        idx = sample_indices(taken.size, keep=(int(np.argmax(np.abs(gap))),))
        fig.add_trace(
            go.Scatter(
                x=taken[idx], y=gap[idx], mode="lines", name=f"{label(name)} (KS {ks:.3f})",
                line=dict(color=color, width=2), legendgroup=name,
                hovertemplate=f"<b>{label(name)}</b><br>top %{{x:.1%}} flagged<br>"
                "TPR − FPR %{y:.3f}<extra></extra>",
            )
        )  # fmt: skip
        best = int(np.argmax(np.abs(gap)))
        fig.add_trace(
            go.Scatter(
                x=[taken[best]], y=[gap[best]], mode="markers", showlegend=False,
                marker=dict(color=color, size=11, symbol="diamond"), legendgroup=name,
                name=f"KS {ks:.3f}",
                hovertemplate=f"<b>{label(name)}</b>: KS {ks:.4f} at score ≥ {at:.4g}"
                "<extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=400,
        xaxis=dict(title="share of rows flagged, highest scores first", tickformat=".0%"),
        yaxis=dict(title="TPR − FPR"),
        legend=dict(x=0.98, y=0.98, xanchor="right", yanchor="top"),
    )
    return fig


def decision_curve_figure(
    t: np.ndarray,
    models: dict[str, np.ndarray],
    treat_all: np.ndarray,
    bands: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> go.Figure:
    """Net benefit against the threshold probability for each model, treat-all and treat-none;
    with ``bands``, each model's pointwise 95% bootstrap band shaded."""
    fig = go.Figure()
    for i, (name, (low, high)) in enumerate((bands or {}).items()):
        ok = np.isfinite(low) & np.isfinite(high)
        color = PALETTE[i % len(PALETTE)]
        r, g, b = (int(color[j : j + 2], 16) for j in (1, 3, 5))
        fig.add_trace(
            go.Scatter(
                x=np.concatenate((t[ok], t[ok][::-1])),
                y=np.concatenate((high[ok], low[ok][::-1])),
                fill="toself", fillcolor=f"rgba({r},{g},{b},0.15)", line=dict(width=0),
                hoverinfo="skip", showlegend=False, name=f"{label(name)} 95% band",
            )
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(x=t, y=treat_all, mode="lines", name="treat all",
                   line=dict(color="#999999", dash="dot"))
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(x=t, y=np.zeros_like(t), mode="lines", name="treat none",
                   line=dict(color="#555555", dash="dash"))
    )  # fmt: skip
    for i, (name, nb) in enumerate(models.items()):
        fig.add_trace(
            go.Scatter(x=t, y=nb, mode="lines", name=label(name),
                       line=dict(color=PALETTE[i % len(PALETTE)], width=2))
        )  # fmt: skip
    top = max(float(np.nanmax(v)) for v in (*models.values(), treat_all))
    fig.update_layout(
        **_BASE_LAYOUT,
        height=400,
        xaxis=dict(title="threshold probability t"),
        yaxis=dict(title="net benefit", range=[-0.05 * max(top, 0.01), 1.1 * max(top, 0.01)]),
        legend=dict(x=0.98, y=0.98, xanchor="right", yanchor="top"),
    )
    return fig


def cost_figure(curves: dict[str, tuple[np.ndarray, np.ndarray, int]]) -> go.Figure:
    """Total cost against the threshold for each model, its least cost marked. The first point
    (nothing flagged, threshold +inf) is drawn just above the highest score."""
    fig = go.Figure()
    for i, (name, (thresholds, cost, best)) in enumerate(curves.items()):
        t = thresholds.copy()
        finite = t[np.isfinite(t)]
        if finite.size:
            t[~np.isfinite(t)] = finite.max() + (np.ptp(finite) or 1.0) * 0.02
        idx = sample_indices(t.size, keep=(best,))
        color = PALETTE[i % len(PALETTE)]
        fig.add_trace(
            go.Scatter(
                x=t[idx], y=cost[idx], mode="lines", name=label(name),
                line=dict(color=color, width=2, shape="hv"),
                hovertemplate=f"<b>{label(name)}</b><br>threshold %{{x:.4g}}<br>cost %{{y:,.4g}}"
                "<extra></extra>",
            )
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=[t[best]], y=[cost[best]], mode="markers", showlegend=False,
                marker=dict(size=12, color=color, line=dict(color="white", width=2)),
                hovertemplate=f"<b>{label(name)}</b> least cost %{{y:,.4g}} at %{{x:.4g}}"
                "<extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=380,
        xaxis_title="threshold (score ≥ threshold is flagged)",
        yaxis_title="total cost",
        legend=dict(orientation="h", y=1.12, x=0),
    )
    return fig


def scale_chart_text(fig, factor: float, floor: float = 0.0) -> None:
    """Multiply every font size set on ``fig`` by ``factor``, and raise any still below
    ``floor`` to it: plotly's layout font is only a default, and a size set on a title, an
    annotation (iso-F1 labels, say), an axis, a legend or a trace's text (a confusion matrix's
    counts) ignores it. Sizes not set follow the layout font, which
    :func:`ui.views.show.finish` sets."""

    def grow(font) -> None:
        if font is not None and isinstance(font.size, int | float):
            font.size = max(round(font.size * factor, 1), floor)

    layout = fig.layout
    grow(layout.title.font)
    grow(layout.legend.font)
    grow(layout.legend.title.font)
    for annotation in layout.annotations:
        grow(annotation.font)
    for each in (fig.for_each_xaxis, fig.for_each_yaxis):
        each(lambda axis: (grow(axis.tickfont), grow(axis.title.font)))
    for trace in fig.data:
        for part in ("textfont", "insidetextfont", "outsidetextfont"):
            if part in trace:
                grow(trace[part])
