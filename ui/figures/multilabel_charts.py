"""The multi-label page's numbers and figures: pure functions, no Streamlit.

:func:`summarize_averaging` calls the library once for every number the page shows and records the
``UndefinedMetricWarning`` messages of each call (so the page can show them instead of the
console); the ``*_figure`` builders turn the results into plotly figures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import metrics
from metrics import ThresholdCounts
from ui.figures.charts import _BASE_LAYOUT, PALETTE, sample_indices
from ui.tables.class_scores import LRAP_VS_AP_EXAMPLE as LRAP_VS_AP_EXAMPLE
from ui.tables.class_scores import (
    MODES,
    AveragingSummary,
    ClassScores,
    capture,
)
from ui.tables.class_scores import PRESETS as PRESETS
from ui.tables.class_scores import SKLEARN_AP_EXAMPLE as SKLEARN_AP_EXAMPLE
from ui.tables.class_scores import problem_from_dataset as problem_from_dataset
from ui.tables.class_scores import summarize_averaging as summarize_averaging
from ui.words.numbers import count, decimals, exact_fraction
from ui.words.text import num

MODE_LINES = {
    "macro": "Mean of the per-class values: every class counts the same, however few positives "
    "it has. Macro AP is mAP.",
    "micro": "One binary problem over all n × C (row, class) cells pooled: every cell counts the "
    "same, so classes with many positives weigh more.",
    "weighted": "Per-class values averaged with weights w_c = positives of class c / positives of "
    "all classes (sample weights summed).",
    "samples": "One binary problem per row (its C labels ranked by that row's scores), averaged "
    "over the rows with the sample weights.",
    "per class": "Each class alone: its label column against its score column (one-vs-rest).",
}
LEFT_OUT = (
    "Where a value is undefined (AP with no positives, AUC with one class only) that class or "
    "row is left out of the average, with one warning."
)
MICRO_COLOR = "#222222"
AVERAGE_STYLES = {
    "macro": dict(color="#444444", dash="solid"),
    "weighted": dict(color="#9467bd", dash="dash"),
    "micro": dict(color="#222222", dash="dot"),
    "samples": dict(color="#8c564b", dash="dashdot"),
}


# --- formatting ------------------------------------------------------------------------------


def fmt(x: float) -> str:
    """A value to 4 decimals, with its exact fraction when it has a small one; NaN = undefined."""
    if not np.isfinite(x):
        return "undefined"
    f = exact_fraction(x, 200, whole=False)
    return decimals(x) + (f" = {f.numerator}/{f.denominator}" if f else "")


def tex(x: float, digits: int = 4) -> str:
    r"""A value for LaTeX: ``\tfrac{a}{b}`` when it is a small exact fraction."""
    if not np.isfinite(x):
        return r"\text{undefined}"
    f = exact_fraction(x, 200, whole=False)
    if f:
        return rf"\tfrac{{{f.numerator}}}{{{f.denominator}}}"
    x = float(x)
    return f"{int(x)}" if x.is_integer() else f"{x:.{digits}g}"


def per_class_table(sm: AveragingSummary) -> pd.DataFrame:
    """One row per class: positives, weight (share of positives), AP and AUC."""
    return pd.DataFrame(
        {
            "class": list(sm.classes),
            "positives": sm.positives,
            "weight w_c": sm.share,
            "AP": sm.ap_per_class,
            "AUC": sm.auc_per_class,
        }
    )


def averages_table(sm: AveragingSummary) -> pd.DataFrame:
    """One row per averaging mode with its AP and AUC (NaN where undefined)."""
    return pd.DataFrame(
        {
            "average": list(MODES),
            "AP": [sm.ap[m] for m in MODES],
            "AUC": [sm.auc[m] for m in MODES],
        }
    )


def row_breakdown(p: ClassScores, i: int) -> tuple[pd.DataFrame, dict[str, float]]:
    """Row ``i``'s labels ranked by score, with the precision LRAP takes at each relevant label
    (relevant labels scoring >= it / labels scoring >= it: ties count against it), and that
    row's LRAP, step AP and trapezoid AP from the library."""
    y, s = p.y[i], p.scores[i]
    order = np.argsort(-s, kind="stable")
    at_least = (s[None, :] >= s[:, None]).sum(axis=1)  # labels scoring >= each label
    relevant_at_least = ((s[None, :] >= s[:, None]) & y[None, :]).sum(axis=1)
    table = pd.DataFrame(
        {
            "class": np.asarray(p.classes)[order],
            "score": s[order],
            "relevant": y[order],
            "labels scoring ≥": at_least[order],
            "relevant scoring ≥": relevant_at_least[order],
        }
    )
    table["precision"] = np.where(
        table["relevant"], table["relevant scoring ≥"] / table["labels scoring ≥"], np.nan
    )
    values = {
        "lrap": capture(metrics.label_ranking_average_precision_score, y[None, :], s[None, :])[0],
        "ap": capture(metrics.average_precision_score, y, s)[0],
        "ap_trapezoid": capture(metrics.average_precision_score, y, s, method="trapezoid")[0],
    }
    return table, {k: float(v) for k, v in values.items()}


def row_explain_lines(p: ClassScores, i: int) -> tuple[list[str], str]:
    """LaTeX for row ``i`` (0-based; shown counting from 1, as the dashboard counts rows): its
    LRAP as the mean precision at each relevant label, and its step AP as the sum over its
    distinct scores of recall gain times precision."""
    table, values = row_breakdown(p, i)
    n = i + 1  # the row as the page numbers it
    relevant = table[table["relevant"]]
    if relevant.empty:
        return (
            [rf"\text{{LRAP}}_{{{n}}} = 1,\qquad \text{{AP}}_{{{n}}} = \text{{undefined}}"],
            f"Row {n} has no relevant label: LRAP scores it 1 and keeps it in its mean; AP has no "
            "positives to find, so the samples average leaves the row out.",
        )
    k = len(relevant)
    precisions = " + ".join(
        rf"\tfrac{{{a}}}{{{b}}}"
        for a, b in zip(relevant["relevant scoring ≥"], relevant["labels scoring ≥"], strict=True)
    )
    steps = metrics.ap_step_table(p.y[i], p.scores[i])
    gain = steps.delta_recall > 0
    terms = " + ".join(
        rf"{tex(d)}\cdot {tex(q)}"
        for d, q in zip(steps.delta_recall[gain], steps.precision[gain], strict=True)
    )
    lines = [
        rf"\text{{LRAP}}_{{{n}}} = \frac{{1}}{{|R|}}\sum_{{j \in R}}"
        rf"\frac{{|\{{k \in R: s_k \ge s_j\}}|}}{{|\{{k: s_k \ge s_j\}}|}} = "
        rf"\frac{{1}}{{{k}}}\left({precisions}\right) = {tex(values['lrap'])}",
        rf"\text{{AP}}_{{{n}}} = \sum_t (R_t - R_{{t-1}})\,P_t = {terms} = {tex(values['ap'])}",
        rf"\text{{AP}}_{{{n}}}^{{\text{{trapezoid}}}} = {tex(values['ap_trapezoid'])}"
        r"\quad\text{(scikit-learn before 0.19)}",
    ]
    note = (
        f"R = the {k} relevant labels of row {n}; s = the row's scores. In the AP sum, t runs over "
        "the row's distinct scores (a tie is one step) and P_t counts every label scoring ≥ t."
    )
    return lines, note


# --- explain lines for the averages ------------------------------------------------------------


def _sum(terms: list[str], max_terms: int = 8) -> str:
    if len(terms) > max_terms:
        terms = [*terms[: max_terms - 2], r"\dots", terms[-1]]
    return " + ".join(terms)


def average_explain_lines(
    sm: AveragingSummary, metric: str, mode: str
) -> tuple[list[str], list[str]]:
    """The formula of one averaging mode, then the same with this data's numbers; and the
    sentences of its note."""
    m = rf"\text{{{metric}}}"
    per_class = sm.ap_per_class if metric == "AP" else sm.auc_per_class
    value = (sm.ap if metric == "AP" else sm.auc)[mode]
    defined = np.isfinite(per_class)
    names = [c for c, ok in zip(sm.classes, defined, strict=True) if not ok]
    left_out = [f"{metric} left out as undefined: {', '.join(names)}."] if names else []
    if mode == "macro":
        k = int(defined.sum())
        line = (
            rf"{m}_{{\text{{macro}}}} = \frac{{1}}{{C}}\sum_c {m}_c = \frac{{1}}{{{k}}}\left("
            + _sum([tex(v) for v in per_class[defined]])
            + rf"\right) = {tex(value)}"
        )
        return [line], [*left_out, f"{metric}: C counts the {k} classes kept."] if names else []
    if mode == "weighted":
        kept = defined & (sm.positives > 0)
        w = sm.positives[kept] / sm.positives[kept].sum() if kept.any() else np.zeros(0)
        terms = [rf"{tex(a)}\cdot {tex(v)}" for a, v in zip(w, per_class[kept], strict=True)]
        lines = [
            rf"{m}_{{\text{{weighted}}}} = \sum_c w_c\,{m}_c,\qquad w_c = \frac{{P_c}}"
            r"{\sum_k P_k}",
            rf"= {_sum(terms)} = {tex(value)}" if terms else r"= \text{undefined}",
        ]
        renormalised = (~kept & (sm.positives > 0)).any()
        shared = [f"The {metric} weights are renormalised over the classes kept."]
        if not renormalised:
            shared = []
        positives = ", ".join(
            f"{c} {count(p)}" for c, p in zip(sm.classes, sm.positives, strict=True)
        )
        return lines, [f"P_c = positives of class c: {positives}.", *left_out, *shared]
    if mode == "micro":
        pooled = sm.pooled
        line = (
            rf"{m}_{{\text{{micro}}}} = {m}\big(\text{{all }} n \times C = {num(sm.n_rows)} "
            rf"\times {len(sm.classes)} \text{{ cells pooled: }} P = {num(pooled.n_pos)},\ "
            rf"N = {num(pooled.n_neg)}\big) = {tex(value)}"
        )
        return [line], [
            "One ranking of every (row, class) score; each cell is one example of a single binary "
            "problem.",
            "P and N: positive and negative cells (their sample weight when weighted).",
        ]
    # samples
    rows = sm.row_ap if metric == "AP" else sm.row_auc
    kept_rows = sm.n_rows_with_label if metric == "AP" else sm.n_rows_mixed
    lines = [rf"{m}_{{\text{{samples}}}} = \frac{{\sum_i v_i\,{m}_i}}{{\sum_i v_i}}"]
    if rows is not None and not sm.weighted:
        ok = np.isfinite(rows)
        lines.append(
            rf"= \frac{{1}}{{{int(ok.sum())}}}\left({_sum([tex(v) for v in rows[ok]])}\right)"
            rf" = {tex(value)}"
        )
    else:
        lines.append(rf"= {tex(value)}\quad\text{{over }} {num(kept_rows)} \text{{ rows}}")
    why = "a positive label" if metric == "AP" else "a positive and a negative label"
    return lines, [
        f"{metric}_i: row i's labels ranked by its scores.",
        "v_i: the row's sample weight (1 without weights).",
        f"{metric}: only the {kept_rows:,} row{'s' * (kept_rows != 1)} with {why} count.",
    ]


# --- figures ---------------------------------------------------------------------------------


def per_class_bar_figure(sm: AveragingSummary, metric: str = "AP") -> go.Figure:
    """Per-class AP (or AUC) bars, each class's weight under its name, and the macro,
    weighted, micro and samples averages as horizontal lines across the classes."""
    values = sm.ap_per_class if metric == "AP" else sm.auc_per_class
    averages = sm.ap if metric == "AP" else sm.auc
    classes = list(sm.classes)
    fig = go.Figure(
        go.Bar(
            x=classes,
            y=np.where(np.isnan(values), None, values),
            marker_color=[PALETTE[i % len(PALETTE)] for i in range(len(classes))],
            customdata=np.column_stack([sm.positives, sm.share]),
            name=f"{metric} per class",
            showlegend=False,
            hovertemplate=f"<b>%{{x}}</b><br>{metric} %{{y:.4f}}<br>positives "
            "%{customdata[0]:,.4g}<br>weight %{customdata[1]:.3f}<extra></extra>",
        )
    )
    for mode in MODES:
        value = averages[mode]
        if not np.isfinite(value):
            continue
        fig.add_trace(
            go.Scatter(
                x=classes, y=[value] * len(classes), mode="lines", name=f"{mode} {value:.4f}",
                line=dict(width=2, **AVERAGE_STYLES[mode]),
                hovertemplate=f"{mode} {metric} {value:.4f}<extra></extra>",
            )
        )  # fmt: skip
    finite = values[np.isfinite(values)]
    low = min([0.5, *finite.tolist(), *[v for v in averages.values() if np.isfinite(v)]])
    fig.update_layout(
        **_BASE_LAYOUT,
        height=380,
        xaxis=dict(
            tickmode="array",
            tickvals=classes,
            ticktext=[f"{c}<br>w={w:.2f}" for c, w in zip(classes, sm.share, strict=True)],
        ),
        yaxis=dict(title=metric, range=[max(0.0, low - 0.1), 1.02]),
        legend=dict(orientation="h", y=1.12, x=0, title_text="average:"),
        bargap=0.35,
    )
    return fig


def curve_points(counts: ThresholdCounts, kind: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(x, y) of a PR (recall, precision) or ROC (FPR, TPR) curve, at most about 2,000 points,
    from its first point (nothing predicted positive); None when the curve is undefined."""
    if counts.n_pos <= 0 or (kind == "roc" and counts.n_neg <= 0):
        return None
    idx = sample_indices(len(counts))
    tps, fps = counts.tps[idx].astype(np.float64), counts.fps[idx].astype(np.float64)
    recall = tps / counts.n_pos
    if kind == "roc":
        return np.concatenate(([0.0], fps / counts.n_neg)), np.concatenate(([0.0], recall))
    precision = np.divide(tps, tps + fps, out=np.zeros_like(tps), where=tps + fps > 0)
    return np.concatenate(([0.0], recall)), np.concatenate((precision[:1], precision))


def curves_figure(sm: AveragingSummary, kind: str = "pr") -> go.Figure:
    """Each class's PR (or ROC) curve, thin, and the micro curve of all pooled (row, class)
    cells, thick; areas from the library in the legend."""
    per_class = sm.ap_per_class if kind == "pr" else sm.auc_per_class
    label = "AP" if kind == "pr" else "AUC"
    fig = go.Figure()
    if kind == "roc":
        fig.add_trace(
            go.Scatter(
                x=[0, 1], y=[0, 1], mode="lines", name="chance (AUC 0.5)",
                line=dict(color="#999999", dash="dot"), hoverinfo="skip",
            )
        )  # fmt: skip
    else:
        prevalence = sm.pooled.n_pos / max(sm.pooled.n_pos + sm.pooled.n_neg, 1)
        fig.add_trace(
            go.Scatter(
                x=[0, 1], y=[prevalence] * 2, mode="lines",
                name=f"pooled prevalence {prevalence:.3f}",
                line=dict(color="#999999", dash="dot"), hoverinfo="skip",
            )
        )  # fmt: skip
    shape = "vh" if kind == "pr" else "linear"
    hover = (
        "recall %{x:.3f}<br>precision %{y:.3f}" if kind == "pr" else "FPR %{x:.3f}<br>TPR %{y:.3f}"
    )
    for c, (name, counts) in enumerate(zip(sm.classes, sm.counts, strict=True)):
        pts = curve_points(counts, kind)
        if pts is None:
            continue
        fig.add_trace(
            go.Scatter(
                x=pts[0], y=pts[1], mode="lines", name=f"{name} ({label} {per_class[c]:.3f})",
                line=dict(color=PALETTE[c % len(PALETTE)], width=1.5, shape=shape),
                opacity=0.75, hovertemplate=f"<b>{name}</b><br>{hover}<extra></extra>",
            )
        )  # fmt: skip
    pts = curve_points(sm.pooled, kind)
    if pts is not None:
        micro = sm.ap["micro"] if kind == "pr" else sm.auc["micro"]
        fig.add_trace(
            go.Scatter(
                x=pts[0], y=pts[1], mode="lines", name=f"micro: all cells pooled ({label} "
                f"{micro:.3f})", line=dict(color=MICRO_COLOR, width=4, shape=shape),
                hovertemplate=f"<b>micro</b><br>{hover}<extra></extra>",
            )
        )  # fmt: skip
    axis = dict(range=[-0.01, 1.01])
    fig.update_layout(
        **_BASE_LAYOUT,
        height=460,
        xaxis=dict(title="recall (TPR)" if kind == "pr" else "false positive rate", **axis),
        yaxis=dict(title="precision" if kind == "pr" else "true positive rate", **axis),
        legend=dict(x=1.02, y=1, xanchor="left", yanchor="top"),
    )
    return fig


def confusion_figure(sm: AveragingSummary, normalize: str = "counts") -> go.Figure:
    """The N x N confusion matrix of the arg-max class: rows true, columns predicted."""
    assert sm.confusion is not None
    counts = sm.confusion["counts"]
    shown = sm.confusion[normalize]
    n = len(sm.classes)
    if normalize == "counts":
        text = [[count(counts[i, j]) for j in range(n)] for i in range(n)]
    else:
        text = [
            [f"{shown[i, j]:.1%}<br>({count(counts[i, j])})" for j in range(n)] for i in range(n)
        ]
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=[f"pred {c}" for c in sm.classes],
            y=[f"true {c}" for c in sm.classes],
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=14 if n <= 6 else 10),
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(**_BASE_LAYOUT, height=max(320, 60 * n + 80))
    fig.update_yaxes(autorange="reversed")
    return fig


def top_k_figure(sm: AveragingSummary) -> go.Figure:
    """Top-k accuracy for k = 1..C as bars."""
    assert sm.top_k is not None
    ks = np.arange(1, sm.top_k.size + 1)
    fig = go.Figure(
        go.Bar(
            x=ks, y=sm.top_k, text=[f"{v:.3f}" for v in sm.top_k], textposition="outside",
            marker_color=PALETTE[0],
            hovertemplate="top-%{x} accuracy %{y:.4f}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=320,
        xaxis=dict(title="k", tickmode="array", tickvals=ks),
        yaxis=dict(title="top-k accuracy", range=[0, 1.1]),
    )
    return fig
