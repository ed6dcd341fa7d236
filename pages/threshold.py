"""Move a decision threshold and watch the confusion matrix and every rate change.

Laid out for a projector: at 1280x720 the slider, the confusion matrix and the operating point
on the ROC and PR curves are on screen together; the rates, presets and tables follow below. In
presentation mode (larger text) the four charts share one row under the controls, sized so that
all of them fit a 1280x720 screen.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from metrics.thresholds import choose_threshold
from ui.compute import data, thresholds
from ui.frame import presentation, shell
from ui.tables import score_state
from ui.views import show, threshold_drag
from ui.views.explain import explain, fraction, num
from ui.views.show import chart, csv_download, rows_behind
from ui.words.guarantee_text import guarantee_table, guarantee_words
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context()
counts = data.threshold_counts(ds.key, model, ds)  # one sort per (data, model), cached
low, high, step = thresholds.slider_range(ds, model)
scale = thresholds.scale(ds, model)
default_value, default_rule = thresholds.default(ds, model)
presenting = presentation.on()
# In presentation mode the charts' heights fit the row left under the controls and the class
# strip at 720 px.
CHART_HEIGHT = 262
STRIP_HEIGHT = 96 if presenting else 130

rule = (
    f"A row is predicted **{md(ds.positive_name)}** when its score is at least the threshold "
    f"({md(scale.title)} scale)."
)
st.subheader(f"Threshold · {md(model)}", anchor=False, help=rule if presenting else None)
if not presenting:
    st.caption(rule)
if counts.thresholds[0] == counts.thresholds[-1]:
    st.warning(
        f"Every score of {md(model)} is {counts.thresholds[0]:g}: a threshold can only predict "
        "all rows positive or all negative."
    )

state = data.state(ds, model)
if score_state.below_chance(state.auc, counts.n_pos, counts.n_neg, weighted=state.weighted):
    st.warning(
        score_state.inverted_hint(
            md(model), state.auc, md(ds.positive_name), md(ds.negative_name),
            md(ds.relabel) or None,
        ),
        icon=":material/swap_vert:",
    )  # fmt: skip

# "What if the classes came in another balance?": the prevalence control (beside the flagged
# count below) reweights the counts, so every number, chart and preset below follows it. A new
# table or model starts from the data's own balance.
rows_counts = counts  # the rows as they are: the class strip draws these
data_prevalence = float(counts.n_pos / (counts.n_pos + counts.n_neg)) if len(counts) else 0.0
can_reweight = bool(counts.n_pos > 0 and counts.n_neg > 0)
if st.session_state.get("threshold_prevalence_for") != (ds.key, model):
    st.session_state["threshold_prevalence_for"] = (ds.key, model)
    st.session_state.pop("threshold_prevalence", None)
prevalence = st.session_state.get("threshold_prevalence") if can_reweight else None
if prevalence is not None:
    counts = counts.at_prevalence(float(prevalence))

n_total = float(counts.n_pos + counts.n_neg)
flagged_at = counts.tps + counts.fps  # rows (weight) with score >= each distinct threshold
# Weighted counts are sums of weights: the page says "weight", never "rows", for them.
weighted = state.weighted or prevalence is not None


def amount(v: float) -> str:
    """A count of rows ("1,234"), or a sum of weights to two decimals ("1,004.5")."""
    return f"{v:,.2f}".rstrip("0").rstrip(".") if weighted else f"{v:,.0f}"


if presenting:  # the matrix's control joins the row: the four charts below share theirs
    mode_col, slider_col, reset_col, normalize_col = st.columns(
        [2.35, 3.35, 1, 3.3], vertical_alignment="bottom"
    )
else:  # the prevalence control joins the row (a projector has it beside the flagged count)
    mode_col, slider_col, reset_col, row_prevalence_col = st.columns(
        [2, 3.9, 1, 1.8], vertical_alignment="bottom"
    )
    normalize_col = None
if weighted and st.session_state.get("threshold_mode") == "top k":  # no "k rows" of weight
    st.session_state["threshold_mode"] = "top %"
with mode_col:
    mode = st.segmented_control(
        "Set it by",
        ["score", "top %"] if weighted else ["score", "top k", "top %"],
        default="score",
        key="threshold_mode",
        help=(
            "score: the threshold itself. top %: flag the highest-scored rows up to that share "
            "of the total weight (rows tied with the last one come in with it)."
            if weighted
            else "score: the threshold itself. top k / top %: flag that many of the "
            "highest-scored rows (rows tied with the last one come in with it)."
        ),
    )
with slider_col:
    if mode in ("top k", "top %"):
        if mode == "top k":
            wanted = st.slider(
                "Flag the top k rows", 1, int(n_total), min(100, int(n_total)), key="threshold_k"
            )
        else:
            pct = st.slider(
                "Flag the top percent of the weight" if weighted else "Flag the top percent",
                0.1, 100.0, 10.0, step=0.1, key="threshold_pct",
            )  # fmt: skip
            wanted = pct / 100 * n_total
        i = min(int(np.searchsorted(flagged_at, wanted - 1e-9)), len(counts) - 1)
        thresholds.set_clamped(model, low, high, counts.thresholds[i])
    else:
        # The shared value lives in ui.compute.thresholds (presets and other pages set it); the
        # slider has its own key, set from it on every run and written back when moved.
        st.session_state["threshold_slider"] = min(max(thresholds.current(ds, model), low), high)
        st.slider(
            "Threshold",
            min_value=low,
            max_value=high,
            step=step,
            format="%.3f" if scale.kind == "probability" else "%.4g",
            key="threshold_slider",
            on_change=thresholds.set_clamped,
            args=(model, low, high, None, "threshold_slider"),
            help=f"Default {default_value:.4g}: {default_rule}. Past the highest score nothing "
            "is predicted positive.",
        )
with reset_col:
    st.button(
        "Default",
        key="threshold_reset",
        on_click=thresholds.reset,
        args=(model,),
        help=f"Back to {default_value:.4g} ({default_rule}).",
        width="stretch",
    )

threshold = min(max(thresholds.current(ds, model), low), high)
shown_threshold = thresholds.label(ds, model, threshold)  # digits that keep the count true
c = counts.at(threshold)  # a lookup in the precomputed counts, never a recount
beta = float(st.session_state.get("threshold_beta", 1.0))
if presenting:
    line_col, prevalence_col = st.columns([4, 1.2], vertical_alignment="center")
else:
    line_col, prevalence_col = st.container(), row_prevalence_col
prevalence_col.number_input(
    "Prevalence",
    min_value=0.001,
    max_value=0.999,
    value=None,
    step=0.01,
    format="%.3f",
    key="threshold_prevalence",
    placeholder=f"{data_prevalence:.3f} (the data's)",
    disabled=not can_reweight,
    label_visibility="collapsed" if presenting else "visible",
    help="What if the positive class made up this share of the rows? Each positive row is "
    "reweighted by new / current prevalence and each negative by the same for the negative "
    "class (the total weight unchanged), as if the classes came in that balance with the "
    "same scores within each class. ROC and AUC do not move; precision, the PR curve, AP, "
    "F1, accuracy and the presets' thresholds do. Empty: the data as it is.",
)
line_col.markdown(
    f"Scores ≥ **{shown_threshold}** are predicted {md(ds.positive_name)}: "
    + (
        f"rows of weight **{amount(c.tp + c.fp)}** of the total {amount(n_total)}"
        if weighted
        else f"**{amount(c.tp + c.fp)}** of {amount(n_total)} rows"
    )
    + (" (none: the threshold is above every score)." if c.tp + c.fp == 0 else ".")
    + (
        f" Reweighted to prevalence **{float(prevalence):.3f}** (data {data_prevalence:.3f})."
        if prevalence is not None and presenting  # (the projector has no room for the caption)
        else ""
    )
)
if prevalence is not None and not presenting:
    st.caption(
        f"Reweighted to a prevalence of **{float(prevalence):.3f}** (the data's: "
        f"{data_prevalence:.3f}): each {md(ds.positive_name)} row counts "
        f"{float(prevalence) / data_prevalence:.3g} and each {md(ds.negative_name)} row "
        f"{(1 - float(prevalence)) / (1 - data_prevalence):.3g}. ROC and AUC stay put; "
        "precision, PR, AP and F1 move. The guaranteed presets still use the rows as they are."
    )


def _strip() -> None:
    """Each class's scores with the threshold as a line to drag on the chart itself; the
    matrix and both curve points follow it (ui.views.threshold_drag)."""
    threshold_drag.class_strip(
        rows_counts, model=model, low=low, high=high, step=step, threshold=threshold,
        positive_name=ds.positive_name, negative_name=ds.negative_name,
        whole=not state.weighted, height=STRIP_HEIGHT,
        font=12 * presentation.SCALE if presenting else 12,
    )  # fmt: skip


# On a projector the strip comes above the charts (the screen holds both); otherwise below
# them, so that at 1280x720 the slider, the matrix and the operating points stay on one screen.
if presenting:
    _strip()

if presenting:
    matrix_col, roc_col, pr_col, rates_col = st.columns(4)
else:
    matrix_col, roc_col, pr_col = st.columns([4, 3, 3])
    rates_col = None
with normalize_col or matrix_col:
    normalize = st.segmented_control(
        "Confusion matrix",
        options=["counts", "by actual", "by predicted"],
        default="counts",
        key="threshold_normalize",
        label_visibility="visible" if presenting else "collapsed",
    )
areas = data.areas(ds.key, model, ds)
if prevalence is not None:  # AUC does not move with the balance; AP does
    areas = {"auc": areas["auc"], "ap": counts.average_precision()}
figures = show.threshold_figures(
    ds.key if prevalence is None else (ds.key, "prevalence", float(prevalence)), model,
    threshold, normalize, beta, ds.positive_name, ds.negative_name, presenting, counts, areas,
)  # fmt: skip
if presenting:  # copies: the cached figures are shared by every presenting session
    figures = {
        name: go.Figure(fig).update_layout(height=CHART_HEIGHT) for name, fig in figures.items()
    }
    figures["rates"].update_layout(title=dict(text="Rates vs threshold", x=0))
    figures["rates"].update_xaxes(title_text="threshold")  # the long title runs out of a column
    figures["roc"].update_yaxes(title_text="TPR (recall)")  # the long one meets the title
    # A square ROC in a column narrower than tall: shrink the plot, never stretch the y range
    # past [0, 1] (plotly's default for an axis held to the other's scale).
    figures["roc"].update_yaxes(constrain="domain")
    figures["matrix"].update_layout(margin_t=34)  # the toolbar (on hover) above the cells
with matrix_col:
    chart(figures["matrix"], key="threshold_matrix", name=f"confusion-matrix-{model}")
with roc_col:
    chart(figures["roc"], key="threshold_roc", name=f"roc-{model}")
with pr_col:
    chart(figures["pr"], key="threshold_pr", name=f"precision-recall-{model}")
if not presenting:
    _strip()
if rates_col is not None:
    with rates_col:
        chart(figures["rates"], key="threshold_rates", name=f"rates-vs-threshold-{model}")


def _rate(value: float, defined: bool) -> str:
    return (
        f"{decimals(value, 3)}" if defined and math.isfinite(value) else "—"
    )  # the card's help says why


has_pos, has_neg = counts.n_pos > 0, counts.n_neg > 0
CARDS = [
    ("Precision", _rate(c.precision, True), "TP / (TP + FP); 0 when nothing is predicted positive"),
    ("Recall (TPR)", _rate(c.recall, has_pos), "TP / (TP + FN); undefined without positives"),
    ("FPR", _rate(c.fpr, has_neg), "FP / (FP + TN); undefined without negatives"),
    ("Specificity", _rate(c.specificity, has_neg), "TN / (TN + FP); undefined without negatives"),
    ("Prevalence", _rate(c.prevalence, True), "(TP + FN) / n"),
    ("Accuracy", _rate(c.accuracy, True), "(TP + TN) / n"),
    (
        "Balanced accuracy",
        _rate(c.balanced_accuracy, has_pos and has_neg),
        "(recall + specificity) / 2; undefined with one class",
    ),
    (f"F{beta:g}", _rate(c.f_beta(beta), True), "(1 + b²) TP / ((1 + b²) TP + b² FN + FP)"),
    ("MCC", _rate(c.mcc, True), "(TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN)); 0 if 0/0"),
    ("Cohen's kappa", _rate(c.cohen_kappa, True), "(p_o − p_e) / (1 − p_e)"),
]
# Presenting: one row of ten smaller cards (presentation.CARDS), whole under the charts on a
# 1280x720 screen (two rows of five cut the first in half at the screen's bottom edge); two
# long names are shortened there to fit a tenth of the row, and their help says them whole.
SHORT = {"Balanced accuracy": "Bal. acc.", "Cohen's kappa": "Cohen's κ"}
per_row, cards = (10, st.container(key=presentation.CARDS)) if presenting else (5, st)
for row in range(0, len(CARDS), per_row):
    for col, (name, value, formula) in zip(
        cards.columns(per_row), CARDS[row : row + per_row], strict=False
    ):
        short = SHORT.get(name) if presenting else None
        col.metric(short or name, value, help=f"{name}: {formula}" if short else formula)

b2 = beta * beta
kappa_chance = ((c.tp + c.fp) * (c.tp + c.fn) + (c.tn + c.fn) * (c.tn + c.fp)) / max(
    n_total, 1
) ** 2
explain(
    "these numbers",
    [
        fraction("precision", "TP", "TP + FP", c.tp, c.tp + c.fp),
        fraction("recall", "TP", "TP + FN", c.tp, c.tp + c.fn),
        fraction("FPR", "FP", "FP + TN", c.fp, c.fp + c.tn),
        fraction("specificity", "TN", "TN + FP", c.tn, c.tn + c.fp),
        fraction("accuracy", "TP + TN", "n", c.tp + c.tn, n_total),
        fraction("prevalence", "TP + FN", "n", c.tp + c.fn, n_total),
        rf"F_{{{beta:g}}} = \frac{{(1+\beta^2)\,TP}}{{(1+\beta^2)\,TP + \beta^2 FN + FP}} = "
        rf"\frac{{{num((1 + b2) * c.tp)}}}{{{num((1 + b2) * c.tp)} + {num(b2 * c.fn)} + "
        rf"{num(c.fp)}}} = {num(c.f_beta(beta))}",
        r"\text{MCC} = \frac{TP\cdot TN - FP\cdot FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}} = "
        rf"\frac{{{num(c.tp)}\cdot{num(c.tn)} - {num(c.fp)}\cdot{num(c.fn)}}}"
        rf"{{\sqrt{{{num(c.tp + c.fp)}\cdot{num(c.tp + c.fn)}\cdot{num(c.tn + c.fp)}\cdot"
        rf"{num(c.tn + c.fn)}}}}} = {num(c.mcc)}",
        r"\kappa = \frac{p_o - p_e}{1 - p_e},\quad p_o = \text{accuracy} = "
        rf"{num(c.accuracy)},\quad p_e = {num(kappa_chance)},\quad \kappa = {num(c.cohen_kappa)}",
    ],
    note=(
        f"TP, FP, TN, FN sum the weights of the rows at threshold {shown_threshold}; "
        f"n = {amount(n_total)} is the total weight. "
        if weighted
        else f"TP, FP, TN, FN count the rows at threshold {shown_threshold}; n = {n_total:,.0f}. "
    )
    + "p_e is the agreement expected by chance: the products of the predicted and actual class "
    "shares, summed over both classes. A ratio 0/0 is shown as 0, except the rates of a class "
    "the data does not have, which are undefined.",
)

PRESETS = {
    "Max F-beta": "max_f_beta",
    "Youden's J": "youden",
    "Precision ≥ target": "precision_at_least",
    "Recall ≥ target": "recall_at_least",
    "Recall ≥ target, guaranteed": "recall",
    "Precision ≥ target, guaranteed": "precision",
    "Least cost": "min_cost",
}
# The presets "with a guarantee" hold the metric's 95% bound, not its value on these rows, to
# the target (metrics.threshold_with_guarantee); the plain one beside them is the same metric's.
GUARANTEED = {"recall": "recall_at_least", "precision": "precision_at_least"}
with st.container(border=True):
    preset_cols = st.columns([2.4, 1, 1, 1, 1, 1], vertical_alignment="bottom")
    preset = preset_cols[0].selectbox("Jump to a preset", list(PRESETS), key="threshold_preset")
    beta = preset_cols[1].number_input(
        "F-beta: beta",
        min_value=0.0,
        max_value=10.0,
        value=1.0,
        step=0.25,
        key="threshold_beta",
        help="beta > 1 weighs recall more than precision; beta = 1 is F1.",
    )
    target = preset_cols[2].number_input(
        "Target",
        0.0,
        1.0,
        0.9,
        0.05,
        key="threshold_target",
        help="For the ≥ target presets; "
        "the guaranteed ones hold the metric's 95% confidence bound to it, not its value here.",
    )
    cost_fp = preset_cols[3].number_input("Cost of a FP", 0.0, value=1.0, key="threshold_cost_fp")
    cost_fn = preset_cols[4].number_input("Cost of a FN", 0.0, value=5.0, key="threshold_cost_fn")
    guarantee, why_not = None, ""
    if PRESETS[preset] in GUARANTEED:
        choice = choose_threshold(counts, GUARANTEED[PRESETS[preset]], target=target)
        if not 0 < target < 1:
            why_not = f"A guarantee needs a target strictly between 0 and 1, not {target:g}."
        else:
            try:
                guarantee = thresholds.guaranteed(ds.key, model, PRESETS[preset], float(target), ds)
            except ValueError as error:  # the library's one sentence (say, a missing group)
                why_not = str(error)
            if guarantee is None and not why_not:
                why_not = (
                    "A guarantee needs each row's weight (for the effective sample size), and "
                    "this table's weights were summed by its engine: load the rows to use it."
                )
        choice = replace(choice, threshold=guarantee.threshold if guarantee else None)
    else:
        choice = choose_threshold(
            counts, PRESETS[preset], beta=beta, target=target, cost_fp=cost_fp, cost_fn=cost_fn
        )
    preset_cols[5].button(
        "Apply",
        key="threshold_apply",
        disabled=choice.threshold is None,
        on_click=thresholds.set_clamped,
        args=(model, low, high, choice.threshold if choice.threshold is not None else 0.0),
        width="stretch",
    )
    if PRESETS[preset] in GUARANTEED:
        label = functools.partial(thresholds.label, ds, model)
        if guarantee is None:
            st.caption(md(why_not))
        else:
            st.markdown(guarantee_words(guarantee, label, amount, "weight" if weighted else "rows"))
            st.dataframe(guarantee_table(guarantee, label, amount), hide_index=True)
    elif choice.threshold is None:
        st.caption(f"No threshold reaches the target {target:g} for {preset.lower()}.")
    else:
        # What the preset maximised (or, for least cost, minimised), said by name.
        criterion = {
            "Max F-beta": f"F{beta:g}",
            "Youden's J": "J = TPR − FPR",
            "Precision ≥ target": f"recall, the highest with precision ≥ {target:g}",
            "Recall ≥ target": f"precision, the highest with recall ≥ {target:g}",
            "Least cost": "total cost, the least",
        }[preset]
        st.caption(
            f"{preset}: threshold {choice.threshold:.6g}, where {criterion} is {choice.value:.4g}."
        )

if rates_col is None:
    chart(figures["rates"], key="threshold_rates", name=f"rates-vs-threshold-{model}")


with st.expander("Rows behind the numbers", icon=":material/table_rows:"):
    if not shell.needs(ds, "rows", "Listing the rows behind a cell"):
        cell_col, range_col = st.columns([1, 2])
        score = ds.score(model)
        y_model, predicted = ds.labels_for(model), score >= threshold
        cells = {
            "TP: predicted and actual positive": predicted & y_model,
            "FP: predicted positive, actually negative": predicted & ~y_model,
            "FN: predicted negative, actually positive": ~predicted & y_model,
            "TN: predicted and actual negative": ~predicted & ~y_model,
            "a score range": None,
        }
        cell = cell_col.radio("Which rows", list(cells), key="threshold_rows_cell")
        mask = cells[cell]
        if mask is None:
            lo_s, hi_s = float(score.min()), float(score.max())
            chosen = range_col.slider(
                "Scores from / to", lo_s, hi_s if hi_s > lo_s else lo_s + 1, (lo_s, hi_s),
                key="threshold_rows_range",
            )  # fmt: skip
            mask = (score >= chosen[0]) & (score <= chosen[1])
            cell = f"with scores from {chosen[0]:.4g} to {chosen[1]:.4g}"
        rows_behind(ds.frame, ds.positions(mask), cell.split(":")[0], key="threshold_rows")


csv_download(
    f"Download the threshold table ({len(counts):,} thresholds, CSV)",
    functools.partial(thresholds.threshold_table, counts, beta),
    f"thresholds_{model}.csv",
    key="threshold_download",
)
